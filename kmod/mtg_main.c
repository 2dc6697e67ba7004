// SPDX-License-Identifier: GPL-2.0
/*
 * mtg.ko: the character device /dev/mtg and its sessions.
 *
 * One session per open file. The session belongs to the process that opened
 * the device: when that process no longer holds a descriptor of it (it
 * closed the last one, exited or was killed), the session ends at once, even
 * if a forked child still holds a copy; its memory is freed when the last
 * reference to the file (descriptor or mapping) goes.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/capability.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/nsproxy.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <net/genetlink.h>

#include "mtg.h"
#include "uapi/linux/mtg_netlink.h"

unsigned int mtg_max_session_mb = 256;
module_param_named(max_session_mb, mtg_max_session_mb, uint, 0444);
MODULE_PARM_DESC(max_session_mb, "Cap on one session's shared memory, MiB (default 256)");

unsigned int mtg_max_ifaces = 64;
module_param_named(max_ifaces, mtg_max_ifaces, uint, 0444);
MODULE_PARM_DESC(max_ifaces, "Cap on the interfaces one session holds (default 64)");

unsigned int mtg_max_tgs = 4096;
module_param_named(max_tgs, mtg_max_tgs, uint, 0444);
MODULE_PARM_DESC(max_tgs, "Cap on the traffic generators of one session (default 4096)");

static struct mtg_session *mtg_file_session(struct file *file)
{
	return file->private_data;
}

void mtg_session_stats(struct mtg_session *s, struct mtg_stats *st)
{
	lockdep_assert_held(&s->lock);
	memset(st, 0, sizeof(*st));
	st->session_id = s->id;
	st->mem_bytes = (u64)s->shm.nr_pages << PAGE_SHIFT;
	st->flags = (s->shm.pages ? MTG_SESSION_FLAGS_ALLOCATED : 0) |
		    (s->ended ? MTG_SESSION_FLAGS_ENDED : 0);
	st->ifaces = s->nr_ifaces;
	st->ifaces_lost = s->ifaces_lost;
	st->events = s->events;
}

/*
 * Republish the counters in the status page after a change. Userspace reads
 * the page like a seqcount, so the writer makes seq odd while it writes.
 */
void mtg_session_changed(struct mtg_session *s)
{
	struct mtg_status *status = s->status;
	struct mtg_stats st;

	lockdep_assert_held(&s->lock);
	if (!status)
		return;
	mtg_session_stats(s, &st);
	WRITE_ONCE(status->seq, status->seq + 1);
	smp_wmb();	/* seq odd before the data changes */
	memcpy(&status->stats, &st, sizeof(st));
	smp_wmb();	/* data complete before seq is even again */
	WRITE_ONCE(status->seq, status->seq + 1);
}

/*
 * Stop everything the session does and let go of what it holds in the
 * network stack. Idempotent. The shared memory stays until release, since
 * mappings may outlive the descriptors.
 */
void mtg_session_end(struct mtg_session *s)
{
	struct net *net;

	mutex_lock(&s->lock);
	if (s->ended) {
		mutex_unlock(&s->lock);
		return;
	}
	mtg_tg_stop_all(s);
	mtg_iface_release_all(s);
	s->ended = true;
	s->owner = NULL;
	mtg_session_changed(s);
	mutex_unlock(&s->lock);
	/*
	 * Stopped TGs raise nothing more: their last events go out now, while
	 * the session still has its namespace to send them in (they are
	 * counted already). The work takes the lock; ended keeps everyone
	 * else out meanwhile.
	 */
	flush_delayed_work(&s->event_work);

	mutex_lock(&s->lock);
	mtg_notify_session(s, MTG_CMD_SESSION_END_NTF);
	net = s->net;
	s->net = NULL;
	mutex_unlock(&s->lock);
	put_net_track(net, &s->net_tracker);
}

