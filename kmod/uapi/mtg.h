/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * mtg: the interface between mtg.ko and userspace.
 *
 * How a controller uses /dev/mtg (CAP_NET_ADMIN needed):
 *
 *	fd = open("/dev/mtg", O_RDWR | O_CLOEXEC);	// one session
 *	ioctl(fd, MTG_IOC_VERSION, &ver);		// ver.abi_major == MTG_ABI_MAJOR?
 *	ioctl(fd, MTG_IOC_ALLOC, &alloc);		// size the shared memory, once
 *	ioctl(fd, MTG_IOC_MMAP_OFFSETS, &off);		// where each region lives
 *	r = &off.region[MTG_REGION_TABLES];
 *	tables = mmap(NULL, r->size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, r->offset);
 *	r = &off.region[MTG_REGION_STATUS];
 *	status = mmap(NULL, r->size, PROT_READ, MAP_SHARED, fd, r->offset);
 *	ioctl(fd, MTG_IOC_IFACE_ADD, &iface);		// hold a device, in any netns
 *	ioctl(fd, MTG_IOC_STATS, &stats);
 *	// write timetables into tables, then:
 *	ioctl(fd, MTG_IOC_TG_START, &tg);		// a traffic generator
 *	ioctl(fd, MTG_IOC_TG_STATS, &tg_stats);		// counters, lateness
 *	// receiving: alloc.rx_records, MTG_IFACE_F_RX, MTG_IOC_RX_OFFSETS,
 *	// then poll the rings' producer counts (no system call per packet)
 *	close(fd);					// ends the session, frees it all
 *
 * Documentation/abi.rst describes every command, its errors and the rules.
 * All structures use fixed-size types and natural alignment; reserved fields
 * and unknown flags must be zero, or the call fails with EINVAL. The ABI grows
 * by new commands, never by changing a structure.
 */
#ifndef _UAPI_LINUX_MTG_H
#define _UAPI_LINUX_MTG_H

#include <linux/ioctl.h>
#include <linux/types.h>

/*
 * What the ioctls share with the generic netlink family "mtg": the states
 * and flags of sessions, interfaces and TGs (MTG_SESSION_FLAGS_*,
 * MTG_IFACE_STATE_*, MTG_TG_STATE_*, MTG_TG_ERROR_*, MTG_TG_FLAGS_*),
 * generated from Documentation/netlink/specs/mtg.yaml.
 */
#include "linux/mtg_netlink.h"

#define MTG_DEVICE_PATH		"/dev/mtg"

#define MTG_ABI_MAJOR		1	/* incompatible changes */
#define MTG_ABI_MINOR		7	/* new commands */

/* Free in Documentation/userspace-api/ioctl/ioctl-number.rst as of 6.12. */
#define MTG_IOC_MAGIC		0xB9

/* MTG_IOC_VERSION: what the loaded module speaks. */
struct mtg_version {
	__u32 abi_major;		/* MTG_ABI_MAJOR of the module */
	__u32 abi_minor;		/* MTG_ABI_MINOR of the module */
	__u64 max_session_bytes;	/* cap on one session's shared memory */
	__u32 max_ifaces;		/* cap on one session's interfaces */
	__u32 reserved;			/* out: zero */
};

/*
 * MTG_IOC_ALLOC: allocate the session's shared memory, once per session
 * (EBUSY the second time). Sizes are rounded up to whole pages; the total,
 * status page included, must not exceed mtg_version.max_session_bytes
 * (E2BIG). The memory is charged to the caller's memory cgroup. At least
 * one of table_bytes and rx_records must be nonzero.
 */
struct mtg_alloc {
	__u64 table_bytes;	/* timetable area, bytes; 0: none */
	__u32 flags;		/* none defined yet: must be 0 */
	__u32 reserved;		/* must be 0 */
	__u64 rx_records;	/* receive ring: records, a power of two from
				 * MTG_RX_RECORDS_MIN to MTG_RX_RECORDS_MAX;
				 * 0: no receive path (since ABI 1.2)
				 */
	__u64 keep_bytes;	/* keep ring: bytes, a power of two from
				 * MTG_KEEP_BYTES_MIN to MTG_KEEP_BYTES_MAX,
				 * with rx_records; 0: none (since ABI 1.4;
				 * reserved, 0, before)
				 */
};

/*
 * Regions of the shared memory. Each is mapped on its own: the mmap offset
 * is mtg_region.offset and the length at most mtg_region.size. A region
 * without MTG_REGION_F_WRITABLE can only be mapped read-only (EPERM
 * otherwise, and mprotect cannot make it writable later). Mappings need
 * MAP_SHARED and are not inherited across fork (VM_DONTCOPY).
 */
