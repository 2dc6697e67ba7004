// SPDX-License-Identifier: GPL-2.0
/*
 * TX: build a TG's frame (Ethernet, IPv4 or IPv6, UDP or an ICMP echo
 * request, MTG header or D-ITG's, payload pattern) and hand it to the
 * device, stamping it as late as possible.
 *
 * The UDP or ICMP checksum is computed with the TX stamp slot zeroed; the
 * stamp is written just before the driver gets the frame (on the qdisc
 * path: just before the frame is queued) and folded into the checksum
 * incrementally. An ICMP echo's header is UDP's size, its checksum two
 * bytes in (struct icmphdr for ICMPv6's too: the same layout).
 * No destructor and no skb->cb pointer refers to module memory: a frame may
 * sit in a qdisc (netem) long after its session is gone.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/etherdevice.h>
#include <linux/icmp.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/netdevice.h>
#include <linux/skbuff.h>
#include <linux/udp.h>
#include <net/checksum.h>
#include <net/ip.h>
#include <net/ip6_checksum.h>

#include "mtg.h"

/*
 * A packet's payload, len bytes at p: the MTG header (tx_ns still zero) or
 * D-ITG's, then the pattern, or a control message's data.
 */
void mtg_tx_payload(struct mtg_tg *tg, u8 *p, u32 len, u64 sched, u64 seq,
		    u8 hdr_flags, const void *data)
{
	bool ctrl = hdr_flags & MTG_HDR_F_CTRL;
	u8 kind = ctrl ? MTG_PATT_CTRL : tg->patt_kind;
	struct mtg_patt pt;
	struct mtg_hdr *h;
	u32 seed = 0;

	if (kind == MTG_PATT_RANDOM)
		seed = tg->patt_seed + (u32)seq * 0x9e3779b9U;
	if (tg->flags & MTG_TG_FLAGS_DITG) {
		struct mtg_ditg_hdr *d = (struct mtg_ditg_hdr *)p;

		/* the time of day is the stamp's: zero until then */
		memset(d, 0, sizeof(*d));
		d->flow_id = cpu_to_be32(tg->id);
		d->seq = cpu_to_be32((u32)seq + 1);
		mtg_patt_init(&pt, kind, tg->patt_value, seed);
		mtg_patt_fill(&pt, (u8 *)(d + 1), len - sizeof(*d));
		return;
	}
	h = (struct mtg_hdr *)p;
	memset(h, 0, sizeof(*h));
	h->magic = cpu_to_be32(MTG_HDR_MAGIC);
	h->version = MTG_HDR_VERSION;
	h->flags = hdr_flags;
	h->hdr_len = cpu_to_be16(MTG_HDR_LEN);
	h->run_id = cpu_to_be32(tg->run_id);
	h->tg_id = cpu_to_be32(tg->id);
	h->seq = cpu_to_be64(seq);
	h->sched_ns = cpu_to_be64(sched);
	if (!ctrl)
		memcpy(h->nut, tg->nut, sizeof(h->nut));
	h->patt_kind = kind;
	h->patt_value = tg->patt_value;
	h->patt_seed = cpu_to_be32(seed);
	h->crc = cpu_to_be32(mtg_hdr_crc(h));
	if (ctrl) {
		memcpy(h + 1, data, len - MTG_HDR_LEN);
		return;
	}
	mtg_patt_init(&pt, kind, tg->patt_value, seed);
	mtg_patt_fill(&pt, (u8 *)(h + 1), len - MTG_HDR_LEN);
}

/*
 * A frame of len bytes (L2, no FCS) for departure sched with sequence
 * number seq. Control messages (MTG_HDR_F_CTRL) carry data as payload.
 * Any context; NULL when memory is short.
 */