static int mtg_open(struct inode *inode, struct file *file)
{
	struct mtg_driver *drv = container_of(file->private_data,
					      struct mtg_driver, misc);
	struct net *net = current->nsproxy->net_ns;
	struct mtg_session *s;

	if (!ns_capable(net->user_ns, CAP_NET_ADMIN))
		return -EPERM;

	s = kzalloc(sizeof(*s), GFP_KERNEL_ACCOUNT);
	if (!s)
		return -ENOMEM;
	mutex_init(&s->lock);
	xa_init_flags(&s->ifaces, XA_FLAGS_ALLOC1 | XA_FLAGS_ACCOUNT);
	xa_init_flags(&s->tgs, XA_FLAGS_ACCOUNT);
	INIT_DELAYED_WORK(&s->event_work, mtg_tg_event_work);
	mtg_rx_init(s);
	s->pid = task_tgid_vnr(current);
	get_task_comm(s->comm, current);
	s->owner = current->files;
	s->net = get_net_track(net, &s->net_tracker, GFP_KERNEL);
	s->netns_cookie = net->net_cookie;

	mutex_lock(&drv->lock);
	s->id = drv->next_id++;
	list_add_tail(&s->node, &drv->sessions);
	mutex_unlock(&drv->lock);

	file->private_data = s;
	mutex_lock(&s->lock);
	mtg_notify_session(s, MTG_CMD_SESSION_NEW_NTF);
	mutex_unlock(&s->lock);
	return nonseekable_open(inode, file);
}

static int mtg_same_file(const void *file, struct file *f, unsigned int fd)
{
	return f == file;
}

/*
 * Called on every close of a descriptor, including those closed when a
 * process exits. The session ends when its owner holds no descriptor of it
 * any more; a child's inherited copy does not keep it going.
 */
static int mtg_flush(struct file *file, fl_owner_t id)
{
	struct mtg_session *s = mtg_file_session(file);
	bool owner;

	mutex_lock(&s->lock);
	owner = s->owner && id == s->owner;
	mutex_unlock(&s->lock);
	if (owner && !iterate_fd(id, 0, mtg_same_file, file))
		mtg_session_end(s);
	return 0;
}

static int mtg_release(struct inode *inode, struct file *file)
{
	struct mtg_session *s = mtg_file_session(file);

	mtg_session_end(s);

	mutex_lock(&mtg_driver.lock);
	list_del(&s->node);
	mutex_unlock(&mtg_driver.lock);

	cancel_delayed_work_sync(&s->event_work);
	mtg_tg_free_all(s);
	mtg_shm_free(&s->shm);
	xa_destroy(&s->ifaces);
	mutex_destroy(&s->lock);
	kfree(s);
	return 0;
}

static int mtg_ioc_version(void __user *arg)
{
	struct mtg_version v = {
		.abi_major = MTG_ABI_MAJOR,
		.abi_minor = MTG_ABI_MINOR,
		.max_session_bytes = (u64)mtg_max_session_mb << 20,
		.max_ifaces = mtg_max_ifaces,
	};

	return copy_to_user(arg, &v, sizeof(v)) ? -EFAULT : 0;
}

static int mtg_ioc_alloc(struct mtg_session *s, void __user *arg)
{
	struct mtg_alloc req;
	int err;

	if (copy_from_user(&req, arg, sizeof(req)))
		return -EFAULT;
	err = mtg_shm_check(&req);
	if (err)
		return err;

	mutex_lock(&s->lock);
	if (s->ended)
		err = -ESHUTDOWN;
	else if (s->shm.pages)
		err = -EBUSY;
	else
		err = mtg_shm_alloc(s, &req);
	if (!err)
		mtg_session_changed(s);
	mutex_unlock(&s->lock);
	return err;
}

static int mtg_ioc_mmap_offsets(struct mtg_session *s, void __user *arg)
{
	struct mtg_mmap_offsets off;
	int err = 0;

	mutex_lock(&s->lock);
	if (!s->shm.pages)
		err = -ENODATA;
	else
		memcpy(off.region, s->shm.region, sizeof(off.region));
	mutex_unlock(&s->lock);
	if (err)
		return err;
	return copy_to_user(arg, &off, sizeof(off)) ? -EFAULT : 0;
}

static int mtg_ioc_stats(struct mtg_session *s, void __user *arg)
{
	struct mtg_stats st;

	mutex_lock(&s->lock);
	mtg_session_stats(s, &st);
	mutex_unlock(&s->lock);
	return copy_to_user(arg, &st, sizeof(st)) ? -EFAULT : 0;
}

static int mtg_ioc_iface_add(struct mtg_session *s, void __user *arg)
{
	struct mtg_iface_add req;
	int err;

	if (copy_from_user(&req, arg, sizeof(req)))
		return -EFAULT;
	err = mtg_iface_add(s, &req);
	if (err)
		return err;
	if (put_user(req.id, &((struct mtg_iface_add __user *)arg)->id)) {
		/* Nothing half-done: the caller never learnt the id. */
		mtg_iface_del(s, req.id);
		return -EFAULT;
	}
	return 0;
}

static int mtg_ioc_iface_del(struct mtg_session *s, void __user *arg)
{
	u32 id;

	if (get_user(id, (u32 __user *)arg))
		return -EFAULT;
	return mtg_iface_del(s, id);
}

