// SPDX-License-Identifier: GPL-2.0
/*
 * Dispatch: one scheduler per CPU sends the packets of its TGs at the times
 * of their timetables.
 *
 * Each CPU keeps its TGs in a red-black tree ordered by key, the time its
 * soft hrtimer (CLOCK_TAI, pinned) must fire for them: O(log n) to find the
 * next one however many TGs there are. The timer callback runs in softirq
 * context, takes the TGs that are due off the tree one at a time, sends
 * their due packets and puts them back with their next key; it does a
 * bounded amount of work (MTG_CPU_BUDGET packets) and, when more is due,
 * leaves the rest to the CPU's kthread, which sends it in process context
 * (cond_resched() between TGs): a flood never locks the CPU up in softirq.
 *
 * Precise mode: the key is the departure minus a lead. The callback hands
 * the TG to the CPU's kthread, which spins until the departure (at most
 * MTG_SPIN_MAX_NS), sends, and adapts the lead to how late it woke up; the
 * spin is counted as the TG's CPU cost. Spinning in softirq would starve
 * receive, hence the kthread (pktgen's model).
 *
 * A TG taken off the tree is "in flight": only the dispatcher touches its
 * dispatch fields then. Control operations change tg->state under the CPU's
 * lock; the dispatcher looks at the state when it puts the TG back. The
 * dispatcher runs with bottom halves off, an RCU read-side section, so a
 * TG that was stopped can be let go of after synchronize_rcu().
 *
 * A CPU going offline fails its TGs (MTG_TG_ERROR_CPU_OFFLINE); a TG cannot be
 * started on an offline CPU.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpuhotplug.h>
#include <linux/kthread.h>
#include <linux/math64.h>
#include <linux/percpu.h>
#include <linux/skbuff.h>
#include <linux/timekeeping.h>

#include "mtg.h"

#define MTG_CPU_BUDGET		64		/* packets per timer callback */
#define MTG_UNDERRUN_RETRY_NS	(100 * NSEC_PER_USEC)
/* a connection's last messages: how often the end is looked for */
#define MTG_SOCK_DRAIN_POLL_NS	NSEC_PER_MSEC
#define MTG_LEAD_MIN_NS		(10 * NSEC_PER_USEC)
#define MTG_LEAD_MAX_NS		(2 * NSEC_PER_MSEC)
#define MTG_LEAD_MARGIN_NS	(5 * NSEC_PER_USEC)
#define MTG_SPIN_MAX_NS		(MTG_LEAD_MAX_NS + MTG_LEAD_MAX_NS / 2)

static DEFINE_PER_CPU(struct mtg_cpu, mtg_cpus);
static enum cpuhp_state mtg_cpuhp_state;

struct mtg_cpu *mtg_cpu_get(unsigned int cpu)
{
	return per_cpu_ptr(&mtg_cpus, cpu);
}

/*
 * Called with bottom halves off (dispatcher) or under the CPU's lock, which
 * session teardown takes before it cancels the event work: never raises an
 * event for a session that is going away.
 */
void mtg_tg_raise(struct mtg_tg *tg, enum mtg_tg_ev ev)
{
	/*
	 * The first event since the last notification owes one more: counted
	 * now, so that counters read when a TG has ended include the
	 * notification of its end, whenever the event work sends it.
	 */
	if (!atomic_long_fetch_or(BIT(ev), &tg->pending))
		atomic64_inc(&tg->events);
	/* Coalesced: at most one notification per TG per 100 ms. */
	schedule_delayed_work(&tg->s->event_work, HZ / 10);
}

static struct mtg_tg *mtg_cpu_first(struct mtg_cpu *c)
{
	struct rb_node *n = rb_first_cached(&c->queue);

	return n ? rb_entry(n, struct mtg_tg, node) : NULL;
}

static void mtg_cpu_insert(struct mtg_cpu *c, struct mtg_tg *tg)
{
	struct rb_node **link = &c->queue.rb_root.rb_node, *parent = NULL;
	bool leftmost = true;

	lockdep_assert_held(&c->lock);
	while (*link) {
		struct mtg_tg *other = rb_entry(*link, struct mtg_tg, node);

		parent = *link;
		if (tg->key < other->key) {
			link = &parent->rb_left;
		} else {
			link = &parent->rb_right;
			leftmost = false;
		}
	}
	rb_link_node(&tg->node, parent, link);
	rb_insert_color_cached(&tg->node, &c->queue, leftmost);
}

