// SPDX-License-Identifier: GPL-2.0
/*
 * Traffic generators: the ioctls that start, stop and steer them, and their
 * life in a session. A TG holds its device (netdev_hold, tracker) until it
 * is killed, its session ends or the device is unregistered; its statistics
 * stay readable until the session is released.
 *
 * Starting checks everything first (descriptor, device, timetable, route
 * and neighbour) and only then makes the TG visible, under RTNL so that the
 * device cannot slip away unnoticed in between: on error nothing is left.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/etherdevice.h>
#include <linux/icmp.h>
#include <linux/icmpv6.h>
#include <linux/if_arp.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/rtnetlink.h>
#include <linux/slab.h>
#include <linux/udp.h>
#include <net/addrconf.h>
#include <net/ip.h>
#include <net/ip6_route.h>
#include <net/neighbour.h>
#include <net/route.h>

#include "mtg.h"
#include "uapi/linux/mtg_netlink.h"

#define MTG_NEIGH_WAIT_MS	2000
#define MTG_LEAD_START_NS	(100 * NSEC_PER_USEC)

/* Checks that need nothing but the descriptor. */
static int mtg_tg_check(const struct mtg_tg_start *d)
{
	unsigned int i;

	if (!d->tg_id || d->flags & ~MTG_TG_FLAGS_MASK || d->reserved0 ||
	    d->reserved1 ||
	    d->patt_kind > MTG_PATT_INCR || !d->ttl ||
	    (d->flags & MTG_TG_FLAGS_ICMP ? d->dst_port : !d->dst_port) ||
	    !d->table_len || d->table_offset % sizeof(struct mtg_tt_entry) ||
	    !d->ifindex || d->ifindex > INT_MAX)
		return -EINVAL;
	for (i = 0; i < ARRAY_SIZE(d->reserved); i++)
		if (d->reserved[i])
			return -EINVAL;
	/* one transport; a connection carries the MTG header */
	if (hweight32(d->flags & (MTG_TG_FLAGS_ICMP | MTG_TG_FLAGS_TCP |
				  MTG_TG_FLAGS_SCTP | MTG_TG_FLAGS_DCCP)) > 1 ||
	    (mtg_sock_flags(d->flags) && d->flags & MTG_TG_FLAGS_DITG))
		return -EINVAL;
	/* D-ITG's header has no flags to ask receivers to keep anything */
	if (d->flags & MTG_TG_FLAGS_DITG &&
	    d->flags & (MTG_TG_FLAGS_KEEP_PAYLOAD | MTG_TG_FLAGS_KEEP_BITS |
			MTG_TG_FLAGS_ICMP))
		return -EINVAL;
	if (d->flags & MTG_TG_FLAGS_STREAM) {
		if (d->ring_offset % SMP_CACHE_BYTES)
			return -EINVAL;
	} else if (d->ring_offset) {
		return -EINVAL;
	}
	/* hrtimers count signed nanoseconds: later than 2262 cannot be armed. */
	if (d->start_ns > KTIME_MAX || d->stop_ns > KTIME_MAX ||
	    (d->stop_ns && d->stop_ns <= d->start_ns))
		return -EINVAL;
	if (d->cpu >= nr_cpu_ids || !cpu_possible(d->cpu))
		return -ENXIO;
	return 0;
}

/* Where the tables region of the session's memory is, in the kernel. */
static int mtg_tg_map_table(struct mtg_session *s, struct mtg_tg *tg,
			    const struct mtg_tg_start *d)
{
	const struct mtg_region *r = &s->shm.region[MTG_REGION_TABLES];
	u64 bytes = (u64)d->table_len * sizeof(struct mtg_tt_entry);
	void *base;

	lockdep_assert_held(&s->lock);
	if (!s->shm.pages)
		return -ENODATA;
	base = s->shm.vaddr + r->offset;
	if (d->table_offset > r->size || bytes > r->size - d->table_offset)
		return -EINVAL;
	tg->table = base + d->table_offset;
	tg->table_len = d->table_len;
	if (d->flags & MTG_TG_FLAGS_STREAM) {
		if (d->ring_offset > r->size ||
		    sizeof(struct mtg_tt_ring) > r->size - d->ring_offset)
			return -EINVAL;
		tg->ring = base + d->ring_offset;
	}
	return 0;
}

/*
 * Every entry userspace has provided is valid when the TG starts. (They
 * are checked again as they are used: userspace may change them.)
 */
