// SPDX-License-Identifier: GPL-2.0
/*
 * RX: MTG packets received on the interfaces a session listens on go, as
 * fixed-size records, into rings in the session's shared memory, which the
 * controller polls without a system call per packet. MTG packets are UDP
 * datagrams with the MTG header, D-ITG's to the session's D-ITG ports, and
 * ICMP echo replies with the MTG header, an ICMP TG's round trips.
 *
 * The netfilter netdev ingress hook (one per interface) is the earliest
 * point that stacks with other users of the device and can consume a
 * packet: it runs after packet taps (a capture sees the frame first) and
 * before IP validation, so damaged packets still arrive here. Each packet
 * is stamped (the NIC's stamp, else the kernel's from when the driver
 * passed it up, else now), its header CRC and its checksums are verified
 * in software (a driver's "checksum verified" is not trusted: netem
 * corrupts frames a veth has marked verified), its payload is compared
 * with the pattern the header describes, and one record is written.
 * Control messages go to the control queue with their data. Recorded
 * packets are consumed (NF_STOLEN) unless the interface passes them on.
 *
 * Several CPUs may receive at once: one spinlock per session serialises
 * the writers; the parsing and the payload comparison happen before it is
 * taken. A full ring drops and counts; the consumer count userspace writes
 * is read once, checked against what the kernel knows, and ignored
 * (counted) when impossible.
 *
 * Packets whose header asks for it (a flow's flag, MTG_HDR_F_KEEP_*) also
 * leave their payload or the positions of their wrong bits in the keep
 * ring: entries of variable length, copied or computed under the lock,
 * before the packet's record. They are bounded (a payload is at most the
 * frame; MTG_KEEP_BITS_MAX positions), and a ring without room drops them
 * and counts, as the data ring does.
 *
 * Layout of MTG_REGION_RX: the producer counts (data at 0, control at 64,
 * keep at 256), struct mtg_rx_stats at 128, data records from the second
 * page, control records from the next page boundary, the keep ring after
 * them (page aligned). MTG_REGION_RX_CONS: one page, the consumer counts
 * at 0, 64 and 128.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/icmp.h>
#include <linux/icmpv6.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/netdevice.h>
#include <linux/netfilter.h>
#include <linux/netfilter_netdev.h>
#include <linux/skbuff.h>
#include <linux/timekeeping.h>
#include <linux/udp.h>
#include <net/checksum.h>
#include <net/dsfield.h>
#include <net/ip6_checksum.h>

#include "compat.h"
#include "mtg.h"
#include "uapi/linux/mtg_netlink.h"

#define MTG_RX_DATA_PROD	0
#define MTG_RX_CTRL_PROD	64
#define MTG_RX_STATS_OFF	128
#define MTG_RX_KEEP_PROD	256
#define MTG_RX_DATA_CONS	0
#define MTG_RX_CTRL_CONS	64
#define MTG_RX_KEEP_CONS	128

/* Bytes of the data records, the control records: each on whole pages. */
static u64 mtg_rx_data_bytes(u64 nr_records)
{
	return round_up(nr_records * sizeof(struct mtg_rx_rec), PAGE_SIZE);
}

static u64 mtg_rx_ctrl_bytes(void)
{
	return round_up(MTG_CTRL_RECORDS * sizeof(struct mtg_ctrl_rec),
			PAGE_SIZE);
}

u64 mtg_rx_region_bytes(u64 nr_records, u64 keep_bytes)
{
	return PAGE_SIZE + mtg_rx_data_bytes(nr_records) + mtg_rx_ctrl_bytes() +
	       keep_bytes;
}

void mtg_rx_init(struct mtg_session *s)
{
	spin_lock_init(&s->rx.lock);
}

static void mtg_ring_setup(struct mtg_ring *r, struct mtg_ring_offsets *off,
			   void *region, void *cons_page, u64 prod_off,
			   u64 cons_off, u64 records_off, u32 nr, u32 size)
{
	r->records = region + records_off;
	r->producer = region + prod_off;
	r->consumer = cons_page + cons_off;
	r->mask = nr - 1;
	r->size = size;
	off->producer = prod_off;
	off->consumer = cons_off;
	off->records = records_off;
	off->nr = nr;
	off->size = size;
}

/* The keep ring, keep_bytes (a power of two, or 0: none) at area_off. */
static void mtg_keep_setup(struct mtg_rx *rx, void *region, void *cons_page,
			   u64 area_off, u64 keep_bytes)
{
	struct mtg_keep *k = &rx->keep;

	if (!keep_bytes)
		return;
	k->area = region + area_off;
	k->producer = region + MTG_RX_KEEP_PROD;
	k->consumer = cons_page + MTG_RX_KEEP_CONS;
	k->mask = keep_bytes - 1;
	rx->koff.producer = MTG_RX_KEEP_PROD;
	rx->koff.consumer = MTG_RX_KEEP_CONS;
	rx->koff.area = area_off;
	rx->koff.bytes = keep_bytes;
}

