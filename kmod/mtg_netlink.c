// SPDX-License-Identifier: GPL-2.0
/*
 * The generic netlink family "mtg": observe sessions and their counters,
 * end a session (admin), and notifications on the "events" group.
 * Documentation/netlink/specs/mtg.yaml is the contract.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <net/genetlink.h>
#include <net/netlink.h>
#include <net/sock.h>

#include "compat.h"
#include "mtg.h"
#include "uapi/linux/mtg_netlink.h"

/*
 * The policies, the ops table and the multicast groups, generated from the
 * spec (scripts/ynl-regen). The family struct is written here: ynl-gen-c
 * writes it only for families of the plain genetlink level, and its table
 * of groups is static, so it is compiled in this unit that uses it.
 */
#include "mtg_nl_gen.c"

static struct genl_family mtg_genl_family;

static int mtg_fill_iface(struct sk_buff *skb, const struct mtg_iface *iface)
{
	struct nlattr *nest;

	nest = nla_nest_start(skb, MTG_A_SESSION_IFACE);
	if (!nest)
		return -EMSGSIZE;
	if (nla_put_u32(skb, MTG_A_IFACE_ID, iface->id) ||
	    nla_put_u32(skb, MTG_A_IFACE_IFINDEX, iface->ifindex) ||
	    nla_put_string(skb, MTG_A_IFACE_NAME, iface->name) ||
	    nla_put_u32(skb, MTG_A_IFACE_STATE, iface->state) ||
	    nla_put_u64_64bit(skb, MTG_A_IFACE_NETNS_COOKIE,
			      iface->netns_cookie, MTG_A_IFACE_PAD)) {
		nla_nest_cancel(skb, nest);
		return -EMSGSIZE;
	}
	nla_nest_end(skb, nest);
	return 0;
}

/* One message describing a session: its counters and every iface. */
static int mtg_fill_session(struct sk_buff *skb, struct mtg_session *s,
			    u32 portid, u32 seq, int flags, u8 cmd)
{
	struct mtg_iface *iface;
	struct mtg_stats st;
	unsigned long id;
	void *hdr;

	lockdep_assert_held(&s->lock);
	hdr = genlmsg_put(skb, portid, seq, &mtg_genl_family, flags, cmd);
	if (!hdr)
		return -EMSGSIZE;
	mtg_session_stats(s, &st);
	if (nla_put_u64_64bit(skb, MTG_A_SESSION_ID, s->id, MTG_A_SESSION_PAD) ||
	    nla_put_u32(skb, MTG_A_SESSION_PID, s->pid) ||
	    nla_put_string(skb, MTG_A_SESSION_COMM, s->comm) ||
	    nla_put_u32(skb, MTG_A_SESSION_FLAGS, st.flags) ||
	    nla_put_u64_64bit(skb, MTG_A_SESSION_MEM_BYTES, st.mem_bytes,
			      MTG_A_SESSION_PAD) ||
	    nla_put_u32(skb, MTG_A_SESSION_IFACES, st.ifaces) ||
	    nla_put_u32(skb, MTG_A_SESSION_IFACES_LOST, st.ifaces_lost) ||
	    nla_put_u64_64bit(skb, MTG_A_SESSION_EVENTS, st.events,
			      MTG_A_SESSION_PAD) ||
	    nla_put_u32(skb, MTG_A_SESSION_TGS, s->nr_tgs))
		goto err_cancel;
	xa_for_each(&s->ifaces, id, iface)
		if (mtg_fill_iface(skb, iface))
			goto err_cancel;
	genlmsg_end(skb, hdr);
	return 0;

err_cancel:
	genlmsg_cancel(skb, hdr);
	return -EMSGSIZE;
}

/* A namespace sees the sessions opened in it, ended ones included. */
static bool mtg_session_visible(const struct mtg_session *s,
				const struct net *net)
{
	return s->netns_cookie == net->net_cookie;
}

static struct mtg_session *mtg_find_session(struct net *net, u64 id)
{
	struct mtg_session *s;

	lockdep_assert_held(&mtg_driver.lock);
	list_for_each_entry(s, &mtg_driver.sessions, node)
		if (s->id == id && mtg_session_visible(s, net))
			return s;
	return NULL;
}