static int mtg_tg_check_table(const struct mtg_tg *tg)
{
	u32 max_len = READ_ONCE(tg->dev->mtu) + ETH_HLEN, n = tg->table_len, i;

	if (tg->ring) {
		u64 produced = READ_ONCE(tg->ring->producer);

		if (produced > tg->table_len)
			return -EINVAL;
		n = produced;
	}
	for (i = 0; i < n; i++) {
		const struct mtg_tt_entry *e = &tg->table[i];
		u32 len = READ_ONCE(e->len);

		if (READ_ONCE(e->reserved) || len < tg->min_len)
			return -EINVAL;
		if (len > max_len)
			return -EMSGSIZE;
	}
	return 0;
}

static int mtg_tg_wait_neigh(struct neighbour *n, struct net_device *dev,
			     u8 *mac)
{
	unsigned long deadline = jiffies + msecs_to_jiffies(MTG_NEIGH_WAIT_MS);

	for (;;) {
		if (READ_ONCE(n->nud_state) & NUD_VALID) {
			neigh_ha_snapshot(mac, n, dev);
			return 0;
		}
		if (time_after(jiffies, deadline))
			return -EHOSTUNREACH;
		neigh_event_send(n, NULL);
		if (msleep_interruptible(10))
			return -EINTR;
	}
}

/*
 * The caller gave the whole path, a source address and the next hop's MAC:
 * no route is looked up, so a TG can send to its own address through a
 * network that brings the packets back (MTG's "to myself"), which the
 * routing table would keep on the local host.
 */
static bool mtg_tg_path_given(const struct mtg_tg_start *d, size_t alen)
{
	return d->flags & MTG_TG_FLAGS_DST_MAC && memchr_inv(d->src_addr, 0, alen);
}

/*
 * Route to the destination through the TG's device: the source address
 * when none was given, and the next hop's MAC unless one was given.
 */
static int mtg_tg_route4(struct net *net, struct net_device *dev,
			 struct mtg_tg_start *d)
{
	struct flowi4 fl4 = {
		.flowi4_oif = dev->ifindex,
		.flowi4_proto = d->flags & MTG_TG_FLAGS_ICMP ? IPPROTO_ICMP :
				IPPROTO_UDP,
	};
	struct neighbour *n;
	struct rtable *rt;
	int err = 0;

	if (mtg_tg_path_given(d, 4))
		return 0;

	memcpy(&fl4.daddr, d->dst_addr, 4);
	memcpy(&fl4.saddr, d->src_addr, 4);
	rt = ip_route_output_key(net, &fl4);
	if (IS_ERR(rt))
		return PTR_ERR(rt);
	if (rt->dst.dev != dev) {
		err = -ENETUNREACH;
		goto err_put_route;
	}
	memcpy(d->src_addr, &fl4.saddr, 4);
	if (d->flags & MTG_TG_FLAGS_DST_MAC)
		goto err_put_route;
	n = dst_neigh_lookup(&rt->dst, &fl4.daddr);
	if (!n) {
		err = -ENOMEM;
		goto err_put_route;
	}
	err = mtg_tg_wait_neigh(n, dev, d->dst_mac);
	neigh_release(n);
err_put_route:
	ip_rt_put(rt);
	return err;
}

/*
 * Whether dev has a link-local address to solicit neighbours from: 0, or
 * -EAGAIN while its duplicate address detection runs, or -EADDRNOTAVAIL.
 */
static int mtg_tg_ll6_state(struct inet6_dev *idev)
{
	struct inet6_ifaddr *ifp;
	int ret = -EADDRNOTAVAIL;

	read_lock_bh(&idev->lock);
	list_for_each_entry(ifp, &idev->addr_list, if_list) {
		if (ifp->scope != IFA_LINK || ifp->flags & IFA_F_DADFAILED)
			continue;
		if (!(ifp->flags & (IFA_F_TENTATIVE | IFA_F_OPTIMISTIC))) {
			ret = 0;
			break;
		}
		ret = -EAGAIN;
	}
	read_unlock_bh(&idev->lock);
	return ret;
}

/*
 * With no packet queued on the neighbour, as here, IPv6 solicits from a
 * link-local address of the device and sends nothing while that address
 * is tentative (ndisc_send_ns()): on a device that just came up, waiting
 * for an answer would time out. Wait for the detection to end first, as
 * long as the device's settings let it take: the random delay before it
 * and one retransmission time per probe, plus one.
 */