/* After MTG_IOC_ALLOC: the rings in their (zeroed) regions. */
void mtg_rx_setup(struct mtg_session *s, void *region, u64 nr_records,
		  u64 keep_bytes, void *cons_page)
{
	struct mtg_rx *rx = &s->rx;

	lockdep_assert_held(&s->lock);
	BUILD_BUG_ON(MTG_RX_STATS_OFF + sizeof(struct mtg_rx_stats) >
		     MTG_RX_KEEP_PROD);
	BUILD_BUG_ON(sizeof(struct mtg_keep_rec) % 8);
	mtg_ring_setup(&rx->data, &rx->off.data, region, cons_page,
		       MTG_RX_DATA_PROD, MTG_RX_DATA_CONS, PAGE_SIZE,
		       nr_records, sizeof(struct mtg_rx_rec));
	mtg_ring_setup(&rx->ctrl, &rx->off.ctrl, region, cons_page,
		       MTG_RX_CTRL_PROD, MTG_RX_CTRL_CONS,
		       PAGE_SIZE + mtg_rx_data_bytes(nr_records),
		       MTG_CTRL_RECORDS, sizeof(struct mtg_ctrl_rec));
	mtg_keep_setup(rx, region, cons_page, PAGE_SIZE +
		       mtg_rx_data_bytes(nr_records) + mtg_rx_ctrl_bytes(),
		       keep_bytes);
	rx->off.stats = MTG_RX_STATS_OFF;
	rx->shm_st = region + MTG_RX_STATS_OFF;
	spin_lock_bh(&rx->lock);
	rx->ready = true;
	spin_unlock_bh(&rx->lock);
}

/* Count n more of a counter of rx->st, and publish it whole in the copy. */
static void mtg_rx_count(struct mtg_rx *rx, u64 *counter, u64 n)
{
	u64 *copy = (void *)rx->shm_st + ((void *)counter - (void *)&rx->st);

	*counter += n;
	WRITE_ONCE(*copy, *counter);
}

/*
 * The slot of the next record, or NULL when the ring is full. The consumer
 * count is userspace's claim: taken only if it lies between the last one
 * taken and the producer count.
 */
static void *mtg_ring_slot(struct mtg_rx *rx, struct mtg_ring *r)
{
	/* Pairs with userspace's release: it is done with those records. */
	u64 cons = smp_load_acquire(r->consumer);

	lockdep_assert_held(&rx->lock);
	if (cons != r->cons) {
		if (cons - r->cons <= r->prod - r->cons)
			r->cons = cons;
		else
			mtg_rx_count(rx, &rx->st.bad_consumer, 1);
	}
	if (r->prod - r->cons > r->mask)
		return NULL;
	return r->records + (r->prod & r->mask) * r->size;
}

static void mtg_ring_publish(struct mtg_ring *r)
{
	r->prod++;
	/* The record is complete before userspace can see it counted. */
	smp_store_release(r->producer, r->prod);
}

/* A control-queue record, filled by fill(); false when the queue is full. */
static struct mtg_ctrl_rec *mtg_rx_ctrl_slot(struct mtg_rx *rx, u32 type)
{
	struct mtg_ctrl_rec *c = mtg_ring_slot(rx, &rx->ctrl);

	if (!c) {
		mtg_rx_count(rx, &rx->st.ctrl_drops, 1);
		return NULL;
	}
	memset(c, 0, offsetof(struct mtg_ctrl_rec, data));
	c->type = type;
	return c;
}

/* Process context: a TG raised events (after netlink heard of them). */
void mtg_rx_tg_event(struct mtg_session *s, const struct mtg_tg *tg,
		     u32 events)
{
	struct mtg_rx *rx = &s->rx;
	struct mtg_ctrl_rec *c;

	lockdep_assert_held(&s->lock);
	spin_lock_bh(&rx->lock);
	if (rx->ready) {
		c = mtg_rx_ctrl_slot(rx, MTG_CTRL_TG_EVENT);
		if (c) {
			c->time_ns = mtg_now();
			c->tg_id = tg->id;
			c->events = events;
			c->state = READ_ONCE(tg->state);
			c->error = READ_ONCE(tg->error);
			mtg_ring_publish(&rx->ctrl);
		}
	}
	spin_unlock_bh(&rx->lock);
}

