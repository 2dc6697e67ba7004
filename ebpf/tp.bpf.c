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
#include "tp.h"

/* Macros are not in BTF: these are pkt_cls.h's, if_ether.h's, ip.h's. */
#define TC_ACT_UNSPEC	(-1)
#define ETH_P_IP	0x0800
#define ETH_P_IPV6	0x86DD
#define ETH_P_8021Q	0x8100
#define ETH_P_8021AD	0x88A8
#define IP_MF		0x2000
#define IP_OFFSET	0x1fff

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

/* IPv6 extension headers (RFC 8200 and the IANA list): not walked. */
static __always_inline bool ipv6_ext(__u8 nexthdr)
{
	switch (nexthdr) {
	case 0: case 43: case 44: case 50: case 51: case 60:
	case 135: case 139: case 140: case 253: case 254:
		return true;
	}
	return false;
}

SEC("tc")
int tp(struct __sk_buff *skb)
{
	__u32 off = 0, l3_end, l4, ulen, at;
	__be64 zero = 0, stamp, old;
	struct ipv6hdr ip6;
	struct udphdr udp;
	struct iphdr ip4;
	__be32 magic;
	__s64 diff;
	__u8 head[8];
	__be16 proto;
	__u64 now;

	/* A GSO packet carries several datagrams: only the first is visible. */
	if (skb->gso_size)
		return count(TP_UNPARSED);

	/* Link layer: Ethernet with at most one VLAN tag, or none. */
	if (l2_eth) {
		if (bpf_skb_load_bytes(skb, 12, &proto, 2))
			return count(TP_UNPARSED);
		off = 14;
		if (proto == bpf_htons(ETH_P_8021Q) ||
		    proto == bpf_htons(ETH_P_8021AD)) {
			if (bpf_skb_load_bytes(skb, 16, &proto, 2))
				return count(TP_UNPARSED);
			off = 18;
			if (proto == bpf_htons(ETH_P_8021Q) ||
			    proto == bpf_htons(ETH_P_8021AD))
				return count(TP_UNPARSED);
		}
	} else {
		proto = skb->protocol;
	}

	/* IP: where UDP begins and where the datagram ends. */
	if (proto == bpf_htons(ETH_P_IP)) {
		if (bpf_skb_load_bytes(skb, off, &ip4, sizeof(ip4)))
			return count(TP_UNPARSED);
		if (ip4.version != 4 || ip4.ihl < 5 ||
		    bpf_ntohs(ip4.tot_len) < ip4.ihl * 4)
			return count(TP_UNPARSED);
		if (ip4.protocol != IPPROTO_UDP)
			return count(TP_NOT_MTG);
		if (ip4.frag_off & bpf_htons(IP_MF | IP_OFFSET))
			return count(TP_UNPARSED);
		l4 = off + ip4.ihl * 4;
		l3_end = off + bpf_ntohs(ip4.tot_len);
	} else if (proto == bpf_htons(ETH_P_IPV6)) {
		if (bpf_skb_load_bytes(skb, off, &ip6, sizeof(ip6)))
			return count(TP_UNPARSED);
		if (ip6.version != 6)
			return count(TP_UNPARSED);
		if (ip6.nexthdr != IPPROTO_UDP)
			return count(ipv6_ext(ip6.nexthdr) ? TP_UNPARSED :
				     TP_NOT_MTG);
		l4 = off + sizeof(ip6);
		l3_end = l4 + bpf_ntohs(ip6.payload_len);
	} else {
		return count(TP_NOT_MTG);
	}
	if (l3_end > skb->len)
		return count(TP_UNPARSED);

	/* UDP: the datagram whole inside the IP packet. */
	if (bpf_skb_load_bytes(skb, l4, &udp, sizeof(udp)))
		return count(TP_UNPARSED);
	ulen = bpf_ntohs(udp.len);
	if (ulen < sizeof(udp) || l4 + ulen > l3_end)
		return count(TP_UNPARSED);
	if (ulen < sizeof(udp) + sizeof(magic))
		return count(TP_NOT_MTG);

	/* MTG: magic, then the whole header, of this version and length. */
	if (bpf_skb_load_bytes(skb, l4 + sizeof(udp), &magic, sizeof(magic)))
		return count(TP_UNPARSED);
	if (magic != bpf_htonl(MTG_HDR_MAGIC))
		return count(TP_NOT_MTG);
	if (ulen < sizeof(udp) + MTG_HDR_LEN)
		return count(TP_UNPARSED);
	if (bpf_skb_load_bytes(skb, l4 + sizeof(udp), head, sizeof(head)))
		return count(TP_UNPARSED);
	if (head[4] != MTG_HDR_VERSION ||
	    ((head[6] << 8) | head[7]) != MTG_HDR_LEN)
		return count(TP_NOT_MTG);

	at = l4 + sizeof(udp) + __builtin_offsetof(struct mtg_hdr, tp_ns) +
		(slot & (TP_SLOTS - 1)) * sizeof(__be64);
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
				udp.check ? 0 : BPF_F_RECOMPUTE_CSUM))
		return count(TP_FAILED);
	if (!udp.check)
		return count(TP_STAMPED);
	diff = bpf_csum_diff(NULL, 0, (__be32 *)&stamp, sizeof(stamp), 0);
	if (diff < 0 || bpf_l4_csum_replace(skb, l4 + 6, 0, diff,
					    BPF_F_MARK_MANGLED_0)) {
		/* Cannot happen (see above); if it did, take the stamp back. */
		bpf_skb_store_bytes(skb, at, &zero, sizeof(zero), 0);
		return count(TP_FAILED);
	}
	return count(TP_STAMPED);
}

char LICENSE[] SEC("license") = "GPL";
