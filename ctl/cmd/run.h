/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Inside `mtgctl run`: the run and its TGs, shared by the command's files:
 * run.c (prepare, the loop, the end), run_tg.c (the TGs in the module:
 * tables, starts, restarts, kills), run_act.c (what keys, --commands and
 * the IDF's `ctrl` ask), run_view.c (progress lines, the dashboard's view,
 * the report and the summary).
 */
#ifndef MTGCTL_CMD_RUN_H
#define MTGCTL_CMD_RUN_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "cmd/cmd.h"
#include "idf/idf.h"
#include "module/iface.h"
#include "module/module.h"
#include "remote/sender.h"
#include "rx/listening.h"
#include "screen/cmdline.h"
#include "screen/dash.h"
#include "traffic/tables.h"
#include "util/clock.h"

#define POLL_NS		100000000ULL	/* counters read every 100 ms */
#define PROGRESS_NS	1000000000ULL	/* a progress line a second */
#define PROGRESS_TGS	4		/* more TGs: one aggregate line */
#define TABLE_ALIGN	64		/* each TG's table on a cache line */

struct run_tg {
	struct idf_tg *tg;
	struct tt tt;
	uint64_t table_offset;		/* bytes into the tables region */
	uint64_t ring_offset;		/* stream: its struct mtg_tt_ring */
	uint64_t produced;		/* stream: entries written */
	int netns_fd;			/* -1: our namespace; valid only while
					 * it starts (namespaces are released)
					 */
	uint32_t ifindex;
	uint32_t cpu;
	struct idf_addr src;		/* resolved */
	struct idf_addr dst;		/* resolved (`addr`) */
	struct mtg_tg_start start;	/* as sent; dst_mac as the module used */
	struct mtg_tg_stats st;		/* the last counters read */
	struct meter *m;		/* what came back; NULL: not listening */
	bool started;
	bool netns_deleted;		/* its namespace went away under us */
	double req_pps, req_bps;	/* the timetable's means */
	double rate_factor;		/* throughput changed from the keyboard */
	uint64_t begin;			/* its start (`time`), CLOCK_TAI */
	unsigned int starts;		/* started (again from the keyboard) */
	uint64_t stream_base;		/* stream: the entry at the ring's 0 */
	const struct idf_ctrl **ctrl;	/* its `ctrl` messages, by time */
	size_t nctrl, ctrl_next;	/* how many; the next one due */
	uint64_t ctrl_unsent;		/* of them: refused, or never due */
};

struct probe_info;

struct run {
	const struct run_opts *o;
	const char *file;
	struct idf_file f;
	struct run_tg *tgs;
	size_t ntgs;
	struct netns_cache ns;
	bool ns_released;		/* the T0 TGs started: a namespace is
					 * opened only to start a TG in it
					 */
	struct mtg_dev dev;
	struct listening ls;
	bool listening;			/* the IDF names interfaces */
	uint32_t run_id;
	uint64_t t0;			/* CLOCK_TAI ns */
	uint64_t tai_offset;		/* CLOCK_TAI - CLOCK_REALTIME, ns */
	uint64_t end;
	uint64_t table_bytes;
	FILE *say;			/* human lines: stdout, or stderr when
					 * stdout carries --json-stream */
	bool dash_on;			/* the curses dashboard */
	struct dash dash;
	struct dash_events ev;		/* dashboard and stream */
	struct dash_view view;
	uint64_t ev_since;		/* events already streamed */
	unsigned int quits;		/* 'q' pressed */
	const char *phase;
	struct cmd_input cmds;		/* --commands: standard input */
	struct rsend remote;		/* the TGs with a `rcvr` (TSP) */
	bool remote_lost;		/* a receiver went away in the run */
	struct probe_info *probes;	/* the IDF's `probe`s, in its order */
	size_t nprobes;			/* attached by the run, not detached */
	size_t nprobes_read;		/* detached, their last counters read */
};

/* `time user` TGs wait for the operator's SIGUSR1, at least this long ahead. */
#define USER_LEAD_NS	100000000ULL

/* The signal that ends the run (SIGINT, SIGTERM); 0 while none came. */
extern volatile sig_atomic_t stop_signal;

/* run.c */
const char *where(const struct run *r, const struct idf_tg *tg);
FILE *events_out(const struct run *r);

/* run_tg.c: the TGs in the module */
void write_tables(struct run *r);
void refill(struct run *r);
int start_tg(struct run *r, struct run_tg *t);
int restart_tg(struct run *r, struct run_tg *t);
int start_all(struct run *r, bool user);
void rate_record(struct run *r, const struct run_tg *t, uint32_t num,
		 uint32_t den, uint16_t by);
void announce_waiting(const struct run *r);
void release_netns(struct run *r);
void kill_all(struct run *r);

/* run_act.c: what keys, --commands and `ctrl` ask */
void carry_out(struct run *r, const struct dash_action *a);
void take_commands(struct run *r);
void ctrl_due(struct run *r, uint64_t now);
uint64_t ctrl_next_due(const struct run *r);
bool ctrl_pending(const struct run *r);
void ctrl_end(struct run *r);

struct summary_tg;

/* run_remote.c: the TGs agreed with remote receivers over TSP */
int remote_agree(struct run *r);
void remote_watch(struct run *r);
void remote_report(const struct run *r, FILE *f);
void remote_summary(const struct run *r, const struct run_tg *t,
		    struct summary_tg *out);

/* run_probe.c: the IDF's test-point probes */
int probes_attach(struct run *r);
void probes_detach(struct run *r);
void probes_report(const struct run *r, FILE *f);
struct jw;
/* "probes": the run's, their last counters (arg: the struct run). */
void probes_summary(struct jw *j, const void *arg);

/* run_host.c: one host's part of a managed file (--host, --hold) */
int run_hosts(struct run *r);
int hold_start(struct run *r);

/* run_view.c: what is shown */
void progress(const struct run *r, uint64_t now);
int build_view(struct run *r, uint64_t now, bool final);
void report(const struct run *r, FILE *f);
int write_summary(const struct run *r);

#endif /* MTGCTL_CMD_RUN_H */