/* What the parser found in a packet. */
struct mtg_rx_pkt {
	struct mtg_hdr h;		/* a copy, network order */
	struct mtg_ditg_hdr d;		/* D-ITG's: a copy, network order */
	u32 ditg_run;			/* D-ITG's: its port's run; 0: MTG's */
	u64 rx_ns;
	u32 payload_off;		/* from skb->data */
	u32 payload_len;
	u16 flags;			/* MTG_RX_F_* */
	u8 ttl;
	u8 tos;
};

/*
 * The receive stamp, as early as the kernel took one: the NIC's, else the
 * one the stack took when the driver passed the packet up (CLOCK_REALTIME,
 * moved to TAI), else now.
 */
static u64 mtg_rx_stamp(struct sk_buff *skb, u16 *flags)
{
	ktime_t hw = skb_hwtstamps(skb)->hwtstamp;

	if (hw) {
		*flags |= MTG_RX_STAMP_HW;
		return ktime_to_ns(hw);
	}
	if (skb->tstamp && mtg_skb_tstamp_is_real(skb)) {
		*flags |= MTG_RX_STAMP_SW;
		return ktime_to_ns(skb->tstamp) + mtg_tai_offset();
	}
	*flags |= MTG_RX_STAMP_HOOK;
	return mtg_now();
}

/* The run of a D-ITG port of the session, or 0. */
static u32 mtg_rx_ditg_run(struct mtg_rx *rx, u16 port)
{
	unsigned int i;
	u64 e;

	if (!READ_ONCE(rx->nr_ditg))
		return 0;
	for (i = 0; i < MTG_DITG_PORTS; i++) {
		e = READ_ONCE(rx->ditg[i]);
		if (e && e >> 32 == port)
			return (u32)e;
	}
	return 0;
}

/*
 * Is this an MTG packet, or D-ITG's to one of the session's D-ITG ports,
 * and what does it say? Reads only (the skb may be shared with a tap). A
 * header whose CRC is wrong is still one (the magic matched): its fields
 * are kept as received and flagged. -EMSGSIZE: to a D-ITG port, but too
 * short for its header.
 */
static int mtg_rx_parse(struct mtg_rx *rx, struct sk_buff *skb,
			struct mtg_rx_pkt *pkt)
{
	u32 ipbuf[60 / sizeof(u32)];	/* the longest IP header, aligned */
	const struct ipv6hdr *ip6h = NULL;
	const struct iphdr *iph = NULL;
	const struct mtg_hdr *h;
	unsigned int l4, l4_len, ip_len, len;
	struct udphdr _uh;
	const struct udphdr *uh;
	bool csum_ok, icmp;
	__wsum csum;

	if (skb_is_gso(skb))
		return -EPROTONOSUPPORT;
	if (skb->protocol == htons(ETH_P_IP)) {
		iph = skb_header_pointer(skb, 0, sizeof(*iph), ipbuf);
		if (!iph || iph->version != 4 || iph->ihl < 5 ||
		    (iph->protocol != IPPROTO_UDP &&
		     iph->protocol != IPPROTO_ICMP) ||
		    (ntohs(iph->frag_off) & IP_OFFSET))
			return -EPROTONOSUPPORT;
		icmp = iph->protocol == IPPROTO_ICMP;
		l4 = iph->ihl * 4;
		iph = skb_header_pointer(skb, 0, l4, ipbuf);
		if (!iph)
			return -EPROTONOSUPPORT;
		pkt->ttl = iph->ttl;
		pkt->tos = iph->tos;
		ip_len = ntohs(iph->tot_len);
		if (ip_fast_csum(iph, iph->ihl))
			pkt->flags |= MTG_RX_F_CSUM_BAD;
	} else if (skb->protocol == htons(ETH_P_IPV6)) {
		ip6h = skb_header_pointer(skb, 0, sizeof(*ip6h), ipbuf);
		if (!ip6h || ip6h->version != 6 ||
		    (ip6h->nexthdr != IPPROTO_UDP &&
		     ip6h->nexthdr != IPPROTO_ICMPV6))
			return -EPROTONOSUPPORT;
		icmp = ip6h->nexthdr == IPPROTO_ICMPV6;
		pkt->flags |= MTG_RX_F_IPV6;
		pkt->ttl = ip6h->hop_limit;
		pkt->tos = ipv6_get_dsfield(ip6h);
		l4 = sizeof(*ip6h);
		ip_len = ntohs(ip6h->payload_len) + l4;
	} else {
		return -EPROTONOSUPPORT;
	}
	/*
	 * The lengths agree, but in a frame Ethernet padded to its minimum
	 * (no MTG frame is that short; D-ITG's can be).
	 */
	len = skb->len;
	if (ip_len < len && len + ETH_HLEN <= ETH_ZLEN)
		len = ip_len;
	else if (ip_len != len)
		pkt->flags |= MTG_RX_F_CSUM_BAD;
	l4_len = len - min(l4, len);
	uh = skb_header_pointer(skb, l4, sizeof(_uh), &_uh);
	if (l4_len < sizeof(*uh) || !uh)
		return -EPROTONOSUPPORT;
	/*
	 * Of ICMP, echo replies only (the header is UDP's size): a request
	 * goes on to the stack, which answers it.
	 */
	if (icmp && (((const struct icmphdr *)uh)->type !=
		     (iph ? ICMP_ECHOREPLY : ICMPV6_ECHO_REPLY) ||
		     ((const struct icmphdr *)uh)->code))
		return -EPROTONOSUPPORT;
	h = NULL;
	if (l4_len >= sizeof(*uh) + MTG_HDR_LEN)
		h = skb_header_pointer(skb, l4 + sizeof(*uh), MTG_HDR_LEN,
				       &pkt->h);
	if (icmp && (!h || h->magic != htonl(MTG_HDR_MAGIC)))
		return -EPROTONOSUPPORT;	/* somebody's ping */
	if (icmp)
		pkt->flags |= MTG_RX_F_ICMP;
	if (!h || h->magic != htonl(MTG_HDR_MAGIC)) {
		pkt->ditg_run = mtg_rx_ditg_run(rx, ntohs(uh->dest));
		if (!pkt->ditg_run)
			return -EPROTONOSUPPORT;
		if (l4_len < sizeof(*uh) + MTG_DITG_HDR_LEN ||
		    skb_copy_bits(skb, l4 + sizeof(*uh), &pkt->d,
				  sizeof(pkt->d)))
			return -EMSGSIZE;
		pkt->flags |= MTG_RX_F_DITG;
		/* what was read as an MTG header is D-ITG's payload */
		memset(&pkt->h, 0, sizeof(pkt->h));
	}

