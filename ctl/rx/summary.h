/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The run summary: the JSON file `mtgctl run --json` and `mtgctl listen
 * --json` write (format "mtgctl-summary", Documentation/mtgctl.rst
 * describes every field).
 */
#ifndef MTGCTL_SUMMARY_H
#define MTGCTL_SUMMARY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "rx/conns.h"
#include "rx/hist.h"
#include "rx/meter.h"
#include "tsp/conn.h"
#include "tsp/wire.h"
#include "uapi/mtg.h"

#define SUMMARY_FORMAT		"mtgctl-summary"
#define SUMMARY_VERSION		1

struct summary_tg {
	uint32_t id;
	uint32_t run_id;
	const struct mtg_tg_stats *st;	/* sending side; NULL for listen */
	const struct meter *m;		/* receiving side; NULL: not listened */
	const char *dev;
	const char *netns;		/* NULL: the caller's namespace */
	const char *mode;
	const char *path;
	const uint8_t *dst_mac;		/* 6 bytes, as the module used it */
	uint64_t ctrl_unsent;		/* `ctrl` messages not sent */
	unsigned int starts;		/* 1, more if started again */
	bool netns_deleted;		/* its namespace was deleted under it */
	const char *rcvr;		/* its remote receiver (TSP), or NULL */
	const struct tsp_result *remote;	/* what it measured, or NULL */
	const char *remote_why;		/* no figures: why */
	bool remote_ditg;		/* an ITGRecv: D-ITG's signalling */
	bool remote_closed;		/* its close was acknowledged */
	const struct tsp_clock *clock_setup;	/* the receiver's clock */
	const struct tsp_clock *clock_teardown;
};

struct listen_dev;
struct logc;

/* The receive path, when something listened. */
struct summary_rx {
	struct mtg_rx_stats st;		/* the module's counters at the end */
	uint64_t hdr_corrupt;		/* records whose header failed its CRC */
	uint64_t unknown;		/* records of no TG of the run */
	const char *recording;		/* path, or NULL */
	uint64_t written;		/* records in the recording */
	uint64_t not_written;		/* records it could not take */
	uint64_t extras;		/* extra entries in the recording */
	uint64_t extras_lost;		/* extra entries it could not take */
	const struct listen_dev *devs;	/* the interfaces: which went away */
	size_t ndevs;
	bool xdp;			/* the XDP receiver's counters, and: */
	uint64_t not_mtg;		/* frames not MTG it passed on */
	uint64_t unparsed;		/* frames it could not parse, passed */
	bool conns;			/* listen --accept's counters, and: */
	struct conn_stats conn;
	const struct logc *log;		/* the log at logd, or NULL */
};

struct jw;

struct summary {
	const char *command;		/* "run" or "listen" */
	const char *file;		/* the IDF, or NULL */
	uint32_t run_id;		/* 0: every run (listen) */
	uint64_t start_ns;		/* T0 / start of listening, CLOCK_TAI */
	uint64_t end_ns;		/* the end, CLOCK_TAI */
	bool interrupted;
	const struct summary_tg *tgs;
	size_t ntgs;
	const struct summary_rx *rx;	/* NULL: nothing listened */
	/* the command's own keys after the others (run's probes), or NULL */
	void (*more)(struct jw *j, const void *arg);
	const void *more_arg;
};

/* The lateness percentiles of a TG's counters. */
void lateness_from_stats(const struct mtg_tg_stats *st,
			 struct hist_summary *l);
/* The one-way delay percentiles of a meter. */
void owd_of_meter(const struct meter *m, struct hist_summary *l);

/*
 * A flow's receiving side in words: "R received, L lost, ..." and its
 * one-way delay; sent < 0 when unknown (lost then counts the gaps).
 */
void meter_print(FILE *f, const struct meter *m, int64_t sent);

/* Write path atomically (a temporary file, then rename). 0 or -errno. */
int summary_write(const char *path, const struct summary *s);

#endif /* MTGCTL_SUMMARY_H */
