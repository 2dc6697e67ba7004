/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The XDP reflector (reflect.bpf.c) and its loader (ctl/bpf/reflect.c)
 * share this: the counters' indices in the per-CPU array "counters". Only
 * enums and macros: read by the BPF program and by userspace.
 */
#ifndef MTG_EBPF_REFLECT_H
#define MTG_EBPF_REFLECT_H

/* What became of a frame the reflector saw: one counter each, never two. */
enum reflect_counter {
	RFL_REFLECTED,	/* an MTG frame: stamped and sent back */
	RFL_ALREADY_SET,	/* an MTG frame whose slot held a stamp (a
				 * reflection coming back, a probe's): passed
				 */
	RFL_NOT_MTG,	/* a frame parsed whole that is not MTG: passed */
	RFL_UNPARSED,	/* could not be parsed (truncated, fragment,
				 * IPv6 extension header, two VLAN tags): passed
				 */
	RFL_COUNTERS
};

#endif /* MTG_EBPF_REFLECT_H */