int mtg_nl_session_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct mtg_session *s;
	struct sk_buff *msg;
	int err;

	if (GENL_REQ_ATTR_CHECK(info, MTG_A_SESSION_ID))
		return -EINVAL;
	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;

	mutex_lock(&mtg_driver.lock);
	s = mtg_find_session(genl_info_net(info),
			     nla_get_u64(info->attrs[MTG_A_SESSION_ID]));
	if (s) {
		mutex_lock(&s->lock);
		err = mtg_fill_session(msg, s, info->snd_portid, info->snd_seq,
				       0, MTG_CMD_SESSION_GET);
		mutex_unlock(&s->lock);
	} else {
		NL_SET_ERR_MSG_ATTR(info->extack, info->attrs[MTG_A_SESSION_ID],
				    "no such session");
		err = -ENOENT;
	}
	mutex_unlock(&mtg_driver.lock);
	if (err) {
		nlmsg_free(msg);
		return err;
	}
	return genlmsg_reply(msg, info);
}

/* cb->args[0]: id of the last session dumped (ids rise along the list). */
int mtg_nl_session_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct net *net = sock_net(skb->sk);
	struct mtg_session *s;
	int err = 0;

	mutex_lock(&mtg_driver.lock);
	list_for_each_entry(s, &mtg_driver.sessions, node) {
		if (s->id <= cb->args[0] || !mtg_session_visible(s, net))
			continue;
		mutex_lock(&s->lock);
		err = mtg_fill_session(skb, s, NETLINK_CB(cb->skb).portid,
				       cb->nlh->nlmsg_seq, NLM_F_MULTI,
				       MTG_CMD_SESSION_GET);
		mutex_unlock(&s->lock);
		if (err)
			break;
		cb->args[0] = s->id;
	}
	mutex_unlock(&mtg_driver.lock);
	/* A session too big for an empty skb is an error, not an endless dump. */
	if (err && !skb->len)
		return err;
	return skb->len;
}

static int mtg_put_u64s(struct sk_buff *skb, const int *types,
			const u64 *values, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (nla_put_u64_64bit(skb, types[i], values[i], MTG_A_TG_PAD))
			return -EMSGSIZE;
	return 0;
}

/* One message describing a TG; events only in notifications. */
static int mtg_fill_tg(struct sk_buff *skb, struct mtg_session *s,
		       const struct mtg_tg *tg, u32 portid, u32 seq, int flags,
		       u8 cmd, u32 events)
{
	static const int types[] = {
		MTG_A_TG_SENT, MTG_A_TG_BYTES, MTG_A_TG_TX_ERRORS,
		MTG_A_TG_SKIPPED_LATE, MTG_A_TG_BAD_ENTRIES,
		MTG_A_TG_UNDERRUNS, MTG_A_TG_LATE_PACKETS, MTG_A_TG_EVENTS,
		MTG_A_TG_CTRL_SENT, MTG_A_TG_NEXT_SEQ, MTG_A_TG_NEXT_NS,
		MTG_A_TG_LATENESS_MAX, MTG_A_TG_LATENESS_SUM, MTG_A_TG_EARLY,
		MTG_A_TG_LEAD, MTG_A_TG_SPIN, MTG_A_TG_RETRANS,
		MTG_A_TG_WRITE_WAITS,
	};
	struct mtg_tg_stats *st;
	void *hdr;
	int err = -EMSGSIZE;

	lockdep_assert_held(&s->lock);
	st = kmalloc(sizeof(*st), GFP_KERNEL);
	if (!st)
		return -ENOMEM;
	mtg_tg_fill_stats(tg, st);
	hdr = genlmsg_put(skb, portid, seq, &mtg_genl_family, flags, cmd);
	if (!hdr)
		goto out_free;
	{
		const u64 values[] = {
			st->sent, st->bytes, st->tx_errors, st->skipped_late,
			st->bad_entries, st->underruns, st->late_packets,
			st->events, st->ctrl_sent, st->next_seq, st->next_ns,
			st->lateness_max_ns, st->lateness_sum_ns, st->early,
			st->lead_ns, st->spin_ns, st->retrans, st->write_waits,
		};

		BUILD_BUG_ON(ARRAY_SIZE(values) != ARRAY_SIZE(types));
		if (nla_put_u64_64bit(skb, MTG_A_TG_SESSION_ID, s->id,
				      MTG_A_TG_PAD) ||
		    nla_put_u32(skb, MTG_A_TG_ID, tg->id) ||
		    nla_put_u32(skb, MTG_A_TG_STATE, st->state) ||
		    nla_put_u32(skb, MTG_A_TG_ERROR, st->error) ||
		    nla_put_u32(skb, MTG_A_TG_FLAGS, tg->flags) ||
		    nla_put_u32(skb, MTG_A_TG_CPU, st->cpu) ||
		    nla_put_u32(skb, MTG_A_TG_IFINDEX, tg->ifindex) ||
		    nla_put_u32(skb, MTG_A_TG_RUN_ID, tg->run_id) ||
		    nla_put_u32(skb, MTG_A_TG_SOCK_ERROR, st->sock_error) ||
		    mtg_put_u64s(skb, types, values, ARRAY_SIZE(types)) ||
		    nla_put(skb, MTG_A_TG_LATENESS_HIST,
			    sizeof(st->lateness_hist), st->lateness_hist) ||
		    (events && nla_put_u32(skb, MTG_A_TG_EVENT, events))) {
			genlmsg_cancel(skb, hdr);
			goto out_free;
		}
	}
	genlmsg_end(skb, hdr);
	err = 0;
out_free:
	kfree(st);
	return err;
}

