/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The sender's side of TSP in `mtgctl run` (Documentation/tsp.rst): every
 * TG with a `rcvr` is agreed with its receiver before anything is sent
 * (one authenticated connection a receiver), started at T0, watched for
 * a receiver that goes away, and closed with the receiver's figures. A
 * `rcvr ditg` is an unmodified ITGRecv: D-ITG's signalling, which has no
 * key, no T0 and no figures to send back.
 */
#ifndef MTGCTL_REMOTE_SENDER_H
#define MTGCTL_REMOTE_SENDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "idf/idf.h"
#include "traffic/tables.h"
#include "tsp/conn.h"

#define RSEND_TIMEOUT_MS	10000	/* a receiver's answer, at most */
#define RSEND_DITG_CONNS	400	/* an ITGRecv's connections in its life */

struct rsend_rcvr {
	struct idf_addr addr;		/* port set */
	char name[TSP_PEER_NAME];
	struct tsp_conn c;
	bool ditg;			/* an ITGRecv: D-ITG's signalling */
	bool up;			/* authenticated, not gone */
	bool failed;			/* not reached (or same as one not) */
	struct tsp_clock setup;		/* its clock, before the run */
	struct tsp_clock teardown;	/* and after */
	bool lost;			/* went away in the run */
	char why[400];			/* why it went away */
};

/* A TG agreed with a remote receiver. */
struct rsend_flow {
	const struct idf_tg *tg;
	const struct tt *tt;
	struct idf_addr dst;		/* resolved */
	uint16_t src_port;
	double bps, pps;		/* the timetable's means */
	struct rsend_rcvr *rcvr;
	bool acked;
	bool closed;			/* its close acknowledged */
	bool have_result;
	struct tsp_result res;		/* what the receiver measured */
	char why[480];			/* no result: why */
};

struct rsend {
	struct tsp_key key;
	struct rsend_rcvr *rcvrs;
	size_t nrcvrs;
	struct rsend_flow *flows;
	size_t nflows;
};

/* Add a TG with a rcvr (before rsend_agree). 0, or -1 out of memory. */
int rsend_add(struct rsend *s, const struct idf_tg *tg, const struct tt *tt,
	      const struct idf_addr *dst, uint16_t src_port, double bps,
	      double pps);
/*
 * Load the key, connect to every receiver, authenticate, request every
 * flow and wait for each answer. 0 when every flow is accepted; else -1,
 * everything said on stderr, every connection released: nothing may be
 * sent.
 */
int rsend_agree(struct rsend *s, const char *key_path, uint32_t run_id);
/* Tell every receiver the run starts at t0 (CLOCK_TAI). */
void rsend_start(struct rsend *s, uint32_t run_id, uint64_t t0);
/*
 * Look at the connections without waiting: a receiver that closed, reset
 * or sent an error is lost (its why set); the number newly lost.
 */
size_t rsend_poll(struct rsend *s);
/*
 * A flow is open at an ITGRecv, which writes its log when the flow is
 * closed and drops what arrives after: the run drains before closing.
 */
bool rsend_ditg_open(const struct rsend *s);
/* Close every flow, collect the results, release, disconnect. */
void rsend_finish(struct rsend *s);
/* Release and disconnect without results (nothing was started). */
void rsend_abort(struct rsend *s);
void rsend_free(struct rsend *s);

#endif /* MTGCTL_REMOTE_SENDER_H */
