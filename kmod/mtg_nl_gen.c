// SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-3-Clause)
/* Do not edit directly, auto-generated from: */
/*	Documentation/netlink/specs/mtg.yaml */
/* YNL-GEN kernel source */

#include <net/netlink.h>
#include <net/genetlink.h>

#include "mtg_nl_gen.h"

#include <uapi/linux/mtg_netlink.h>

/* MTG_CMD_SESSION_GET - do */
const struct nla_policy mtg_session_get_nl_policy[MTG_A_SESSION_ID + 1] = {
	[MTG_A_SESSION_ID] = { .type = NLA_U64, },
};

/* MTG_CMD_SESSION_END - do */
const struct nla_policy mtg_session_end_nl_policy[MTG_A_SESSION_ID + 1] = {
	[MTG_A_SESSION_ID] = { .type = NLA_U64, },
};

/* MTG_CMD_TG_GET - do */
const struct nla_policy mtg_tg_get_nl_policy[MTG_A_TG_ID + 1] = {
	[MTG_A_TG_SESSION_ID] = { .type = NLA_U64, },
	[MTG_A_TG_ID] = { .type = NLA_U32, },
};

/* Ops table for mtg */
const struct genl_ops mtg_nl_ops[3] = {
	{
		.cmd		= MTG_CMD_SESSION_GET,
		.doit		= mtg_nl_session_get_doit,
		.dumpit		= mtg_nl_session_get_dumpit,
		.policy		= mtg_session_get_nl_policy,
		.maxattr	= MTG_A_SESSION_ID,
	},
	{
		.cmd		= MTG_CMD_SESSION_END,
		.doit		= mtg_nl_session_end_doit,
		.policy		= mtg_session_end_nl_policy,
		.maxattr	= MTG_A_SESSION_ID,
		.flags		= GENL_UNS_ADMIN_PERM,
	},
	{
		.cmd		= MTG_CMD_TG_GET,
		.doit		= mtg_nl_tg_get_doit,
		.dumpit		= mtg_nl_tg_get_dumpit,
		.policy		= mtg_tg_get_nl_policy,
		.maxattr	= MTG_A_TG_ID,
	},
};

static const struct genl_multicast_group mtg_nl_mcgrps[] = {
	[MTG_NLGRP_EVENTS] = { "events", },
};