#define MTG_REGION_TABLES	0	/* timetables, written by userspace */
#define MTG_REGION_STATUS	1	/* struct mtg_status, written by the kernel */
#define MTG_REGION_RX		2	/* receive rings, written by the kernel */
#define MTG_REGION_RX_CONS	3	/* their consumer counts, by userspace */
#define MTG_REGION_MAX		8	/* slots in mtg_mmap_offsets */

#define MTG_REGION_F_WRITABLE	(1U << 0)

struct mtg_region {
	__u64 offset;		/* mmap offset, page aligned */
	__u64 size;		/* bytes, whole pages; 0: region absent */
	__u32 flags;		/* MTG_REGION_F_* */
	__u32 reserved;		/* out: zero */
};

/* MTG_IOC_MMAP_OFFSETS: the layout, valid after MTG_IOC_ALLOC (ENODATA before). */
struct mtg_mmap_offsets {
	struct mtg_region region[MTG_REGION_MAX];	/* by MTG_REGION_* */
};

/* MTG_IOC_STATS: the session's counters; also kept in struct mtg_status. */
struct mtg_stats {
	__u64 session_id;	/* unique while the module is loaded */
	__u64 mem_bytes;	/* shared memory allocated, bytes */
	__u32 flags;		/* MTG_SESSION_FLAGS_* */
	__u32 ifaces;		/* interfaces held now */
	__u32 ifaces_lost;	/* interfaces that went away while held */
	__u32 reserved;		/* out: zero */
	__u64 events;		/* netlink notifications raised */
};

/*
 * The status region: one page the kernel rewrites whenever a counter
 * changes. Read it like a seqcount: read seq, the data, seq again; retry if
 * the two differ or seq is odd.
 */
#define MTG_STATUS_MAGIC	0x4d544753	/* "MTGS" */

struct mtg_status {
	__u32 magic;		/* MTG_STATUS_MAGIC */
	__u32 abi_major;	/* MTG_ABI_MAJOR */
	__u64 seq;		/* odd while the kernel writes */
	struct mtg_stats stats;
};

/*
 * MTG_IOC_IFACE_ADD: hold a network device for the session (the receive
 * path listens on it; traffic generators send through it). The device may
 * live in another network namespace, named by an open fd of it (a file under
 * /run/netns or /proc/PID/ns/net); CAP_NET_ADMIN is needed in the user
 * namespace that owns it. If the device is unregistered or leaves its
 * namespace, the session lets it go and counts it in ifaces_lost: deleting
 * an interface or a namespace never waits for mtg.
 */
#define MTG_NETNS_CURRENT	0xffffffffU	/* the caller's namespace */

#define MTG_IFACE_F_RX		(1U << 0)	/* record MTG packets it receives */
#define MTG_IFACE_F_RX_PASS	(1U << 1)	/* with F_RX: then let them go on */
#define MTG_IFACE_F_ALL		0x3U

struct mtg_iface_add {
	__u32 netns_fd;		/* namespace fd, or MTG_NETNS_CURRENT */
	__u32 ifindex;		/* device index in that namespace */
	__u32 flags;		/* MTG_IFACE_F_* */
	__u32 id;		/* out: the session's handle, >= 1 */
};

/* MTG_IOC_IFACE_INFO: what became of an interface. */
struct mtg_iface_info {
	__u32 id;		/* in: handle from MTG_IOC_IFACE_ADD */
	__u32 state;		/* out: MTG_IFACE_STATE_* */
	__u32 ifindex;		/* out: as given */
	__u32 reserved;		/* in and out: zero */
	__u64 netns_cookie;	/* out: the namespace's cookie (SO_NETNS_COOKIE) */
	__u8 name[16];		/* out: device name when added, NUL-terminated */
};

#define MTG_IOC_VERSION		_IOR(MTG_IOC_MAGIC, 0x00, struct mtg_version)
#define MTG_IOC_ALLOC		_IOW(MTG_IOC_MAGIC, 0x01, struct mtg_alloc)
#define MTG_IOC_MMAP_OFFSETS	_IOR(MTG_IOC_MAGIC, 0x02, struct mtg_mmap_offsets)
#define MTG_IOC_STATS		_IOR(MTG_IOC_MAGIC, 0x03, struct mtg_stats)
#define MTG_IOC_IFACE_ADD	_IOWR(MTG_IOC_MAGIC, 0x04, struct mtg_iface_add)
#define MTG_IOC_IFACE_DEL	_IOW(MTG_IOC_MAGIC, 0x05, __u32)
#define MTG_IOC_IFACE_INFO	_IOWR(MTG_IOC_MAGIC, 0x06, struct mtg_iface_info)

