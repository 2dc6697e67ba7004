/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mtg.ko internals. State lives in three levels, each a struct with one job:
 * the driver (struct mtg_driver, one per module), the session (struct
 * mtg_session, one per open file of /dev/mtg) and what a session holds
 * (shared memory, interfaces, traffic generators, the receive path).
 * Traffic generators are dispatched by a scheduler per CPU (struct mtg_cpu).
 *
 * Lock order: rtnl_lock -> mtg_driver.lock -> mtg_session.lock ->
 * nf_hook_mutex; mtg_session.lock -> mtg_cpu.lock (a spinlock taken with
 * interrupts off) and -> mtg_rx.lock (bottom halves off).
 */
#ifndef _MTG_H
#define _MTG_H

#include <linux/fdtable.h>
#include <linux/hrtimer.h>
#include <linux/list.h>
#include <linux/miscdevice.h>
#include <linux/mutex.h>
#include <linux/netdevice.h>
#include <linux/netfilter.h>
#include <linux/rbtree.h>
#include <linux/sched.h>
#include <linux/spinlock.h>
#include <linux/timekeeping.h>
#include <linux/workqueue.h>
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
extern unsigned int mtg_max_tgs;

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
	u32 state;			/* MTG_IFACE_STATE_* */
	u32 flags;			/* MTG_IFACE_F_* */
	int ifindex;
	u64 netns_cookie;
	char name[IFNAMSIZ];
	struct net_device *dev;		/* NULL once lost */
	netdevice_tracker dev_tracker;
	struct mtg_session *s;
	struct nf_hook_ops hook;	/* ingress, with MTG_IFACE_F_RX */
	bool hooked;			/* hook registered */
};

/*
 * A ring of the receive path in the session's shared memory. The counts
 * the kernel relies on live here; the shared memory has copies (producer)
 * and userspace's claims (consumer), read once and checked.
 */
struct mtg_ring {
	void *records;			/* in shm */
	u64 *producer;			/* in shm: copy of prod */
	const u64 *consumer;		/* in shm: untrusted */
	u64 prod;			/* records written */
	u64 cons;			/* the last valid consumer count */
	u32 mask;			/* records - 1 */
	u32 size;			/* bytes per record */
};

/*
 * The keep ring: entries of variable length (struct mtg_keep_rec), counts
 * of bytes. As for struct mtg_ring, the counts the kernel relies on live
 * here; the shared memory has a copy and userspace's claim.
 */
struct mtg_keep {
	void *area;			/* in shm */
	u64 *producer;			/* in shm: copy of prod */
	const u64 *consumer;		/* in shm: untrusted */
	u64 prod;			/* bytes written */
	u64 cons;			/* the last valid consumer count */
	u64 mask;			/* bytes - 1; 0: no keep ring */
};

/* The session's receive path; empty unless MTG_IOC_ALLOC asked for it. */
struct mtg_rx {
	spinlock_t lock;		/* protects all below; bottom halves off */
	bool ready;			/* rings allocated */
	struct mtg_ring data;		/* struct mtg_rx_rec */
	struct mtg_ring ctrl;		/* struct mtg_ctrl_rec */
	struct mtg_keep keep;		/* payloads, wrong bits' positions */
	struct mtg_keep_offsets koff;	/* as published */
	struct mtg_rx_stats st;
	struct mtg_rx_stats *shm_st;	/* in shm: a copy of st */
	struct mtg_rx_offsets off;	/* as published */
	bool dropping;			/* the data ring dropped since the last
					 * record that fit
					 */
	u32 run_id;			/* recorded run, 0: all; READ_ONCE */
	/* D-ITG's ports: MTG_DITG_ENTRY(port, run), 0 free; WRITE_ONCE under
	 * lock, READ_ONCE in the hook
	 */
	u64 ditg[MTG_DITG_PORTS];
	u32 nr_ditg;			/* entries in use; READ_ONCE */
};

#define MTG_DITG_ENTRY(port, run)	((u64)(port) << 32 | (run))

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
	struct xarray tgs;		/* struct mtg_tg by tg_id */
	u32 nr_tgs;
	struct delayed_work event_work;	/* sends what TGs raised */
	struct mtg_rx rx;
};

/*
 * The scheduler of one CPU: its TGs ordered by when the timer must fire for
 * them, a soft hrtimer pinned to the CPU, and a kthread that waits out the
 * last microseconds for TGs in precise mode, arms the timer when another
 * CPU queued a TG, and works through what the timer could not send within
 * its budget.
 */
struct mtg_cpu {
	spinlock_t lock;		/* protects all below; irqs off */
	struct rb_root_cached queue;	/* struct mtg_tg by key */
	struct list_head precise;	/* TGs handed to the kthread */
	struct hrtimer timer;		/* CLOCK_TAI, soft, pinned */
	struct task_struct *thread;	/* precise mode, rearm; NULL offline */
	bool rearm;			/* the thread must arm the timer */
	bool backlog;			/* the thread sends what is due */
	unsigned int cpu;
	bool online;
};