	if (skb->ip_summed == CHECKSUM_PARTIAL) {
		/* a sender on this host left it to offload: not made yet */
		pkt->flags |= MTG_RX_F_CSUM_PARTIAL;
		csum_ok = true;
	} else {
		csum = skb_checksum(skb, l4, l4_len, 0);
		if (icmp && iph)
			csum_ok = !csum_fold(csum);
		else if (icmp)
			csum_ok = !csum_ipv6_magic(&ip6h->saddr, &ip6h->daddr,
						   l4_len, IPPROTO_ICMPV6,
						   csum);
		else if (iph)	/* a zero checksum: none, which IPv4 allows */
			csum_ok = !uh->check ||
				  !csum_tcpudp_magic(iph->saddr, iph->daddr,
						     l4_len, IPPROTO_UDP, csum);
		else
			csum_ok = !csum_ipv6_magic(&ip6h->saddr, &ip6h->daddr,
						   l4_len, IPPROTO_UDP, csum);
	}
	if (!csum_ok)
		pkt->flags |= MTG_RX_F_CSUM_BAD;

	if (pkt->ditg_run) {
		pkt->payload_off = l4 + sizeof(*uh) + MTG_DITG_HDR_LEN;
		pkt->payload_len = len - pkt->payload_off;
		return 0;
	}
	if (h != &pkt->h)
		memcpy(&pkt->h, h, sizeof(pkt->h));
	if (be32_to_cpu(pkt->h.crc) != mtg_hdr_crc(&pkt->h))
		pkt->flags |= MTG_RX_F_HDR_CORRUPT;
	else if (pkt->h.version != MTG_HDR_VERSION ||
		 ntohs(pkt->h.hdr_len) != MTG_HDR_LEN)
		return -EPROTONOSUPPORT;	/* another version's: not ours */
	pkt->payload_off = l4 + sizeof(*uh) + MTG_HDR_LEN;
	pkt->payload_len = skb->len - pkt->payload_off;
	return 0;
}

/* Payload bits that differ from the pattern the (sound) header describes. */
static u32 mtg_rx_wrong_bits(const struct sk_buff *skb,
			     const struct mtg_rx_pkt *pkt)
{
	u32 off = pkt->payload_off, len = pkt->payload_len, bits = 0;
	u8 buf[MTG_PATT_CHUNK];
	struct mtg_patt pt;

	if (pkt->h.patt_kind > MTG_PATT_INCR)
		return 0;
	mtg_patt_init(&pt, pkt->h.patt_kind, pkt->h.patt_value,
		      be32_to_cpu(pkt->h.patt_seed));
	while (len) {
		u32 n = min_t(u32, len, sizeof(buf));
		const u8 *got = skb_header_pointer(skb, off, n, buf);

		if (!got)
			break;
		bits += mtg_patt_wrong_bits(&pt, got, n);
		off += n;
		len -= n;
	}
	return bits;
}

