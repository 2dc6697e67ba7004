/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A log at the log server (`mtgctl logd`, Documentation/tsp.rst "The log
 * server"): the client's end. The records a receiver takes, as its
 * recording would hold them, go to logd in batches over the TSP
 * connection, or over UDP in datagrams each with its MAC; at the end the
 * client says how many it sent, and logd says how many it wrote and how
 * many were lost on the way.
 */
#ifndef MTGCTL_REMOTE_LOGC_H
#define MTGCTL_REMOTE_LOGC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "tsp/conn.h"
#include "uapi/mtg.h"

/* Where a receiver's records are logged (`--log`). */
struct logc_cfg {
	const char *to;		/* logd's ADDR[:PORT]; NULL: no log */
	bool udp;		/* the records over UDP */
	const char *key;	/* the key file */
	const char *name;	/* the host the log is filed under; NULL:
				 * this host's name */
};

struct logc {
	struct tsp_conn c;
	bool udp;
	int ufd;			/* UDP: connected to logd's port */
	uint32_t log_id;
	uint8_t key[TSP_KEY_LEN];	/* UDP: the datagrams' */
	uint8_t *buf;			/* the batch being filled */
	size_t n, max;			/* its records; at most */
	uint64_t seq;			/* batches sent */
	uint64_t sent;			/* records in them */
	uint64_t not_sent;		/* records taken, never sent */
	bool failed;			/* the log is gone: said once */
	bool done;			/* logd's last word came: */
	struct tsp_log_done result;
};

/*
 * Open a log for run_id (0: every run) with the recording's metadata
 * (len bytes of JSON): connect, authenticate, TSP_LOG_OPEN, its ack.
 * 0 with *out, or -1 (said why).
 */
int logc_open(struct logc **out, const struct logc_cfg *cfg, uint32_t run_id,
	      const char *meta, size_t len);
/* One record (host order) into the log: sent when a batch is full. */
void logc_add(struct logc *l, const struct mtg_rx_rec *r);
/* Send what is batched now. */
void logc_flush(struct logc *l);
/*
 * The end: the last batch, TSP_LOG_CLOSE with the counts (ring_drops and
 * end_ns as the recording's header has them), logd's TSP_LOG_DONE. 0, or
 * -1 (said why; the log is incomplete at logd).
 */
int logc_close(struct logc *l, uint64_t ring_drops, uint64_t end_ns);
/* A line: what was sent, what logd wrote and lost. */
void logc_report(const struct logc *l, FILE *out);
/* Records that did not reach logd's file, or no word from it. */
bool logc_lost_any(const struct logc *l);
void logc_free(struct logc *l);

#endif /* MTGCTL_REMOTE_LOGC_H */