/*
 * Traffic generators (TGs). A TG sends UDP packets from one CPU through one
 * interface at the departure times of its timetable: a circular table of
 * struct mtg_tt_entry in the tables region, written by userspace, read by
 * the kernel. Packet k leaves at
 *
 *	departure(0) = start_ns
 *	departure(k + 1) = departure(k) + gap_ns of entry (k mod table_len)
 *
 * (gaps scaled by MTG_IOC_TG_SET_RATE), with the length of entry k. In
 * streaming mode (MTG_TG_FLAGS_STREAM) entry k is valid only once the ring's
 * producer count is above k: the controller refills the table ahead of the
 * kernel, and a table found empty when a packet is due is an underrun
 * (counted, reported, retried) rather than a repeat.
 *
 * The kernel reads each entry once, checks it and never trusts it: an entry
 * with a bad length or a non-zero reserved field is skipped and counted in
 * bad_entries; a ring whose producer count is not within table_len entries
 * ahead of the consumer fails the TG (MTG_TG_ERROR_RING).
 */
struct mtg_tt_entry {
	__u64 gap_ns;		/* to the next packet's departure, nanoseconds */
	__u32 len;		/* frame length at L2 without FCS, bytes */
	__u32 reserved;		/* must be 0 */
};

/* Streaming mode: counts of entries, on their own cache lines. */
struct mtg_tt_ring {
	__u64 producer;		/* written by userspace (release) */
	__u8 pad0[56];
	__u64 consumer;		/* written by the kernel: a copy, for reading */
	__u8 pad1[56];
};

/* Payload patterns (mtg_tg_start.patt_kind and mtg_hdr.patt_kind). */
#define MTG_PATT_FIXED		0	/* every byte patt_value */
#define MTG_PATT_RANDOM		1	/* xorshift32 stream from patt_seed */
#define MTG_PATT_INCR		2	/* byte i is (patt_value + i) mod 256 */
#define MTG_PATT_CTRL		3	/* control message: opaque data */

/*
 * MTG_IOC_TG_START: start a TG. Everything is checked before anything
 * starts; on error nothing is left behind. The destination MAC is resolved
 * through the neighbour table of the interface's namespace (ARP or ND, up to
 * two seconds' wait) unless MTG_TG_FLAGS_DST_MAC gives it; either way it is
 * returned in dst_mac. A table entry longer than the MTU plus the Ethernet
 * header gives EMSGSIZE; one shorter than the headers, EINVAL.
 *
 * With MTG_TG_FLAGS_RESTART, tg_id names a TG of the session that has ended
 * (finished, killed or failed; ENOENT if none, EBUSY if it runs): the new
 * one takes its place from table entry 0, its first packet's sequence
 * number the old one's next_seq, its counters going on from the old one's
 * (stop_count then counts the packets of the new start).
 *
 * With MTG_TG_FLAGS_DITG (ABI 1.5) the packets carry D-ITG's payload
 * header (struct mtg_ditg_hdr, below) where the MTG header would be, and
 * the pattern after it; not with MTG_TG_FLAGS_KEEP_* (EINVAL), and the
 * TG sends no control message (EOPNOTSUPP).
 *
 * With MTG_TG_FLAGS_ICMP (ABI 1.6) the packets are ICMP echo requests
 * (ICMPv6 with MTG_TG_FLAGS_IPV6): the 8-byte ICMP header where UDP's
 * would be, its identifier src_port, its sequence number the low 16 bits
 * of the MTG one, then the MTG header and the pattern as the echo's data,
 * which the destination's echo reply carries back to be recorded
 * (MTG_RX_F_ICMP). dst_port must be 0; not with MTG_TG_FLAGS_DITG
 * (EINVAL); no control message (EOPNOTSUPP).
 *
 * With MTG_TG_FLAGS_TCP, _SCTP or _DCCP (ABI 1.7; at most one of them and
 * MTG_TG_FLAGS_ICMP, and not with MTG_TG_FLAGS_DITG: EINVAL) the start
 * opens a connection from src_addr:src_port (0: any port, out: the one
 * used) to dst_addr:dst_port through the interface, waiting up to
 * MTG_SOCK_CONNECT_S seconds (ETIMEDOUT, ECONNREFUSED, EPROTONOSUPPORT
 * when the protocol's module is not loaded). Each slot is then a message:
 * the MTG header (tx_ns: when the message was handed to the socket) and
 * the pattern, as a UDP datagram of the entry's length would carry them,
 * preceded over TCP by its length (2 bytes, big-endian, the header
 * included, as DNS over TCP). A worker on the TG's CPU writes the
 * messages in order without blocking; one that waits for room in the send
 * buffer counts in write_waits and goes late. sent and bytes count
 * messages written and their bytes (the prefix included); a slot that
 * finds MTG_SOCK_QUEUE messages still unwritten is a tx_error. The TG
 * finishes once every message is written (the connection then half-closed;
 * DCCP's, which cannot be, when the TG lets go of its device),
 * fails with MTG_TG_ERROR_SOCKET (sock_error) if the connection does;
 * its socket is closed when it is killed or its session ends. No control
 * message (EOPNOTSUPP).
 */
