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

#include "mtg.h"
#include "uapi/mtg_netlink.h"

static struct genl_family mtg_genl_family;

enum mtg_mcgrp {
	MTG_MCGRP_EVENTS_ID,
};

static const struct genl_multicast_group mtg_mcgrps[] = {
	[MTG_MCGRP_EVENTS_ID] = { .name = MTG_MCGRP_EVENTS },
};

static const struct nla_policy mtg_session_id_policy[MTG_A_SESSION_MAX + 1] = {
	[MTG_A_SESSION_ID] = { .type = NLA_U64 },
};

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
			      MTG_A_SESSION_PAD))
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

static int mtg_nl_session_get_doit(struct sk_buff *skb, struct genl_info *info)
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
static int mtg_nl_session_get_dumpit(struct sk_buff *skb,
				     struct netlink_callback *cb)
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

static int mtg_nl_session_end_doit(struct sk_buff *skb, struct genl_info *info)
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

static const struct genl_ops mtg_genl_ops[] = {
	{
		.cmd = MTG_CMD_SESSION_GET,
		.doit = mtg_nl_session_get_doit,
		.dumpit = mtg_nl_session_get_dumpit,
		.policy = mtg_session_id_policy,
		.maxattr = MTG_A_SESSION_ID,
	},
	{
		.cmd = MTG_CMD_SESSION_END,
		.doit = mtg_nl_session_end_doit,
		.policy = mtg_session_id_policy,
		.maxattr = MTG_A_SESSION_ID,
		.flags = GENL_UNS_ADMIN_PERM,
	},
};

static struct genl_family mtg_genl_family __ro_after_init = {
	.name = MTG_FAMILY_NAME,
	.version = MTG_FAMILY_VERSION,
	.netnsok = true,
	.parallel_ops = true,
	.module = THIS_MODULE,
	.ops = mtg_genl_ops,
	.n_ops = ARRAY_SIZE(mtg_genl_ops),
	.resv_start_op = MTG_CMD_SESSION_END + 1,
	.mcgrps = mtg_mcgrps,
	.n_mcgrps = ARRAY_SIZE(mtg_mcgrps),
};

static void mtg_notify(struct mtg_session *s, struct sk_buff *msg)
{
	s->events++;
	/* ESRCH only says nobody listens: not a failure. */
	genlmsg_multicast_netns(&mtg_genl_family, s->net, msg, 0,
				MTG_MCGRP_EVENTS_ID, GFP_KERNEL);
}

/* A message for the events group, or NULL when nobody listens. */
static struct sk_buff *mtg_event_new(struct mtg_session *s)
{
	lockdep_assert_held(&s->lock);
	if (!s->net || !genl_has_listeners(&mtg_genl_family, s->net,
					   MTG_MCGRP_EVENTS_ID))
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