static int mtg_tg_wait_ll6(struct net_device *dev)
{
	struct inet6_dev *idev = in6_dev_get(dev);
	unsigned long deadline;
	int err;

	if (!idev)
		return -EADDRNOTAVAIL;
	deadline = jiffies + max(READ_ONCE(idev->cnf.rtr_solicit_delay), 0) +
		   (max(READ_ONCE(idev->cnf.dad_transmits), 0) + 1) *
		   NEIGH_VAR(idev->nd_parms, RETRANS_TIME);
	while ((err = mtg_tg_ll6_state(idev)) == -EAGAIN &&
	       time_before(jiffies, deadline)) {
		if (msleep_interruptible(10)) {
			err = -EINTR;
			break;
		}
	}
	in6_dev_put(idev);
	return err == -EAGAIN ? -EADDRNOTAVAIL : err;
}

static int mtg_tg_route6(struct net *net, struct net_device *dev,
			 struct mtg_tg_start *d)
{
	struct flowi6 fl6 = {
		.flowi6_oif = dev->ifindex,
		.flowi6_proto = d->flags & MTG_TG_FLAGS_ICMP ? IPPROTO_ICMPV6 :
				IPPROTO_UDP,
	};
	struct dst_entry *dst;
	struct neighbour *n;
	int err;

	if (mtg_tg_path_given(d, 16))
		return 0;
	memcpy(&fl6.daddr, d->dst_addr, 16);
	memcpy(&fl6.saddr, d->src_addr, 16);
	dst = ip6_route_output(net, NULL, &fl6);
	err = dst->error;
	if (err)
		goto err_put_route;
	if (dst->dev != dev) {
		err = -ENETUNREACH;
		goto err_put_route;
	}
	if (ipv6_addr_any(&fl6.saddr)) {
		err = ipv6_dev_get_saddr(net, dev, &fl6.daddr, 0, &fl6.saddr);
		if (err) {
			err = -EADDRNOTAVAIL;
			goto err_put_route;
		}
		memcpy(d->src_addr, &fl6.saddr, 16);
	}
	if (d->flags & MTG_TG_FLAGS_DST_MAC)
		goto err_put_route;
	n = dst_neigh_lookup(dst, &fl6.daddr);
	if (!n) {
		err = -ENOMEM;
		goto err_put_route;
	}
	err = READ_ONCE(n->nud_state) & NUD_VALID ? 0 : mtg_tg_wait_ll6(dev);
	if (!err)
		err = mtg_tg_wait_neigh(n, dev, d->dst_mac);
	neigh_release(n);
err_put_route:
	dst_release(dst);
	return err;
}

/*
 * The headers every frame of the TG starts with. An ICMP echo's header is
 * UDP's size: the frames' layout is the same.
 */
static void mtg_tg_build_template(struct mtg_tg *tg,
				  const struct mtg_tg_start *d)
{
	struct ethhdr *eth = (struct ethhdr *)tg->tmpl;
	bool icmp = d->flags & MTG_TG_FLAGS_ICMP;
	struct udphdr *uh;

	ether_addr_copy(eth->h_dest, d->dst_mac);
	ether_addr_copy(eth->h_source, tg->dev->dev_addr);
	if (d->flags & MTG_TG_FLAGS_IPV6) {
		struct ipv6hdr *ip6h = (struct ipv6hdr *)(eth + 1);

		eth->h_proto = htons(ETH_P_IPV6);
		ip6_flow_hdr(ip6h, d->tos, 0);
		ip6h->nexthdr = icmp ? IPPROTO_ICMPV6 : IPPROTO_UDP;
		ip6h->hop_limit = d->ttl;
		memcpy(&ip6h->saddr, d->src_addr, 16);
		memcpy(&ip6h->daddr, d->dst_addr, 16);
		uh = (struct udphdr *)(ip6h + 1);
	} else {
		struct iphdr *iph = (struct iphdr *)(eth + 1);

		eth->h_proto = htons(ETH_P_IP);
		iph->version = 4;
		iph->ihl = 5;
		iph->tos = d->tos;
		iph->frag_off = htons(IP_DF);
		iph->ttl = d->ttl;
		iph->protocol = icmp ? IPPROTO_ICMP : IPPROTO_UDP;
		memcpy(&iph->saddr, d->src_addr, 4);
		memcpy(&iph->daddr, d->dst_addr, 4);
		uh = (struct udphdr *)(iph + 1);
	}
	if (icmp) {
		struct icmphdr *ih = (struct icmphdr *)uh;

		ih->type = d->flags & MTG_TG_FLAGS_IPV6 ? ICMPV6_ECHO_REQUEST :
			   ICMP_ECHO;
		ih->un.echo.id = htons(d->src_port);
	} else {
		uh->source = htons(d->src_port);
		uh->dest = htons(d->dst_port);
	}
	tg->tmpl_len = (u8 *)(uh + 1) - tg->tmpl;
	tg->min_len = tg->tmpl_len + (d->flags & MTG_TG_FLAGS_DITG ?
				      MTG_DITG_HDR_LEN : MTG_HDR_LEN);
}