int mtg_nl_tg_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct mtg_session *s;
	struct sk_buff *msg;
	struct mtg_tg *tg;
	int err = -ENOENT;

	if (GENL_REQ_ATTR_CHECK(info, MTG_A_TG_SESSION_ID) ||
	    GENL_REQ_ATTR_CHECK(info, MTG_A_TG_ID))
		return -EINVAL;
	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;

	mutex_lock(&mtg_driver.lock);
	s = mtg_find_session(genl_info_net(info),
			     nla_get_u64(info->attrs[MTG_A_TG_SESSION_ID]));
	if (s) {
		mutex_lock(&s->lock);
		tg = xa_load(&s->tgs, nla_get_u32(info->attrs[MTG_A_TG_ID]));
		if (tg)
			err = mtg_fill_tg(msg, s, tg, info->snd_portid,
					  info->snd_seq, 0, MTG_CMD_TG_GET, 0);
		else
			NL_SET_ERR_MSG_ATTR(info->extack,
					    info->attrs[MTG_A_TG_ID],
					    "no such traffic generator");
		mutex_unlock(&s->lock);
	} else {
		NL_SET_ERR_MSG_ATTR(info->extack,
				    info->attrs[MTG_A_TG_SESSION_ID],
				    "no such session");
	}
	mutex_unlock(&mtg_driver.lock);
	if (err) {
		nlmsg_free(msg);
		return err;
	}
	return genlmsg_reply(msg, info);
}

/*
 * cb->args[0]: session being dumped, [1]: last TG id dumped in it + 1,
 * [2]: session filter + 1 (0: all).
 */
int mtg_nl_tg_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct nlattr *const *attrs = mtg_genl_dump_attrs(cb);
	struct net *net = sock_net(skb->sk);
	struct mtg_session *s;
	int err = 0;

	if (!cb->args[2]) {
		struct nlattr *attr = attrs[MTG_A_TG_SESSION_ID];

		cb->args[2] = attr ? nla_get_u64(attr) + 1 : ULONG_MAX;
	}
	mutex_lock(&mtg_driver.lock);
	list_for_each_entry(s, &mtg_driver.sessions, node) {
		unsigned long id;
		struct mtg_tg *tg;

		if (s->id < cb->args[0] || !mtg_session_visible(s, net) ||
		    (cb->args[2] != ULONG_MAX && s->id != cb->args[2] - 1))
			continue;
		if (s->id != cb->args[0]) {
			cb->args[0] = s->id;
			cb->args[1] = 0;
		}
		mutex_lock(&s->lock);
		xa_for_each_start(&s->tgs, id, tg, cb->args[1]) {
			err = mtg_fill_tg(skb, s, tg, NETLINK_CB(cb->skb).portid,
					  cb->nlh->nlmsg_seq, NLM_F_MULTI,
					  MTG_CMD_TG_GET, 0);
			if (err)
				break;
			cb->args[1] = id + 1;
		}
		mutex_unlock(&s->lock);
		if (err)
			break;
		cb->args[0] = s->id + 1;
		cb->args[1] = 0;
	}
	mutex_unlock(&mtg_driver.lock);
	if (err && !skb->len)
		return err;
	return skb->len;
}

