// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Looking into another namespace: setns() to it, ask, setns() back. The
 * controller is single-threaded here, so the switch affects nothing else.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <limits.h>
#include <linux/if_ether.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <netinet/in.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "module/iface.h"
#include "util/log.h"

int netns_open(const char *name)
{
	char path[PATH_MAX];
	int fd, err;

	snprintf(path, sizeof(path), "%s/%s", NETNS_DIR, name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		err = errno;
		if (err == ENOENT)
			pr_err("cannot open namespace %s: %s (ip netns add %s?)\n",
			       path, strerror(err), name);
		else
			pr_err("cannot open namespace %s: %s\n", path,
			       strerror(err));
		return -err;
	}
	return fd;
}

/* The cookie of the namespace we are in (0: the kernel has none). */
static int cookie_here(const char *where, void *arg)
{
	socklen_t len = sizeof(uint64_t);
	uint64_t *cookie = arg;
	int s, err = 0;

	*cookie = 0;
	s = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (s < 0) {
		err = -errno;
		pr_err("cannot make a socket in %s: %s\n", where, strerror(-err));
		return err;
	}
	if (getsockopt(s, SOL_SOCKET, SO_NETNS_COOKIE, cookie, &len))
		*cookie = 0;
	close(s);
	return err;
}

/* Which namespace fd is: its cookie, or (older kernels) its inode. */
static int netns_identify(int fd, const char *name, struct netns_ref *id)
{
	struct stat st;

	if (fstat(fd, &st))
		return -errno;
	id->dev = st.st_dev;
	id->ino = st.st_ino;
	return in_netns(fd, name, cookie_here, &id->cookie);
}

/* The namespace fd is the one the ref first opened; else -ESTALE. */
static int netns_same(const struct netns_ref *ref, int fd)
{
	struct netns_ref now;
	struct stat st;
	int err;

	/* Not a namespace at all (`ip netns del` half done, or a file). */
	if (fstat(fd, &st))
		return -errno;
	if (st.st_dev != ref->dev)
		return -ESTALE;
	err = netns_identify(fd, ref->name, &now);
	if (err)
		return err;
	if (ref->cookie || now.cookie)
		return now.cookie == ref->cookie ? 0 : -ESTALE;
	return now.dev == ref->dev && now.ino == ref->ino ? 0 : -ESTALE;
}

