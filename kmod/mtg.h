/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mtg.ko internals. State lives in three levels, each a struct with one job:
 * the driver (struct mtg_driver, one per module), the session (struct
 * mtg_session, one per open file of /dev/mtg) and what a session holds
 * (shared memory, interfaces; traffic generators later).
 *
 * Lock order: rtnl_lock -> mtg_driver.lock -> mtg_session.lock.
 */
#ifndef _MTG_H
#define _MTG_H

#include <linux/fdtable.h>
#include <linux/list.h>
#include <linux/miscdevice.h>
#include <linux/mutex.h>
#include <linux/netdevice.h>
#include <linux/sched.h>
#include <linux/xarray.h>
#include <net/net_namespace.h>

#include "uapi/mtg.h"

/* The driver's data; the miscdevice is found back with container_of. */
struct mtg_driver {
	struct miscdevice misc;
	struct mutex lock;		/* protects sessions and next_id */
	struct list_head sessions;	/* struct mtg_session, by rising id */
	u64 next_id;			/* id of the next session */
};

extern struct mtg_driver mtg_driver;

/* Limits, set at load time (module parameters, read-only afterwards). */
extern unsigned int mtg_max_session_mb;
extern unsigned int mtg_max_ifaces;

/* The session's shared memory: pages mapped to userspace and to the kernel. */
struct mtg_shm {
	struct page **pages;			/* nr_pages, zeroed, accounted */
	unsigned long nr_pages;
	void *vaddr;				/* vmap() of all pages */
	struct mtg_region region[MTG_REGION_MAX];
};

/* A network device held for a session. */
struct mtg_iface {
	u32 id;				/* index in mtg_session.ifaces */
	u32 state;			/* MTG_IFACE_* */
	int ifindex;
	u64 netns_cookie;
	char name[IFNAMSIZ];
	struct net_device *dev;		/* NULL once lost */
	netdevice_tracker dev_tracker;
};

struct mtg_session {
	struct list_head node;		/* in mtg_driver.sessions */
	struct mutex lock;		/* protects all below */
	u64 id;
	pid_t pid;			/* opener's thread group */
	char comm[TASK_COMM_LEN];	/* opener's name */
	fl_owner_t owner;		/* opener's fd table; NULL once ended */
	bool ended;			/* owner gone or ended by admin */
	struct net *net;		/* opener's namespace; NULL once ended */
	u64 netns_cookie;		/* of that namespace, kept after the end */
	netns_tracker net_tracker;
	struct mtg_shm shm;		/* empty until MTG_IOC_ALLOC */
	struct mtg_status *status;	/* in shm, written by the kernel only */
	struct xarray ifaces;		/* struct mtg_iface by id */
	u32 nr_ifaces;			/* attached now */
	u32 ifaces_lost;		/* went away while attached */
	u64 events;			/* notifications raised */
};

/* mtg_main.c */
void mtg_session_stats(struct mtg_session *s, struct mtg_stats *st);
void mtg_session_changed(struct mtg_session *s);
void mtg_session_end(struct mtg_session *s);

/* mtg_shm.c */
int mtg_shm_alloc(struct mtg_session *s, const struct mtg_alloc *req);
void mtg_shm_free(struct mtg_shm *shm);
int mtg_shm_mmap(struct mtg_session *s, struct vm_area_struct *vma);

/* mtg_iface.c */
int mtg_iface_add(struct mtg_session *s, struct mtg_iface_add *req);
int mtg_iface_del(struct mtg_session *s, u32 id);
int mtg_iface_info(struct mtg_session *s, struct mtg_iface_info *info);
void mtg_iface_release_all(struct mtg_session *s);
int mtg_iface_init(void);
void mtg_iface_exit(void);

/* mtg_netlink.c */
int mtg_netlink_init(void);
void mtg_netlink_exit(void);
void mtg_notify_session(struct mtg_session *s, u8 cmd);
void mtg_notify_iface(struct mtg_session *s, const struct mtg_iface *iface, u8 cmd);

#endif /* _MTG_H */