int mtg_nl_session_end_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct mtg_session *s;

	if (GENL_REQ_ATTR_CHECK(info, MTG_A_SESSION_ID))
		return -EINVAL;
	mutex_lock(&mtg_driver.lock);
	s = mtg_find_session(genl_info_net(info),
			     nla_get_u64(info->attrs[MTG_A_SESSION_ID]));
	/* Ending under the driver lock keeps s alive; order allows it. */
	if (s)
		mtg_session_end(s);
	mutex_unlock(&mtg_driver.lock);
	if (!s) {
		NL_SET_ERR_MSG_ATTR(info->extack, info->attrs[MTG_A_SESSION_ID],
				    "no such session");
		return -ENOENT;
	}
	return 0;
}

static struct genl_family mtg_genl_family __ro_after_init = {
	.name = MTG_FAMILY_NAME,
	.version = MTG_FAMILY_VERSION,
	.netnsok = true,
	.parallel_ops = true,
	.module = THIS_MODULE,
	.ops = mtg_nl_ops,
	.n_ops = ARRAY_SIZE(mtg_nl_ops),
	.resv_start_op = MTG_CMD_SESSION_END + 1,
	.mcgrps = mtg_nl_mcgrps,
	.n_mcgrps = ARRAY_SIZE(mtg_nl_mcgrps),
};

static void mtg_notify(struct mtg_session *s, struct sk_buff *msg)
{
	s->events++;
	mtg_session_changed(s);
	/* ESRCH only says nobody listens: not a failure. */
	genlmsg_multicast_netns(&mtg_genl_family, s->net, msg, 0,
				MTG_NLGRP_EVENTS, GFP_KERNEL);
}

/* A message for the events group, or NULL when nobody listens. */
static struct sk_buff *mtg_event_new(struct mtg_session *s)
{
	lockdep_assert_held(&s->lock);
	if (!s->net || !genl_has_listeners(&mtg_genl_family, s->net,
					   MTG_NLGRP_EVENTS))
		return NULL;
	return genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
}

void mtg_notify_session(struct mtg_session *s, u8 cmd)
{
	struct sk_buff *msg = mtg_event_new(s);

	if (!msg)
		return;
	if (mtg_fill_session(msg, s, 0, 0, 0, cmd)) {
		nlmsg_free(msg);
		return;
	}
	mtg_notify(s, msg);
}

void mtg_notify_iface(struct mtg_session *s, const struct mtg_iface *iface,
		      u8 cmd)
{
	struct sk_buff *msg = mtg_event_new(s);
	void *hdr;

	if (!msg)
		return;
	hdr = genlmsg_put(msg, 0, 0, &mtg_genl_family, 0, cmd);
	if (!hdr ||
	    nla_put_u64_64bit(msg, MTG_A_SESSION_ID, s->id, MTG_A_SESSION_PAD) ||
	    mtg_fill_iface(msg, iface)) {
		nlmsg_free(msg);
		return;
	}
	genlmsg_end(msg, hdr);
	mtg_notify(s, msg);
}

int mtg_netlink_init(void)
{
	return genl_register_family(&mtg_genl_family);
}

void mtg_netlink_exit(void)
{
	genl_unregister_family(&mtg_genl_family);
}

void mtg_notify_tg(struct mtg_session *s, const struct mtg_tg *tg, u32 events)
{
	struct sk_buff *msg = mtg_event_new(s);

	if (!msg)
		return;
	BUILD_BUG_ON(BIT(MTG_TG_EV_ERROR) != MTG_TG_EVENT_ERROR ||
		     BIT(MTG_TG_EV_LATE) != MTG_TG_EVENT_LATE ||
		     BIT(MTG_TG_EV_UNDERRUN) != MTG_TG_EVENT_UNDERRUN ||
		     BIT(MTG_TG_EV_FINISHED) != MTG_TG_EVENT_FINISHED);
	if (mtg_fill_tg(msg, s, tg, 0, 0, 0, MTG_CMD_TG_EVENT_NTF, events)) {
		nlmsg_free(msg);
		return;
	}
	mtg_notify(s, msg);
}
