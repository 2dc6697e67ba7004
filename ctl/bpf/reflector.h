/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The XDP reflector (ebpf/reflect.bpf.c): MTG frames that arrive on a
 * device go back out of it, stamped in a test-point slot. Attached with
 * the kernel's netlink XDP hook (native mode where the driver has it) and
 * pinned under REFLECT_PIN_DIR, so that it outlives the mtgctl that
 * attached it (Documentation/ebpf.rst).
 */
#ifndef MTGCTL_REFLECTOR_H
#define MTGCTL_REFLECTOR_H

#include <stdint.h>

#include "bpf/probe.h"

#define REFLECT_PIN_DIR		"/sys/fs/bpf/mtg/reflect"
#define REFLECT_COUNTERS	6	/* enum reflect_counter (ebpf/reflect.h) */
#define REFLECT_FLOWS_MAX	4096	/* RFL_FLOWS_MAX (ebpf/reflect.h) */
/* RFL_DITG_RUN: the "flow" (0, PORT) is D-ITG's datagrams to PORT */
#define REFLECT_DITG_RUN	0

/* Where a reflector is; what it writes (slot: PROBE_ANY in a query). */
struct reflect_id {
	char dev[IDF_DEVNAME_MAX + 1];
	char netns[IDF_NETNS_MAX + 1];	/* "": the namespace mtgctl runs in */
	int slot;
	bool agreed_only;	/* reflect only the flows agreed (its "flows") */
};

/* A flow an agreed-only reflector sends back, and how many it has. */
struct reflect_flow_info {
	uint32_t run_id;
	uint32_t tg_id;
	uint64_t reflected;
};

struct reflect_info {
	struct reflect_id id;
	enum probe_state state;
	uint32_t prog_id;
	uint64_t counters[REFLECT_COUNTERS];	/* by enum reflect_counter */
	size_t nflows;				/* agreed_only: its flows */
	struct reflect_flow_info *flows;	/* malloc'd */
};

/* The counters' names (JSON keys), by enum reflect_counter. */
extern const char *const reflect_counter_names[REFLECT_COUNTERS];

/* Load, pin and attach a reflector; 0, or -errno (reported). */
int reflect_attach(const struct reflect_id *r);
/*
 * Detach mtg's reflector from r's device (dev "": every one), remove its
 * pins; how many into *n. 0, or -errno (reported); -ENOENT: none.
 */
int reflect_detach(const struct reflect_id *r, int *n);
/* mtg's reflectors (dev "": all), with counters and state; malloc'd. */
int reflect_list(const struct reflect_id *r, struct reflect_info **out,
		 size_t *n);
/* Free what reflect_list() gave. */
void reflect_info_free(struct reflect_info *info, size_t n);
/*
 * Let r's agreed-only reflector send back flow (run_id, tg_id), or (add
 * false) no longer; 0, or -errno (reported; -EEXIST, -ENOENT: already so).
 */
int reflect_agree(const struct reflect_id *r, uint32_t run_id,
		  uint32_t tg_id, bool add);

#endif /* MTGCTL_REFLECTOR_H */
