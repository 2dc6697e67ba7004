/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A run a remote sender asked `mtgctl recv` to receive: its flows (each
 * consented to), the module session that listens for it, its recording
 * and summary in the output directory, each flow's result for TSP.
 */
#ifndef MTGCTL_REMOTE_RRUN_H
#define MTGCTL_REMOTE_RRUN_H

#include <limits.h>
#include <net/if.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "module/module.h"
#include "remote/rtt.h"
#include "rx/listening.h"
#include "tsp/wire.h"

/* How a flow is received, beside where. */
struct rflow_how {
	int rtt_slot;			/* meter rtt: reflected, stamped in
					 * this slot; -1: one way */
	uint16_t ditg_port;		/* D-ITG's header, known by this
					 * port; 0: MTG's */
	bool ditg_rtt;			/* D-ITG's -m rttm: its datagrams to
					 * ditg_port sent back by the
					 * reflector (rtt.h), not recorded */
};

struct rflow {
	uint32_t id;			/* the flow id: the sender's TG id */
	char *json;			/* the TG, compact JSON, checked */
	char dev[IF_NAMESIZE];		/* where it arrives */
	struct meter *m;		/* once the run started */
	struct rflow_how how;
	bool closed;			/* the sender closed it */
};

struct rrun {
	uint32_t run_id;
	struct rflow *flows;
	size_t nflows;
	struct mtg_dev dev;		/* opened at the first flow */
	struct listening ls;
	bool started;			/* TSP_START came: recording */
	uint64_t t0;			/* the sender's T0, CLOCK_TAI */
	int64_t offset_ns;		/* the sender's estimate of our clock */
	uint64_t uncertainty_ns;	/* 0: none */
	uint64_t close_by;		/* D-ITG's: its sender closed it; it
					 * ends then (CLOCK_TAI); 0: open */
	char path[PATH_MAX];		/* the recording */
	char summary[PATH_MAX];		/* its summary */
};

/* Where a run's files go and how it listens. */
struct rrun_cfg {
	const char *dir;		/* output directory */
	const char *device;		/* the module's device file */
	uint64_t ring;			/* receive ring records */
	const char *key_path;		/* recorded with the run */
	FILE *say;			/* event lines */
	uint64_t clock_shift_ns;	/* added to the receive stamps */
	struct logc_cfg log;		/* each run logged at logd (log.to) */
	struct rtt_set *rtt;		/* the reflectors of round trips */
};

/*
 * A new run: the module's session opened (the receive path: a flow is
 * refused `bind` when it cannot be). NULL with why.
 */
struct rrun *rrun_new(const struct rrun_cfg *c, uint32_t run_id, char *why,
		      size_t len);
/*
 * The TG JSON of a request: valid JSON whose "id" is the flow id and
 * whose "dst" port is the request's, what it measures ("meter": one way,
 * or round trips with "rtt_slot") and its "header" (MTG's or D-ITG's). 0
 * with *compact (malloc'd) and *how, or -1 with why.
 */
int rrun_tg_check(const struct tsp_flow_req *r, uint32_t flow_id,
		  char **compact, struct rflow_how *how, char *why,
		  size_t len);
/*
 * The flow (compact JSON taken over) added; a round trip's reflection
 * agreed already (rtt_reflect). 0, or -1 out of memory.
 */
int rrun_add(struct rrun *run, uint32_t id, char *json, const char *dev,
	     const struct rflow_how *how);
struct rflow *rrun_flow(struct rrun *run, uint32_t id);
/*
 * TSP_START: listen on the flows' interfaces (and D-ITG's ports), the
 * recording created (never over another) and begun. 0, or -1 with why.
 */
int rrun_start(const struct rrun_cfg *c, struct rrun *run,
	       const struct tsp_start *st, const char *sender, char *why,
	       size_t len);
/* Take what the rings hold (a started run). */
void rrun_poll(struct rrun *run, uint64_t now);
/*
 * A flow's result for TSP_RESULT; a round trip's "received" is what its
 * reflector sent back.
 */
void rrun_result(const struct rrun_cfg *c, const struct rrun *run,
		 const struct rflow *f, bool incomplete,
		 struct tsp_result *out);
bool rrun_all_closed(const struct rrun *run);
/*
 * The end: the recording finished and its summary written (interrupted
 * when incomplete), a line saying so, its round trips no longer
 * reflected; everything freed.
 */
void rrun_end(const struct rrun_cfg *c, struct rrun *run, bool incomplete,
	      const char *sender, const char *why);

#endif /* MTGCTL_REMOTE_RRUN_H */
