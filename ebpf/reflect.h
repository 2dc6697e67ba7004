/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The XDP reflector (reflect.bpf.c) and its loader (ctl/bpf/reflector.c)
 * share this: the counters' indices in the per-CPU array "counters", the
 * key of the map "flows". Read by the BPF program and by userspace.
 */
#ifndef MTG_EBPF_REFLECT_H
#define MTG_EBPF_REFLECT_H

#include <linux/types.h>

/* What became of a frame the reflector saw: one counter each, never two. */
enum reflect_counter {
	RFL_REFLECTED,	/* an MTG frame: stamped and sent back (or a
			 * D-ITG datagram of a port agreed: sent back)
			 */
	RFL_ALREADY_SET,	/* an MTG frame whose slot held a stamp (a
				 * reflection coming back, a probe's): passed
				 */
	RFL_NOT_MTG,	/* a frame parsed whole that is not MTG: passed */
	RFL_UNPARSED,	/* could not be parsed (truncated, fragment,
				 * IPv6 extension header, two VLAN tags): passed
				 */
	RFL_NOT_AGREED,	/* an MTG frame of a flow not in "flows", where
			 * the reflector takes only those: passed
			 */
	RFL_CSUM_BAD,	/* a D-ITG datagram whose UDP checksum is wrong,
			 * neither right nor partial: passed, as the
			 * stack would drop it before ITGRecv read it
			 */
	RFL_COUNTERS
};

/*
 * A flow the reflector may send back, where it takes only agreed ones:
 * the key of the hash map "flows" (its value: the frames reflected, u64).
 * Run RFL_DITG_RUN is D-ITG's (ITGSend -m rttm): every UDP datagram to
 * port tg_id that is no MTG frame goes back as it came, unstamped (D-ITG's
 * header has no slot), as ITGRecv sends it back. mtgctl never gives a run
 * id 0.
 */
struct reflect_flow {
	__u32 run_id;	/* host order */
	__u32 tg_id;
};

#define RFL_DITG_RUN	0

#define RFL_FLOWS_MAX	4096

#endif /* MTG_EBPF_REFLECT_H */