#define MTG_SOCK_CONNECT_S	5
#define MTG_SOCK_QUEUE		4096
struct mtg_tg_start {
	__u32 tg_id;		/* nonzero, unique in the session; on the wire */
	__u32 run_id;		/* on the wire: tells this run's packets apart */
	__u32 flags;		/* MTG_TG_FLAGS_* */
	__u32 netns_fd;		/* namespace of ifindex, or MTG_NETNS_CURRENT */
	__u32 ifindex;		/* an Ethernet device, up */
	__u32 cpu;		/* online CPU that sends */
	__u8 src_addr[16];	/* network order; IPv4 in the first 4 bytes;
				 * zero: the route's choice (out: used)
				 */
	__u8 dst_addr[16];	/* network order; IPv4 in the first 4 bytes */
	__u16 src_port;		/* UDP, host order; ICMP: the identifier */
	__u16 dst_port;		/* UDP, host order, nonzero; ICMP: 0 */
	__u8 tos;		/* IPv4 TOS or IPv6 traffic class */
	__u8 ttl;		/* TTL or hop limit, 1..255 */
	__u8 dst_mac[6];	/* in with MTG_TG_FLAGS_DST_MAC; out: used */
	__u8 patt_kind;		/* MTG_PATT_FIXED, _RANDOM or _INCR */
	__u8 patt_value;	/* FIXED: the byte; INCR: the first byte */
	__u16 reserved0;	/* must be 0 */
	__u32 patt_seed;	/* RANDOM: the TG's seed */
	__u32 table_len;	/* entries, >= 1 */
	__u64 table_offset;	/* bytes into the tables region, multiple of 16 */
	__u64 ring_offset;	/* MTG_TG_FLAGS_STREAM: struct mtg_tt_ring,
				 * multiple of 64, in the tables region;
				 * else 0
				 */
	__u64 start_ns;		/* first departure, CLOCK_TAI; in the past: ETIME;
				 * at most 2^63 - 1 (EINVAL), as stop_ns
				 */
	__u64 stop_count;	/* stop after this many packets sent; 0: never */
	__u64 stop_ns;		/* no departure at or after it, CLOCK_TAI; 0: never */
	__u64 late_threshold_ns;	/* lateness that raises an event; 0: none */
	__u8 nut[6];		/* into every packet's mtg_hdr.nut (ABI 1.3) */
	__u16 reserved1;	/* must be 0 */
	__u64 reserved[3];	/* must be 0 */
};

/* MTG_IOC_TG_SET_RATE: throughput times num / den (gaps times den / num). */
struct mtg_tg_rate {
	__u32 tg_id;
	__u32 num;		/* 1 .. 65536 */
	__u32 den;		/* 1 .. 65536 */
	__u32 reserved;		/* must be 0 */
};

/*
 * MTG_IOC_TG_CTRLMSG: send one control message now, through the TG's
 * interface and path, whatever the TG's state (except after it failed or
 * was killed). It is an MTG packet with MTG_HDR_F_CTRL set, seq counting
 * the TG's control messages from 0, patt_kind MTG_PATT_CTRL, sched_ns the
 * time of the request, and the len bytes at data as its payload.
 */
#define MTG_CTRLMSG_MAX		1024	/* bytes of data */

struct mtg_tg_ctrlmsg {
	__u32 tg_id;
	__u32 len;		/* 0 .. MTG_CTRLMSG_MAX, and the frame fits the MTU */
	__u64 data;		/* user pointer */
};

/*
 * Lateness (TX stamp minus scheduled departure, ns) histogram: values below
 * 8 have a bucket each; above, every power of two [2^e, 2^(e+1)) is split
 * into 8 equal buckets, so a bucket is at most 12.5% wide:
 *
 *	v < 8:	bucket v
 *	else:	e = floor(log2(v)); bucket 8 + 8 * (e - 3) + ((v >> (e - 3)) & 7)
 *
 * and values of 2^48 ns or more go to the last bucket. A packet stamped
 * before its schedule (only if CLOCK_TAI was set back) counts as 0.
 */
#define MTG_LAT_BUCKETS		368

