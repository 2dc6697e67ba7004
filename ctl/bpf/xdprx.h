/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The XDP receiver (ebpf/rx.bpf.c): `listen --xdp` records MTG frames on
 * devices without the module. Unlike the reflector it lives only as long
 * as the mtgctl that loaded it: a BPF link per device, not pinned, which
 * the kernel detaches when its last file descriptor closes (at exit,
 * however mtgctl ends). The records come through a BPF ring buffer per
 * device, each sample a struct mtg_rx_rec or struct mtg_ctrl_rec.
 */
#ifndef MTGCTL_XDPRX_H
#define MTGCTL_XDPRX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "module/iface.h"
#include "uapi/mtg.h"

/* Ring buffer bytes per record the module's ring would hold (--ring). */
#define XDPRX_BYTES_PER_RECORD	128

struct xdp_rx;

/* What takes a sample: 0, or -errno to stop (the poll returns it). */
typedef int (*xdp_rx_take)(void *arg, const void *data, size_t size);

/*
 * Load the receiver for each device (its record's iface: its index in
 * devs; run_id 0: every run; pass: let MTG frames on), attach it, a ring
 * of `records` (a power of two) each. Every problem is reported; 0, or
 * -errno with nothing left attached.
 */
int xdp_rx_open(struct xdp_rx **out, struct listen_dev *devs, size_t n,
		uint32_t run_id, bool pass, uint64_t records, xdp_rx_take take,
		void *arg);
/* Take what the rings hold; the samples taken, or the -errno take gave. */
int64_t xdp_rx_poll(struct xdp_rx *x);
/* What the receiver passed on without a record, besides other runs'. */
struct xdp_rx_passed {
	uint64_t not_mtg;	/* parsed whole, not MTG */
	uint64_t unparsed;	/* could not be parsed */
};

/* The counters, summed over devices and CPUs: the module's, and *passed. */
void xdp_rx_stats(const struct xdp_rx *x, struct mtg_rx_stats *st,
		  struct xdp_rx_passed *passed);
/* The stamp the devices' programs can take: "hw" (some may), or "tai". */
const char *xdp_rx_stamp(const struct xdp_rx *x);
/* Detach and unload everything. NULL is nothing. */
void xdp_rx_close(struct xdp_rx *x);

#endif /* MTGCTL_XDPRX_H */
