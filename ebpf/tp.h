/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The test-point probe (tp.bpf.c) and its loader (ctl/bpf/probe.c) share
 * this: the counters' indices in the per-CPU array "counters", and the tc
 * filter the probe lives in. Only enums and macros: it is read by the BPF
 * program (with vmlinux.h) and by userspace (with the system's headers).
 */
#ifndef MTG_EBPF_TP_H
#define MTG_EBPF_TP_H

/* What became of a frame the probe saw: one counter each, never two. */
enum tp_counter {
	TP_STAMPED,	/* an MTG frame: its slot written, UDP checksum fixed */
	TP_ALREADY_SET,	/* an MTG frame whose slot held a stamp: left alone */
	TP_NOT_MTG,	/* a frame parsed whole that is not MTG: passed */
	TP_UNPARSED,	/* could not be parsed (truncated, fragment, IPv6
			 * extension header, two VLAN tags, GSO): passed
			 */
	TP_FAILED,	/* an MTG frame the kernel would not let the probe
			 * write (skb not writable): passed unstamped
			 */
	TP_COUNTERS
};

#define TP_SLOTS	4	/* mtg_hdr.tp_ns[] */

/*
 * The tc filter a probe is: clsact hook, this priority, handle
 * TP_TC_HANDLE + slot. mtg detaches only a filter with these numbers whose
 * program is the one it pinned.
 */
#define TP_TC_PRIO	0x4d54		/* "MT" */
#define TP_TC_HANDLE	0x4d544700	/* "MTG" and the slot */

#endif /* MTG_EBPF_TP_H */