/* After a release: open the namespace again, silently, if it is the same. */
static int netns_reopen(struct netns_ref *ref)
{
	char path[PATH_MAX];
	int fd, err;

	snprintf(path, sizeof(path), "%s/%s", NETNS_DIR, ref->name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	err = netns_same(ref, fd);
	if (err) {
		close(fd);
		return err;
	}
	ref->fd = fd;
	return 0;
}

int netns_cache_get(struct netns_cache *c, const char *name, int *fd)
{
	struct netns_ref *n;
	size_t i;
	int err;

	*fd = -1;
	if (!name[0])
		return 0;
	for (i = 0; i < c->n; i++) {
		n = &c->refs[i];
		if (strcmp(n->name, name))
			continue;
		if (n->fd == -EBADF) {
			err = netns_reopen(n);
			if (err)
				return err;
		}
		*fd = n->fd;
		return *fd < 0 ? *fd : 0;
	}
	n = realloc(c->refs, (c->n + 1) * sizeof(*n));
	if (!n) {
		pr_err("out of memory\n");
		return -ENOMEM;
	}
	c->refs = n;
	n = &c->refs[c->n++];
	memset(n, 0, sizeof(*n));
	n->name = name;
	n->fd = netns_open(name);
	if (n->fd >= 0) {
		err = netns_identify(n->fd, name, n);
		if (err) {
			pr_err("cannot tell which namespace %s is: %s\n", name,
			       strerror(-err));
			close(n->fd);
			n->fd = err;
		}
		n->known = !err;
	}
	*fd = n->fd;
	return *fd < 0 ? *fd : 0;
}

void netns_cache_release(struct netns_cache *c)
{
	size_t i;

	for (i = 0; i < c->n; i++) {
		if (c->refs[i].fd < 0)
			continue;
		close(c->refs[i].fd);
		c->refs[i].fd = -EBADF;
	}
}

bool netns_cache_deleted(const struct netns_cache *c, const char *name)
{
	char path[PATH_MAX];
	size_t i;
	int fd, err;

	for (i = 0; i < c->n; i++) {
		if (strcmp(c->refs[i].name, name) || !c->refs[i].known)
			continue;
		snprintf(path, sizeof(path), "%s/%s", NETNS_DIR, name);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			return errno == ENOENT;
		err = netns_same(&c->refs[i], fd);
		close(fd);
		return err == -ESTALE;
	}
	return false;
}

void netns_cache_close(struct netns_cache *c)
{
	netns_cache_release(c);
	free(c->refs);
	c->refs = NULL;
	c->n = 0;
}

static bool ll6(const uint8_t *a)
{
	return a[0] == 0xfe && (a[1] & 0xc0) == 0x80;
}

static int find_src(const struct idf_tg *tg, struct idf_addr *src)
{
	int family = tg->dst.family;
	bool want_ll = family == AF_INET6 && ll6(tg->dst.addr);
	struct ifaddrs *ifas, *ifa;
	int err = -EADDRNOTAVAIL;

	if (getifaddrs(&ifas))
		return -errno;
	for (ifa = ifas; ifa; ifa = ifa->ifa_next) {
		if (!ifa->ifa_addr || ifa->ifa_addr->sa_family != family ||
		    strcmp(ifa->ifa_name, tg->dev))
			continue;
		if (family == AF_INET) {
			struct sockaddr_in *sin = (void *)ifa->ifa_addr;

			memcpy(src->addr, &sin->sin_addr, 4);
		} else {
			struct sockaddr_in6 *sin6 = (void *)ifa->ifa_addr;

			if (ll6(sin6->sin6_addr.s6_addr) != want_ll)
				continue;
			memcpy(src->addr, &sin6->sin6_addr, 16);
		}
		src->family = family;
		err = 0;
		break;
	}
	freeifaddrs(ifas);
	return err;
}

/* addr broadcast: dev's IPv4 broadcast address (its first that has one). */
static int find_bcast(const struct idf_tg *tg, struct idf_addr *dst)
{
	struct ifaddrs *ifas, *ifa;
	int err = -EADDRNOTAVAIL;

	if (getifaddrs(&ifas))
		return -errno;
	for (ifa = ifas; ifa; ifa = ifa->ifa_next) {
		struct sockaddr_in *b = (void *)ifa->ifa_broadaddr;

		if (!ifa->ifa_addr || ifa->ifa_addr->sa_family != AF_INET ||
		    strcmp(ifa->ifa_name, tg->dev) ||
		    !(ifa->ifa_flags & IFF_BROADCAST) || !b)
			continue;
		memcpy(dst->addr, &b->sin_addr, 4);
		err = 0;
		break;
	}
	freeifaddrs(ifas);
	return err;
}

struct tg_lookup {
	const struct idf_tg *tg;
	uint32_t *ifindex;
	struct idf_addr *src;
	struct idf_addr *dst;
};

/* The destination `addr` names: ours (myself), or dev's broadcast. */
static int find_dst(const struct tg_lookup *l, const char *where)
{
	const struct idf_tg *tg = l->tg;
	int err = 0;

	*l->dst = tg->dst;
	if (tg->addr == IDF_ADDR_MYSELF) {
		memcpy(l->dst->addr, l->src->addr, sizeof(l->dst->addr));
	} else if (tg->addr == IDF_ADDR_BROADCAST) {
		err = find_bcast(tg, l->dst);
		if (err == -EADDRNOTAVAIL)
			pr_err("TG %u: interface '%s' in %s has no IPv4 broadcast address for 'addr broadcast'\n",
			       tg->id, tg->dev, where);
		else if (err)
			pr_err("TG %u: cannot list the addresses of '%s' in %s: %s\n",
			       tg->id, tg->dev, where, strerror(-err));
	}
	return err;
}

/* dev's MTU in the namespace we are in; 0 or -errno. */
static int dev_mtu(const char *dev, unsigned int *mtu)
{
	struct ifreq ifr;
	int fd, err = 0;

	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", dev);
	if (ioctl(fd, SIOCGIFMTU, &ifr))
		err = -errno;
	else
		*mtu = (unsigned int)ifr.ifr_mtu;
	close(fd);
	return err;
}

/*
 * The TG's frames fit dev: the module takes MTU + Ethernet header at
 * most. A model that draws the lengths (trace, presets) is left to it.
 */
static int check_mtu(const struct idf_tg *tg, const char *where)
{
	unsigned int mtu = 0;

	if (idf_dist_sets_lengths(tg->dist) || dev_mtu(tg->dev, &mtu) ||
	    tg->len_max <= (uint64_t)mtu + ETH_HLEN)
		return 0;
	pr_err("TG %u: 'pkts'%s %u is above the largest frame '%s' in %s sends, %llu bytes (its MTU %u + Ethernet %u)%s\n",
	       tg->id, tg->pkts == IDF_PKTS_LAW ? " within MAX" : "",
	       tg->len_max, tg->dev, where,
	       (unsigned long long)mtu + ETH_HLEN, mtu, ETH_HLEN,
	       tg->pkts == IDF_PKTS_LAW && !tg->len_within ?
	       ": a law's lengths are clamped to 1514 bytes unless 'within MIN MAX' says otherwise" : "");
	return -EMSGSIZE;
}

static int lookup(const char *where, void *arg)
{
	const struct tg_lookup *l = arg;
	const struct idf_tg *tg = l->tg;
	uint32_t *ifindex = l->ifindex;
	struct idf_addr *src = l->src;
	int err;

	*ifindex = if_nametoindex(tg->dev);
	if (!*ifindex) {
		err = errno;
		pr_err("TG %u: no interface '%s' in %s\n", tg->id, tg->dev,
		       where);
		return -(err ? err : ENODEV);
	}
	err = check_mtu(tg, where);
	if (err)
		return err;
	*src = tg->src;
	if (src->family)
		return find_dst(l, where);
	err = find_src(tg, src);
	if (err == -EADDRNOTAVAIL)
		pr_err("TG %u: interface '%s' in %s has no %s%s address: give one with 'src'\n",
		       tg->id, tg->dev, where,
		       tg->dst.family == AF_INET6 && !ll6(tg->dst.addr) ?
		       "non-link-local " : "",
		       tg->dst.family == AF_INET6 ? "IPv6" : "IPv4");
	else if (err)
		pr_err("TG %u: cannot list the addresses of '%s' in %s: %s\n",
		       tg->id, tg->dev, where, strerror(-err));
	src->port = tg->src.port;
	return err ? err : find_dst(l, where);
}

/* fn(where, arg) run in namespace netns_fd (-1: ours). */
int in_netns(int netns_fd, const char *netns,
	     int (*fn)(const char *where, void *arg), void *arg)
{
	char where[IDF_NETNS_MAX + 32];
	int self, err;

	if (netns_fd < 0)
		return fn("this namespace", arg);
	snprintf(where, sizeof(where), "namespace %s", netns);
	self = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	if (self < 0) {
		err = errno;
		pr_err("cannot open /proc/self/ns/net: %s\n", strerror(err));
		return -err;
	}
	if (setns(netns_fd, CLONE_NEWNET)) {
		err = errno;
		pr_err("cannot enter %s: %s\n", where, strerror(err));
		close(self);
		return -err;
	}
	err = fn(where, arg);
	if (setns(self, CLONE_NEWNET)) {
		pr_err("cannot return to our own namespace: %s\n",
		       strerror(errno));
		abort();
	}
	close(self);
	return err;
}

int iface_resolve(int netns_fd, const char *netns, const struct idf_tg *tg,
		  uint32_t *ifindex, struct idf_addr *src,
		  struct idf_addr *dst)
{
	struct tg_lookup l = { tg, ifindex, src, dst };

	return in_netns(netns_fd, netns, lookup, &l);
}

struct dev_lookup {
	const char *dev;
	uint32_t *ifindex;
};

static int lookup_dev(const char *where, void *arg)
{
	const struct dev_lookup *l = arg;
	int err;

	*l->ifindex = if_nametoindex(l->dev);
	if (*l->ifindex)
		return 0;
	err = errno;
	pr_err("listen: no interface '%s' in %s\n", l->dev, where);
	return -(err ? err : ENODEV);
}

int iface_index(int netns_fd, const char *netns, const char *dev,
		uint32_t *ifindex)
{
	struct dev_lookup l = { dev, ifindex };

	return in_netns(netns_fd, netns, lookup_dev, &l);
}

/*
 * What `ip route get DST` asks: RTM_GETROUTE with RTA_DST, in our
 * namespace; the answer's RTA_OIF is the interface.
 */
int route_dev(const struct idf_addr *dst, char *dev)
{
	struct {
		struct nlmsghdr nh;
		struct rtmsg rt;
		char attrs[64];
	} req = { 0 };
	union {
		struct nlmsghdr nh;
		char buf[8192];
	} ans;
	size_t alen = dst->family == AF_INET6 ? 16 : 4;
	struct sockaddr_nl kernel = { .nl_family = AF_NETLINK };
	struct rtattr *a;
	struct nlmsghdr *nh;
	uint32_t oif = 0;
	ssize_t n;
	int fd, len, err = 0;

	req.nh.nlmsg_len = NLMSG_LENGTH(sizeof(req.rt));
	req.nh.nlmsg_type = RTM_GETROUTE;
	req.nh.nlmsg_flags = NLM_F_REQUEST;
	req.rt.rtm_family = (unsigned char)dst->family;
	req.rt.rtm_dst_len = (unsigned char)(alen * 8);
	a = (struct rtattr *)((char *)&req + NLMSG_ALIGN(req.nh.nlmsg_len));
	a->rta_type = RTA_DST;
	a->rta_len = (unsigned short)RTA_LENGTH(alen);
	memcpy(RTA_DATA(a), dst->addr, alen);
	req.nh.nlmsg_len = NLMSG_ALIGN(req.nh.nlmsg_len) + RTA_ALIGN(a->rta_len);

	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	if (fd < 0)
		return -errno;
	if (sendto(fd, &req, req.nh.nlmsg_len, 0, (struct sockaddr *)&kernel,
		   sizeof(kernel)) < 0) {
		err = -errno;
		goto out;
	}
	n = recv(fd, &ans, sizeof(ans), 0);
	if (n < 0) {
		err = -errno;
		goto out;
	}
	for (nh = &ans.nh; NLMSG_OK(nh, (size_t)n); nh = NLMSG_NEXT(nh, n)) {
		if (nh->nlmsg_type == NLMSG_ERROR) {
			const struct nlmsgerr *e = NLMSG_DATA(nh);

			err = e->error ? e->error : -ENETUNREACH;
			goto out;
		}
		if (nh->nlmsg_type != RTM_NEWROUTE)
			continue;
		len = (int)RTM_PAYLOAD(nh);
		for (a = RTM_RTA(NLMSG_DATA(nh)); RTA_OK(a, len);
		     a = RTA_NEXT(a, len))
			if (a->rta_type == RTA_OIF &&
			    RTA_PAYLOAD(a) >= sizeof(oif))
				memcpy(&oif, RTA_DATA(a), sizeof(oif));
	}
	if (!oif || !if_indextoname(oif, dev))
		err = oif ? -errno : -ENETUNREACH;
out:
	close(fd);
	return err;
}