#define MTG_NSEC_PER_DAY	((u64)MTG_SECS_PER_DAY * NSEC_PER_SEC)

/*
 * D-ITG's send time, a UTC time of day, on the day that puts it nearest
 * the receive stamp, in CLOCK_TAI; 0 if it is no time of day.
 */
static u64 mtg_ditg_tx_ns(const struct mtg_ditg_hdr *d, u64 rx_ns)
{
	u32 sod = be32_to_cpu(d->tx_sec), usec = be32_to_cpu(d->tx_usec);
	u64 off = mtg_tai_offset(), rx_real, into_day, tx;

	if (sod >= MTG_SECS_PER_DAY || usec >= USEC_PER_SEC || rx_ns < off)
		return 0;
	rx_real = rx_ns - off;
	div64_u64_rem(rx_real, MTG_NSEC_PER_DAY, &into_day);
	tx = rx_real - into_day + (u64)sod * NSEC_PER_SEC +
	     (u64)usec * NSEC_PER_USEC;
	if (tx > rx_real + MTG_NSEC_PER_DAY / 2)
		tx -= MTG_NSEC_PER_DAY;
	else if (tx + MTG_NSEC_PER_DAY / 2 < rx_real)
		tx += MTG_NSEC_PER_DAY;
	return tx + off;
}

static void mtg_rx_fill_rec(struct mtg_rx_rec *r, const struct mtg_rx_pkt *pkt,
			    const struct sk_buff *skb, u16 iface)
{
	const struct mtg_hdr *h = &pkt->h;
	unsigned int i;

	memset(r, 0, sizeof(*r));
	r->rx_ns = pkt->rx_ns;
	r->len = min_t(u32, skb->len + skb->mac_len, U16_MAX);
	r->iface = iface;
	r->flags = pkt->flags;
	r->ttl = pkt->ttl;
	r->tos = pkt->tos;
	r->payload_len = min_t(u32, pkt->payload_len, U16_MAX);
	if (pkt->ditg_run) {
		/* D-ITG counts from 1; sends when its clock says it is due;
		 * no slots, no pattern
		 */
		r->seq = (u32)(be32_to_cpu(pkt->d.seq) - 1);
		r->tx_ns = mtg_ditg_tx_ns(&pkt->d, pkt->rx_ns);
		r->sched_ns = r->tx_ns;
		r->run_id = pkt->ditg_run;
		r->tg_id = be32_to_cpu(pkt->d.flow_id);
		return;
	}
	r->seq = be64_to_cpu(h->seq);
	r->sched_ns = be64_to_cpu(h->sched_ns);
	r->tx_ns = be64_to_cpu(h->tx_ns);
	for (i = 0; i < ARRAY_SIZE(r->tp_ns); i++)
		r->tp_ns[i] = be64_to_cpu(h->tp_ns[i]);
	r->run_id = be32_to_cpu(h->run_id);
	r->tg_id = be32_to_cpu(h->tg_id);
	memcpy(r->nut, h->nut, sizeof(r->nut));
	if (!(pkt->flags & MTG_RX_F_HDR_CORRUPT))
		r->wrong_bits = mtg_rx_wrong_bits(skb, pkt);
}

/*
 * Room for a keep-ring entry of len bytes (a multiple of 8) at the
 * producer count, or NULL. Where the ring's end is too near, a PAD entry
 * fills it first (counted in prod, published with the entry). The
 * consumer count is userspace's claim, taken as for the other rings and
 * only at an entry's 8-byte boundary.
 */
static struct mtg_keep_rec *mtg_keep_slot(struct mtg_rx *rx, u32 len)
{
	struct mtg_keep *k = &rx->keep;
	u64 cons, size, at, pad;
	struct mtg_keep_rec *p;

	lockdep_assert_held(&rx->lock);
	if (!k->mask)
		return NULL;
	/* Pairs with userspace's release: it is done with those bytes. */
	cons = smp_load_acquire(k->consumer);
	if (cons != k->cons) {
		if (!(cons & 7) && cons - k->cons <= k->prod - k->cons)
			k->cons = cons;
		else
			mtg_rx_count(rx, &rx->st.bad_consumer, 1);
	}
	size = k->mask + 1;
	at = k->prod & k->mask;
	pad = size - at < len ? size - at : 0;
	if (len > size || pad + len > size - (k->prod - k->cons))
		return NULL;
	if (pad) {
		/* At least 8 bytes: counts and lengths are multiples of 8. */
		p = k->area + at;
		p->len = pad;
		p->type = MTG_KEEP_PAD;
		p->flags = 0;
		k->prod += pad;
		at = 0;
	}
	return k->area + at;
}