static int mtg_ioc_iface_info(struct mtg_session *s, void __user *arg)
{
	struct mtg_iface_info info;
	int err;

	if (copy_from_user(&info, arg, sizeof(info)))
		return -EFAULT;
	err = mtg_iface_info(s, &info);
	if (err)
		return err;
	return copy_to_user(arg, &info, sizeof(info)) ? -EFAULT : 0;
}

static int mtg_ioc_tg_start(struct mtg_session *s, void __user *arg)
{
	struct mtg_tg_start d;
	struct mtg_tg *tg;

	if (copy_from_user(&d, arg, sizeof(d)))
		return -EFAULT;
	tg = mtg_tg_prepare(s, &d);
	if (IS_ERR(tg))
		return PTR_ERR(tg);
	/* The caller learns the addresses used before anything starts. */
	if (copy_to_user(arg, &d, sizeof(d))) {
		mtg_tg_discard(tg);
		return -EFAULT;
	}
	return mtg_tg_publish(tg);
}

static int mtg_ioc_tg_id(struct mtg_session *s, void __user *arg,
			 int (*op)(struct mtg_session *s, u32 id))
{
	u32 id;

	if (get_user(id, (u32 __user *)arg))
		return -EFAULT;
	return op(s, id);
}

static int mtg_ioc_tg_set_rate(struct mtg_session *s, void __user *arg)
{
	struct mtg_tg_rate rate;

	if (copy_from_user(&rate, arg, sizeof(rate)))
		return -EFAULT;
	return mtg_tg_set_rate(s, &rate);
}

static int mtg_ioc_tg_ctrlmsg(struct mtg_session *s, void __user *arg)
{
	struct mtg_tg_ctrlmsg msg;

	if (copy_from_user(&msg, arg, sizeof(msg)))
		return -EFAULT;
	return mtg_tg_ctrlmsg(s, &msg);
}

static int mtg_ioc_tg_stats(struct mtg_session *s, void __user *arg)
{
	struct mtg_tg_stats *st;
	int err;

	/* 3 KiB: not on the stack. */
	st = kmalloc(sizeof(*st), GFP_KERNEL);
	if (!st)
		return -ENOMEM;
	if (get_user(st->tg_id, (u32 __user *)arg)) {
		err = -EFAULT;
		goto out_free;
	}
	err = mtg_tg_stats(s, st);
	if (!err && copy_to_user(arg, st, sizeof(*st)))
		err = -EFAULT;
out_free:
	kfree(st);
	return err;
}

static int mtg_ioc_rx_offsets(struct mtg_session *s, void __user *arg)
{
	struct mtg_rx_offsets off;
	int err;

	err = mtg_rx_offsets(s, &off);
	if (err)
		return err;
	return copy_to_user(arg, &off, sizeof(off)) ? -EFAULT : 0;
}

static int mtg_ioc_rx_stats(struct mtg_session *s, void __user *arg)
{
	struct mtg_rx_stats st;
	int err;

	err = mtg_rx_stats(s, &st);
	if (err)
		return err;
	return copy_to_user(arg, &st, sizeof(st)) ? -EFAULT : 0;
}

static int mtg_ioc_rx_keep_offsets(struct mtg_session *s, void __user *arg)
{
	struct mtg_keep_offsets off;
	int err;

	err = mtg_rx_keep_offsets(s, &off);
	if (err)
		return err;
	return copy_to_user(arg, &off, sizeof(off)) ? -EFAULT : 0;
}

static int mtg_ioc_rx_set_run(struct mtg_session *s, void __user *arg)
{
	u32 run_id;

	if (get_user(run_id, (u32 __user *)arg))
		return -EFAULT;
	return mtg_rx_set_run(s, run_id);
}

static int mtg_ioc_rx_ditg(struct mtg_session *s, void __user *arg)
{
	struct mtg_rx_ditg req;

	if (copy_from_user(&req, arg, sizeof(req)))
		return -EFAULT;
	return mtg_rx_ditg(s, &req);
}

