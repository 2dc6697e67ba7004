// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * rx: MTG's receiver for hosts without the module, an XDP program. Each
 * MTG frame that arrives is stamped, checked and turned into the record
 * the module's receive ring holds (struct mtg_rx_rec, Documentation/abi.rst
 * "The receive path"), or, for a control message, into its control
 * record (struct mtg_ctrl_rec, type MTG_CTRL_MSG); the record goes into
 * the ring buffer "records", which mtgctl listen --xdp reads. Then the
 * frame is dropped (XDP_DROP, the module's "consumed") or, with `pass`,
 * passed on (XDP_PASS). Every other frame passes as it came, and so does
 * an MTG frame of another run than `run_id`.
 *
 * What is checked, as the module does: the header's CRC (a wrong one is
 * recorded with MTG_RX_F_HDR_CORRUPT, its fields as received, whatever its
 * version), the IPv4 header checksum, the UDP checksum over every byte
 * after the UDP header's start (0 over IPv4: none, which IPv4 allows), and
 * that the IP packet ends where the frame does: anything wrong sets
 * MTG_RX_F_CSUM_BAD. What is not, unlike the module: the payload is not
 * compared with its pattern (wrong_bits is 0: mtgctl says so, the
 * recording's metadata too), and nothing is kept (a header that asks for
 * it gets MTG_RX_F_KEEP_LOST, counted). Where mtg_parse.h cannot parse a
 * frame the module would still look at (an IP length longer than the
 * frame, a UDP length that disagrees with IP's, another version's header
 * with a wrong CRC), the frame is counted as unparsed or not MTG and
 * passed (Documentation/ebpf.rst lists these).
 *
 * The stamp: the NIC's (MTG_RX_STAMP_HW) where the driver gives one to
 * bpf_xdp_metadata_rx_timestamp (a device-bound program on Linux 6.3 and
 * later), else CLOCK_TAI now (MTG_RX_STAMP_HOOK: taken at the hook).
 */
#include "mtg_parse.h"
#include "mtg_csum.h"
#include "rx.h"

/* Set by the loader before the program is loaded. */
const volatile __u32 run_id = 0;	/* record only this run; 0: all */
const volatile __u32 pass = 0;		/* MTG frames: XDP_PASS, else DROP */
const volatile __u16 iface = 0;		/* the records' interface id */

#ifndef bpf_ksym_exists		/* libbpf 1.2's bpf_helpers.h */
#define bpf_ksym_exists(sym) (!!(sym))
#endif

/* Linux 6.3: the driver's receive stamp (device-bound programs only). */
extern int bpf_xdp_metadata_rx_timestamp(const struct xdp_md *ctx,
					 __u64 *timestamp) __ksym __weak;

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 1 << 22);	/* the loader sets the size */
} records SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, RXC_COUNTERS);
	__type(key, __u32);
	__type(value, __u64);
} counters SEC(".maps");

static __always_inline void count(__u32 what, __u64 n)
{
	__u64 *c = bpf_map_lookup_elem(&counters, &what);

	if (c)
		*c += n;
}

static __always_inline long mtg_load(void *ctx, __u32 off, void *to,
				     __u32 len)
{
	return bpf_xdp_load_bytes(ctx, off, to, len);
}

struct crc_state {
	const __u8 *p;
	__u32 crc;
};

static long crc_byte(__u32 i, void *arg)
{
	struct crc_state *c = arg;
	int k;

	if (i >= MTG_HDR_CRC_LEN)
		return 1;
	c->crc ^= c->p[i];
	for (k = 0; k < 8; k++)
		c->crc = (c->crc >> 1) ^ (0x82F63B78 & -(c->crc & 1));
	return 0;
}

/*
 * CRC32C (Castagnoli, reflected) of the header's first MTG_HDR_CRC_LEN
 * bytes, a byte a call of bpf_loop: the verifier sees one byte, not 44.
 */
static __always_inline __u32 hdr_crc(const struct mtg_hdr *h)
{
	struct crc_state c = { .p = (const __u8 *)h, .crc = 0xffffffff };

	bpf_loop(MTG_HDR_CRC_LEN, crc_byte, &c, 0);
	return ~c.crc;
}

