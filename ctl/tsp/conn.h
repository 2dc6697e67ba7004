/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * One TSP connection over TCP (Documentation/tsp.rst): messages sent
 * whole within a time limit, the peer's bytes decoded as they come, and
 * the sender's side of the opening (hello, challenge, proofs). The
 * policies of the ends (consent, flows) are theirs, not this file's.
 */
#ifndef MTGCTL_TSP_CONN_H
#define MTGCTL_TSP_CONN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "tsp/auth.h"
#include "tsp/wire.h"

#define TSP_PORT_DEFAULT	9000	/* ITGRecv's */
#define TSP_PEER_NAME		(46 + 8)	/* "[v6 addr]:port" */

struct tsp_conn {
	int fd;			/* non-blocking; -1: closed */
	enum tsp_dir self;	/* which end we are */
	struct tsp_stream in;	/* the peer's bytes, decoded */
	uint8_t buf[4096];	/* read, not yet fed */
	size_t off, len;
	bool eof;		/* the peer closed its side */
	bool ditg;		/* D-ITG's TSP: no error message, closed on */
	char peer[TSP_PEER_NAME];	/* "192.0.2.1:9000" */
};

/* fd (connected) becomes the connection; it is made non-blocking. */
void tsp_conn_init(struct tsp_conn *c, int fd, enum tsp_dir self,
		   const char *peer);
void tsp_conn_close(struct tsp_conn *c);

/* "192.0.2.1:9000", "[2001:db8::1]:9000" */
void tsp_sockaddr_str(const void *sa, char *buf, size_t size);

/* m sent whole within timeout_ms: 0, or -1 with why. */
int tsp_conn_send(struct tsp_conn *c, const struct tsp_msg *m, int timeout_ms,
		  char *why, size_t len);
/*
 * A TSP_ERROR with code, about and text, sent as well as it can be; to a
 * D-ITG peer nothing (its TSP has no such message: it is closed on).
 */
void tsp_conn_error(struct tsp_conn *c, uint16_t code, uint8_t about,
		    const char *text);
/*
 * Read what the socket holds (it never waits): bytes read, 0 at the
 * peer's end, -errno (-EAGAIN: nothing yet).
 */
ssize_t tsp_conn_fill(struct tsp_conn *c);
/*
 * The next whole message of what was read: 1 (*m, free it with
 * tsp_msg_free), 0 (more is needed), -1 (why: the decoder's error, or
 * the peer's end inside a message).
 */
int tsp_conn_next(struct tsp_conn *c, struct tsp_msg *m, char *why,
		  size_t len);
/* The next message within timeout_ms: 1, or -1 with why (the time
 * passed, the peer's end, a bad message). */
int tsp_conn_recv(struct tsp_conn *c, struct tsp_msg *m, int timeout_ms,
		  char *why, size_t len);

/* What an NTP-style exchange tells of the receiver's clock. */
struct tsp_clock {
	bool valid;
	int64_t offset_ns;		/* receiver's CLOCK_TAI - sender's */
	uint64_t uncertainty_ns;	/* half the best exchange's round trip */
	uint64_t rtt_ns;		/* that round trip, the receiver's time
					 * between the two stamps taken out */
	unsigned int samples;
};

#define TSP_CLOCK_SAMPLES	8

/*
 * The sender's side: n exchanges of TSP_TIME_REQ and _RESP, the one of
 * the shortest round trip kept (NTP's clock filter): the offset
 * ((t2 - t1) + (t3 - t4)) / 2 is within half that round trip of the true
 * one while neither clock drifts. 0, or -1 with why.
 */
int tsp_clock_estimate(struct tsp_conn *c, unsigned int n, int timeout_ms,
		       struct tsp_clock *out, char *why, size_t len);

/*
 * The sender's opening: connect to host (an address) and port within
 * timeout_ms, hellos, the challenge answered, the receiver's proof
 * checked. 0 with *c ready for flows, or -1 with why (what the receiver
 * said, when it said something) and *c closed.
 */
int tsp_dial(struct tsp_conn *c, int family, const uint8_t *addr,
	     uint16_t port, const struct tsp_key *key, int timeout_ms,
	     char *why, size_t len);

/*
 * tsp_dial, the authenticated handshake kept in *keep (keys derived from
 * it, tsp_hs_log_key; wipe it with tsp_hs_wipe).
 */
int tsp_dial_hs(struct tsp_conn *c, int family, const uint8_t *addr,
		uint16_t port, const struct tsp_key *key, int timeout_ms,
		struct tsp_handshake *keep, char *why, size_t len);

/*
 * D-ITG's opening with an unmodified ITGRecv at addr:port: TSP_CONNECT,
 * TSP_ACK_CONNECT, no authentication (D-ITG has none). 0, or -1 with why
 * and *c closed.
 */
int tsp_dial_ditg(struct tsp_conn *c, int family, const uint8_t *addr,
		  uint16_t port, int timeout_ms, char *why, size_t len);

#endif /* MTGCTL_TSP_CONN_H */
