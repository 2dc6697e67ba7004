/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * One's complement sums of a frame's bytes in XDP (RFC 1071): the UDP
 * checksum the XDP receiver checks (rx.bpf.c) and the one the reflector
 * makes whole (reflect.bpf.c). BPF side only, after mtg_parse.h. The
 * program gets the per-CPU map "csum_scratch" the bytes are summed in.
 */
#ifndef MTG_EBPF_CSUM_H
#define MTG_EBPF_CSUM_H

#define MTG_CSUM_CHUNK	512	/* bytes summed at a time: bpf_csum_diff's most */
#define MTG_CSUM_CHUNKS	18	/* 9216 bytes: a jumbo frame */

struct mtg_csum_scratch {
	__u8 buf[MTG_CSUM_CHUNK + 4];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct mtg_csum_scratch);
} csum_scratch SEC(".maps");

/* A one's complement sum folded to 16 bits (not complemented). */
static __always_inline __u16 mtg_fold(__u64 sum)
{
	sum = (sum & 0xffffffff) + (sum >> 32);
	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	return (__u16)((sum & 0xffff) + (sum >> 16));
}

/*
 * One's complement sum (folded to 16 bits) of bytes off .. off + len of
 * the frame, added to seed; -1 if they cannot be read (or are more than
 * MTG_CSUM_CHUNKS chunks).
 */
static __always_inline int mtg_frame_sum(struct xdp_md *ctx, __u32 off,
					 __u32 len, __u32 seed)
{
	struct mtg_csum_scratch *s;
	__u32 zero = 0, i;
	__s64 sum = seed;
	__u64 n;

	s = bpf_map_lookup_elem(&csum_scratch, &zero);
	if (!s)
		return -1;
	for (i = 0; i < MTG_CSUM_CHUNKS && len; i++) {
		/*
		 * n = min(len, CHUNK), written as 1 + ((n - 1) & (CHUNK - 1))
		 * in asm: the range [1, CHUNK] is then in the value itself
		 * and survives a spill, which 6.1's verifier needs (it does
		 * not carry a comparison's bound back to a spilled copy).
		 */
		n = (len < MTG_CSUM_CHUNK ? len : MTG_CSUM_CHUNK) - 1;
		asm volatile("%[n] &= %[mask]\n\t%[n] += 1"
			     : [n] "+r"(n) : [mask] "i"(MTG_CSUM_CHUNK - 1));
		/*
		 * The bytes after n up to a multiple of 4 are summed: zero
		 * (n is below CHUNK when it is not a multiple of 4).
		 */
		if (n & 3)
			*(__u32 *)&s->buf[n & (MTG_CSUM_CHUNK - 4)] = 0;
		if (bpf_xdp_load_bytes(ctx, off, s->buf, (__u32)n))
			return -1;
		sum = bpf_csum_diff(NULL, 0, (void *)s->buf, (n + 3) & ~3U,
				    (__u32)sum);
		if (sum < 0)
			return -1;
		off += (__u32)n;
		len -= (__u32)n;
	}
	return len ? -1 : mtg_fold((__u32)sum);
}

/*
 * The sum (unfolded) of the UDP pseudo-header of the datagram at w->l4,
 * l4_len bytes long; < 0 if the addresses cannot be read.
 */
static __always_inline __s64 mtg_udp_pseudo_sum(struct xdp_md *ctx,
						const struct mtg_where *w,
						__u32 l4_len)
{
	struct {
		__be32 addr[8];
		__be32 len;
		__be32 proto;
	} ph = {};
	__u32 alen = w->ipv6 ? 32 : 8;

	if (bpf_xdp_load_bytes(ctx, w->l3 + (w->ipv6 ? 8 : 12), ph.addr,
			       alen))
		return -1;
	/* IPv4's pseudo-header sums to what IPv6's does: same terms */
	ph.len = bpf_htonl(l4_len);
	ph.proto = bpf_htonl(IPPROTO_UDP);
	return bpf_csum_diff(NULL, 0, (void *)&ph, sizeof(ph), 0);
}

#endif /* MTG_EBPF_CSUM_H */