static void mtg_cpu_remove(struct mtg_cpu *c, struct mtg_tg *tg)
{
	lockdep_assert_held(&c->lock);
	if (!RB_EMPTY_NODE(&tg->node)) {
		rb_erase_cached(&tg->node, &c->queue);
		RB_CLEAR_NODE(&tg->node);
	}
	if (!list_empty(&tg->precise_node)) {
		list_del_init(&tg->precise_node);
		tg->in_flight = false;
	}
}

/*
 * Arm the timer for the first TG. Only on the CPU itself (pinned timer):
 * from elsewhere, set rearm and wake the CPU's kthread.
 */
static void mtg_cpu_arm(struct mtg_cpu *c)
{
	struct mtg_tg *first;

	lockdep_assert_held(&c->lock);
	WARN_ON_ONCE(smp_processor_id() != c->cpu);
	first = mtg_cpu_first(c);
	/*
	 * While the kthread works through a backlog, the timer stays off.
	 * Never in the past: the softirq runs every timer that expired before
	 * it started, so a callback re-arming itself at a past key would run
	 * again and again in the same softirq, and the budget would not bound
	 * anything. Never beyond KTIME_MAX either: a larger u64 is a negative
	 * ktime, in the past (the fuzzer found both as soft lockups).
	 */
	if (first && c->online && !c->backlog)
		hrtimer_start(&c->timer,
			      ns_to_ktime(clamp_t(u64, first->key, mtg_now(),
						  KTIME_MAX)),
			      HRTIMER_MODE_ABS_PINNED_SOFT);
}

static u64 mtg_tg_key(const struct mtg_tg *tg)
{
	if (tg->flags & MTG_TG_FLAGS_PRECISE)
		return tg->next_ns - min(tg->st.lead_ns, tg->next_ns);
	return tg->next_ns;
}

/* Queue a TG that is neither queued nor in flight; from any CPU. */
void mtg_cpu_enqueue(struct mtg_cpu *c, struct mtg_tg *tg)
{
	struct mtg_tg *first;

	lockdep_assert_held(&c->lock);
	tg->key = mtg_tg_key(tg);
	mtg_cpu_insert(c, tg);
	first = mtg_cpu_first(c);
	if (first == tg && c->thread) {
		c->rearm = true;
		wake_up_process(c->thread);
	}
}

/* First queueing of a new TG: refused while the CPU is offline. */
int mtg_cpu_start(struct mtg_tg *tg)
{
	struct mtg_cpu *c = tg->cpu;
	unsigned long flags;
	int err = 0;

	spin_lock_irqsave(&c->lock, flags);
	if (c->online)
		mtg_cpu_enqueue(c, tg);
	else
		err = -ENXIO;
	spin_unlock_irqrestore(&c->lock, flags);
	return err;
}

/*
 * Move a running or suspended TG to a final state and off every queue.
 * False if it had already ended. A TG in flight is left to the dispatcher,
 * which sees the state when it is done with it.
 */
bool mtg_cpu_stop(struct mtg_tg *tg, u32 state, u32 error)
{
	struct mtg_cpu *c = tg->cpu;
	unsigned long flags;
	bool stopped = false;

	spin_lock_irqsave(&c->lock, flags);
	if (tg->state == MTG_TG_STATE_RUNNING || tg->state == MTG_TG_STATE_SUSPENDED) {
		tg->state = state;
		tg->error = error;
		mtg_cpu_remove(c, tg);
		if (state == MTG_TG_STATE_FAILED)
			mtg_tg_raise(tg, MTG_TG_EV_ERROR);
		stopped = true;
	}
	spin_unlock_irqrestore(&c->lock, flags);
	return stopped;
}