/* Let go of what a TG holds: its connection, if any, and its device. */
static void mtg_tg_put_dev(struct mtg_tg *tg)
{
	mtg_sock_close(tg);
	if (!tg->dev)
		return;
	netdev_put(tg->dev, &tg->dev_tracker);
	tg->dev = NULL;
}

/* The device, held, if it is an Ethernet device that is up. */
static int mtg_tg_hold_dev(struct mtg_tg *tg, struct net *net, int ifindex)
{
	struct net_device *dev;
	int err = 0;

	rtnl_lock();
	dev = __dev_get_by_index(net, ifindex);
	if (!dev)
		err = -ENODEV;
	else if (dev->type != ARPHRD_ETHER || dev->addr_len != ETH_ALEN)
		err = -EOPNOTSUPP;
	else if (!netif_running(dev))
		err = -ENETDOWN;
	if (!err) {
		netdev_hold(dev, &tg->dev_tracker, GFP_KERNEL);
		tg->dev = dev;
		tg->ifindex = ifindex;
	}
	rtnl_unlock();
	return err;
}

/*
 * MTG_TG_FLAGS_RESTART, under RTNL and the session lock: tg takes the place of
 * the ended TG of its id, going on from its sequence number and counters,
 * and is queued; the old one is let go, and *gone is for the caller to
 * free once it holds no lock (mtg_sock_free). On error nothing changed.
 */
static int mtg_tg_take_over(struct mtg_session *s, struct mtg_tg *tg,
			    struct mtg_tg **gone)
{
	struct mtg_tg *old = xa_load(&s->tgs, tg->id);
	unsigned long events;
	u64 lead = tg->st.lead_ns;
	int err;

	lockdep_assert_held(&s->lock);
	if (!old)
		return -ENOENT;
	if (READ_ONCE(old->state) == MTG_TG_STATE_RUNNING ||
	    READ_ONCE(old->state) == MTG_TG_STATE_SUSPENDED)
		return -EBUSY;
	/* No dispatcher is in it any more: its counters are still. */
	synchronize_net();
	/* What it raised is told before it goes (as the event work would). */
	events = atomic_long_xchg(&old->pending, 0);
	if (events) {
		mtg_notify_tg(s, old, events);
		mtg_rx_tg_event(s, old, events);
	}
	tg->st = old->st;
	tg->st.next_ns = tg->start_ns;
	tg->st.lead_ns = lead;
	atomic64_set(&tg->events, atomic64_read(&old->events));
	if (tg->stop_count)
		tg->stop_count += old->st.next_seq;
	/* The slot exists: replacing its entry allocates nothing. */
	err = xa_err(xa_store(&s->tgs, tg->id, tg, GFP_KERNEL_ACCOUNT));
	if (err)
		return err;
	err = mtg_cpu_start(tg);
	if (err) {
		xa_store(&s->tgs, tg->id, old, GFP_KERNEL_ACCOUNT);
		return err;
	}
	mtg_tg_put_dev(old);
	*gone = old;
	return 0;
}

/* A prepared TG that will not start: nothing of it is left. No lock held. */
void mtg_tg_discard(struct mtg_tg *tg)
{
	mtg_tg_put_dev(tg);
	mtg_sock_free(tg);
	kfree(tg);
}

/*
 * Make a prepared TG visible and queue it; on error it is discarded. Under
 * RTNL: the device is still registered in the namespace it was found in,
 * and the netdevice notifier will see the TG.
 */
