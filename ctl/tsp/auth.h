/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * TSP's consent (Documentation/tsp.rst): a pre-shared key from a private
 * file, and the challenge-response both ends run on it: HMAC-SHA-256
 * (OpenSSL's libcrypto) over both hellos' versions and a fresh nonce from
 * each end, the receiver's proof answering the sender's. A connection
 * never accepts a nonce twice; a challenge is answered once, in its
 * lifetime.
 */
#ifndef MTGCTL_TSP_AUTH_H
#define MTGCTL_TSP_AUTH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tsp/wire.h"

#define TSP_KEY_LEN		32	/* bytes: 64 hexadecimal digits */
#define TSP_AUTH_NONCES		16	/* nonces a connection remembers */
#define TSP_CHALLENGE_MS	10000	/* a challenge's default lifetime */

struct tsp_key {
	uint8_t k[TSP_KEY_LEN];
};

/*
 * The key in the file at path: 64 hexadecimal digits and an optional
 * newline (`openssl rand -hex 32`). Refused, like ssh does, if group or
 * others may read or write the file, or if it belongs to someone else
 * than the user or root. 0, or -1 with err.
 */
int tsp_key_load(const char *path, struct tsp_key *k, char *err, size_t len);
void tsp_key_wipe(struct tsp_key *k);

/* one connection's authentication, at either end */
struct tsp_handshake {
	enum tsp_dir self;
	struct tsp_key key;
	struct tsp_hello sender, receiver;	/* the hellos as sent */
	uint8_t nonce_r[TSP_NONCE_LEN], nonce_s[TSP_NONCE_LEN];
	bool challenged;	/* receiver: a challenge awaits its answer;
				 * sender: an answer awaits the proof */
	uint64_t expires_ns;	/* receiver: the challenge's end */
	uint32_t lifetime_ms;
	bool authenticated;
	unsigned int nseen;
	uint8_t seen[TSP_AUTH_NONCES][TSP_NONCE_LEN];
};

/*
 * The handshake's outcome: 0, or the TSP_ERROR code to answer with
 * (TSP_ERR_AUTH_FAILED, _AUTH_REPLAY, _AUTH_EXPIRED, _UNEXPECTED,
 * _INTERNAL), why in text.
 */
void tsp_hs_init(struct tsp_handshake *h, enum tsp_dir self,
		 const struct tsp_key *k, const struct tsp_hello *sender,
		 const struct tsp_hello *receiver);
void tsp_hs_wipe(struct tsp_handshake *h);
/* receiver: a fresh challenge, now_ns on a monotonic clock */
int tsp_hs_challenge(struct tsp_handshake *h, uint64_t now_ns,
		     struct tsp_msg *out, char *why, size_t len);
/* sender: the answer to a challenge */
int tsp_hs_answer(struct tsp_handshake *h, const struct tsp_msg *challenge,
		  struct tsp_msg *out, char *why, size_t len);
/* receiver: the sender's answer checked; *out its own proof */
int tsp_hs_verify(struct tsp_handshake *h, uint64_t now_ns,
		  const struct tsp_msg *auth, struct tsp_msg *out, char *why,
		  size_t len);
/* sender: the receiver's proof checked */
int tsp_hs_confirm(struct tsp_handshake *h, const struct tsp_msg *ok,
		   char *why, size_t len);

/*
 * A log's datagram key (Documentation/tsp.rst, The log server): once the
 * handshake h succeeded, HMAC-SHA-256(key, "mtg-tsp log udp" NUL ||
 * versions || Nr || Ns || log_id u32 BE), which both ends compute and
 * neither sends. 0, or -1 (not authenticated, OpenSSL failed).
 */
int tsp_hs_log_key(const struct tsp_handshake *h, uint32_t log_id,
		   uint8_t key[TSP_KEY_LEN]);
/* A datagram's MAC, HMAC-SHA-256(key, its n bytes at p): 0 or -1. */
int tsp_log_mac(const uint8_t key[TSP_KEY_LEN], const void *p, size_t n,
		uint8_t mac[TSP_MAC_LEN]);
/* The MAC mac is p's under key (compared in constant time). */
bool tsp_log_mac_ok(const uint8_t key[TSP_KEY_LEN], const void *p, size_t n,
		    const uint8_t mac[TSP_MAC_LEN]);

#endif /* MTGCTL_TSP_AUTH_H */