/* MTG_IOC_TG_SUSPEND: off the queue; a TG in flight stays off when done. */
int mtg_cpu_suspend(struct mtg_tg *tg)
{
	struct mtg_cpu *c = tg->cpu;
	unsigned long flags;
	int err = 0;

	spin_lock_irqsave(&c->lock, flags);
	if (tg->state == MTG_TG_STATE_RUNNING) {
		tg->state = MTG_TG_STATE_SUSPENDED;
		tg->suspended_ns = mtg_now();
		mtg_cpu_remove(c, tg);
	} else if (tg->state != MTG_TG_STATE_SUSPENDED) {
		err = -ESRCH;
	}
	spin_unlock_irqrestore(&c->lock, flags);
	return err;
}

/*
 * MTG_IOC_TG_RESUME: the rest of the timetable moves later by the time
 * spent suspended, so the pattern goes on where it stopped (no burst).
 */
int mtg_cpu_resume(struct mtg_tg *tg)
{
	struct mtg_cpu *c = tg->cpu;
	unsigned long flags;
	int err = 0;

	spin_lock_irqsave(&c->lock, flags);
	if (tg->state == MTG_TG_STATE_SUSPENDED) {
		tg->state = MTG_TG_STATE_RUNNING;
		/* In flight: the dispatcher never saw the suspension. */
		if (!tg->in_flight && RB_EMPTY_NODE(&tg->node)) {
			tg->next_ns += mtg_now() - tg->suspended_ns;
			tg->st.next_ns = tg->next_ns;
			if (c->online) {
				mtg_cpu_enqueue(c, tg);
			} else {
				tg->state = MTG_TG_STATE_FAILED;
				tg->error = MTG_TG_ERROR_CPU_OFFLINE;
				mtg_tg_raise(tg, MTG_TG_EV_ERROR);
			}
		}
	} else if (tg->state != MTG_TG_STATE_RUNNING) {
		err = -ESRCH;
	}
	spin_unlock_irqrestore(&c->lock, flags);
	return err;
}

/* The dispatcher is done with a TG: back in the queue, or ended. */
static void mtg_cpu_requeue(struct mtg_cpu *c, struct mtg_tg *tg)
{
	unsigned long flags;

	spin_lock_irqsave(&c->lock, flags);
	tg->in_flight = false;
	if (tg->state == MTG_TG_STATE_RUNNING) {
		if (!c->online) {
			tg->verdict = MTG_TG_STATE_FAILED;
			tg->verdict_error = MTG_TG_ERROR_CPU_OFFLINE;
		}
		if (tg->verdict != MTG_TG_STATE_RUNNING) {
			tg->state = tg->verdict;
			tg->error = tg->verdict_error;
			mtg_tg_raise(tg, tg->state == MTG_TG_STATE_FAILED ?
					 MTG_TG_EV_ERROR : MTG_TG_EV_FINISHED);
		} else {
			tg->key = mtg_tg_key(tg);
			mtg_cpu_insert(c, tg);
		}
	}
	mtg_cpu_arm(c);
	spin_unlock_irqrestore(&c->lock, flags);
}

static void mtg_tg_end(struct mtg_tg *tg, u32 state, u32 error)
{
	tg->verdict = state;
	tg->verdict_error = error;
}

/*
 * The next table entry, read once from shared memory. -EAGAIN: streaming
 * table empty; -EPROTO: producer count impossible.
 */
static int mtg_tg_next_entry(struct mtg_tg *tg, struct mtg_tt_entry *e)
{
	const struct mtg_tt_entry *src = &tg->table[tg->pos];

	if (tg->ring) {
		/* Pairs with the producer's release: entries before count. */
		u64 produced = smp_load_acquire(&tg->ring->producer);

		if (produced == tg->slot)
			return -EAGAIN;
		if (produced - tg->slot > tg->table_len)
			return -EPROTO;
	}
	e->gap_ns = READ_ONCE(src->gap_ns);
	e->len = READ_ONCE(src->len);
	e->reserved = READ_ONCE(src->reserved);
	return 0;
}

static void mtg_tg_consume(struct mtg_tg *tg)
{
	tg->slot++;
	tg->pos = tg->pos + 1 == tg->table_len ? 0 : tg->pos + 1;
	if (tg->ring) /* entry read before userspace may overwrite it */
		smp_store_release(&tg->ring->consumer, tg->slot);
}

static u64 mtg_tg_scale(const struct mtg_tg *tg, u64 gap)
{
	u64 rate = READ_ONCE(tg->rate);
	u32 num = rate >> 32, den = (u32)rate;

	if (num == den)
		return gap;
	return mul_u64_u32_div(gap, den, num);
}