static long mtg_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct mtg_session *s = mtg_file_session(file);
	void __user *uarg = (void __user *)arg;

	switch (cmd) {
	case MTG_IOC_VERSION:
		return mtg_ioc_version(uarg);
	case MTG_IOC_ALLOC:
		return mtg_ioc_alloc(s, uarg);
	case MTG_IOC_MMAP_OFFSETS:
		return mtg_ioc_mmap_offsets(s, uarg);
	case MTG_IOC_STATS:
		return mtg_ioc_stats(s, uarg);
	case MTG_IOC_IFACE_ADD:
		return mtg_ioc_iface_add(s, uarg);
	case MTG_IOC_IFACE_DEL:
		return mtg_ioc_iface_del(s, uarg);
	case MTG_IOC_IFACE_INFO:
		return mtg_ioc_iface_info(s, uarg);
	case MTG_IOC_TG_START:
		return mtg_ioc_tg_start(s, uarg);
	case MTG_IOC_TG_KILL:
		return mtg_ioc_tg_id(s, uarg, mtg_tg_kill);
	case MTG_IOC_TG_SUSPEND:
		return mtg_ioc_tg_id(s, uarg, mtg_tg_suspend);
	case MTG_IOC_TG_RESUME:
		return mtg_ioc_tg_id(s, uarg, mtg_tg_resume);
	case MTG_IOC_TG_SET_RATE:
		return mtg_ioc_tg_set_rate(s, uarg);
	case MTG_IOC_TG_CTRLMSG:
		return mtg_ioc_tg_ctrlmsg(s, uarg);
	case MTG_IOC_TG_STATS:
		return mtg_ioc_tg_stats(s, uarg);
	case MTG_IOC_RX_OFFSETS:
		return mtg_ioc_rx_offsets(s, uarg);
	case MTG_IOC_RX_STATS:
		return mtg_ioc_rx_stats(s, uarg);
	case MTG_IOC_RX_SET_RUN:
		return mtg_ioc_rx_set_run(s, uarg);
	case MTG_IOC_RX_KEEP_OFFSETS:
		return mtg_ioc_rx_keep_offsets(s, uarg);
	case MTG_IOC_RX_DITG:
		return mtg_ioc_rx_ditg(s, uarg);
	default:
		return -ENOTTY;
	}
}

static int mtg_mmap(struct file *file, struct vm_area_struct *vma)
{
	struct mtg_session *s = mtg_file_session(file);
	int err;

	mutex_lock(&s->lock);
	err = s->ended ? -ESHUTDOWN : mtg_shm_mmap(s, vma);
	mutex_unlock(&s->lock);
	return err;
}

static const struct file_operations mtg_fops = {
	.owner = THIS_MODULE,
	.open = mtg_open,
	.flush = mtg_flush,
	.release = mtg_release,
	.unlocked_ioctl = mtg_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
	.mmap = mtg_mmap,
};

struct mtg_driver mtg_driver = {
	.misc = {
		.minor = MISC_DYNAMIC_MINOR,
		.name = "mtg",
		.fops = &mtg_fops,
		.mode = 0600,
	},
	.lock = __MUTEX_INITIALIZER(mtg_driver.lock),
	.sessions = LIST_HEAD_INIT(mtg_driver.sessions),
	.next_id = 1,
};

static int __init mtg_init(void)
{
	int err;

	if (!mtg_max_session_mb || mtg_max_session_mb > 65536 ||
	    !mtg_max_ifaces || mtg_max_ifaces > 4096 ||
	    !mtg_max_tgs || mtg_max_tgs > 1048576) {
		pr_err("max_session_mb must be 1..65536, max_ifaces 1..4096, max_tgs 1..1048576\n");
		return -EINVAL;
	}

	err = mtg_dispatch_init();
	if (err)
		return err;
	err = mtg_sock_init();
	if (err)
		goto err_dispatch_exit;
	err = mtg_iface_init();
	if (err)
		goto err_sock_exit;
	err = mtg_netlink_init();
	if (err)
		goto err_iface_exit;
	/* Last: once the device exists, userspace can open it. */
	err = misc_register(&mtg_driver.misc);
	if (err)
		goto err_netlink_exit;
	pr_info("ABI %u.%u, /dev/%s ready\n", MTG_ABI_MAJOR, MTG_ABI_MINOR,
		mtg_driver.misc.name);
	return 0;

err_netlink_exit:
	mtg_netlink_exit();
err_iface_exit:
	mtg_iface_exit();
err_sock_exit:
	mtg_sock_exit();
err_dispatch_exit:
	mtg_dispatch_exit();
	return err;
}

static void __exit mtg_exit(void)
{
	/* Open files pin the module, so no session is left here. */
	misc_deregister(&mtg_driver.misc);
	mtg_netlink_exit();
	mtg_iface_exit();
	mtg_sock_exit();
	mtg_dispatch_exit();
	rcu_barrier();
}

module_init(mtg_init);
module_exit(mtg_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("mtg: multi-application traffic generator and meter");
MODULE_AUTHOR("The mtg developers");
MODULE_VERSION("0.1.0");
