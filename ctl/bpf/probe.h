/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Test-point probes (ebpf/tp.bpf.c): attached as tc filters of a clsact
 * qdisc, pinned under PROBE_PIN_DIR so that they outlive the mtgctl that
 * attached them and the next one finds them (Documentation/ebpf.rst).
 */
#ifndef MTGCTL_PROBE_H
#define MTGCTL_PROBE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "idf/idf.h"

#define PROBE_PIN_DIR	"/sys/fs/bpf/mtg/probe"
#define PROBE_SLOTS	IDF_PROBE_SLOTS	/* mtg_hdr.tp_ns[] */
#define PROBE_COUNTERS	5		/* enum tp_counter (ebpf/tp.h) */
#define PROBE_ANY	(-1)		/* a filter's slot or direction: any */

/* Where a probe is and what it writes. */
struct probe_id {
	char dev[IDF_DEVNAME_MAX + 1];
	char netns[IDF_NETNS_MAX + 1];	/* "": the namespace mtgctl runs in */
	int egress;			/* 0 ingress, 1 egress; PROBE_ANY */
	int slot;			/* 0..PROBE_SLOTS - 1; PROBE_ANY */
};

/* What became of a probe's filter since it was attached. */
enum probe_state {
	PROBE_ATTACHED,		/* there, with our program */
	PROBE_DETACHED,		/* the device is there, the filter is not */
	PROBE_REPLACED,		/* a filter with our numbers runs another program */
	PROBE_NO_DEVICE,	/* the device is gone */
	PROBE_NO_NETNS,		/* the namespace is gone */
};

struct probe_info {
	struct probe_id id;
	enum probe_state state;
	uint32_t prog_id;		/* the pinned program's id */
	uint64_t counters[PROBE_COUNTERS];	/* by enum tp_counter */
};

/* The counters' names (JSON keys), by enum tp_counter. */
extern const char *const probe_counter_names[PROBE_COUNTERS];
/* A state's name: "attached", "detached", "replaced", "no device", ... */
const char *probe_state_name(enum probe_state s);
/* "DEV@NETNS ingress slot K" into buf. */
const char *probe_name(const struct probe_id *p, char *buf, size_t size);

struct jw;
/* A probe's line, "DEV@NETNS ingress slot K: attached, stamped N, ...". */
void probe_info_print(FILE *f, const struct probe_info *p);
/* A probe as a JSON object: where, state, program, counters. */
void probe_info_json(struct jw *j, const struct probe_info *p);

/* Load, pin and attach one probe; 0, or -errno (reported: what, where). */
int probe_attach(const struct probe_id *p);
/*
 * Detach every probe of mtg that p matches (PROBE_ANY: any slot or
 * direction) and remove its pins; how many into *n. 0, or -errno
 * (reported); -ENOENT: none matched.
 */
int probe_detach(const struct probe_id *p, int *n);
/*
 * Every probe of mtg (dev "": on any device; else the ones p matches),
 * with its counters and state, into a malloc'd array. 0 or -errno.
 */
int probe_list(const struct probe_id *p, struct probe_info **out, size_t *n);

#endif /* MTGCTL_PROBE_H */