/* The bucket of a lateness, as the uapi header defines it. */
static u32 mtg_lat_bucket(u64 ns)
{
	unsigned int e;

	if (ns < 8)
		return ns;
	if (ns >= BIT_ULL(48))
		return MTG_LAT_BUCKETS - 1;
	e = fls64(ns) - 1;
	return 8 + 8 * (e - 3) + ((ns >> (e - 3)) & 7);
}

void mtg_tg_account(struct mtg_tg *tg, u32 len, u64 sched, u64 stamp)
{
	struct mtg_tg_stats *st = &tg->st;
	u64 late = 0;

	if (stamp >= sched)
		late = stamp - sched;
	else
		st->early++;
	st->sent++;
	st->bytes += len;
	st->lateness_hist[mtg_lat_bucket(late)]++;
	st->lateness_sum_ns += late;
	if (late > st->lateness_max_ns)
		st->lateness_max_ns = late;
	if (tg->late_threshold_ns && late > tg->late_threshold_ns) {
		st->late_packets++;
		mtg_tg_raise(tg, MTG_TG_EV_LATE);
	}
}

/* Hand one packet to the device; counts the outcome. */
static void mtg_tg_xmit(struct mtg_tg *tg, struct sk_buff *skb, bool more,
			u32 len, u64 sched)
{
	u64 stamp;

	if (mtg_tx_send(tg, skb, more, &stamp)) {
		tg->st.tx_errors++;
		mtg_tg_raise(tg, MTG_TG_EV_ERROR);
		return;
	}
	mtg_tg_account(tg, len, sched, stamp);
}

/*
 * Send what is due of one TG, at most *budget slots. Bottom halves are off.
 * Packets of one burst go to the driver with xmit_more set but for the last
 * one: the next packet is built before the current one is sent.
 */
static void mtg_tg_dispatch(struct mtg_tg *tg, unsigned int *budget)
{
	struct sk_buff *pending = NULL;
	u32 pending_len = 0;
	u64 pending_sched = 0;
	u64 now = mtg_now();
	bool posted = false;

	while (*budget) {
		struct mtg_tt_entry e;
		struct sk_buff *skb;
		u64 sched, next;
		int err;

		if ((tg->stop_count && tg->st.next_seq >= tg->stop_count) ||
		    (tg->stop_ns && tg->next_ns >= tg->stop_ns)) {
			/* over a connection: once its messages are written */
			if (tg->sock && !mtg_sock_drained(tg)) {
				tg->next_ns = max(tg->next_ns,
						  now + MTG_SOCK_DRAIN_POLL_NS);
				break;
			}
			mtg_tg_end(tg, MTG_TG_STATE_FINISHED, MTG_TG_ERROR_NONE);
			break;
		}
		if (tg->next_ns > now)
			break;
		err = mtg_tg_next_entry(tg, &e);
		if (err == -EAGAIN) {
			/* Counted once per underrun; polled until refilled. */
			if (!tg->underrun) {
				tg->underrun = true;
				tg->st.underruns++;
				mtg_tg_raise(tg, MTG_TG_EV_UNDERRUN);
			}
			tg->next_ns = now + MTG_UNDERRUN_RETRY_NS;
			break;
		}
		if (err) {
			mtg_tg_end(tg, MTG_TG_STATE_FAILED, MTG_TG_ERROR_RING);
			break;
		}
		tg->underrun = false;
		mtg_tg_consume(tg);
		(*budget)--;
		sched = tg->next_ns;
		if (check_add_overflow(sched, mtg_tg_scale(tg, e.gap_ns), &next) ||
		    next > KTIME_MAX) {
			mtg_tg_end(tg, MTG_TG_STATE_FAILED, MTG_TG_ERROR_TIME);
			break;
		}
		tg->next_ns = next;
		if (e.reserved || e.len < tg->min_len ||
		    e.len > READ_ONCE(tg->dev->mtu) + ETH_HLEN) {
			tg->st.bad_entries++;
			mtg_tg_raise(tg, MTG_TG_EV_ERROR);
			continue;
		}
		if ((tg->flags & MTG_TG_FLAGS_LATE_SKIP) && next <= now) {
			tg->st.skipped_late++;
			continue;
		}
		if (tg->sock) {
			err = mtg_sock_post(tg, e.len, sched, tg->st.next_seq);
			if (err == -EMSGSIZE)
				tg->st.bad_entries++;
			else if (err)
				tg->st.tx_errors++;
			if (err) {
				mtg_tg_raise(tg, MTG_TG_EV_ERROR);
				continue;
			}
			tg->st.next_seq++;
			posted = true;
			continue;
		}
		skb = mtg_tx_build(tg, e.len, sched, tg->st.next_seq,
				   tg->hdr_flags, NULL);
		if (!skb) {
			tg->st.tx_errors++;
			mtg_tg_raise(tg, MTG_TG_EV_ERROR);
			continue;
		}
		tg->st.next_seq++;
		if (pending)
			mtg_tg_xmit(tg, pending, true, pending_len, pending_sched);
		pending = skb;
		pending_len = e.len;
		pending_sched = sched;
	}
	if (pending)
		mtg_tg_xmit(tg, pending, false, pending_len, pending_sched);
	if (posted)
		mtg_sock_wake(tg);
	tg->st.next_ns = tg->next_ns;
}