/* MTG_IOC_TG_STATS: a TG's state and counters. Counters never go back. */
struct mtg_tg_stats {
	__u32 tg_id;		/* in */
	__u32 state;		/* MTG_TG_STATE_* */
	__u32 error;		/* MTG_TG_ERROR_* */
	__u32 cpu;
	__u64 sent;		/* packets handed to the driver or qdisc */
	__u64 bytes;		/* their L2 bytes without FCS */
	__u64 tx_errors;	/* refused by driver or qdisc, or no memory */
	__u64 skipped_late;	/* slots skipped by MTG_TG_FLAGS_LATE_SKIP */
	__u64 bad_entries;	/* table entries refused */
	__u64 underruns;	/* streaming: table empty when a packet was due */
	__u64 late_packets;	/* lateness above late_threshold_ns */
	__u64 events;		/* notifications raised (coalesced) */
	__u64 ctrl_sent;	/* control messages sent */
	__u64 next_seq;		/* sequence number of the next packet */
	__u64 next_ns;		/* scheduled departure of the next packet */
	__u64 lateness_max_ns;
	__u64 lateness_sum_ns;	/* over the sent packets */
	__u64 early;		/* TX stamp before schedule (clock set back) */
	__u64 lead_ns;		/* precise: how early the timer fires now */
	__u64 spin_ns;		/* precise: CPU time spent waiting */
	__u32 sock_error;	/* TCP, SCTP, DCCP: errno that failed it (1.7) */
	__u32 reserved2;	/* out: zero */
	__u64 retrans;		/* TCP: segments retransmitted (1.7) */
	__u64 write_waits;	/* TCP, SCTP, DCCP: waits for room (1.7) */
	__u64 reserved[1];	/* out: zero */
	__u64 lateness_hist[MTG_LAT_BUCKETS];	/* packets per bucket */
};

#define MTG_IOC_TG_START	_IOWR(MTG_IOC_MAGIC, 0x10, struct mtg_tg_start)
#define MTG_IOC_TG_KILL		_IOW(MTG_IOC_MAGIC, 0x11, __u32)
#define MTG_IOC_TG_SUSPEND	_IOW(MTG_IOC_MAGIC, 0x12, __u32)
#define MTG_IOC_TG_RESUME	_IOW(MTG_IOC_MAGIC, 0x13, __u32)
#define MTG_IOC_TG_SET_RATE	_IOW(MTG_IOC_MAGIC, 0x14, struct mtg_tg_rate)
#define MTG_IOC_TG_CTRLMSG	_IOW(MTG_IOC_MAGIC, 0x15, struct mtg_tg_ctrlmsg)
#define MTG_IOC_TG_STATS	_IOWR(MTG_IOC_MAGIC, 0x16, struct mtg_tg_stats)
/* 0x17-0x2f: reserved for more traffic generator commands. */

/*
 * The receive path (since ABI 1.2). On every interface added with
 * MTG_IFACE_F_RX, the module takes the MTG packets it receives at the
 * netfilter ingress hook (before IP: damaged packets still arrive; packet
 * taps see them first), stamps them, checks the header's CRC, the IPv4
 * header and UDP checksums (in software, whatever the driver claims) and
 * the payload against the pattern the header describes, and appends a
 * struct mtg_rx_rec to the data ring. Control messages and the events TGs
 * raise go to the control queue (struct mtg_ctrl_rec). Recorded packets
 * are consumed, unless MTG_IFACE_F_RX_PASS: nothing of them reaches a
 * socket or provokes an ICMP error. Packets of another run (see
 * MTG_IOC_RX_SET_RUN) are counted and passed on untouched.
 *
 * A ring is records in MTG_REGION_RX (read-only) with a producer count the
 * kernel advances (in MTG_REGION_RX, release order) and a consumer count
 * userspace advances (in MTG_REGION_RX_CONS, release order) once it has
 * copied the records out. Both count records from 0 and never wrap; record
 * k is at index k mod nr. The kernel writes a record only into a slot the
 * consumer count has freed: a full ring drops and counts, it never
 * overwrites. A consumer count that is behind the kernel's last one or
 * ahead of the producer is ignored and counted (bad_consumer). Writers on
 * several CPUs take one lock per session.
 */
#define MTG_RX_RECORDS_MIN	16
#define MTG_RX_RECORDS_MAX	(1U << 24)
#define MTG_CTRL_RECORDS	32	/* the control queue's records */

struct mtg_ring_offsets {
	__u64 producer;		/* __u64 producer count, in MTG_REGION_RX */
	__u64 consumer;		/* __u64 consumer count, in MTG_REGION_RX_CONS */
	__u64 records;		/* record 0, in MTG_REGION_RX */
	__u32 nr;		/* records, a power of two */
	__u32 size;		/* bytes per record */
};

/* MTG_IOC_RX_OFFSETS: where the rings are (ENODATA without rx_records). */
struct mtg_rx_offsets {
	struct mtg_ring_offsets data;	/* struct mtg_rx_rec */
	struct mtg_ring_offsets ctrl;	/* struct mtg_ctrl_rec */
	__u64 stats;		/* struct mtg_rx_stats, in MTG_REGION_RX */
	__u64 reserved[3];	/* out: zero */
};

/*
 * The receive path's counters. The copy in MTG_REGION_RX is rewritten as
 * they change (each counter whole, not a snapshot of all);
 * MTG_IOC_RX_STATS gives a consistent one. Counters never go back.
 */
