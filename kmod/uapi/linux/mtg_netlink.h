/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-3-Clause) */
/* Do not edit directly, auto-generated from: */
/*	Documentation/netlink/specs/mtg.yaml */
/* YNL-GEN uapi header */

#ifndef _UAPI_LINUX_MTG_NETLINK_H
#define _UAPI_LINUX_MTG_NETLINK_H

#define MTG_FAMILY_NAME		"mtg"
#define MTG_FAMILY_VERSION	1

/**
 * enum mtg_iface_state - What became of an interface a session holds.
 * @MTG_IFACE_STATE_ATTACHED: The session holds the device.
 * @MTG_IFACE_STATE_LOST: The device was deleted or left its namespace (or the
 *   namespace was deleted); the session let it go.
 */
enum mtg_iface_state {
	MTG_IFACE_STATE_ATTACHED = 1,
	MTG_IFACE_STATE_LOST,
};

/**
 * enum mtg_session_flags - State of a session.
 * @MTG_SESSION_FLAGS_ALLOCATED: Its shared memory is allocated.
 * @MTG_SESSION_FLAGS_ENDED: Its owner no longer holds it (closed, exited,
 *   killed), or an admin ended it; it does nothing more and is freed with its
 *   last reference.
 */
enum mtg_session_flags {
	MTG_SESSION_FLAGS_ALLOCATED = 1,
	MTG_SESSION_FLAGS_ENDED = 2,
};

/**
 * enum mtg_tg_state - State of a traffic generator.
 * @MTG_TG_STATE_RUNNING: Waiting for its start time, or sending.
 * @MTG_TG_STATE_SUSPENDED: Suspended by its controller.
 * @MTG_TG_STATE_FINISHED: Its stop condition (count or time) was met.
 * @MTG_TG_STATE_KILLED: Killed by its controller, or its session ended.
 * @MTG_TG_STATE_FAILED: Stopped by an error (see tg-error).
 */
enum mtg_tg_state {
	MTG_TG_STATE_RUNNING = 1,
	MTG_TG_STATE_SUSPENDED,
	MTG_TG_STATE_FINISHED,
	MTG_TG_STATE_KILLED,
	MTG_TG_STATE_FAILED,
};

/**
 * enum mtg_tg_error - Why a traffic generator failed.
 * @MTG_TG_ERROR_NONE: It did not fail.
 * @MTG_TG_ERROR_DEV_GONE: Its interface was unregistered or left its
 *   namespace.
 * @MTG_TG_ERROR_CPU_OFFLINE: Its CPU went offline.
 * @MTG_TG_ERROR_RING: The streaming ring's producer count was out of range.
 * @MTG_TG_ERROR_TIME: A departure time went beyond 2^63 - 1 ns.
 * @MTG_TG_ERROR_SOCKET: Its connection failed (reset, or a write error):
 *   sock-error says how (ABI 1.7).
 */
enum mtg_tg_error {
	MTG_TG_ERROR_NONE,
	MTG_TG_ERROR_DEV_GONE,
	MTG_TG_ERROR_CPU_OFFLINE,
	MTG_TG_ERROR_RING,
	MTG_TG_ERROR_TIME,
	MTG_TG_ERROR_SOCKET,
};

/**
 * enum mtg_tg_flags - How a traffic generator sends: mtg_tg_start.flags of the
 *   ioctl ABI (Documentation/abi.rst).
 * @MTG_TG_FLAGS_IPV6: IPv6, else IPv4.
 * @MTG_TG_FLAGS_STREAM: A streaming table, refilled through its ring
 *   (ring_offset).
 * @MTG_TG_FLAGS_LATE_SKIP: Late slots are skipped, else caught up.
 * @MTG_TG_FLAGS_QDISC: Through the qdisc layer, else straight to the driver.
 * @MTG_TG_FLAGS_PRECISE: An early timer, then a spin to the departure.
 * @MTG_TG_FLAGS_DST_MAC: dst_mac was given, not resolved.
 * @MTG_TG_FLAGS_RESTART: Replaces the ended TG of its tg_id, going on with its
 *   sequence numbers and counters (ABI 1.4).
 * @MTG_TG_FLAGS_KEEP_PAYLOAD: Receivers keep the payloads
 *   (MTG_HDR_F_KEEP_PAYLOAD).
 * @MTG_TG_FLAGS_KEEP_BITS: Receivers keep the wrong bits' positions
 *   (MTG_HDR_F_KEEP_BITS).
 * @MTG_TG_FLAGS_DITG: D-ITG's payload header (struct mtg_ditg_hdr) instead of
 *   the MTG header (ABI 1.5).
 * @MTG_TG_FLAGS_ICMP: ICMP echo requests instead of UDP datagrams, the MTG
 *   header in their data, which the destination's echo reply brings back (ABI
 *   1.6).
 * @MTG_TG_FLAGS_TCP: A message per slot over a TCP connection the module opens
 *   (ABI 1.7).
 * @MTG_TG_FLAGS_SCTP: A message per slot over an SCTP association (ABI 1.7).
 * @MTG_TG_FLAGS_DCCP: A message per slot over a DCCP connection (ABI 1.7).
 */
enum mtg_tg_flags {
	MTG_TG_FLAGS_IPV6 = 1,
	MTG_TG_FLAGS_STREAM = 2,
	MTG_TG_FLAGS_LATE_SKIP = 4,
	MTG_TG_FLAGS_QDISC = 8,
	MTG_TG_FLAGS_PRECISE = 16,
	MTG_TG_FLAGS_DST_MAC = 32,
	MTG_TG_FLAGS_RESTART = 64,
	MTG_TG_FLAGS_KEEP_PAYLOAD = 128,
	MTG_TG_FLAGS_KEEP_BITS = 256,
	MTG_TG_FLAGS_DITG = 512,
	MTG_TG_FLAGS_ICMP = 1024,
	MTG_TG_FLAGS_TCP = 2048,
	MTG_TG_FLAGS_SCTP = 4096,
	MTG_TG_FLAGS_DCCP = 8192,

	/* private: */
	MTG_TG_FLAGS_MASK = 16383,
};

/**
 * enum mtg_tg_event - What a traffic generator raised since its last
 *   notification.
 * @MTG_TG_EVENT_ERROR: A TX error, a bad table entry, or the TG failed.
 * @MTG_TG_EVENT_LATE: A packet left later than the TG's threshold.
 * @MTG_TG_EVENT_UNDERRUN: Its streaming table ran empty while a packet was
 *   due.
 * @MTG_TG_EVENT_FINISHED: Its stop condition was met.
 */
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
	MTG_A_TG_SOCK_ERROR,
	MTG_A_TG_RETRANS,
	MTG_A_TG_WRITE_WAITS,

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