/* Take the first TG off the queue if it is due at now. */
static struct mtg_tg *mtg_cpu_pop_due(struct mtg_cpu *c, u64 now)
{
	struct mtg_tg *tg = mtg_cpu_first(c);

	lockdep_assert_held(&c->lock);
	if (!tg || tg->key > now || !c->online)
		return NULL;
	mtg_cpu_remove(c, tg);
	tg->in_flight = true;
	tg->verdict = MTG_TG_STATE_RUNNING;
	return tg;
}

/*
 * Softirq: send what is due, at most MTG_CPU_BUDGET slots. What is left
 * over is backlog for the kthread, which works through it in process
 * context with cond_resched(): a flood (gaps of zero, a long catch-up) then
 * costs one CPU's spare time instead of locking it up in softirq.
 */
static enum hrtimer_restart mtg_cpu_timer(struct hrtimer *timer)
{
	struct mtg_cpu *c = container_of(timer, struct mtg_cpu, timer);
	unsigned int budget = MTG_CPU_BUDGET;
	struct task_struct *thread;
	unsigned long flags;
	struct mtg_tg *tg;

	for (;;) {
		spin_lock_irqsave(&c->lock, flags);
		if (!budget) {
			c->backlog = true;
			thread = c->thread;
			spin_unlock_irqrestore(&c->lock, flags);
			wake_up_process(thread);
			return HRTIMER_NORESTART;
		}
		tg = mtg_cpu_pop_due(c, mtg_now());
		if (!tg) {
			mtg_cpu_arm(c);
			spin_unlock_irqrestore(&c->lock, flags);
			return HRTIMER_NORESTART;
		}
		if (tg->flags & MTG_TG_FLAGS_PRECISE) {
			list_add_tail(&tg->precise_node, &c->precise);
			thread = c->thread;
			spin_unlock_irqrestore(&c->lock, flags);
			wake_up_process(thread);
			budget--;
			continue;
		}
		spin_unlock_irqrestore(&c->lock, flags);
		mtg_tg_dispatch(tg, &budget);
		mtg_cpu_requeue(c, tg);
		/* A visit that sent nothing (an underrun) costs budget too. */
		if (budget)
			budget--;
	}
}

/* Precise mode: wait out the lead, then send. Returns false to requeue. */
static bool mtg_tg_wait_precise(struct mtg_tg *tg)
{
	u64 start = mtg_now(), now = start, woke_late, target;

	/* Adapt the lead to how late this wake-up came, kthread included. */
	woke_late = start > tg->key ? start - tg->key : 0;
	target = clamp_t(u64, woke_late + woke_late / 2 + MTG_LEAD_MARGIN_NS,
			 MTG_LEAD_MIN_NS, MTG_LEAD_MAX_NS);
	tg->st.lead_ns = (tg->st.lead_ns * 3 + target) / 4;

	if (tg->next_ns > start + MTG_SPIN_MAX_NS)
		return false;
	while (now < tg->next_ns) {
		cpu_relax();
		now = mtg_now();
	}
	tg->st.spin_ns += now - start;
	return true;
}