struct mtg_rx_stats {
	__u64 packets;		/* data records written to the ring */
	__u64 bytes;		/* their L2 bytes without FCS */
	__u64 ring_drops;	/* data packets lost: ring full */
	__u64 hdr_corrupt;	/* of packets: header CRC wrong */
	__u64 csum_bad;		/* of packets: IPv4 header or UDP checksum wrong */
	__u64 wrong_bits;	/* of packets: payload bits not as the pattern */
	__u64 foreign;		/* MTG packets of another run, passed on */
	__u64 ctrl;		/* control messages queued */
	__u64 ctrl_drops;	/* control messages and events lost: queue full */
	__u64 bad_consumer;	/* consumer counts out of range, ignored */
	__u64 kept;		/* keep-ring entries written (ABI 1.4) */
	__u64 keep_drops;	/* payloads, position lists not kept: no room */
	__u64 ditg_short;	/* to a D-ITG port, too short: passed (1.5) */
	__u64 reserved[3];	/* out: zero */
};

/* Where mtg_rx_rec.rx_ns comes from (flags & MTG_RX_F_STAMP). */
#define MTG_RX_STAMP_HOOK	0	/* taken at the hook: no earlier stamp */
#define MTG_RX_STAMP_SW		1	/* the kernel's, when the driver passed
					 * the packet up (skb->tstamp)
					 */
#define MTG_RX_STAMP_HW		2	/* the NIC's, in the NIC's clock (a PTP
					 * hardware clock; TAI if so disciplined)
					 */

#define MTG_RX_F_STAMP		0x3U		/* MTG_RX_STAMP_* */
#define MTG_RX_F_IPV6		(1U << 2)
#define MTG_RX_F_HDR_CORRUPT	(1U << 3)	/* CRC wrong: fields untrusted,
						 * payload not compared
						 */
#define MTG_RX_F_CSUM_BAD	(1U << 4)	/* tx_ns, tp_ns untrusted */
#define MTG_RX_F_KEPT		(1U << 5)	/* keep-ring entries are its */
#define MTG_RX_F_KEEP_LOST	(1U << 6)	/* one asked for had no room */
#define MTG_RX_F_DITG		(1U << 7)	/* D-ITG's (MTG_IOC_RX_DITG) */
#define MTG_RX_F_CSUM_PARTIAL	(1U << 8)	/* the UDP checksum was left to
						 * offload by a sender on this
						 * host: not checked (1.5)
						 */
#define MTG_RX_F_ICMP		(1U << 9)	/* an ICMP echo reply: tx_ns is
						 * the request's, a round trip
						 * (1.6)
						 */

/*
 * One received data packet, host byte order, 96 bytes. With
 * MTG_RX_F_HDR_CORRUPT the header fields are as received, not to be
 * trusted. wrong_bits counts the payload_len * 8 payload bits (after the
 * MTG header) that differ from the pattern the header describes.
 */
struct mtg_rx_rec {
	__u64 rx_ns;		/* receive stamp, CLOCK_TAI (MTG_RX_F_STAMP) */
	__u64 seq;
	__u64 sched_ns;
	__u64 tx_ns;
	__u64 tp_ns[4];
	__u32 run_id;
	__u32 tg_id;
	__u32 wrong_bits;
	__u16 len;		/* frame length at L2 without FCS */
	__u16 iface;		/* the session's interface id */
	__u16 flags;		/* MTG_RX_F_* */
	__u8 nut[6];
	__u8 ttl;		/* TTL or hop limit as received */
	__u8 tos;		/* TOS or traffic class as received */
	__u16 payload_len;	/* bytes after the MTG header (compared) */
	__u32 reserved;		/* zero */
};

/* What a control-queue record carries (mtg_ctrl_rec.type). */
#define MTG_CTRL_MSG		1	/* a control message received */
#define MTG_CTRL_TG_EVENT	2	/* a TG of the session raised events */
#define MTG_CTRL_RX_DROPS	3	/* the data ring began to drop */

/*
 * One control-queue record, host byte order. MSG: what the header and the
 * payload said; TG_EVENT: the events (MTG_TG_EVENT_* of the netlink
 * family), coalesced as for netlink, and the TG's state; RX_DROPS: the
 * ring_drops count when the ring, having had room, dropped again.
 */
