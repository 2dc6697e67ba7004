/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * How every program of ebpf/ recognises an MTG frame: one parser, for tc
 * (tp.bpf.c) and XDP (reflect.bpf.c, rx.bpf.c) alike, and the headers
 * they all need. BPF side only.
 *
 * The program defines, before including this file,
 *	static __always_inline long mtg_load(void *ctx, __u32 off, void *to,
 *					     __u32 len);
 * which copies len bytes of the frame at off into to (0, or < 0 where the
 * frame is shorter): bpf_skb_load_bytes for tc, bpf_xdp_load_bytes for XDP.
 * It is declared here and may be defined after the include.
 *
 * A frame is Ethernet with at most one VLAN tag (802.1Q or 802.1ad) still
 * in its data, or bare IP (l2_eth false: the protocol is given); then IPv4
 * (options stepped over) or IPv6 carrying UDP directly, the datagram whole
 * within the packet and the frame; then an MTG header: the magic, version
 * MTG_HDR_VERSION, hdr_len MTG_HDR_LEN, the whole header there. Any UDP
 * port (Documentation/ebpf.rst says why).
 */
#ifndef MTG_EBPF_PARSE_H
#define MTG_EBPF_PARSE_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

/*
 * vmlinux.h has every type the uapi header uses: its own includes
 * (linux/types.h, linux/ioctl.h) would define them a second time.
 */
#define _LINUX_TYPES_H
#define _LINUX_IOCTL_H
#include "uapi/mtg.h"

static __always_inline long mtg_load(void *ctx, __u32 off, void *to,
				     __u32 len);

/* Macros are not in BTF: these are if_ether.h's and ip.h's. */
#define ETH_P_IP	0x0800
#define ETH_P_IPV6	0x86DD
#define ETH_P_8021Q	0x8100
#define ETH_P_8021AD	0x88A8
#define IP_MF		0x2000
#define IP_OFFSET	0x1fff

/* What a frame is. */
enum mtg_parsed {
	MTG_FRAME,	/* an MTG frame: *w says where its parts are */
	MTG_NOT_MTG,	/* parsed whole, not MTG (another protocol, another
			 * UDP payload, another header version)
			 */
	MTG_UNPARSED,	/* cannot be parsed: truncated (an MTG magic in a
			 * datagram shorter than the header, a datagram
			 * longer than its packet), an IP fragment, an IPv6
			 * extension header, two VLAN tags
			 */
};

/*
 * Where an MTG frame's parts are, in bytes from the frame's start. Of a
 * frame that is not MTG, udp says whether it is a UDP datagram parsed
 * whole, and then l3, l4, udp_check, dport, ipv6 are set too.
 */
struct mtg_where {
	__u32 l3;		/* the IP header */
	__u32 l4;		/* the UDP header */
	__u32 hdr;		/* the MTG header: l4 + 8 */
	__u32 l3_end;		/* the end of the IP packet */
	__be16 udp_check;	/* the UDP checksum as it came */
	__u16 dport;		/* the UDP destination port, host order */
	bool udp;		/* a UDP datagram, parsed whole */
	bool ipv6;
	__u8 ttl;		/* TTL or hop limit */
	__u8 tos;		/* TOS or traffic class */
};

/* IPv6 extension headers (RFC 8200 and the IANA list): not walked. */
static __always_inline bool mtg_ipv6_ext(__u8 nexthdr)
{
	switch (nexthdr) {
	case 0: case 43: case 44: case 50: case 51: case 60:
	case 135: case 139: case 140: case 253: case 254:
		return true;
	}
	return false;
}

/*
 * Parse the frame of ctx, len bytes long: Ethernet if l2_eth, else IP of
 * protocol proto (network order).
 */
static __always_inline enum mtg_parsed mtg_parse(void *ctx, __u32 len,
						 bool l2_eth, __be16 proto,
						 struct mtg_where *w)
{
	struct ipv6hdr ip6;
	struct udphdr udp;
	struct iphdr ip4;
	__u32 off = 0, ulen;
	__be32 magic;
	__u8 head[8];

