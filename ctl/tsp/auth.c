// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * TSP's challenge-response (auth.h). The proofs are HMAC-SHA-256 from
 * OpenSSL's libcrypto, compared in constant time (CRYPTO_memcmp); the
 * nonces come from RAND_bytes.
 */
#include <endian.h>
#include <stdio.h>
#include <string.h>

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>

#include "tsp/auth.h"

/* which end's proof: the labels keep one from standing for the other */
static const char label_sender[] = "mtg-tsp auth sender";
static const char label_receiver[] = "mtg-tsp auth receiver";

void tsp_hs_init(struct tsp_handshake *h, enum tsp_dir self,
		 const struct tsp_key *k, const struct tsp_hello *sender,
		 const struct tsp_hello *receiver)
{
	memset(h, 0, sizeof(*h));
	h->self = self;
	h->key = *k;
	h->sender = *sender;
	h->receiver = *receiver;
	h->lifetime_ms = TSP_CHALLENGE_MS;
}

void tsp_hs_wipe(struct tsp_handshake *h)
{
	OPENSSL_cleanse(h, sizeof(*h));
}

/*
 * HMAC-SHA-256(key, label NUL, both hellos' major and minor as u16 BE,
 * the receiver's nonce, the sender's nonce, extra)
 */
static int proof_of(const struct tsp_handshake *h, const char *label,
		    const void *extra, size_t extra_len,
		    uint8_t mac[TSP_MAC_LEN])
{
	uint8_t data[sizeof(label_receiver) + 8 + 2 * TSP_NONCE_LEN + 8];
	uint8_t *p = data;
	uint16_t v[4] = {
		htobe16(h->sender.major), htobe16(h->sender.minor),
		htobe16(h->receiver.major), htobe16(h->receiver.minor),
	};
	unsigned int n = 0;
	size_t l = strlen(label) + 1;

	if (l > sizeof(label_receiver) || extra_len > 8)
		return -1;
	memcpy(p, label, l);
	p += l;
	memcpy(p, v, sizeof(v));
	p += sizeof(v);
	memcpy(p, h->nonce_r, TSP_NONCE_LEN);
	p += TSP_NONCE_LEN;
	memcpy(p, h->nonce_s, TSP_NONCE_LEN);
	p += TSP_NONCE_LEN;
	if (extra_len)
		memcpy(p, extra, extra_len);
	p += extra_len;
	if (!HMAC(EVP_sha256(), h->key.k, TSP_KEY_LEN, data,
		  (size_t)(p - data), mac, &n) || n != TSP_MAC_LEN)
		return -1;
	return 0;
}

static int proof(const struct tsp_handshake *h, const char *label,
		 uint8_t mac[TSP_MAC_LEN])
{
	return proof_of(h, label, NULL, 0, mac);
}

static bool seen(const struct tsp_handshake *h, const uint8_t *nonce)
{
	unsigned int i;

	for (i = 0; i < h->nseen; i++)
		if (!memcmp(h->seen[i], nonce, TSP_NONCE_LEN))
			return true;
	return false;
}

static int remember(struct tsp_handshake *h, const uint8_t *nonce,
		    char *why, size_t len)
{
	if (h->nseen == TSP_AUTH_NONCES) {
		snprintf(why, len, "more than %d nonces on one connection",
			 TSP_AUTH_NONCES);
		return TSP_ERR_UNEXPECTED;
	}
	memcpy(h->seen[h->nseen++], nonce, TSP_NONCE_LEN);
	return 0;
}

/* the peer's nonce into *into, unless this connection saw it: a replay */
static int take(struct tsp_handshake *h, const uint8_t *nonce,
		uint8_t *into, const char *who, char *why, size_t len)
{
	if (seen(h, nonce)) {
		snprintf(why, len, "%s a nonce this connection saw: a replay",
			 who);
		return TSP_ERR_AUTH_REPLAY;
	}
	memcpy(into, nonce, TSP_NONCE_LEN);
	return remember(h, nonce, why, len);
}

/* a fresh nonce: from RAND_bytes, and never one this connection saw */
static int fresh(struct tsp_handshake *h, uint8_t *nonce, char *why,
		 size_t len)
{
	if (RAND_bytes(nonce, TSP_NONCE_LEN) != 1 || seen(h, nonce)) {
		snprintf(why, len, "no fresh nonce from OpenSSL's RAND_bytes");
		return TSP_ERR_INTERNAL;
	}
	return remember(h, nonce, why, len);
}

int tsp_hs_challenge(struct tsp_handshake *h, uint64_t now_ns,
		     struct tsp_msg *out, char *why, size_t len)
{
	int r;

	memset(out, 0, sizeof(*out));
	r = fresh(h, h->nonce_r, why, len);
	if (r)
		return r;
	h->challenged = true;
	h->authenticated = false;
	h->expires_ns = now_ns + (uint64_t)h->lifetime_ms * 1000000;
	out->type = TSP_CHALLENGE;
	memcpy(out->u.challenge.nonce, h->nonce_r, TSP_NONCE_LEN);
	out->u.challenge.lifetime_ms = h->lifetime_ms;
	return 0;
}

