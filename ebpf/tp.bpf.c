// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tp: a test-point probe. A tc (clsact) program for any interface, ingress
 * or egress: an MTG frame that passes gets a CLOCK_TAI stamp in test-point
 * slot `slot` of its header (mtg_hdr.tp_ns[slot]) unless the slot holds one
 * already, and its UDP checksum follows. Nothing else of any frame changes;
 * the probe never decides a frame's fate (TC_ACT_UNSPEC: the next filter,
 * or the stack, goes on). Each frame is counted once, by what became of it.
 *
 * The header's CRC covers its bytes 0..MTG_HDR_CRC_LEN - 1; the slots are
 * bytes 56..87: a stamp leaves the CRC valid (Documentation/ebpf.rst).
 */
#include "mtg_parse.h"
#include "tp.h"

#define TC_ACT_UNSPEC	(-1)	/* pkt_cls.h's: not in BTF */

/* Set by the loader before the program is loaded. */
const volatile __u32 slot = 0;		/* tp_ns[slot], 0..TP_SLOTS - 1 */
const volatile bool l2_eth = true;	/* frames begin with Ethernet; else
					 * with IP (skb->protocol says which)
					 */

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, TP_COUNTERS);
	__type(key, __u32);
	__type(value, __u64);
} counters SEC(".maps");

static __always_inline int count(__u32 what)
{
	__u64 *c = bpf_map_lookup_elem(&counters, &what);

	if (c)
		(*c)++;
	return TC_ACT_UNSPEC;
}

static __always_inline long mtg_load(void *ctx, __u32 off, void *to,
				     __u32 len)
{
	return bpf_skb_load_bytes(ctx, off, to, len);
}

SEC("tc")
int tp(struct __sk_buff *skb)
{
	__be64 zero = 0, stamp, old;
	struct mtg_where w;
	__s64 diff;
	__u32 at;
	__u64 now;

	/* A GSO packet carries several datagrams: only the first is visible. */
	if (skb->gso_size)
		return count(TP_UNPARSED);
	switch (mtg_parse(skb, skb->len, l2_eth, (__be16)skb->protocol, &w)) {
	case MTG_FRAME:
		break;
	case MTG_NOT_MTG:
		return count(TP_NOT_MTG);
	default:
		return count(TP_UNPARSED);
	}

	at = mtg_slot_at(&w, slot);
	if (bpf_skb_load_bytes(skb, at, &old, sizeof(old)))
		return count(TP_UNPARSED);
	if (old)
		return count(TP_ALREADY_SET);

	now = bpf_ktime_get_tai_ns();
	stamp = bpf_cpu_to_be64(now);

	/*
	 * A zero UDP checksum (none, over IPv4) stays zero: only the packet's
	 * own sum (CHECKSUM_COMPLETE) learns of the new bytes. Otherwise the
	 * checksum takes the difference in one step, so the packet's sum is
	 * unchanged;
	 * with CHECKSUM_PARTIAL (checksum still to be made) the helper leaves
	 * the field alone. The store makes the skb's head writable up to the
	 * slot, so the checksum's update, before it, cannot fail after it.
	 */
	if (bpf_skb_store_bytes(skb, at, &stamp, sizeof(stamp),
				w.udp_check ? 0 : BPF_F_RECOMPUTE_CSUM))
		return count(TP_FAILED);
	if (!w.udp_check)
		return count(TP_STAMPED);
	diff = bpf_csum_diff(NULL, 0, (__be32 *)&stamp, sizeof(stamp), 0);
	if (diff < 0 || bpf_l4_csum_replace(skb, w.l4 + 6, 0, diff,
					    BPF_F_MARK_MANGLED_0)) {
		/* Cannot happen (see above); if it did, take the stamp back. */
		bpf_skb_store_bytes(skb, at, &zero, sizeof(zero), 0);
		return count(TP_FAILED);
	}
	return count(TP_STAMPED);
}

char LICENSE[] SEC("license") = "GPL";