struct mtg_ctrl_rec {
	__u64 time_ns;		/* receive stamp or event time, CLOCK_TAI */
	__u32 type;		/* MTG_CTRL_* */
	__u32 tg_id;		/* MSG, TG_EVENT */
	__u32 run_id;		/* MSG */
	__u32 len;		/* MSG: bytes of data */
	__u64 seq;		/* MSG: its sequence number */
	__u64 tx_ns;		/* MSG: its TX stamp */
	__u32 events;		/* TG_EVENT: MTG_TG_EVENT_* */
	__u32 state;		/* TG_EVENT: MTG_TG_STATE_* */
	__u32 error;		/* TG_EVENT: MTG_TG_ERROR_* */
	__u16 iface;		/* MSG: the interface id */
	__u16 flags;		/* MSG: MTG_RX_F_* */
	__u64 count;		/* RX_DROPS: ring_drops */
	__u8 data[MTG_CTRLMSG_MAX];	/* MSG: the payload */
};

/*
 * The keep ring (ABI 1.4): what MTG kept of a packet besides its header,
 * for the packets whose header asks for it (MTG_HDR_F_KEEP_PAYLOAD, _BITS;
 * a header whose CRC is wrong asks for nothing): entries of variable
 * length in a ring of alloc.keep_bytes bytes in MTG_REGION_RX. Its counts
 * are of bytes, from 0, never wrapping; byte k is at k mod bytes. An entry
 * starts on 8 bytes and never crosses the ring's end: the kernel fills
 * the end with an MTG_KEEP_PAD entry instead. The rules are the data
 * ring's: entries are written only into room the consumer count has
 * freed (release order both ways); a full ring drops the entry and counts
 * it (keep_drops; the record gets MTG_RX_F_KEEP_LOST); a consumer count
 * that is not a multiple of 8, behind the kernel's last one or ahead of
 * the producer is ignored and counted (bad_consumer). A packet's entries
 * are written before its record (MTG_RX_F_KEPT), which they name by its
 * count in the data ring.
 */
#define MTG_KEEP_BYTES_MIN	(1U << 16)
#define MTG_KEEP_BYTES_MAX	(1U << 28)
#define MTG_KEEP_BITS_MAX	1024	/* positions kept per packet */

#define MTG_KEEP_PAD		0	/* nothing: skip len bytes */
#define MTG_KEEP_PAYLOAD	1	/* the payload, as received */
#define MTG_KEEP_BITS		2	/* __u32 positions of wrong bits */

#define MTG_KEEP_F_CUT		(1U << 0)	/* BITS: more than were kept */

/*
 * A keep-ring entry's head, host byte order; data_len bytes follow, then
 * up to 7 bytes of padding (len counts them all). PAD: len and type only.
 * BITS: payload bit k is bit 7 - k % 8 of byte k / 8 (the first payload
 * byte, after the MTG header, holds bits 0 .. 7, most significant first).
 */
struct mtg_keep_rec {
	__u32 len;		/* the whole entry, a multiple of 8 */
	__u16 type;		/* MTG_KEEP_* */
	__u16 flags;		/* MTG_KEEP_F_* */
	__u64 record;		/* its packet's record: count in the data ring */
	__u64 rx_ns;		/* as the record */
	__u64 seq;
	__u32 run_id;
	__u32 tg_id;
	__u32 count;		/* PAYLOAD: payload bytes; BITS: wrong bits */
	__u32 data_len;		/* bytes of data after the head */
};

/* MTG_IOC_RX_KEEP_OFFSETS: where the keep ring is (ENODATA if none). */
struct mtg_keep_offsets {
	__u64 producer;		/* __u64 bytes written, in MTG_REGION_RX */
	__u64 consumer;		/* __u64 bytes handed back, MTG_REGION_RX_CONS */
	__u64 area;		/* byte 0 of the ring, in MTG_REGION_RX */
	__u64 bytes;		/* the ring's size, a power of two */
	__u64 reserved[4];	/* out: zero */
};

#define MTG_IOC_RX_OFFSETS	_IOR(MTG_IOC_MAGIC, 0x30, struct mtg_rx_offsets)
#define MTG_IOC_RX_STATS	_IOR(MTG_IOC_MAGIC, 0x31, struct mtg_rx_stats)
/*
 * MTG_IOC_RX_DITG (ABI 1.5): D-ITG's packets, which carry no magic, are
 * recorded by the UDP port they go to. MTG_DITG_ADD: the UDP datagrams
 * to port that the session's receiving interfaces take, and that are not
 * MTG packets, are D-ITG's (struct mtg_ditg_hdr first), recorded as run
 * run_id (nonzero), with MTG_RX_F_DITG: tg_id the header's flow id, seq
 * its sequence number minus 1 (D-ITG counts from 1), tx_ns its time of
 * day (UTC, microseconds) on the day that puts it nearest the receive
 * stamp, in CLOCK_TAI (0 if the fields are no time of day), sched_ns the
 * same (D-ITG sends when its clock says a packet is due), tp_ns 0, no
 * CRC, no pattern (wrong_bits 0, payload_len the bytes after the 16 of
 * the header). A datagram with fewer than 16 bytes
 * of payload is counted (ditg_short) and passed on. MTG_DITG_DEL: the
 * port no longer. EEXIST: port taken (ADD); ENOENT: not there (DEL);
 * ENOSPC: MTG_DITG_PORTS taken; ENODATA: no receive path. Closing the
 * session forgets them.
 */