int tsp_hs_answer(struct tsp_handshake *h, const struct tsp_msg *challenge,
		  struct tsp_msg *out, char *why, size_t len)
{
	int r;

	memset(out, 0, sizeof(*out));
	r = take(h, challenge->u.challenge.nonce, h->nonce_r,
		 "the receiver's challenge repeats", why, len);
	if (r)
		return r;
	r = fresh(h, h->nonce_s, why, len);
	if (r)
		return r;
	out->type = TSP_AUTH;
	memcpy(out->u.auth.nonce, h->nonce_s, TSP_NONCE_LEN);
	if (proof(h, label_sender, out->u.auth.mac)) {
		snprintf(why, len, "HMAC-SHA-256 failed in OpenSSL");
		return TSP_ERR_INTERNAL;
	}
	h->challenged = true;
	h->authenticated = false;
	return 0;
}

int tsp_hs_verify(struct tsp_handshake *h, uint64_t now_ns,
		  const struct tsp_msg *auth, struct tsp_msg *out, char *why,
		  size_t len)
{
	uint8_t mac[TSP_MAC_LEN];
	int r;

	memset(out, 0, sizeof(*out));
	if (!h->challenged) {
		snprintf(why, len, "an answer to no challenge: none is "
			 "outstanding (each is answered once)");
		return TSP_ERR_UNEXPECTED;
	}
	h->challenged = false;		/* answered, whatever the outcome */
	if (now_ns > h->expires_ns) {
		snprintf(why, len, "the challenge expired: answered %llu ms "
			 "after its %u ms lifetime ended",
			 (unsigned long long)(now_ns - h->expires_ns) / 1000000,
			 h->lifetime_ms);
		return TSP_ERR_AUTH_EXPIRED;
	}
	r = take(h, auth->u.auth.nonce, h->nonce_s, "the sender's answer "
		 "repeats", why, len);
	if (r)
		return r;
	if (proof(h, label_sender, mac)) {
		snprintf(why, len, "HMAC-SHA-256 failed in OpenSSL");
		return TSP_ERR_INTERNAL;
	}
	if (CRYPTO_memcmp(mac, auth->u.auth.mac, TSP_MAC_LEN)) {
		OPENSSL_cleanse(mac, sizeof(mac));
		snprintf(why, len, "the sender's proof is wrong: not the "
			 "receiver's key");
		return TSP_ERR_AUTH_FAILED;
	}
	out->type = TSP_AUTH_OK;
	if (proof(h, label_receiver, out->u.auth_ok)) {
		snprintf(why, len, "HMAC-SHA-256 failed in OpenSSL");
		return TSP_ERR_INTERNAL;
	}
	h->authenticated = true;
	return 0;
}

int tsp_hs_confirm(struct tsp_handshake *h, const struct tsp_msg *ok,
		   char *why, size_t len)
{
	uint8_t mac[TSP_MAC_LEN];
	int r = 0;

	if (!h->challenged) {
		snprintf(why, len, "a proof for no answer: none is "
			 "outstanding");
		return TSP_ERR_UNEXPECTED;
	}
	h->challenged = false;
	if (proof(h, label_receiver, mac)) {
		snprintf(why, len, "HMAC-SHA-256 failed in OpenSSL");
		r = TSP_ERR_INTERNAL;
	} else if (CRYPTO_memcmp(mac, ok->u.auth_ok, TSP_MAC_LEN)) {
		snprintf(why, len, "the receiver's proof is wrong: it does "
			 "not hold the key");
		r = TSP_ERR_AUTH_FAILED;
	}
	OPENSSL_cleanse(mac, sizeof(mac));
	h->authenticated = !r;
	return r;
}

/* the label of a log's datagram key: no longer than the proofs' */
static const char label_log[] = "mtg-tsp log udp";

_Static_assert(sizeof(label_log) <= sizeof(label_receiver), "label fits");

int tsp_hs_log_key(const struct tsp_handshake *h, uint32_t log_id,
		   uint8_t key[TSP_KEY_LEN])
{
	uint32_t id = htobe32(log_id);

	if (!h->authenticated)
		return -1;
	return proof_of(h, label_log, &id, sizeof(id), key);
}

int tsp_log_mac(const uint8_t key[TSP_KEY_LEN], const void *p, size_t n,
		uint8_t mac[TSP_MAC_LEN])
{
	unsigned int k = 0;

	if (!HMAC(EVP_sha256(), key, TSP_KEY_LEN, p, n, mac, &k) ||
	    k != TSP_MAC_LEN)
		return -1;
	return 0;
}

bool tsp_log_mac_ok(const uint8_t key[TSP_KEY_LEN], const void *p, size_t n,
		    const uint8_t mac[TSP_MAC_LEN])
{
	uint8_t want[TSP_MAC_LEN];
	bool ok;

	ok = !tsp_log_mac(key, p, n, want) &&
	     !CRYPTO_memcmp(want, mac, TSP_MAC_LEN);
	OPENSSL_cleanse(want, sizeof(want));
	return ok;
}
