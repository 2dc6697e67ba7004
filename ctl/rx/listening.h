/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A command's receiving side, shared by `run` and `listen`: the
 * interfaces to listen on, the recording, the receiver (receive.h), and
 * what they counted, from start to end.
 */
#ifndef MTGCTL_LISTENING_H
#define MTGCTL_LISTENING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "bpf/xdprx.h"
#include "idf/idf.h"
#include "module/iface.h"
#include "module/module.h"
#include "rx/conns.h"
#include "rx/receive.h"
#include "rx/recording.h"

/*
 * The recording reaches the disk this often (or when its 1 MiB buffer is
 * full): what a killed mtgctl can lose (Documentation/recording-format.rst).
 */
#define LISTEN_FLUSH_NS	100000000ULL	/* 100 ms */

struct netns_cache;
struct summary_rx;

/*
 * A command's receiving side from start to end: its interfaces, the
 * recording, the receiver, and what they counted.
 */
struct listening {
	struct listen_dev *devs;
	size_t ndevs;
	const char *out;		/* the recording's path, or NULL */
	struct recorder rec;
	bool recording;			/* rec is open */
	struct logc_cfg log_cfg;	/* the log at logd (--log), if .to */
	struct logc *log;		/* open from listening_begin() */
	bool write_failed;		/* reported: the run must end */
	struct receiver rx;
	struct xdp_rx *xdp;		/* listen --xdp: the source, not rx.dev */
	struct xdp_rx_passed passed;	/* the XDP receiver's, at the end */
	struct conn_rx *conns;		/* listen --accept; NULL: none */
	struct mtg_rx_stats st;		/* the module's, at the end */
	bool ctrl_events_only;		/* the control queue carried events
					 * alone: its drops lose no data (a
					 * run whose TGs sent no control
					 * message) */
	uint32_t module_lost;		/* the session's ifaces_lost, as seen */
	size_t nlost;			/* of devs, lost */
	const char **lost_names;	/* their names, in the order lost */
	uint64_t next_flush;		/* CLOCK_TAI */
	uint64_t idle_ns;		/* the next wait when idle */
};

/*
 * Find the interfaces (a DEV without @NETNS is in default_netns, "" for
 * ours). 0, or -errno with every problem reported.
 */
int listening_resolve(struct listening *ls, const struct idf_listen *l,
		      size_t n, const char *default_netns,
		      struct netns_cache *nc);
/* Create the recording (before anything else starts). */
int listening_create(struct listening *ls, const char *path, bool force);
/* The session is under way: a forced recording replaces the old one now. */
void listening_commit(struct listening *ls);
/* After the device's rings are mapped: record run_id (0: all), listen. */
int listening_attach(struct listening *ls, struct mtg_dev *d,
		     uint32_t run_id, bool pass, uint64_t t0);
/* Instead of listening_attach: no interface (listen --accept alone). */
void listening_attach_none(struct listening *ls, uint64_t t0);
/*
 * Instead of listening_attach: the XDP receiver on every interface, a
 * ring of `records` each (listen --xdp).
 */
int listening_attach_xdp(struct listening *ls, uint32_t run_id, bool pass,
			 uint64_t records, uint64_t t0);
/*
 * Write the recording's header; open the log at logd (log_cfg.to) with
 * the same metadata: 0, or -errno (said why).
 */
int listening_begin(struct listening *ls, const struct rec_meta *mi);
/*
 * Take what the rings hold, flush the recording now and then (every
 * LISTEN_FLUSH_NS), notice interfaces that went away (an event line
 * each). The records taken, or -errno when the rings cannot be read. A
 * write error is reported once and sets write_failed.
 */
int64_t listening_poll(struct listening *ls, uint64_t now);
/* Write what the recording buffers now (before a progress line). */
void listening_sync(struct listening *ls, uint64_t now);
/* Every interface listened on went away: nothing more can arrive. */
bool listening_all_lost(const struct listening *ls);
/* Wait before the next look: short after traffic, longer when idle. */
void listening_wait(struct listening *ls, int64_t got);
/* Part of a progress line: records, header-corrupt, ring drops, file. */
void listening_progress(const struct listening *ls, FILE *out);
/* The end: the module's counters, the recording finished, the log closed
 * (its outcome in listening_report). 0 or -errno (the recording's first
 * error, reported). */
int listening_end(struct listening *ls, uint64_t end_ns);
/* The final lines: what was received, what the recording holds. */
void listening_report(const struct listening *ls, FILE *out);
void listening_summary(const struct listening *ls, struct summary_rx *out);
/*
 * A receive-only summary (listen, recv) at path: a TG per flow metered,
 * in the order met. 0 or -errno.
 */
int listening_summary_write(const struct listening *ls, const char *path,
			    const char *command, uint32_t run_id,
			    uint64_t start, uint64_t end, bool interrupted);
/*
 * Something was lost that mtg should have counted (ring, queue), or an
 * interface went away (what it would have received counts as lost).
 */
bool listening_lost_any(const struct listening *ls);
/* Nothing was run: remove the recording if we created it. */
void listening_abandon(struct listening *ls);
void listening_free(struct listening *ls);

#endif /* MTGCTL_LISTENING_H */