int mtg_tg_publish(struct mtg_tg *tg)
{
	bool restart = tg->flags & MTG_TG_FLAGS_RESTART;
	struct mtg_session *s = tg->s;
	struct mtg_tg *gone = NULL;
	int err;

	rtnl_lock();
	mutex_lock(&s->lock);
	if (s->ended)
		err = -ESHUTDOWN;
	else if (tg->dev->reg_state != NETREG_REGISTERED ||
		 dev_net(tg->dev)->net_cookie != tg->netns_cookie)
		err = -ENODEV;
	else if (!restart && s->nr_tgs >= mtg_max_tgs)
		err = -ENOSPC;
	else if (tg->start_ns <= mtg_now())
		err = -ETIME;
	else if (restart)
		err = mtg_tg_take_over(s, tg, &gone);
	else
		err = xa_insert(&s->tgs, tg->id, tg, GFP_KERNEL_ACCOUNT);
	if (err == -EBUSY && !restart)
		err = -EEXIST;
	if (!err && !restart) {
		err = mtg_cpu_start(tg);
		if (err)
			xa_erase(&s->tgs, tg->id);
		else
			s->nr_tgs++;
	}
	if (!err)
		mtg_session_changed(s);
	mutex_unlock(&s->lock);
	rtnl_unlock();
	if (gone) {
		mtg_sock_free(gone);
		kfree(gone);
	}
	if (err)
		mtg_tg_discard(tg);
	return err;
}

/*
 * A TG for descriptor d, checked against everything it needs (device,
 * timetable, route, neighbour) but not visible yet; d gets the addresses
 * it will use. mtg_tg_publish() starts it, mtg_tg_discard() lets it go.
 */
struct mtg_tg *mtg_tg_prepare(struct mtg_session *s, struct mtg_tg_start *d)
{
	struct mtg_tg *tg;
	struct net *net;
	int err;

	err = mtg_tg_check(d);
	if (err)
		return ERR_PTR(err);

	tg = kzalloc(sizeof(*tg), GFP_KERNEL_ACCOUNT);
	if (!tg)
		return ERR_PTR(-ENOMEM);
	tg->s = s;
	tg->cpu = mtg_cpu_get(d->cpu);
	tg->id = d->tg_id;
	tg->run_id = d->run_id;
	tg->flags = d->flags;
	tg->patt_kind = d->patt_kind;
	tg->patt_value = d->patt_value;
	if (d->flags & MTG_TG_FLAGS_KEEP_PAYLOAD)
		tg->hdr_flags |= MTG_HDR_F_KEEP_PAYLOAD;
	if (d->flags & MTG_TG_FLAGS_KEEP_BITS)
		tg->hdr_flags |= MTG_HDR_F_KEEP_BITS;
	tg->patt_seed = d->patt_seed;
	memcpy(tg->nut, d->nut, sizeof(tg->nut));
	tg->start_ns = d->start_ns;
	tg->stop_count = d->stop_count;
	tg->stop_ns = d->stop_ns;
	tg->late_threshold_ns = d->late_threshold_ns;
	tg->next_ns = d->start_ns;
	tg->st.next_ns = d->start_ns;
	tg->rate = (1ULL << 32) | 1;
	if (d->flags & MTG_TG_FLAGS_PRECISE)
		tg->st.lead_ns = MTG_LEAD_START_NS;
	tg->state = MTG_TG_STATE_RUNNING;
	RB_CLEAR_NODE(&tg->node);
	INIT_LIST_HEAD(&tg->precise_node);

	net = mtg_get_net(d->netns_fd);
	if (IS_ERR(net)) {
		err = PTR_ERR(net);
		goto err_free_tg;
	}
	if (!ns_capable(net->user_ns, CAP_NET_ADMIN)) {
		err = -EPERM;
		goto err_put_net;
	}
	err = mtg_tg_hold_dev(tg, net, d->ifindex);
	if (err)
		goto err_put_net;
	/* Sizes the headers, so the table's lengths can be checked. */
	mtg_tg_build_template(tg, d);

	mutex_lock(&s->lock);
	err = s->ended ? -ESHUTDOWN : mtg_tg_map_table(s, tg, d);
	mutex_unlock(&s->lock);
	if (!err)
		err = mtg_tg_check_table(tg);
	if (err)
		goto err_put_dev;

