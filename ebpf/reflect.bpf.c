// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * reflect: MTG's Ethernet responder, an XDP program. An MTG frame that
 * arrives goes back out of the interface it came in by (XDP_TX) with its
 * MAC addresses, IP addresses and UDP ports swapped and the time of its
 * reflection (CLOCK_TAI) in test-point slot `slot` of its header; its UDP
 * checksum follows the stamp. Nothing else changes: the swaps leave the
 * UDP and IPv4 header checksums as they were (one's complement sums do not
 * depend on the order of their terms), and TTL or hop limit is not
 * renewed. Every other frame passes (XDP_PASS) as it came, and so does an
 * MTG frame whose slot holds a stamp already: a reflection never comes
 * back a second time, even between two reflectors.
 *
 * The slot lies outside what the header's CRC covers (ebpf/tp.bpf.c).
 *
 * With `agreed_only` set, only the frames of the flows (run, TG) in the
 * map "flows" go back, each counted there; the others pass, counted
 * RFL_NOT_AGREED: a receiver that agreed to reflect some flows leaves the
 * rest to whoever else receives them (mtg's module, a socket). There,
 * too, the UDP datagrams that are no MTG frames to a port agreed as
 * D-ITG's (run RFL_DITG_RUN, reflect.h) go back as they came, swapped
 * alone: what ITGRecv does for ITGSend's -m rttm, without its trip
 * through a socket.
 */
#include "mtg_parse.h"
#include "mtg_csum.h"
#include "reflect.h"

/* Set by the loader before the program is loaded. */
const volatile __u32 slot = 0;		/* tp_ns[slot], 0..3 */
const volatile __u8 agreed_only = 0;	/* reflect only the flows in "flows" */

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, RFL_FLOWS_MAX);
	__type(key, struct reflect_flow);
	__type(value, __u64);
} flows SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, RFL_COUNTERS);
	__type(key, __u32);
	__type(value, __u64);
} counters SEC(".maps");

static __always_inline int count(__u32 what, int verdict)
{
	__u64 *c = bpf_map_lookup_elem(&counters, &what);

	if (c)
		(*c)++;
	return verdict;
}

static __always_inline long mtg_load(void *ctx, __u32 off, void *to,
				     __u32 len)
{
	return bpf_xdp_load_bytes(ctx, off, to, len);
}

/* Swap the two n-byte fields a and a + n (n <= 16). */
static __always_inline long swap(struct xdp_md *ctx, __u32 a, __u32 n)
{
	__u8 buf[32], t;
	__u32 i;

	if (bpf_xdp_load_bytes(ctx, a, buf, 2 * n))
		return -1;
	for (i = 0; i < n; i++) {
		t = buf[i];
		buf[i] = buf[n + i];
		buf[n + i] = t;
	}
	return bpf_xdp_store_bytes(ctx, a, buf, 2 * n);
}

/* One's complement sum of the 8-byte stamp added to a checksum. */
static __always_inline __be16 csum_add_stamp(__be16 check, __be64 stamp)
{
	__u32 sum = (__u16)~bpf_ntohs(check);
	__u64 s = bpf_be64_to_cpu(stamp);
	int i;

	for (i = 0; i < 4; i++)
		sum += (__u16)(s >> (16 * i));
	sum = (__u16)~mtg_fold(sum);
	/* A computed 0 is sent as 0xffff: 0 means "no checksum" (UDP). */
	return bpf_htons(sum ? sum : 0xffff);
}

/*
 * The frame addressed back to where it came from: MAC addresses, IP
 * addresses and UDP ports swapped. 0, or -1 with the frame as it came
 * (the first write failing; none after it can: the parser read them).
 */
static __always_inline long send_back(struct xdp_md *ctx,
				      const struct mtg_where *w)
{
	if (swap(ctx, 0, 6))			/* destination and source MAC */
		return -1;
	if (w->ipv6)
		swap(ctx, w->l3 + 8, 16);	/* IPv6 source, destination */
	else
		swap(ctx, w->l3 + 12, 4);	/* IPv4 source, destination */
	swap(ctx, w->l4, 2);			/* UDP ports */
	return 0;
}

/*
 * A datagram that is no MTG frame: back as it came if its port is
 * D-ITG's. Its checksum must be right where it arrives back, as
 * ITGRecv's socket would make it: one a socket on this host wrote may be
 * partial (CHECKSUM_PARTIAL over a veth: the pseudo-header's sum alone,
 * left to a NIC there is none of, and XDP sees the bytes, not the
 * skb's ip_summed): made whole. A wrong one passes, as the stack would
 * drop the datagram before ITGRecv read it.
 */