/* Is the UDP checksum right (the datagram from l4 to the frame's end)? */
static __always_inline bool udp_ok(struct xdp_md *ctx,
				   const struct mtg_where *w, __u32 end)
{
	__u32 l4_len = end - w->l4;
	__s64 sum;

	if (!w->ipv6 && !w->udp_check)
		return true;		/* none: IPv4 allows it */
	sum = mtg_udp_pseudo_sum(ctx, w, l4_len);
	return sum >= 0 &&
		mtg_frame_sum(ctx, w->l4, l4_len, (__u32)sum) == 0xffff;
}

/* Is the IPv4 header's checksum right? */
static __always_inline bool ip4_ok(struct xdp_md *ctx, const struct mtg_where *w)
{
	__u32 ihl = (w->l4 - w->l3) & 0x3c, len;
	__u8 ip[80] = {};
	__s64 sum;

	if (ihl < 20)
		return false;
	/*
	 * ihl again, in a form whose bounds (20..80) the verifier sees in
	 * itself: 6.1's loses what the test above taught it when the value
	 * goes through the stack, and refuses a length that may be 0.
	 */
	len = 20 + ((ihl - 20) & 0x3c);
	if (bpf_xdp_load_bytes(ctx, w->l3, ip, len))
		return false;
	sum = bpf_csum_diff(NULL, 0, (void *)ip, len, 0);
	return sum >= 0 && mtg_fold((__u32)sum) == 0xffff;
}

static __always_inline int verdict(void)
{
	return pass ? XDP_PASS : XDP_DROP;
}

/* A control message into the ring, as the module's control queue has it. */
static __always_inline void push_ctrl(struct xdp_md *ctx,
				      const struct mtg_hdr *h, __u64 rx_ns,
				      __u16 flags, __u32 at, __u32 len)
{
	struct mtg_ctrl_rec *c;
	__u64 n = len;

	c = bpf_ringbuf_reserve(&records, sizeof(*c), 0);
	if (!c) {
		count(RXC_RING_DROPS, 1);
		return;
	}
	__builtin_memset(c, 0, sizeof(*c) - sizeof(c->data));
	if (n > MTG_CTRLMSG_MAX)
		n = MTG_CTRLMSG_MAX;
	/* the bound on the register the helper gets (the verifier's view) */
	asm volatile("" : "+r"(n));
	/*
	 * n again, as 1 + (n - 1) masked: bounds (1..1024) the verifier sees
	 * in the expression itself, which 6.1's needs (it does not carry
	 * what a test of n - 1 teaches it over to n)
	 */
	if (n && n <= MTG_CTRLMSG_MAX &&
	    bpf_xdp_load_bytes(ctx, at, c->data,
			       1 + (((__u32)n - 1) & (MTG_CTRLMSG_MAX - 1))))
		n = 0;
	len = (__u32)n;
	c->time_ns = rx_ns;
	c->type = MTG_CTRL_MSG;
	c->tg_id = bpf_ntohl(h->tg_id);
	c->run_id = bpf_ntohl(h->run_id);
	c->len = len;
	c->seq = bpf_be64_to_cpu(h->seq);
	c->tx_ns = bpf_be64_to_cpu(h->tx_ns);
	c->iface = iface;
	c->flags = flags;
	bpf_ringbuf_submit(c, 0);
	count(RXC_CTRL, 1);
}