	err = d->flags & MTG_TG_FLAGS_IPV6 ? mtg_tg_route6(net, tg->dev, d) :
					 mtg_tg_route4(net, tg->dev, d);
	if (err)
		goto err_put_dev;
	mtg_tg_build_template(tg, d);
	if (mtg_sock_flags(d->flags)) {
		err = mtg_sock_open(tg, net, d);
		if (err)
			goto err_put_dev;
	}
	d->reserved0 = 0;
	memcpy(&tg->desc, d, sizeof(*d));
	tg->netns_cookie = net->net_cookie;
	put_net(net);
	return tg;

err_put_dev:
	mtg_tg_put_dev(tg);
err_put_net:
	put_net(net);
err_free_tg:
	kfree(tg);
	return ERR_PTR(err);
}

static struct mtg_tg *mtg_tg_find(struct mtg_session *s, u32 id)
{
	lockdep_assert_held(&s->lock);
	return xa_load(&s->tgs, id);
}

/* After TGs stopped: wait out the dispatchers, then let devices go. */
static void mtg_tg_put_stopped_devs(struct mtg_session *s)
{
	struct mtg_tg *tg;
	unsigned long id;
	bool any = false;

	lockdep_assert_held(&s->lock);
	xa_for_each(&s->tgs, id, tg)
		if (tg->dev && READ_ONCE(tg->state) != MTG_TG_STATE_RUNNING &&
		    READ_ONCE(tg->state) != MTG_TG_STATE_SUSPENDED)
			any = true;
	if (!any)
		return;
	synchronize_net();
	xa_for_each(&s->tgs, id, tg)
		if (READ_ONCE(tg->state) != MTG_TG_STATE_RUNNING &&
		    READ_ONCE(tg->state) != MTG_TG_STATE_SUSPENDED)
			mtg_tg_put_dev(tg);
}

/* Under the session lock, act on the TG of this id (ENOENT: none). */
static int mtg_tg_act(struct mtg_session *s, u32 id,
		      int (*act)(struct mtg_tg *tg))
{
	struct mtg_tg *tg;
	int err;

	mutex_lock(&s->lock);
	tg = mtg_tg_find(s, id);
	err = tg ? act(tg) : -ENOENT;
	mutex_unlock(&s->lock);
	return err;
}

static int mtg_tg_kill_locked(struct mtg_tg *tg)
{
	mtg_cpu_stop(tg, MTG_TG_STATE_KILLED, MTG_TG_ERROR_NONE);
	/* Returns only once no further frame of it can leave. */
	mtg_tg_put_stopped_devs(tg->s);
	return 0;
}

int mtg_tg_kill(struct mtg_session *s, u32 id)
{
	return mtg_tg_act(s, id, mtg_tg_kill_locked);
}

int mtg_tg_suspend(struct mtg_session *s, u32 id)
{
	return mtg_tg_act(s, id, mtg_cpu_suspend);
}

int mtg_tg_resume(struct mtg_session *s, u32 id)
{
	return mtg_tg_act(s, id, mtg_cpu_resume);
}

int mtg_tg_set_rate(struct mtg_session *s, const struct mtg_tg_rate *rate)
{
	struct mtg_tg *tg;
	int err = 0;

	if (rate->reserved || !rate->num || rate->num > 65536 ||
	    !rate->den || rate->den > 65536)
		return -EINVAL;
	mutex_lock(&s->lock);
	tg = mtg_tg_find(s, rate->tg_id);
	if (!tg)
		err = -ENOENT;
	else if (READ_ONCE(tg->state) != MTG_TG_STATE_RUNNING &&
		 READ_ONCE(tg->state) != MTG_TG_STATE_SUSPENDED)
		err = -ESRCH;
	else
		WRITE_ONCE(tg->rate, (u64)rate->num << 32 | rate->den);
	mutex_unlock(&s->lock);
	return err;
}