#define MTG_DITG_PORTS		64	/* ports at once, per session */
#define MTG_DITG_ADD		1
#define MTG_DITG_DEL		2

struct mtg_rx_ditg {
	__u32 run_id;		/* ADD: recorded as the packets' run, nonzero */
	__u16 port;		/* UDP destination port, host order, nonzero */
	__u16 op;		/* MTG_DITG_ADD or MTG_DITG_DEL */
	__u64 reserved;		/* must be 0 */
};

/* The run id recorded; 0: every run. Others are foreign. Default 0. */
#define MTG_IOC_RX_SET_RUN	_IOW(MTG_IOC_MAGIC, 0x32, __u32)
#define MTG_IOC_RX_KEEP_OFFSETS	_IOR(MTG_IOC_MAGIC, 0x33, struct mtg_keep_offsets)
#define MTG_IOC_RX_DITG		_IOW(MTG_IOC_MAGIC, 0x34, struct mtg_rx_ditg)

/*
 * The MTG header: on the wire right after the UDP header, all fields in
 * network byte order, 88 bytes (MTG_HDR_LEN). The smallest frame mtg sends
 * is therefore 14 + 20 + 8 + 88 = 130 bytes over IPv4 and 150 over IPv6
 * (L2, without FCS).
 *
 * crc is the CRC32C (Castagnoli, as iSCSI: reflected, initial value and
 * final xor 0xffffffff; "123456789" gives 0xe3069283) of bytes 0..43,
 * the fields fixed when the packet is built. tx_ns and the test-point
 * stamps are written later (at transmit, and by probes in the network) and
 * are covered by the UDP checksum only. A receiver that finds a wrong crc
 * must not trust seq, tg_id or run_id.
 *
 * The payload follows the header (patt_kind says how to regenerate it):
 * RANDOM is x = patt_seed (1 if 0), then for each 4 bytes
 * x ^= x << 13; x ^= x >> 17; x ^= x << 5; and the 4 bytes of x, least
 * significant first (the last word cut to the bytes left).
 */
#define MTG_HDR_MAGIC		0x4d544731	/* "MTG1" */
#define MTG_HDR_VERSION		1
#define MTG_HDR_LEN		88
#define MTG_HDR_CRC_LEN		44		/* bytes covered by crc */

#define MTG_HDR_F_CTRL		(1U << 0)	/* a control message */
#define MTG_HDR_F_KEEP_PAYLOAD	(1U << 1)	/* keep the payload (ABI 1.4) */
#define MTG_HDR_F_KEEP_BITS	(1U << 2)	/* keep the wrong bits' places */

struct mtg_hdr {
	__be32 magic;		/* MTG_HDR_MAGIC */
	__u8 version;		/* MTG_HDR_VERSION */
	__u8 flags;		/* MTG_HDR_F_* */
	__be16 hdr_len;		/* MTG_HDR_LEN */
	__be32 run_id;
	__be32 tg_id;
	__be64 seq;		/* packets of this TG sent before, from 0 */
	__be64 sched_ns;	/* scheduled departure, CLOCK_TAI */
	__u8 nut[6];		/* for the network under test */
	__u8 patt_kind;		/* MTG_PATT_* */
	__u8 patt_value;
	__be32 patt_seed;	/* this packet's RANDOM seed */
	__be32 crc;		/* CRC32C of bytes 0 .. MTG_HDR_CRC_LEN - 1 */
	__be64 tx_ns;		/* TX stamp, CLOCK_TAI */
	__be64 tp_ns[4];	/* test-point stamps; 0 until a probe writes */
};

/*
 * D-ITG 2.8.1's standard payload header (ITGSend's flowSender()), in
 * network byte order, 16 bytes, what MTG_TG_FLAGS_DITG sends instead of
 * the MTG header: flow_id the TG's tg_id, seq the MTG sequence number + 1
 * (mod 2^32), and the TX stamp, taken as late as the MTG header's tx_ns,
 * as a UTC time of day: seconds since midnight and microseconds. No
 * magic, no run id, no CRC, no test-point slots. The smallest
 * frame is 14 + 20 + 8 + 16 = 58 bytes over IPv4, 78 over IPv6.
 */
#define MTG_DITG_HDR_LEN	16

struct mtg_ditg_hdr {
	__be32 flow_id;
	__be32 seq;		/* from 1 */
	__be32 tx_sec;		/* UTC seconds since midnight, 0..86399 */
	__be32 tx_usec;		/* 0..999999 */
};

#endif /* _UAPI_LINUX_MTG_H */