/* A frame stamped rx_ns (flags: which stamp): its verdict. */
static __always_inline int receive(struct xdp_md *ctx, __u64 rx_ns,
				   __u16 flags)
{
	__u32 len = bpf_xdp_get_buff_len(ctx), tag, at, i;
	struct mtg_rx_rec *r;
	struct mtg_where w;
	struct mtg_hdr h;

	switch (mtg_parse(ctx, len, true, 0, &w)) {
	case MTG_FRAME:
		break;
	case MTG_NOT_MTG:
		count(RXC_NOT_MTG, 1);
		return XDP_PASS;
	default:
		count(RXC_UNPARSED, 1);
		return XDP_PASS;
	}
	if (bpf_xdp_load_bytes(ctx, w.hdr, &h, sizeof(h))) {
		count(RXC_UNPARSED, 1);
		return XDP_PASS;
	}
	if (bpf_ntohl(h.crc) != hdr_crc(&h))
		flags |= MTG_RX_F_HDR_CORRUPT;
	/* A corrupt header's run id proves nothing: it is recorded. */
	if (run_id && !(flags & MTG_RX_F_HDR_CORRUPT) &&
	    bpf_ntohl(h.run_id) != run_id) {
		count(RXC_FOREIGN, 1);
		return XDP_PASS;
	}
	if (w.ipv6)
		flags |= MTG_RX_F_IPV6;
	/* No MTG frame needs Ethernet padding: the lengths must agree. */
	if (w.l3_end != len || (!w.ipv6 && !ip4_ok(ctx, &w)) ||
	    !udp_ok(ctx, &w, len))
		flags |= MTG_RX_F_CSUM_BAD;
	at = w.hdr + MTG_HDR_LEN;
	if (!(flags & MTG_RX_F_HDR_CORRUPT) && (h.flags & MTG_HDR_F_CTRL)) {
		push_ctrl(ctx, &h, rx_ns, flags, at, len - at);
		return verdict();
	}

	r = bpf_ringbuf_reserve(&records, sizeof(*r), 0);
	if (!r) {
		count(RXC_RING_DROPS, 1);
		return verdict();
	}
	/* A corrupt header asks for nothing: its flags are noise. */
	if (!(flags & MTG_RX_F_HDR_CORRUPT) &&
	    (h.flags & (MTG_HDR_F_KEEP_PAYLOAD | MTG_HDR_F_KEEP_BITS))) {
		flags |= MTG_RX_F_KEEP_LOST;
		count(RXC_KEEP_DROPS, 1);
	}
	/* The module sees a VLAN tag outside the frame: its length too. */
	tag = w.l3 - 14;
	r->rx_ns = rx_ns;
	r->seq = bpf_be64_to_cpu(h.seq);
	r->sched_ns = bpf_be64_to_cpu(h.sched_ns);
	r->tx_ns = bpf_be64_to_cpu(h.tx_ns);
	for (i = 0; i < 4; i++)
		r->tp_ns[i] = bpf_be64_to_cpu(h.tp_ns[i]);
	r->run_id = bpf_ntohl(h.run_id);
	r->tg_id = bpf_ntohl(h.tg_id);
	r->wrong_bits = 0;
	r->len = (__u16)(len - tag > 0xffff ? 0xffff : len - tag);
	r->iface = iface;
	r->flags = flags;
	__builtin_memcpy(r->nut, h.nut, sizeof(r->nut));
	r->ttl = w.ttl;
	r->tos = w.tos;
	r->payload_len = (__u16)(len - at > 0xffff ? 0xffff : len - at);
	r->reserved = 0;
	bpf_ringbuf_submit(r, 0);
	count(RXC_RECORDED, 1);
	count(RXC_BYTES, len - tag);
	if (flags & MTG_RX_F_HDR_CORRUPT)
		count(RXC_HDR_CORRUPT, 1);
	if (flags & MTG_RX_F_CSUM_BAD)
		count(RXC_CSUM_BAD, 1);
	return verdict();
}

/* The program for every device: stamps CLOCK_TAI at the hook. */
SEC("xdp")
int rx(struct xdp_md *ctx)
{
	return receive(ctx, bpf_ktime_get_tai_ns(), MTG_RX_STAMP_HOOK);
}

/*
 * The program for one device (loaded bound to it: the kernel allows the
 * metadata kfuncs only so): the driver's stamp where it gives one.
 */
SEC("xdp")
int rx_hw(struct xdp_md *ctx)
{
	__u16 kind = MTG_RX_STAMP_HW;
	__u64 ns = 0;

	if (!bpf_ksym_exists(bpf_xdp_metadata_rx_timestamp) ||
	    bpf_xdp_metadata_rx_timestamp(ctx, &ns) || !ns) {
		ns = bpf_ktime_get_tai_ns();
		kind = MTG_RX_STAMP_HOOK;
	}
	return receive(ctx, ns, kind);
}

char LICENSE[] SEC("license") = "GPL";