static void mtg_keep_publish(struct mtg_keep *k, u32 len)
{
	k->prod += len;
	/* The entry is complete before userspace can see it counted. */
	smp_store_release(k->producer, k->prod);
}

static void mtg_keep_head(struct mtg_keep_rec *e, u16 type,
			  const struct mtg_rx_rec *rec, u64 index)
{
	e->type = type;
	e->flags = 0;
	e->record = index;
	e->rx_ns = rec->rx_ns;
	e->seq = rec->seq;
	e->run_id = rec->run_id;
	e->tg_id = rec->tg_id;
}

/* The payload, as received, for the record of count index. */
static bool mtg_keep_payload(struct mtg_rx *rx, const struct mtg_rx_rec *rec,
			     u64 index, const struct sk_buff *skb,
			     const struct mtg_rx_pkt *pkt)
{
	u32 len = ALIGN(sizeof(struct mtg_keep_rec) + pkt->payload_len, 8);
	struct mtg_keep_rec *e = mtg_keep_slot(rx, len);

	if (!e)
		return false;
	mtg_keep_head(e, MTG_KEEP_PAYLOAD, rec, index);
	e->count = pkt->payload_len;
	e->data_len = pkt->payload_len;
	e->len = len;
	if (skb_copy_bits(skb, pkt->payload_off, e + 1, pkt->payload_len)) {
		/* Cannot be, the parser measured it: a PAD then. */
		e->type = MTG_KEEP_PAD;
		mtg_keep_publish(&rx->keep, len);
		return false;
	}
	memset((u8 *)(e + 1) + pkt->payload_len, 0,
	       len - sizeof(*e) - pkt->payload_len);
	mtg_keep_publish(&rx->keep, len);
	return true;
}

/* The positions of the wrong bits (MTG_KEEP_BITS_MAX at most). */
static bool mtg_keep_bits(struct mtg_rx *rx, const struct mtg_rx_rec *rec,
			  u64 index, const struct sk_buff *skb,
			  const struct mtg_rx_pkt *pkt)
{
	u32 off = pkt->payload_off, left = pkt->payload_len, done = 0;
	u32 max = sizeof(struct mtg_keep_rec) + MTG_KEEP_BITS_MAX * 4;
	u32 n = 0, bits = 0, len;
	u8 buf[MTG_PATT_CHUNK];
	struct mtg_keep_rec *e;
	struct mtg_patt pt;

	e = mtg_keep_slot(rx, max);
	if (!e)
		return false;
	mtg_keep_head(e, MTG_KEEP_BITS, rec, index);
	if (pkt->h.patt_kind <= MTG_PATT_INCR) {
		mtg_patt_init(&pt, pkt->h.patt_kind, pkt->h.patt_value,
			      be32_to_cpu(pkt->h.patt_seed));
		while (left) {
			u32 c = min_t(u32, left, sizeof(buf));
			const u8 *got = skb_header_pointer(skb, off, c, buf);

			if (!got)
				break;
			bits += mtg_patt_wrong_positions(&pt, got, c, done * 8,
							 (__u32 *)(e + 1), &n,
							 MTG_KEEP_BITS_MAX);
			off += c;
			done += c;
			left -= c;
		}
	}
	len = ALIGN(sizeof(*e) + n * 4, 8);
	memset((u8 *)(e + 1) + n * 4, 0, len - sizeof(*e) - n * 4);
	e->flags = bits > n ? MTG_KEEP_F_CUT : 0;
	e->count = bits;
	e->data_len = n * 4;
	e->len = len;
	mtg_keep_publish(&rx->keep, len);
	return true;
}

/*
 * What the header asks to keep of a packet whose record will be the data
 * ring's record of count index: into the keep ring, or counted as lost.
 */
static void mtg_rx_keep(struct mtg_rx *rx, struct mtg_rx_rec *rec, u64 index,
			const struct sk_buff *skb,
			const struct mtg_rx_pkt *pkt)
{
	u8 want = pkt->h.flags;
	bool kept;

	if (want & MTG_HDR_F_KEEP_PAYLOAD) {
		kept = mtg_keep_payload(rx, rec, index, skb, pkt);
		rec->flags |= kept ? MTG_RX_F_KEPT : MTG_RX_F_KEEP_LOST;
		mtg_rx_count(rx, kept ? &rx->st.kept : &rx->st.keep_drops, 1);
	}
	if (want & MTG_HDR_F_KEEP_BITS) {
		kept = mtg_keep_bits(rx, rec, index, skb, pkt);
		rec->flags |= kept ? MTG_RX_F_KEPT : MTG_RX_F_KEEP_LOST;
		mtg_rx_count(rx, kept ? &rx->st.kept : &rx->st.keep_drops, 1);
	}
}

