/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * mtgctl listen --accept: the messages of TGs over a connection (TCP,
 * SCTP, DCCP; Documentation/abi.rst, "TGs over a connection"), read from
 * the sockets here and handed to the receiver as the records the module
 * makes of datagrams (Documentation/mtgctl.rst, "listen").
 */
#ifndef MTGCTL_CONNS_H
#define MTGCTL_CONNS_H

#include <stdint.h>
#include <sys/socket.h>

#include "rx/receive.h"

#define CONN_SPECS_MAX	8
/* A record of a connection's message: no interface of the session's */
#define CONN_IFACE	0xffff

/* Where to accept: PROTO:ADDR:PORT, as given. */
struct conn_spec {
	int type;			/* SOCK_STREAM or SOCK_DCCP */
	int protocol;			/* IPPROTO_TCP, _SCTP, _DCCP */
	struct sockaddr_storage addr;
	socklen_t alen;
	char text[96];			/* as given */
};

/* What the connections came to, for the report and the summary. */
struct conn_stats {
	uint64_t accepted;		/* connections */
	uint64_t ended;			/* closed by the sender, cleanly */
	uint64_t cut;			/* ended inside a message */
	uint64_t not_mtg;		/* messages with no MTG header */
	uint64_t other_runs;		/* messages of runs not recorded */
	uint64_t errors;		/* connections ended by an error */
};

struct conn_rx;

/* "tcp:ADDR:PORT" (IPv6 in brackets), sctp or dccp: NULL, or what is wrong. */
const char *conn_spec_parse(const char *s, struct conn_spec *out);
/* Listen on each, for run run_id (0: every run); 0 or -errno, said. */
int conn_rx_open(struct conn_rx **out, const struct conn_spec *specs,
		 size_t n, uint32_t run_id);
/* Accept, read, and give x a record per whole message: how many, or -errno. */
int64_t conn_rx_poll(struct conn_rx *c, struct receiver *x);
void conn_rx_stats(const struct conn_rx *c, struct conn_stats *st);
void conn_rx_close(struct conn_rx *c);

#endif /* MTGCTL_CONNS_H */
