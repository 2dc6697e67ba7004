/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Between the parts of `mtgctl recv`: recv.c (the daemon: connections,
 * mtg's senders, the loop) and recv_ditg.c (D-ITG's senders, let in by
 * --allow-ditg).
 */
#ifndef MTGCTL_CMD_RECV_H
#define MTGCTL_CMD_RECV_H

#include <stdio.h>

#include "cmd/cmd.h"
#include "remote/consent.h"
#include "remote/rrun.h"
#include "tsp/serve.h"

struct peer {
	struct tsp_conn c;
	struct tsp_opening op;
	bool ditg;			/* a D-ITG sender, let in */
	struct rrun **runs;
	size_t nruns;
	size_t nflows;
};

struct daemon {
	const struct recv_opts *o;
	struct tsp_key key;
	struct consent consent;
	struct consent ditg_from;	/* --allow-ditg: its addresses */
	struct rtt_set rtt;		/* the reflectors of round trips */
	struct rrun_cfg cfg;
	int lfd;
	struct peer *peers[TSP_PEERS_MAX];
	size_t npeers;
	uint64_t nflows;		/* across peers */
	uint64_t refused_conns;		/* over TSP_PEERS_MAX */
	FILE *say;
};

/* recv.c */
void recv_say(struct daemon *d, const struct peer *p, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
int recv_send(struct peer *p, const struct tsp_msg *m, char *why, size_t len);
/* The flow that takes D-ITG's packets to port (they have no run id), or
 * NULL. */
const struct rflow *ditg_port_taken(const struct daemon *d, uint16_t port);
/* The run taken from the peer's (not freed). */
void take_run(struct daemon *d, struct peer *p, struct rrun *run);

/* recv_ditg.c */
/* The peer's address is one of --allow-ditg's. */
bool ditg_allowed(const struct daemon *d, const struct peer *p);
/* TSP_CONNECT from an allowed D-ITG sender: answered, the session open. */
int ditg_open(struct daemon *d, struct peer *p, char *why, size_t len);
/* A message of an open D-ITG session: 0, 1 released, -1 (why) to drop. */
int ditg_message(struct daemon *d, struct peer *p, const struct tsp_msg *m,
		 char *why, size_t len);
/* The flows closed a second ago: ended, their close answered; 0 or -1. */
int ditg_due(struct daemon *d, struct peer *p, uint64_t now, char *why,
	     size_t len);

#endif /* MTGCTL_CMD_RECV_H */
