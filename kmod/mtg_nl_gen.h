/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-3-Clause) */
/* Do not edit directly, auto-generated from: */
/*	Documentation/netlink/specs/mtg.yaml */
/* YNL-GEN kernel header */

#ifndef _LINUX_MTG_GEN_H
#define _LINUX_MTG_GEN_H

#include <net/netlink.h>
#include <net/genetlink.h>

#include <uapi/linux/mtg_netlink.h>

extern const struct nla_policy mtg_session_get_nl_policy[MTG_A_SESSION_ID + 1];

extern const struct nla_policy mtg_session_end_nl_policy[MTG_A_SESSION_ID + 1];

extern const struct nla_policy mtg_tg_get_nl_policy[MTG_A_TG_ID + 1];

/* Ops table for mtg */
extern const struct genl_ops mtg_nl_ops[3];

int mtg_nl_session_get_doit(struct sk_buff *skb, struct genl_info *info);
int mtg_nl_session_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb);
int mtg_nl_session_end_doit(struct sk_buff *skb, struct genl_info *info);
int mtg_nl_tg_get_doit(struct sk_buff *skb, struct genl_info *info);
int mtg_nl_tg_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb);

enum {
	MTG_NLGRP_EVENTS,
};

#endif /* _LINUX_MTG_GEN_H */