static __always_inline int reflect_ditg(struct xdp_md *ctx,
					const struct mtg_where *w)
{
	struct reflect_flow flow = { .run_id = RFL_DITG_RUN,
				     .tg_id = w->dport };
	__u64 *agreed = bpf_map_lookup_elem(&flows, &flow);
	__u16 check = w->udp_check, right;
	__s64 pseudo;
	__be16 ulen;
	int sum;

	if (!agreed)
		return count(RFL_NOT_MTG, XDP_PASS);
	if (w->ipv6 || check) {		/* 0 over IPv4: none, stays */
		if (bpf_xdp_load_bytes(ctx, w->l4 + 4, &ulen, sizeof(ulen)))
			return count(RFL_UNPARSED, XDP_PASS);
		pseudo = mtg_udp_pseudo_sum(ctx, w, bpf_ntohs(ulen));
		sum = pseudo < 0 ? -1 : mtg_frame_sum(ctx, w->l4,
						      bpf_ntohs(ulen),
						      (__u32)pseudo);
		if (sum < 0)
			return count(RFL_UNPARSED, XDP_PASS);
		/* the sum without the field as it came, complemented */
		right = (__u16)~mtg_fold((__u32)sum + (__u16)~check);
		if (!right)
			right = 0xffff;	/* 0 is "no checksum" */
		/* a partial one holds the pseudo-header's sum alone */
		if (check != right && check != mtg_fold((__u32)pseudo))
			return count(RFL_CSUM_BAD, XDP_PASS);
		if (check != right &&
		    bpf_xdp_store_bytes(ctx, w->l4 + 6, &right, sizeof(right)))
			return count(RFL_UNPARSED, XDP_PASS);
	}
	if (send_back(ctx, w))
		return count(RFL_UNPARSED, XDP_PASS);
	__sync_fetch_and_add(agreed, 1);
	return count(RFL_REFLECTED, XDP_TX);
}

SEC("xdp")
int reflect(struct xdp_md *ctx)
{
	struct reflect_flow flow;
	__be64 stamp, old;
	struct mtg_where w;
	__u64 *agreed = 0;
	__be32 ids[2];
	__be16 check;
	__u32 at;

	switch (mtg_parse(ctx, bpf_xdp_get_buff_len(ctx), true, 0, &w)) {
	case MTG_FRAME:
		break;
	case MTG_NOT_MTG:
		if (agreed_only && w.udp)
			return reflect_ditg(ctx, &w);
		return count(RFL_NOT_MTG, XDP_PASS);
	default:
		return count(RFL_UNPARSED, XDP_PASS);
	}
	at = mtg_slot_at(&w, slot);
	if (bpf_xdp_load_bytes(ctx, at, &old, sizeof(old)))
		return count(RFL_UNPARSED, XDP_PASS);
	if (old)
		return count(RFL_ALREADY_SET, XDP_PASS);
	if (agreed_only) {
		/* run_id and tg_id follow each other in the header */
		if (bpf_xdp_load_bytes(ctx, w.hdr +
				       __builtin_offsetof(struct mtg_hdr, run_id),
				       ids, sizeof(ids)))
			return count(RFL_UNPARSED, XDP_PASS);
		flow.run_id = bpf_ntohl(ids[0]);
		flow.tg_id = bpf_ntohl(ids[1]);
		agreed = bpf_map_lookup_elem(&flows, &flow);
		if (!agreed)
			return count(RFL_NOT_AGREED, XDP_PASS);
	}

	/*
	 * Every write below is within bytes the parser read: none can fail
	 * once the first succeeded; the first failing leaves the frame as it
	 * came.
	 */
	stamp = bpf_cpu_to_be64(bpf_ktime_get_tai_ns());
	if (send_back(ctx, &w))
		return count(RFL_UNPARSED, XDP_PASS);
	bpf_xdp_store_bytes(ctx, at, &stamp, sizeof(stamp));
	if (w.udp_check) {			/* 0 over IPv4: none, stays */
		check = csum_add_stamp(w.udp_check, stamp);
		bpf_xdp_store_bytes(ctx, w.l4 + 6, &check, sizeof(check));
	}
	if (agreed)
		__sync_fetch_and_add(agreed, 1);
	return count(RFL_REFLECTED, XDP_TX);
}

char LICENSE[] SEC("license") = "GPL";