int mtg_tg_ctrlmsg(struct mtg_session *s, const struct mtg_tg_ctrlmsg *msg)
{
	struct sk_buff *skb;
	struct mtg_tg *tg;
	void *data;
	u64 stamp;
	int err;

	if (msg->len > MTG_CTRLMSG_MAX)
		return -EMSGSIZE;
	data = memdup_user(u64_to_user_ptr(msg->data), msg->len);
	if (IS_ERR(data))
		return PTR_ERR(data);

	mutex_lock(&s->lock);
	tg = mtg_tg_find(s, msg->tg_id);
	if (!tg) {
		err = -ENOENT;
		goto out_unlock;
	}
	/* D-ITG's header cannot say it is one; an echo goes back; a
	 * connection's messages are the timetable's
	 */
	if (tg->flags & (MTG_TG_FLAGS_DITG | MTG_TG_FLAGS_ICMP) ||
	    mtg_sock_flags(tg->flags)) {
		err = -EOPNOTSUPP;
		goto out_unlock;
	}
	/* The session lock keeps tg->dev: it is let go of under it. */
	if (!tg->dev || READ_ONCE(tg->state) == MTG_TG_STATE_KILLED ||
	    READ_ONCE(tg->state) == MTG_TG_STATE_FAILED) {
		err = -ESRCH;
		goto out_unlock;
	}
	if (tg->min_len + msg->len > READ_ONCE(tg->dev->mtu) + ETH_HLEN) {
		err = -EMSGSIZE;
		goto out_unlock;
	}
	skb = mtg_tx_build(tg, tg->min_len + msg->len, mtg_now(),
			   tg->st.ctrl_sent, MTG_HDR_F_CTRL, data);
	if (!skb) {
		err = -ENOMEM;
		goto out_unlock;
	}
	local_bh_disable();
	err = mtg_tx_send(tg, skb, false, &stamp);
	local_bh_enable();
	if (!err)
		tg->st.ctrl_sent++;
out_unlock:
	mutex_unlock(&s->lock);
	kfree(data);
	return err;
}

/* Counters are read without the dispatcher's help: each one is whole. */
void mtg_tg_fill_stats(const struct mtg_tg *tg, struct mtg_tg_stats *st)
{
	memcpy(st, &tg->st, sizeof(*st));
	st->events = atomic64_read(&tg->events);
	st->tg_id = tg->id;
	st->state = READ_ONCE(tg->state);
	st->error = READ_ONCE(tg->error);
	st->cpu = tg->cpu->cpu;
	st->retrans = mtg_sock_retrans(tg);
	st->reserved2 = 0;
	memset(st->reserved, 0, sizeof(st->reserved));
}

int mtg_tg_stats(struct mtg_session *s, struct mtg_tg_stats *st)
{
	struct mtg_tg *tg;

	mutex_lock(&s->lock);
	tg = mtg_tg_find(s, st->tg_id);
	if (tg)
		mtg_tg_fill_stats(tg, st);
	mutex_unlock(&s->lock);
	return tg ? 0 : -ENOENT;
}

/* The session ends: every TG stops and lets go of its device. */
void mtg_tg_stop_all(struct mtg_session *s)
{
	struct mtg_tg *tg;
	unsigned long id;

	lockdep_assert_held(&s->lock);
	xa_for_each(&s->tgs, id, tg)
		mtg_cpu_stop(tg, MTG_TG_STATE_KILLED, MTG_TG_ERROR_NONE);
	mtg_tg_put_stopped_devs(s);
}

/* NETDEV_UNREGISTER (under RTNL): TGs on the device fail and let it go. */
void mtg_tg_dev_gone(struct mtg_session *s, struct net_device *dev)
{
	struct mtg_tg *tg;
	unsigned long id;

	lockdep_assert_held(&s->lock);
	xa_for_each(&s->tgs, id, tg)
		if (tg->dev == dev)
			mtg_cpu_stop(tg, MTG_TG_STATE_FAILED, MTG_TG_ERROR_DEV_GONE);
	mtg_tg_put_stopped_devs(s);
}

/* At release, after mtg_tg_stop_all() and the event work are done. */
void mtg_tg_free_all(struct mtg_session *s)
{
	struct mtg_tg *tg;
	unsigned long id;

	xa_for_each(&s->tgs, id, tg) {
		xa_erase(&s->tgs, id);
		WARN_ON_ONCE(tg->dev);
		mtg_sock_free(tg);
		kfree(tg);
	}
	xa_destroy(&s->tgs);
}

/* Process context: tell netlink listeners what the TGs raised. */
void mtg_tg_event_work(struct work_struct *work)
{
	struct mtg_session *s = container_of(to_delayed_work(work),
					     struct mtg_session, event_work);
	struct mtg_tg *tg;
	unsigned long id;

	mutex_lock(&s->lock);
	xa_for_each(&s->tgs, id, tg) {
		unsigned long events = atomic_long_xchg(&tg->pending, 0);

		if (!events)
			continue;
		mtg_notify_tg(s, tg, events);
		mtg_rx_tg_event(s, tg, events);
	}
	mtg_session_changed(s);
	mutex_unlock(&s->lock);
}
