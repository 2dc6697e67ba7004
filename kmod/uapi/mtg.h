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

#define MTG_DEVICE_PATH		"/dev/mtg"
#define MTG_GENL_NAME		"mtg"	/* generic netlink family */
#define MTG_GENL_VERSION	1

#define MTG_ABI_MAJOR		1	/* incompatible changes */
#define MTG_ABI_MINOR		0	/* new commands */

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
 * (E2BIG). The memory is charged to the caller's memory cgroup.
 */
struct mtg_alloc {
	__u64 table_bytes;	/* timetable area: 1 .. max_session_bytes */
	__u32 flags;		/* none defined yet: must be 0 */
	__u32 reserved;		/* must be 0 */
	__u64 reserved2[2];	/* for the receive rings: must be 0 */
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

/* Session state bits in mtg_stats.flags. */
#define MTG_SESSION_F_ALLOCATED	(1U << 0)	/* MTG_IOC_ALLOC done */
#define MTG_SESSION_F_ENDED	(1U << 1)	/* owner gone or ended by admin */

/* MTG_IOC_STATS: the session's counters; also kept in struct mtg_status. */
struct mtg_stats {
	__u64 session_id;	/* unique while the module is loaded */
	__u64 mem_bytes;	/* shared memory allocated, bytes */
	__u32 flags;		/* MTG_SESSION_F_* */
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

struct mtg_iface_add {
	__u32 netns_fd;		/* namespace fd, or MTG_NETNS_CURRENT */
	__u32 ifindex;		/* device index in that namespace */
	__u32 flags;		/* none defined yet: must be 0 */
	__u32 id;		/* out: the session's handle, >= 1 */
};

#define MTG_IFACE_ATTACHED	1	/* held */
#define MTG_IFACE_LOST		2	/* went away; id kept until deleted */

/* MTG_IOC_IFACE_INFO: what became of an interface. */
struct mtg_iface_info {
	__u32 id;		/* in: handle from MTG_IOC_IFACE_ADD */
	__u32 state;		/* out: MTG_IFACE_* */
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
/* 0x10-0x2f: traffic generator commands (start, kill, ctrlmsg, ...). */

#endif /* _UAPI_LINUX_MTG_H */
