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
#include <net/if.h>
#include <netinet/in.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "iface.h"
#include "mtgctl.h"

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

static int lookup(const char *where, const struct idf_tg *tg,
		  uint32_t *ifindex, struct idf_addr *src)
{
	int err;

	*ifindex = if_nametoindex(tg->dev);
	if (!*ifindex) {
		err = errno;
		pr_err("TG %u: no interface '%s' in %s\n", tg->id, tg->dev,
		       where);
		return -(err ? err : ENODEV);
	}
	*src = tg->src;
	if (src->family)
		return 0;
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
	return err;
}

int iface_resolve(int netns_fd, const char *netns, const struct idf_tg *tg,
		  uint32_t *ifindex, struct idf_addr *src)
{
	char where[IDF_NETNS_MAX + 32];
	int self, err;

	if (netns_fd < 0)
		return lookup("this namespace", tg, ifindex, src);
	snprintf(where, sizeof(where), "namespace %s", netns);
	self = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	if (self < 0) {
		err = errno;
		pr_err("cannot open /proc/self/ns/net: %s\n", strerror(err));
		return -err;
	}
	if (setns(netns_fd, CLONE_NEWNET)) {
		err = errno;
		pr_err("TG %u: cannot enter %s: %s\n", tg->id, where,
		       strerror(err));
		close(self);
		return -err;
	}
	err = lookup(where, tg, ifindex, src);
	if (setns(self, CLONE_NEWNET)) {
		pr_err("cannot return to our own namespace: %s\n",
		       strerror(errno));
		abort();
	}
	close(self);
	return err;
}