static void mtg_rx_record(struct mtg_rx *rx, struct mtg_rx_rec *rec,
			  const struct sk_buff *skb,
			  const struct mtg_rx_pkt *pkt)
{
	struct mtg_ctrl_rec *c;
	void *slot;

	spin_lock(&rx->lock);
	slot = mtg_ring_slot(rx, &rx->data);
	if (slot) {
		/* A corrupt header asks for nothing: its flags are noise. */
		if (!(rec->flags & MTG_RX_F_HDR_CORRUPT) &&
		    (pkt->h.flags & (MTG_HDR_F_KEEP_PAYLOAD |
				     MTG_HDR_F_KEEP_BITS)))
			mtg_rx_keep(rx, rec, rx->data.prod, skb, pkt);
		memcpy(slot, rec, sizeof(*rec));
		mtg_ring_publish(&rx->data);
		rx->dropping = false;
		mtg_rx_count(rx, &rx->st.packets, 1);
		mtg_rx_count(rx, &rx->st.bytes, rec->len);
		if (rec->flags & MTG_RX_F_HDR_CORRUPT)
			mtg_rx_count(rx, &rx->st.hdr_corrupt, 1);
		if (rec->flags & MTG_RX_F_CSUM_BAD)
			mtg_rx_count(rx, &rx->st.csum_bad, 1);
		mtg_rx_count(rx, &rx->st.wrong_bits, rec->wrong_bits);
	} else {
		mtg_rx_count(rx, &rx->st.ring_drops, 1);
		/* Coalesced: one event when a ring that had room drops. */
		if (!rx->dropping) {
			rx->dropping = true;
			c = mtg_rx_ctrl_slot(rx, MTG_CTRL_RX_DROPS);
			if (c) {
				c->time_ns = rec->rx_ns;
				c->count = rx->st.ring_drops;
				mtg_ring_publish(&rx->ctrl);
			}
		}
	}
	spin_unlock(&rx->lock);
}

static void mtg_rx_ctrlmsg(struct mtg_rx *rx, const struct sk_buff *skb,
			   const struct mtg_rx_pkt *pkt, u16 iface)
{
	u32 len = min_t(u32, pkt->payload_len, MTG_CTRLMSG_MAX);
	struct mtg_ctrl_rec *c;

	spin_lock(&rx->lock);
	c = mtg_rx_ctrl_slot(rx, MTG_CTRL_MSG);
	if (c && !skb_copy_bits(skb, pkt->payload_off, c->data, len)) {
		c->time_ns = pkt->rx_ns;
		c->tg_id = be32_to_cpu(pkt->h.tg_id);
		c->run_id = be32_to_cpu(pkt->h.run_id);
		c->len = len;
		c->seq = be64_to_cpu(pkt->h.seq);
		c->tx_ns = be64_to_cpu(pkt->h.tx_ns);
		c->iface = iface;
		c->flags = pkt->flags;
		mtg_ring_publish(&rx->ctrl);
		mtg_rx_count(rx, &rx->st.ctrl, 1);
	}
	spin_unlock(&rx->lock);
}

/* Softirq, RCU read side: the iface lives until its hook is unregistered. */
static unsigned int mtg_rx_hook(void *priv, struct sk_buff *skb,
				const struct nf_hook_state *state)
{
	struct mtg_iface *iface = priv;
	struct mtg_rx *rx = &iface->s->rx;
	struct mtg_rx_pkt pkt = { };
	struct mtg_rx_rec rec;
	u32 run;
	int err;

	pkt.rx_ns = mtg_rx_stamp(skb, &pkt.flags);
	err = mtg_rx_parse(rx, skb, &pkt);
	if (err == -EMSGSIZE) {
		spin_lock(&rx->lock);
		mtg_rx_count(rx, &rx->st.ditg_short, 1);
		spin_unlock(&rx->lock);
	}
	if (err)
		return NF_ACCEPT;
	run = READ_ONCE(rx->run_id);
	/* A corrupt header's run id proves nothing: it is recorded. */
	if (run && !(pkt.flags & MTG_RX_F_HDR_CORRUPT) &&
	    (pkt.ditg_run ? pkt.ditg_run : be32_to_cpu(pkt.h.run_id)) != run) {
		spin_lock(&rx->lock);
		mtg_rx_count(rx, &rx->st.foreign, 1);
		spin_unlock(&rx->lock);
		return NF_ACCEPT;
	}
	if (!(pkt.flags & MTG_RX_F_HDR_CORRUPT) &&
	    (pkt.h.flags & MTG_HDR_F_CTRL)) {
		mtg_rx_ctrlmsg(rx, skb, &pkt, iface->id);
	} else {
		mtg_rx_fill_rec(&rec, &pkt, skb, iface->id);
		mtg_rx_record(rx, &rec, skb, &pkt);
	}
	if (iface->flags & MTG_IFACE_F_RX_PASS)
		return NF_ACCEPT;
	consume_skb(skb);
	return NF_STOLEN;
}

