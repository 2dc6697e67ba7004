// SPDX-License-Identifier: GPL-2.0
/*
 * mtg_floor.ko: the floor of hrtimer dispatch, for `make bench`.
 *
 * A bare hrtimer on one CPU with `count` absolute periodic expiries,
 * `period_ns` apart, in the timer mode mtg.ko dispatches from (CLOCK_TAI,
 * pinned, soft) or in hard interrupt context (hard=1). Each callback
 * stores its lateness (now - expiry) and does nothing else, so the series
 * is what any engine built on this timer inherits. Loading the module
 * starts the run; /sys/kernel/debug/mtg_floor/done turns 1 when it is
 * over and .../lateness then holds `count` little-endian s64 nanoseconds.
 * Unloading stops the timer and frees everything.
 */
#include <linux/debugfs.h>
#include <linux/hrtimer.h>
#include <linux/module.h>
#include <linux/vmalloc.h>
#include <linux/workqueue.h>

static unsigned long period_ns = 1000000;
module_param(period_ns, ulong, 0444);
MODULE_PARM_DESC(period_ns, "between expiries (1000 to 1000000000 ns)");

static unsigned int count = 100000;
module_param(count, uint, 0444);
MODULE_PARM_DESC(count, "expiries to measure (1 to 10000000)");

static bool hard;
module_param(hard, bool, 0444);
MODULE_PARM_DESC(hard, "hard interrupt context instead of softirq");

static unsigned int cpu;
module_param(cpu, uint, 0444);
MODULE_PARM_DESC(cpu, "the CPU the timer runs on");

static struct {
	struct hrtimer timer;
	s64 *lateness;
	unsigned int taken;
	u32 done;
	struct debugfs_blob_wrapper blob;
	struct dentry *dir;
} floor_run;

static enum hrtimer_restart floor_expired(struct hrtimer *timer)
{
	s64 late = ktime_to_ns(ktime_sub(hrtimer_cb_get_time(timer),
					 hrtimer_get_expires(timer)));

	floor_run.lateness[floor_run.taken++] = late;
	if (floor_run.taken == count) {
		floor_run.blob.size = (unsigned long)count * sizeof(s64);
		/* Pairs with the reader's load of done: blob.size first. */
		smp_store_release(&floor_run.done, 1);
		return HRTIMER_NORESTART;
	}
	hrtimer_add_expires_ns(timer, period_ns);
	return HRTIMER_RESTART;
}

/* Runs on the chosen CPU: a pinned timer stays where it was started. */
static long floor_start(void *unused)
{
	enum hrtimer_mode mode = hard ? HRTIMER_MODE_ABS_PINNED_HARD :
					HRTIMER_MODE_ABS_PINNED_SOFT;

	hrtimer_init(&floor_run.timer, CLOCK_TAI, mode);
	floor_run.timer.function = floor_expired;
	hrtimer_start(&floor_run.timer,
		      ktime_add_ms(ktime_get_clocktai(), 100), mode);
	return 0;
}

static int __init floor_init(void)
{
	if (period_ns < 1000 || period_ns > NSEC_PER_SEC ||
	    !count || count > 10000000)
		return -EINVAL;
	if (cpu >= nr_cpu_ids || !cpu_online(cpu))
		return -ENODEV;
	floor_run.lateness = vzalloc(array_size(count, sizeof(s64)));
	if (!floor_run.lateness)
		return -ENOMEM;
	floor_run.blob.data = floor_run.lateness;
	floor_run.dir = debugfs_create_dir("mtg_floor", NULL);
	debugfs_create_u32("done", 0400, floor_run.dir, &floor_run.done);
	debugfs_create_blob("lateness", 0400, floor_run.dir, &floor_run.blob);
	work_on_cpu(cpu, floor_start, NULL);
	return 0;
}

static void __exit floor_exit(void)
{
	hrtimer_cancel(&floor_run.timer);
	debugfs_remove(floor_run.dir);
	vfree(floor_run.lateness);
}

module_init(floor_init);
module_exit(floor_exit);
MODULE_DESCRIPTION("mtg bench: the lateness of bare hrtimer callbacks");
MODULE_LICENSE("GPL");
