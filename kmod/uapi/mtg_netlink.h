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

/* State of a traffic generator. */
enum mtg_tg_state {
	MTG_TG_STATE_RUNNING = 1,
	MTG_TG_STATE_SUSPENDED,
	MTG_TG_STATE_FINISHED,
	MTG_TG_STATE_KILLED,
	MTG_TG_STATE_FAILED,
};

/* Why a traffic generator failed. */
enum mtg_tg_error {
	MTG_TG_ERROR_NONE,
	MTG_TG_ERROR_DEV_GONE,
	MTG_TG_ERROR_CPU_OFFLINE,
	MTG_TG_ERROR_RING,
	MTG_TG_ERROR_TIME,
};

/* How a traffic generator sends (MTG_TG_F_* of the ioctl ABI). */
enum mtg_tg_flags {
	MTG_TG_FLAGS_IPV6 = 1,
	MTG_TG_FLAGS_STREAM = 2,
	MTG_TG_FLAGS_LATE_SKIP = 4,
	MTG_TG_FLAGS_QDISC = 8,
	MTG_TG_FLAGS_PRECISE = 16,
	MTG_TG_FLAGS_DST_MAC = 32,
};

/* What a traffic generator raised since its last notification. */
enum mtg_tg_event {
	MTG_TG_EVENT_ERROR = 1,
	MTG_TG_EVENT_LATE = 2,
	MTG_TG_EVENT_UNDERRUN = 4,
	MTG_TG_EVENT_FINISHED = 8,
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
	MTG_A_SESSION_TGS,

	__MTG_A_SESSION_MAX,
	MTG_A_SESSION_MAX = (__MTG_A_SESSION_MAX - 1)
};

enum {
	MTG_A_TG_SESSION_ID = 1,
	MTG_A_TG_PAD,
	MTG_A_TG_ID,
	MTG_A_TG_STATE,
	MTG_A_TG_ERROR,
	MTG_A_TG_FLAGS,
	MTG_A_TG_CPU,
	MTG_A_TG_IFINDEX,
	MTG_A_TG_RUN_ID,
	MTG_A_TG_SENT,
	MTG_A_TG_BYTES,
	MTG_A_TG_TX_ERRORS,
	MTG_A_TG_SKIPPED_LATE,
	MTG_A_TG_BAD_ENTRIES,
	MTG_A_TG_UNDERRUNS,
	MTG_A_TG_LATE_PACKETS,
	MTG_A_TG_EVENTS,
	MTG_A_TG_CTRL_SENT,
	MTG_A_TG_NEXT_SEQ,
	MTG_A_TG_NEXT_NS,
	MTG_A_TG_LATENESS_MAX,
	MTG_A_TG_LATENESS_SUM,
	MTG_A_TG_EARLY,
	MTG_A_TG_LEAD,
	MTG_A_TG_SPIN,
	MTG_A_TG_LATENESS_HIST,
	MTG_A_TG_EVENT,

	__MTG_A_TG_MAX,
	MTG_A_TG_MAX = (__MTG_A_TG_MAX - 1)
};

enum {
	MTG_CMD_SESSION_GET = 1,
	MTG_CMD_SESSION_END,
	MTG_CMD_SESSION_NEW_NTF,
	MTG_CMD_SESSION_END_NTF,
	MTG_CMD_IFACE_LOST_NTF,
	MTG_CMD_TG_GET,
	MTG_CMD_TG_EVENT_NTF,

	__MTG_CMD_MAX,
	MTG_CMD_MAX = (__MTG_CMD_MAX - 1)
};

#define MTG_MCGRP_EVENTS	"events"

#endif /* _UAPI_LINUX_MTG_NETLINK_H */