/* Events a TG raises for the session's event work (mtg_tg.pending bits). */
enum mtg_tg_ev {
	MTG_TG_EV_ERROR,
	MTG_TG_EV_LATE,
	MTG_TG_EV_UNDERRUN,
	MTG_TG_EV_FINISHED,
};

#define MTG_TG_TMPL_MAX	(ETH_HLEN + 40 + 8)	/* Ethernet, IPv6, UDP */

/* A traffic generator. */
struct mtg_tg {
	/* Set at start, constant afterwards. */
	struct mtg_session *s;
	struct mtg_cpu *cpu;
	u32 id;
	u32 run_id;
	u32 flags;			/* MTG_TG_FLAGS_* */
	struct net_device *dev;		/* held; NULL once let go */
	netdevice_tracker dev_tracker;
	int ifindex;
	u64 netns_cookie;		/* of the device's namespace */
	u8 tmpl[MTG_TG_TMPL_MAX];	/* Ethernet, IP and UDP headers */
	unsigned int tmpl_len;		/* bytes */
	u8 patt_kind;			/* MTG_PATT_* */
	u8 patt_value;
	u8 hdr_flags;			/* of its data packets: MTG_HDR_F_KEEP_* */
	u32 patt_seed;
	u8 nut[6];			/* for the network under test */
	const struct mtg_tt_entry *table;	/* in shm: untrusted */
	u32 table_len;			/* entries */
	struct mtg_tt_ring *ring;	/* in shm: untrusted; stream only */
	u32 min_len;			/* bytes: headers and MTG header */
	u64 start_ns;			/* CLOCK_TAI */
	u64 stop_count;			/* packets; 0: none */
	u64 stop_ns;			/* CLOCK_TAI; 0: none */
	u64 late_threshold_ns;		/* 0: none */
	struct mtg_tg_start desc;	/* as started, for netlink */
	struct mtg_sock *sock;		/* TCP, SCTP, DCCP; NULL once closed */

	/* Under cpu->lock. */
	struct rb_node node;		/* in cpu->queue, or cleared */
	u64 key;			/* when the timer must fire, ns */
	struct list_head precise_node;	/* in cpu->precise, or empty */
	u32 state;			/* MTG_TG_STATE_* */
	u32 error;			/* MTG_TG_ERROR_* */
	bool in_flight;			/* taken by the dispatcher */
	u64 suspended_ns;		/* when suspended, CLOCK_TAI */

	/* Owned by the dispatcher (in flight, or not queued anywhere). */
	u64 next_ns;			/* departure of the next slot, ns */
	u64 slot;			/* table entries consumed */
	u32 pos;			/* slot mod table_len */
	bool underrun;			/* in an underrun now */
	u32 verdict;			/* MTG_TG_STATE_* to enter when requeued */
	u32 verdict_error;
	u16 ip_id;
	u64 rate;			/* num << 32 | den; READ_ONCE */

	/* Counters: written by their one owner, read without locks. */
	struct mtg_tg_stats st;		/* tg_id, state, error, cpu unused */

	atomic_long_t pending;		/* BIT(MTG_TG_EV_*) */
	atomic64_t events;		/* notifications owed or sent */
};

/* Every timestamp of the ABI: CLOCK_TAI, nanoseconds. */
static inline u64 mtg_now(void)
{
	return ktime_get_clocktai_ns();
}

#define MTG_SECS_PER_DAY	86400U	/* D-ITG's times are of the day (UTC) */

/* CLOCK_TAI minus CLOCK_REALTIME, ns (37 s since 2017, once set). */
static inline u64 mtg_tai_offset(void)
{
	return ktime_to_ns(ktime_sub(ktime_mono_to_any(0, TK_OFFS_TAI),
				     ktime_mono_to_any(0, TK_OFFS_REAL)));
}

/* mtg_main.c */
void mtg_session_stats(struct mtg_session *s, struct mtg_stats *st);
void mtg_session_changed(struct mtg_session *s);
void mtg_session_end(struct mtg_session *s);

/* mtg_shm.c */
int mtg_shm_check(const struct mtg_alloc *req);
int mtg_shm_alloc(struct mtg_session *s, const struct mtg_alloc *req);
void mtg_shm_free(struct mtg_shm *shm);
int mtg_shm_mmap(struct mtg_session *s, struct vm_area_struct *vma);

/* mtg_iface.c */
struct net *mtg_get_net(u32 netns_fd);
int mtg_iface_add(struct mtg_session *s, struct mtg_iface_add *req);
int mtg_iface_del(struct mtg_session *s, u32 id);
int mtg_iface_info(struct mtg_session *s, struct mtg_iface_info *info);
void mtg_iface_release_all(struct mtg_session *s);
int mtg_iface_init(void);
void mtg_iface_exit(void);