/*
 * The CPU's kthread: arms the timer for other CPUs, waits out precise
 * departures, and works through the backlog the timer left.
 */
static int mtg_cpu_thread(void *data)
{
	struct mtg_cpu *c = data;

	while (!kthread_should_stop()) {
		unsigned int budget = MTG_CPU_BUDGET;
		struct mtg_tg *tg;

		set_current_state(TASK_INTERRUPTIBLE);
		spin_lock_irq(&c->lock);
		if (c->rearm) {
			c->rearm = false;
			mtg_cpu_arm(c);
		}
		tg = list_first_entry_or_null(&c->precise, struct mtg_tg,
					      precise_node);
		if (tg) {
			list_del_init(&tg->precise_node);
		} else if (c->backlog) {
			tg = mtg_cpu_pop_due(c, mtg_now());
			if (!tg) {
				c->backlog = false;
				mtg_cpu_arm(c);
			}
		}
		spin_unlock_irq(&c->lock);
		if (!tg) {
			schedule();
			continue;
		}
		__set_current_state(TASK_RUNNING);

		/* Keeps tg alive: stopping waits for a grace period. */
		rcu_read_lock();
		if (!(tg->flags & MTG_TG_FLAGS_PRECISE) || mtg_tg_wait_precise(tg)) {
			local_bh_disable();
			mtg_tg_dispatch(tg, &budget);
			local_bh_enable();
		}
		mtg_cpu_requeue(c, tg);
		rcu_read_unlock();
		cond_resched();
	}
	return 0;
}

static int mtg_cpu_online(unsigned int cpu)
{
	struct mtg_cpu *c = mtg_cpu_get(cpu);
	struct task_struct *t;

	t = kthread_create_on_cpu(mtg_cpu_thread, c, cpu, "mtg/%u");
	if (IS_ERR(t))
		return PTR_ERR(t);
	spin_lock_irq(&c->lock);
	c->thread = t;
	c->online = true;
	c->backlog = false;
	spin_unlock_irq(&c->lock);
	wake_up_process(t);
	return 0;
}

/* Runs on the CPU going down: its TGs fail, its timer and thread stop. */
static int mtg_cpu_offline(unsigned int cpu)
{
	struct mtg_cpu *c = mtg_cpu_get(cpu);
	struct task_struct *t;
	struct mtg_tg *tg;

	spin_lock_irq(&c->lock);
	c->online = false;
	while ((tg = mtg_cpu_first(c)) ||
	       (tg = list_first_entry_or_null(&c->precise, struct mtg_tg,
					      precise_node))) {
		mtg_cpu_remove(c, tg);
		tg->state = MTG_TG_STATE_FAILED;
		tg->error = MTG_TG_ERROR_CPU_OFFLINE;
		mtg_tg_raise(tg, MTG_TG_EV_ERROR);
	}
	t = c->thread;
	c->thread = NULL;
	spin_unlock_irq(&c->lock);
	hrtimer_cancel(&c->timer);
	kthread_stop(t);
	return 0;
}

int mtg_dispatch_init(void)
{
	unsigned int cpu;
	int ret;

	for_each_possible_cpu(cpu) {
		struct mtg_cpu *c = mtg_cpu_get(cpu);

		spin_lock_init(&c->lock);
		c->queue = RB_ROOT_CACHED;
		INIT_LIST_HEAD(&c->precise);
		hrtimer_init(&c->timer, CLOCK_TAI, HRTIMER_MODE_ABS_PINNED_SOFT);
		c->timer.function = mtg_cpu_timer;
		c->cpu = cpu;
	}
	ret = cpuhp_setup_state(CPUHP_AP_ONLINE_DYN, "net/mtg:online",
				mtg_cpu_online, mtg_cpu_offline);
	if (ret < 0)
		return ret;
	mtg_cpuhp_state = ret;
	return 0;
}

void mtg_dispatch_exit(void)
{
	unsigned int cpu;

	/* Offline callbacks stop every CPU's timer and thread. */
	cpuhp_remove_state(mtg_cpuhp_state);
	for_each_possible_cpu(cpu)
		hrtimer_cancel(&mtg_cpu_get(cpu)->timer);
}