	w->udp = false;
	/* Link layer: Ethernet with at most one VLAN tag, or none. */
	if (l2_eth) {
		if (mtg_load(ctx, 12, &proto, 2))
			return MTG_UNPARSED;
		off = 14;
		if (proto == bpf_htons(ETH_P_8021Q) ||
		    proto == bpf_htons(ETH_P_8021AD)) {
			if (mtg_load(ctx, 16, &proto, 2))
				return MTG_UNPARSED;
			off = 18;
			if (proto == bpf_htons(ETH_P_8021Q) ||
			    proto == bpf_htons(ETH_P_8021AD))
				return MTG_UNPARSED;
		}
	}
	w->l3 = off;

	/* IP: where UDP begins and where the datagram ends. */
	if (proto == bpf_htons(ETH_P_IP)) {
		if (mtg_load(ctx, off, &ip4, sizeof(ip4)))
			return MTG_UNPARSED;
		if (ip4.version != 4 || ip4.ihl < 5 ||
		    bpf_ntohs(ip4.tot_len) < ip4.ihl * 4)
			return MTG_UNPARSED;
		if (ip4.protocol != IPPROTO_UDP)
			return MTG_NOT_MTG;
		if (ip4.frag_off & bpf_htons(IP_MF | IP_OFFSET))
			return MTG_UNPARSED;
		w->ipv6 = false;
		w->ttl = ip4.ttl;
		w->tos = ip4.tos;
		w->l4 = off + ip4.ihl * 4;
		w->l3_end = off + bpf_ntohs(ip4.tot_len);
	} else if (proto == bpf_htons(ETH_P_IPV6)) {
		if (mtg_load(ctx, off, &ip6, sizeof(ip6)))
			return MTG_UNPARSED;
		if (ip6.version != 6)
			return MTG_UNPARSED;
		if (ip6.nexthdr != IPPROTO_UDP)
			return mtg_ipv6_ext(ip6.nexthdr) ? MTG_UNPARSED :
				MTG_NOT_MTG;
		w->ipv6 = true;
		w->ttl = ip6.hop_limit;
		w->tos = (__u8)((ip6.priority << 4) | (ip6.flow_lbl[0] >> 4));
		w->l4 = off + sizeof(ip6);
		w->l3_end = w->l4 + bpf_ntohs(ip6.payload_len);
	} else {
		return MTG_NOT_MTG;
	}
	if (w->l3_end > len)
		return MTG_UNPARSED;

	/* UDP: the datagram whole inside the IP packet. */
	if (mtg_load(ctx, w->l4, &udp, sizeof(udp)))
		return MTG_UNPARSED;
	ulen = bpf_ntohs(udp.len);
	if (ulen < sizeof(udp) || w->l4 + ulen > w->l3_end)
		return MTG_UNPARSED;
	w->udp = true;
	w->dport = bpf_ntohs(udp.dest);
	w->udp_check = udp.check;
	w->hdr = w->l4 + sizeof(udp);
	if (ulen < sizeof(udp) + sizeof(magic))
		return MTG_NOT_MTG;

	/* MTG: magic, then the whole header, of this version and length. */
	if (mtg_load(ctx, w->hdr, &magic, sizeof(magic)))
		return MTG_UNPARSED;
	if (magic != bpf_htonl(MTG_HDR_MAGIC))
		return MTG_NOT_MTG;
	if (ulen < sizeof(udp) + MTG_HDR_LEN)
		return MTG_UNPARSED;
	if (mtg_load(ctx, w->hdr, head, sizeof(head)))
		return MTG_UNPARSED;
	if (head[4] != MTG_HDR_VERSION ||
	    ((head[6] << 8) | head[7]) != MTG_HDR_LEN)
		return MTG_NOT_MTG;
	return MTG_FRAME;
}

/* Where test-point slot k's 8 bytes are. */
static __always_inline __u32 mtg_slot_at(const struct mtg_where *w, __u32 k)
{
	return w->hdr + __builtin_offsetof(struct mtg_hdr, tp_ns) +
		(k & 3) * sizeof(__be64);
}

#endif /* MTG_EBPF_PARSE_H */