struct sk_buff *mtg_tx_build(struct mtg_tg *tg, u32 len, u64 sched, u64 seq,
			     u8 hdr_flags, const void *data)
{
	bool ctrl = hdr_flags & MTG_HDR_F_CTRL;
	struct net_device *dev = tg->dev;
	unsigned int reserve = LL_RESERVED_SPACE(dev);
	u32 l4_len = len - (tg->tmpl_len - sizeof(struct udphdr));
	struct sk_buff *skb;
	struct udphdr *uh;
	__wsum csum;
	u8 *p;

	skb = alloc_skb(reserve + len, GFP_ATOMIC | __GFP_NOWARN);
	if (!skb)
		return NULL;
	skb_reserve(skb, reserve);
	p = skb_put(skb, len);
	memcpy(p, tg->tmpl, tg->tmpl_len);
	skb_reset_mac_header(skb);
	skb_set_network_header(skb, ETH_HLEN);
	skb_set_transport_header(skb, tg->tmpl_len - sizeof(struct udphdr));
	uh = udp_hdr(skb);
	if (tg->flags & MTG_TG_FLAGS_ICMP)
		((struct icmphdr *)uh)->un.echo.sequence = htons((u16)seq);
	else
		uh->len = htons(l4_len);

	if (tg->flags & MTG_TG_FLAGS_IPV6) {
		ipv6_hdr(skb)->payload_len = htons(l4_len);
	} else {
		struct iphdr *iph = ip_hdr(skb);

		iph->tot_len = htons(len - ETH_HLEN);
		/* DF is set: any id will do for a control message. */
		iph->id = ctrl ? 0 : htons(tg->ip_id++);
		ip_send_check(iph);
	}

	mtg_tx_payload(tg, (u8 *)(uh + 1), l4_len - sizeof(*uh), sched, seq,
		       hdr_flags, data);

	csum = csum_partial(uh, l4_len, 0);
	if (tg->flags & MTG_TG_FLAGS_ICMP && !(tg->flags & MTG_TG_FLAGS_IPV6))
		((struct icmphdr *)uh)->checksum = csum_fold(csum);
	else if (tg->flags & MTG_TG_FLAGS_ICMP)
		((struct icmphdr *)uh)->checksum =
			csum_ipv6_magic(&ipv6_hdr(skb)->saddr,
					&ipv6_hdr(skb)->daddr, l4_len,
					IPPROTO_ICMPV6, csum);
	else if (tg->flags & MTG_TG_FLAGS_IPV6)
		uh->check = csum_ipv6_magic(&ipv6_hdr(skb)->saddr,
					    &ipv6_hdr(skb)->daddr, l4_len,
					    IPPROTO_UDP, csum);
	else
		uh->check = csum_tcpudp_magic(ip_hdr(skb)->saddr,
					      ip_hdr(skb)->daddr, l4_len,
					      IPPROTO_UDP, csum);
	/* UDP's zero says "none"; ICMP's is a checksum */
	if (!(tg->flags & MTG_TG_FLAGS_ICMP) && !uh->check)
		uh->check = CSUM_MANGLED_0;

	skb->protocol = eth_hdr(skb)->h_proto;
	skb->dev = dev;
	skb->ip_summed = CHECKSUM_NONE;
	skb_set_queue_mapping(skb, raw_smp_processor_id() %
			      dev->real_num_tx_queues);
	return skb;
}

/*
 * A CLOCK_TAI stamp as D-ITG's time of day: UTC seconds since midnight
 * and microseconds, big-endian, as its header holds them.
 */
static void mtg_ditg_time(u64 stamp, __be32 tod[2])
{
	u64 real = stamp - mtg_tai_offset();
	u32 ns, usec;
	u64 sec = div_u64_rem(real, NSEC_PER_SEC, &ns);
	u32 sod;

	div_u64_rem(sec, MTG_SECS_PER_DAY, &sod);
	usec = ns / NSEC_PER_USEC;
	tod[0] = cpu_to_be32(sod);
	tod[1] = cpu_to_be32(usec);
}

/* Write the TX stamp and fold it into the UDP or ICMP checksum. */
static void mtg_tx_stamp(struct sk_buff *skb, u32 tg_flags, u64 stamp)
{
	struct udphdr *uh = udp_hdr(skb);
	bool icmp = tg_flags & MTG_TG_FLAGS_ICMP;
	__sum16 *check = icmp ? &((struct icmphdr *)uh)->checksum : &uh->check;
	__be32 tod[2];
	__be64 tx;
	__wsum diff;

	if (tg_flags & MTG_TG_FLAGS_DITG) {
		struct mtg_ditg_hdr *d = (struct mtg_ditg_hdr *)(uh + 1);

		mtg_ditg_time(stamp, tod);
		d->tx_sec = tod[0];
		d->tx_usec = tod[1];
		diff = csum_partial(tod, sizeof(tod), 0);
	} else {
		struct mtg_hdr *h = (struct mtg_hdr *)(uh + 1);

		tx = cpu_to_be64(stamp);
		h->tx_ns = tx;
		diff = csum_partial(&tx, sizeof(tx), 0);
	}
	inet_proto_csum_replace_by_diff(check, skb, diff, false, false);
	if (!icmp && !*check)
		*check = CSUM_MANGLED_0;
}

/*
 * Hand a frame to the device (or its qdiscs), with bottom halves off. The
 * skb is consumed in every case; *stamp is the TX stamp when it returns 0.
 */
int mtg_tx_send(struct mtg_tg *tg, struct sk_buff *skb, bool more, u64 *stamp)
{
	struct net_device *dev = skb->dev;
	struct netdev_queue *txq;
	int ret;

	if (tg->flags & MTG_TG_FLAGS_QDISC) {
		*stamp = mtg_now();
		mtg_tx_stamp(skb, tg->flags, *stamp);
		return dev_queue_xmit(skb) == NET_XMIT_SUCCESS ? 0 : -EIO;
	}

	if (unlikely(!netif_running(dev) || !netif_carrier_ok(dev))) {
		kfree_skb(skb);
		return -ENETDOWN;
	}
	txq = skb_get_tx_queue(dev, skb);
	HARD_TX_LOCK(dev, txq, smp_processor_id());
	if (unlikely(netif_xmit_frozen_or_drv_stopped(txq))) {
		ret = NETDEV_TX_BUSY;
	} else {
		*stamp = mtg_now();
		mtg_tx_stamp(skb, tg->flags, *stamp);
		ret = netdev_start_xmit(skb, dev, txq, more);
	}
	HARD_TX_UNLOCK(dev, txq);
	if (ret == NETDEV_TX_OK)
		return 0;
	/* Busy: the frame is still ours. Anything else: the driver took it. */
	if (ret == NETDEV_TX_BUSY)
		kfree_skb(skb);
	return -EIO;
}
