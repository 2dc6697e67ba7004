/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-3-Clause) */
/*
 * The generic netlink family "mtg", as Documentation/netlink/specs/mtg.yaml
 * describes it (the spec is the source of truth; keep the two in step:
 * tests/vm/test_netlink.py checks the running module against the spec).
 */
#ifndef _UAPI_LINUX_MTG_NETLINK_H
#define _UAPI_LINUX_MTG_NETLINK_H

#define MTG_FAMILY_NAME		"mtg"
#define MTG_FAMILY_VERSION	1

/* What became of an interface a session holds. */
enum mtg_iface_state {
	MTG_IFACE_STATE_ATTACHED = 1,
	MTG_IFACE_STATE_LOST,
};

/* State of a session. */
enum mtg_session_flags {
	MTG_SESSION_FLAGS_ALLOCATED = 1,
	MTG_SESSION_FLAGS_ENDED = 2,
};

enum {
	MTG_A_IFACE_ID = 1,
	MTG_A_IFACE_IFINDEX,
	MTG_A_IFACE_NAME,
	MTG_A_IFACE_STATE,
	MTG_A_IFACE_NETNS_COOKIE,
	MTG_A_IFACE_PAD,

	__MTG_A_IFACE_MAX,
	MTG_A_IFACE_MAX = (__MTG_A_IFACE_MAX - 1)
};

enum {
	MTG_A_SESSION_ID = 1,
	MTG_A_SESSION_PAD,
	MTG_A_SESSION_PID,
	MTG_A_SESSION_COMM,
	MTG_A_SESSION_FLAGS,
	MTG_A_SESSION_MEM_BYTES,
	MTG_A_SESSION_IFACES,
	MTG_A_SESSION_IFACES_LOST,
	MTG_A_SESSION_EVENTS,
	MTG_A_SESSION_IFACE,

	__MTG_A_SESSION_MAX,
	MTG_A_SESSION_MAX = (__MTG_A_SESSION_MAX - 1)
};

enum {
	MTG_CMD_SESSION_GET = 1,
	MTG_CMD_SESSION_END,
	MTG_CMD_SESSION_NEW_NTF,
	MTG_CMD_SESSION_END_NTF,
	MTG_CMD_IFACE_LOST_NTF,

	__MTG_CMD_MAX,
	MTG_CMD_MAX = (__MTG_CMD_MAX - 1)
};

#define MTG_MCGRP_EVENTS	"events"

#endif /* _UAPI_LINUX_MTG_NETLINK_H */
