/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The answering end of TSP connections, for the daemons (`mtgctl recv`,
 * `mtgctl logd`): the listening sockets, connections taken up to a
 * limit, and each connection's opening (hellos, challenge, the peer's
 * proof checked, ours sent) with its time limit. What a session does
 * once open is the daemon's.
 */
#ifndef MTGCTL_TSP_SERVE_H
#define MTGCTL_TSP_SERVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "tsp/auth.h"
#include "tsp/conn.h"

#define TSP_PEERS_MAX	256	/* connections a daemon holds at once */
/* hello to proof, at most: past the challenge's lifetime, so that a late
 * answer is told it is late (auth-expired) */
#define TSP_OPEN_MS	(TSP_CHALLENGE_MS + 5000)
#define TSP_SERVE_SEND_MS 2000	/* a peer that takes nothing that long goes */

/*
 * A socket of type (SOCK_STREAM: listening; SOCK_DGRAM) on port of bind
 * (an IPv4 or IPv6 address; NULL: every address, IPv4 and IPv6),
 * non-blocking. The fd, or -1 with why.
 */
int tsp_serve_socket(const char *bind, uint16_t port, int type, char *why,
		     size_t len);

/*
 * The next connection waiting on lfd: its fd (non-blocking) and its peer
 * name, or -1 when none waits. While held connections are at max, each
 * new one is closed at once, counted in *refused and said on say (the
 * first, then every 1000th).
 */
int tsp_serve_accept(int lfd, size_t held, size_t max, uint64_t *refused,
		     FILE *say, char *peer, size_t plen);

enum tsp_open_state { TSP_OPEN_HELLO, TSP_OPEN_AUTH, TSP_OPEN_DONE };

/* One connection's opening, at the answering end. */
struct tsp_opening {
	enum tsp_open_state state;
	struct tsp_handshake hs;	/* kept: keys derive from it */
	uint64_t by_ms;			/* monotonic: the opening's end */
};

void tsp_opening_init(struct tsp_opening *o);
void tsp_opening_wipe(struct tsp_opening *o);
/*
 * A message of a connection whose opening is not done: the hello
 * answered (ours and a challenge), or the proof checked (ours sent: done).
 * 0 to go on; -1 with why to drop the connection (its TSP_ERROR sent; a
 * D-ITG opening gets none, ITGSend reads no error).
 */
int tsp_opening_step(struct tsp_conn *c, struct tsp_opening *o,
		     const struct tsp_key *key, const struct tsp_msg *m,
		     char *why, size_t len);
/*
 * The opening is not done and its time is over: the peer is told (and
 * why says it), true; else false.
 */
bool tsp_opening_expired(struct tsp_conn *c, const struct tsp_opening *o,
			 uint64_t now_ms, char *why, size_t len);

/*
 * A daemon's answer to one message of an open session: 0 to go on, 1
 * when the session ended as it should, -1 (why) to drop the connection.
 */
typedef int (*tsp_on_msg)(void *daemon, void *peer, const struct tsp_msg *m,
			  char *why, size_t len);

/*
 * What a connection's peer sent, read (it never waits), each whole
 * message to on_msg(daemon, peer, ...): 0, or -1 to drop the connection (why; "" when the
 * session ended as it should). A message that does not decode, or the
 * peer's end inside one, is answered TSP_ERROR malformed.
 */
int tsp_serve_read(struct tsp_conn *c, tsp_on_msg on_msg, void *daemon,
		   void *peer, char *why, size_t len);

/* TSP_ERROR code about a message, then the connection is to end: -1,
 * why "NAME: text". */
int tsp_refuse(struct tsp_conn *c, uint16_t code, uint8_t about,
	       const char *text, char *why, size_t len);

#endif /* MTGCTL_TSP_SERVE_H */