/* Under RTNL and the session lock, the device held: listen on it. */
int mtg_rx_hook_add(struct mtg_session *s, struct mtg_iface *iface)
{
	struct nf_hook_ops *ops = &iface->hook;
	int err;

	ASSERT_RTNL();
	lockdep_assert_held(&s->lock);
	if (!s->rx.ready)
		return -ENODATA;
	ops->hook = mtg_rx_hook;
	ops->pf = NFPROTO_NETDEV;
	ops->hooknum = NF_NETDEV_INGRESS;
	ops->priority = INT_MIN;	/* before other ingress hooks */
	ops->dev = iface->dev;
	ops->priv = iface;
	err = nf_register_net_hook(dev_net(iface->dev), ops);
	if (err)
		return err;
	/* The stack stamps received packets from now on (a moment later). */
	net_enable_timestamp();
	iface->hooked = true;
	return 0;
}

/* The device still held: stop listening; no hook runs when it returns. */
void mtg_rx_hook_del(struct mtg_iface *iface)
{
	if (!iface->hooked)
		return;
	nf_unregister_net_hook(dev_net(iface->dev), &iface->hook);
	net_disable_timestamp();
	iface->hooked = false;
}

int mtg_rx_offsets(struct mtg_session *s, struct mtg_rx_offsets *off)
{
	int err = 0;

	mutex_lock(&s->lock);
	if (s->rx.ready)
		*off = s->rx.off;
	else
		err = -ENODATA;
	mutex_unlock(&s->lock);
	return err;
}

int mtg_rx_keep_offsets(struct mtg_session *s, struct mtg_keep_offsets *off)
{
	int err = 0;

	mutex_lock(&s->lock);
	if (s->rx.ready && s->rx.keep.mask)
		*off = s->rx.koff;
	else
		err = -ENODATA;
	mutex_unlock(&s->lock);
	return err;
}

int mtg_rx_stats(struct mtg_session *s, struct mtg_rx_stats *st)
{
	struct mtg_rx *rx = &s->rx;
	int err = 0;

	spin_lock_bh(&rx->lock);
	if (rx->ready)
		*st = rx->st;
	else
		err = -ENODATA;
	spin_unlock_bh(&rx->lock);
	return err;
}

int mtg_rx_ditg(struct mtg_session *s, const struct mtg_rx_ditg *req)
{
	struct mtg_rx *rx = &s->rx;
	int i, free = -1, at = -1;
	int err = 0;

	if (req->reserved || !req->port ||
	    (req->op != MTG_DITG_ADD && req->op != MTG_DITG_DEL) ||
	    (req->op == MTG_DITG_ADD && !req->run_id))
		return -EINVAL;
	spin_lock_bh(&rx->lock);
	if (!rx->ready) {
		err = -ENODATA;
		goto out_unlock;
	}
	for (i = 0; i < MTG_DITG_PORTS; i++) {
		if (!rx->ditg[i])
			free = free < 0 ? i : free;
		else if (rx->ditg[i] >> 32 == req->port)
			at = i;
	}
	if (req->op == MTG_DITG_DEL) {
		if (at < 0) {
			err = -ENOENT;
		} else {
			WRITE_ONCE(rx->ditg[at], 0);
			WRITE_ONCE(rx->nr_ditg, rx->nr_ditg - 1);
		}
	} else if (at >= 0) {
		err = -EEXIST;
	} else if (free < 0) {
		err = -ENOSPC;
	} else {
		WRITE_ONCE(rx->ditg[free],
			   MTG_DITG_ENTRY(req->port, req->run_id));
		WRITE_ONCE(rx->nr_ditg, rx->nr_ditg + 1);
	}
out_unlock:
	spin_unlock_bh(&rx->lock);
	return err;
}

int mtg_rx_set_run(struct mtg_session *s, u32 run_id)
{
	struct mtg_rx *rx = &s->rx;
	int err = 0;

	spin_lock_bh(&rx->lock);
	if (rx->ready)
		WRITE_ONCE(rx->run_id, run_id);
	else
		err = -ENODATA;
	spin_unlock_bh(&rx->lock);
	return err;
}