/* mtg_tg.c */
struct mtg_tg *mtg_tg_prepare(struct mtg_session *s, struct mtg_tg_start *d);
int mtg_tg_publish(struct mtg_tg *tg);
void mtg_tg_discard(struct mtg_tg *tg);
int mtg_tg_kill(struct mtg_session *s, u32 id);
int mtg_tg_suspend(struct mtg_session *s, u32 id);
int mtg_tg_resume(struct mtg_session *s, u32 id);
int mtg_tg_set_rate(struct mtg_session *s, const struct mtg_tg_rate *rate);
int mtg_tg_ctrlmsg(struct mtg_session *s, const struct mtg_tg_ctrlmsg *msg);
int mtg_tg_stats(struct mtg_session *s, struct mtg_tg_stats *st);
void mtg_tg_fill_stats(const struct mtg_tg *tg, struct mtg_tg_stats *st);
void mtg_tg_stop_all(struct mtg_session *s);
void mtg_tg_dev_gone(struct mtg_session *s, struct net_device *dev);
void mtg_tg_free_all(struct mtg_session *s);
void mtg_tg_event_work(struct work_struct *work);

/* mtg_dispatch.c */
void mtg_tg_account(struct mtg_tg *tg, u32 len, u64 sched, u64 stamp);
void mtg_cpu_enqueue(struct mtg_cpu *c, struct mtg_tg *tg);
bool mtg_cpu_stop(struct mtg_tg *tg, u32 state, u32 error);
int mtg_cpu_start(struct mtg_tg *tg);
int mtg_cpu_suspend(struct mtg_tg *tg);
int mtg_cpu_resume(struct mtg_tg *tg);
struct mtg_cpu *mtg_cpu_get(unsigned int cpu);
void mtg_tg_raise(struct mtg_tg *tg, enum mtg_tg_ev ev);
int mtg_dispatch_init(void);
void mtg_dispatch_exit(void);

/* mtg_wire.c: the header's CRC and the payload patterns */
#define MTG_PATT_CHUNK	128	/* bytes compared at a time */

struct mtg_patt {
	u8 kind;			/* MTG_PATT_FIXED, _RANDOM or _INCR */
	u8 value;			/* FIXED: the byte; INCR: the next one */
	u32 x;				/* RANDOM: xorshift32 state */
};

u32 mtg_hdr_crc(const struct mtg_hdr *h);
void mtg_patt_init(struct mtg_patt *pt, u8 kind, u8 value, u32 seed);
void mtg_patt_fill(struct mtg_patt *pt, u8 *p, u32 len);
u32 mtg_patt_wrong_bits(struct mtg_patt *pt, const u8 *got, u32 len);
u32 mtg_patt_wrong_positions(struct mtg_patt *pt, const u8 *got, u32 len,
			     u32 first, __u32 *pos, u32 *npos, u32 max);

/* mtg_rx.c */
void mtg_rx_init(struct mtg_session *s);
void mtg_rx_setup(struct mtg_session *s, void *region, u64 nr_records,
		  u64 keep_bytes, void *cons_page);
int mtg_rx_hook_add(struct mtg_session *s, struct mtg_iface *iface);
void mtg_rx_hook_del(struct mtg_iface *iface);
int mtg_rx_offsets(struct mtg_session *s, struct mtg_rx_offsets *off);
int mtg_rx_stats(struct mtg_session *s, struct mtg_rx_stats *st);
int mtg_rx_ditg(struct mtg_session *s, const struct mtg_rx_ditg *req);
int mtg_rx_set_run(struct mtg_session *s, u32 run_id);
void mtg_rx_tg_event(struct mtg_session *s, const struct mtg_tg *tg,
		     u32 events);
u64 mtg_rx_region_bytes(u64 nr_records, u64 keep_bytes);
int mtg_rx_keep_offsets(struct mtg_session *s, struct mtg_keep_offsets *off);

/* mtg_tx.c */
void mtg_tx_payload(struct mtg_tg *tg, u8 *p, u32 len, u64 sched, u64 seq,
		    u8 hdr_flags, const void *data);
struct sk_buff *mtg_tx_build(struct mtg_tg *tg, u32 len, u64 sched, u64 seq,
			     u8 hdr_flags, const void *data);
int mtg_tx_send(struct mtg_tg *tg, struct sk_buff *skb, bool more, u64 *stamp);

/* mtg_sock.c: TGs over a connection */
bool mtg_sock_flags(u32 flags);
int mtg_sock_open(struct mtg_tg *tg, struct net *net, struct mtg_tg_start *d);
void mtg_sock_close(struct mtg_tg *tg);
void mtg_sock_free(struct mtg_tg *tg);
int mtg_sock_post(struct mtg_tg *tg, u32 len, u64 sched, u64 seq);
void mtg_sock_wake(struct mtg_tg *tg);
bool mtg_sock_drained(struct mtg_tg *tg);
u64 mtg_sock_retrans(const struct mtg_tg *tg);
int mtg_sock_init(void);
void mtg_sock_exit(void);

/* mtg_netlink.c */
int mtg_netlink_init(void);
void mtg_netlink_exit(void);
void mtg_notify_session(struct mtg_session *s, u8 cmd);
void mtg_notify_iface(struct mtg_session *s, const struct mtg_iface *iface, u8 cmd);
void mtg_notify_tg(struct mtg_session *s, const struct mtg_tg *tg, u32 events);

#endif /* _MTG_H */
