// SPDX-License-Identifier: GPL-2.0
/*
 * Network devices a session holds. A device is held with netdev_hold() and a
 * tracker, and let go on NETDEV_UNREGISTER, which the stack raises both when
 * the device is deleted and when it leaves its namespace (including when the
 * namespace itself goes away). So deleting an interface or a namespace that
 * a session uses never waits for the session; the session counts the loss
 * and tells netlink listeners. An interface added with MTG_IFACE_F_RX has
 * the receive path's hook (mtg_rx.c) for as long as the device is held.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/nsproxy.h>
#include <linux/rtnetlink.h>
#include <linux/slab.h>
#include <net/net_namespace.h>

#include "mtg.h"
#include "uapi/linux/mtg_netlink.h"

/* The namespace named by an fd, or the caller's; a reference to put. */
struct net *mtg_get_net(u32 netns_fd)
{
	if (netns_fd == MTG_NETNS_CURRENT)
		return get_net(current->nsproxy->net_ns);
	if (netns_fd > INT_MAX)
		return ERR_PTR(-EBADF);
	return get_net_ns_by_fd(netns_fd);
}

/* Let go of the device; the iface stays, marked lost, until deleted. */
static void mtg_iface_drop_dev(struct mtg_session *s, struct mtg_iface *iface)
{
	lockdep_assert_held(&s->lock);
	if (!iface->dev)
		return;
	mtg_rx_hook_del(iface);
	netdev_put(iface->dev, &iface->dev_tracker);
	iface->dev = NULL;
	s->nr_ifaces--;
}

int mtg_iface_add(struct mtg_session *s, struct mtg_iface_add *req)
{
	struct mtg_iface *iface;
	struct net_device *dev;
	struct net *net;
	int err;

	if (req->flags & ~MTG_IFACE_F_ALL || req->id || !req->ifindex ||
	    req->ifindex > INT_MAX ||
	    (req->flags & MTG_IFACE_F_RX_PASS && !(req->flags & MTG_IFACE_F_RX)))
		return -EINVAL;

	net = mtg_get_net(req->netns_fd);
	if (IS_ERR(net))
		return PTR_ERR(net);
	if (!ns_capable(net->user_ns, CAP_NET_ADMIN)) {
		err = -EPERM;
		goto err_put_net;
	}
	iface = kzalloc(sizeof(*iface), GFP_KERNEL_ACCOUNT);
	if (!iface) {
		err = -ENOMEM;
		goto err_put_net;
	}

	/*
	 * Under RTNL a device found in the index is registered, and its
	 * NETDEV_UNREGISTER (also under RTNL) comes after we hold it.
	 */
	rtnl_lock();
	dev = __dev_get_by_index(net, req->ifindex);
	if (!dev) {
		err = -ENODEV;
		goto err_unlock_rtnl;
	}
	mutex_lock(&s->lock);
	if (s->ended) {
		err = -ESHUTDOWN;
		goto err_unlock_session;
	}
	err = xa_alloc(&s->ifaces, &iface->id, iface,
		       XA_LIMIT(1, mtg_max_ifaces), GFP_KERNEL_ACCOUNT);
	if (err) {
		err = err == -EBUSY ? -ENOSPC : err;
		goto err_unlock_session;
	}
	iface->state = MTG_IFACE_STATE_ATTACHED;
	iface->flags = req->flags;
	iface->ifindex = dev->ifindex;
	iface->netns_cookie = net->net_cookie;
	iface->s = s;
	strscpy(iface->name, dev->name, sizeof(iface->name));
	netdev_hold(dev, &iface->dev_tracker, GFP_KERNEL);
	iface->dev = dev;
	s->nr_ifaces++;
	if (req->flags & MTG_IFACE_F_RX) {
		err = mtg_rx_hook_add(s, iface);
		if (err)
			goto err_erase;
	}
	req->id = iface->id;
	mtg_session_changed(s);
	mutex_unlock(&s->lock);
	rtnl_unlock();
	put_net(net);
	return 0;

err_erase:
	mtg_iface_drop_dev(s, iface);
	xa_erase(&s->ifaces, iface->id);
err_unlock_session:
	mutex_unlock(&s->lock);
err_unlock_rtnl:
	rtnl_unlock();
	kfree(iface);
err_put_net:
	put_net(net);
	return err;
}

int mtg_iface_del(struct mtg_session *s, u32 id)
{
	struct mtg_iface *iface;

	mutex_lock(&s->lock);
	iface = xa_erase(&s->ifaces, id);
	if (iface) {
		mtg_iface_drop_dev(s, iface);
		mtg_session_changed(s);
	}
	mutex_unlock(&s->lock);
	if (!iface)
		return -ENOENT;
	kfree(iface);
	return 0;
}

int mtg_iface_info(struct mtg_session *s, struct mtg_iface_info *info)
{
	struct mtg_iface *iface;
	u32 id = info->id;

	if (info->reserved)
		return -EINVAL;
	mutex_lock(&s->lock);
	iface = xa_load(&s->ifaces, id);
	if (iface) {
		memset(info, 0, sizeof(*info));
		info->id = id;
		info->state = iface->state;
		info->ifindex = iface->ifindex;
		info->netns_cookie = iface->netns_cookie;
		BUILD_BUG_ON(sizeof(info->name) != sizeof(iface->name));
		memcpy(info->name, iface->name, sizeof(info->name));
	}
	mutex_unlock(&s->lock);
	return iface ? 0 : -ENOENT;
}

/* At the session's end: every device goes back, every iface is freed. */
void mtg_iface_release_all(struct mtg_session *s)
{
	struct mtg_iface *iface;
	unsigned long id;

	lockdep_assert_held(&s->lock);
	xa_for_each(&s->ifaces, id, iface) {
		xa_erase(&s->ifaces, id);
		mtg_iface_drop_dev(s, iface);
		kfree(iface);
	}
}

static void mtg_session_dev_gone(struct mtg_session *s, struct net_device *dev)
{
	struct mtg_iface *iface;
	unsigned long id;

	mutex_lock(&s->lock);
	xa_for_each(&s->ifaces, id, iface) {
		if (iface->dev != dev)
			continue;
		mtg_iface_drop_dev(s, iface);
		iface->state = MTG_IFACE_STATE_LOST;
		s->ifaces_lost++;
		mtg_notify_iface(s, iface, MTG_CMD_IFACE_LOST_NTF);
		mtg_session_changed(s);
	}
	mtg_tg_dev_gone(s, dev);
	mutex_unlock(&s->lock);
}

static int mtg_netdev_event(struct notifier_block *nb, unsigned long event,
			    void *ptr)
{
	struct net_device *dev = netdev_notifier_info_to_dev(ptr);
	struct mtg_session *s;

	if (event != NETDEV_UNREGISTER)
		return NOTIFY_DONE;

	mutex_lock(&mtg_driver.lock);
	list_for_each_entry(s, &mtg_driver.sessions, node)
		mtg_session_dev_gone(s, dev);
	mutex_unlock(&mtg_driver.lock);
	return NOTIFY_DONE;
}

static struct notifier_block mtg_netdev_notifier = {
	.notifier_call = mtg_netdev_event,
};

int mtg_iface_init(void)
{
	return register_netdevice_notifier(&mtg_netdev_notifier);
}

void mtg_iface_exit(void)
{
	unregister_netdevice_notifier(&mtg_netdev_notifier);
}
