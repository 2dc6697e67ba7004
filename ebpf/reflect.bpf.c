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

/* Where a D-ITG datagram is summed, RFL_SUM_CHUNK bytes at a time. */
struct sum_chunk {
	__u8 b[RFL_SUM_CHUNK];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct sum_chunk);
} scratch SEC(".maps");

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
	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	sum = (__u16)~sum;
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

/* A 32-bit one's complement sum folded to 16 bits, not complemented. */
static __always_inline __u16 fold(__u64 sum)
{
	sum = (sum & 0xffffffff) + (sum >> 32);
	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	return (__u16)((sum & 0xffff) + (sum >> 16));
}

/*
 * The sums of the UDP pseudo-header (*pseudo) and of the pseudo-header
 * and the datagram with its checksum field taken as 0 (*whole), in
 * network order as stored; 0, or -1 (too long to sum, or unreadable).
 * Whole chunks first, then the tail: one path through each chunk, which
 * the verifier walks once a chunk.
 */
static __always_inline int udp_sums(struct xdp_md *ctx,
				    const struct mtg_where *w, __u32 ulen,
				    __u16 *pseudo, __u16 *whole)
{
	__be32 ph[10] = {};	/* addresses; length and protocol */
	struct sum_chunk *c;
	__u32 key = 0, full, n, n4, i;
	__s64 sum;

	if (w->ipv6) {
		if (bpf_xdp_load_bytes(ctx, w->l3 + 8, ph, 32))
			return -1;
		ph[8] = bpf_htonl(ulen);
		ph[9] = bpf_htonl(IPPROTO_UDP);
		sum = bpf_csum_diff(0, 0, ph, 40, 0);
	} else {
		if (bpf_xdp_load_bytes(ctx, w->l3 + 12, ph, 8))
			return -1;
		ph[2] = bpf_htonl((IPPROTO_UDP << 16) | ulen);
		sum = bpf_csum_diff(0, 0, ph, 12, 0);
	}
	if (sum < 0)
		return -1;
	*pseudo = fold(sum);
	c = bpf_map_lookup_elem(&scratch, &key);
	full = ulen / RFL_SUM_CHUNK;
	if (!c || full > RFL_SUM_CHUNKS)
		return -1;
	for (i = 0; i < RFL_SUM_CHUNKS && i < full; i++) {
		if (bpf_xdp_load_bytes(ctx, w->l4 + i * RFL_SUM_CHUNK, c->b,
				       RFL_SUM_CHUNK))
			return -1;
		sum = bpf_csum_diff(0, 0, (__be32 *)c->b, RFL_SUM_CHUNK,
				    (__u32)sum);
		if (sum < 0)
			return -1;
	}
	n = ulen - full * RFL_SUM_CHUNK;
	if (n) {
		/* 1 to RFL_SUM_CHUNK - 1: masked for the verifier to know */
		n = ((n - 1) & (RFL_SUM_CHUNK - 1)) + 1;
		/* the last word padded with zeros: they add nothing */
		n4 = ((((n + 3) / 4 - 1) & (RFL_SUM_CHUNK / 4 - 1)) + 1) * 4;
		*(__u32 *)&c->b[(n4 - 4) & (RFL_SUM_CHUNK - 4)] = 0;
		if (bpf_xdp_load_bytes(ctx, w->l4 + full * RFL_SUM_CHUNK,
				       c->b, n))
			return -1;
		sum = bpf_csum_diff(0, 0, (__be32 *)c->b, n4, (__u32)sum);
		if (sum < 0)
			return -1;
	}
	/* the checksum field as it came taken away: one's complement */
	*whole = fold((__u64)fold(sum) + (__u16)~(__u16)w->udp_check);
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
	__u16 pseudo, whole, right;
	__be16 ulen;

	if (!agreed)
		return count(RFL_NOT_MTG, XDP_PASS);
	if (w->ipv6 || w->udp_check) {
		if (bpf_xdp_load_bytes(ctx, w->l4 + 4, &ulen, sizeof(ulen)) ||
		    udp_sums(ctx, w, bpf_ntohs(ulen), &pseudo, &whole))
			return count(RFL_UNPARSED, XDP_PASS);
		right = (__u16)~whole;
		if (!right)
			right = 0xffff;	/* 0 is "no checksum" */
		if (w->udp_check != right && w->udp_check != pseudo)
			return count(RFL_CSUM_BAD, XDP_PASS);
		if (w->udp_check != right &&
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
