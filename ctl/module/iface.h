/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Interfaces in network namespaces: what a TG's `dev`, `netns` and `src`
 * become for the module (an ifindex in a namespace given by an open fd, and
 * a source address).
 */
#ifndef MTGCTL_IFACE_H
#define MTGCTL_IFACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "idf/idf.h"

#define NETNS_DIR	"/run/netns"

/* An fd of /run/netns/NAME, or -errno (reported). */
int netns_open(const char *name);

/*
 * fn(where, arg) inside namespace netns_fd (-1: ours; netns its name),
 * then back: where names the namespace for messages. fn's result, or
 * -errno (reported) if the namespace cannot be entered.
 */
int in_netns(int netns_fd, const char *netns,
	     int (*fn)(const char *where, void *arg), void *arg);

/*
 * Namespaces opened by name, each once. An open fd keeps its namespace
 * alive: once the module holds what it needs (an interface, a TG's
 * device), netns_cache_release() lets the namespaces go, so that `ip
 * netns del` really deletes one; a later get opens it again, and only if
 * the name still holds the namespace first opened.
 */
struct netns_cache {
	struct netns_ref {
		const char *name;
		int fd;			/* or -errno; -EBADF: released */
		bool known;		/* opened once: which namespace it was */
		uint64_t cookie;	/* its SO_NETNS_COOKIE (never reused);
					 * 0: the kernel has none (< 5.14)
					 */
		dev_t dev;		/* else its nsfs inode (reused once */
		ino_t ino;		/* the namespace is gone) */
	} *refs;
	size_t n;
};

/*
 * The fd of namespace name ("": ours, -1); 0 or -errno. The first open
 * reports its error (once); after a release, -ENOENT says that the
 * namespace was deleted and -ESTALE that the name now holds another one,
 * unreported (the caller names what needed it).
 */
int netns_cache_get(struct netns_cache *c, const char *name, int *fd);
/* Close the fds (fds got before are no longer valid); names stay known. */
void netns_cache_release(struct netns_cache *c);
/* Namespace name, opened before, is no longer at its name (deleted). */
bool netns_cache_deleted(const struct netns_cache *c, const char *name);
void netns_cache_close(struct netns_cache *c);

/* The ifindex of dev in namespace netns_fd (-1: ours); -errno reported. */
int iface_index(int netns_fd, const char *netns, const char *dev,
		uint32_t *ifindex);

/*
 * In namespace netns_fd (-1: ours), find dev's ifindex and, when src has
 * no address, the first address of dst's family on dev (for IPv6 a
 * link-local one only if dst is link-local), and the destination (`addr`:
 * our own address, or dev's broadcast one). 0, or -errno (reported,
 * naming the TG).
 */
int iface_resolve(int netns_fd, const char *netns, const struct idf_tg *tg,
		  uint32_t *ifindex, struct idf_addr *src,
		  struct idf_addr *dst);

/*
 * The interface the route to dst leaves through in our namespace, as `ip
 * route get` finds it (IF_NAMESIZE bytes); 0 or -errno (not reported).
 */
int route_dev(const struct idf_addr *dst, char *dev);

/* An interface the session listens on (`listen`, `mtgctl listen`). */
struct listen_dev {
	struct idf_listen l;	/* dev, netns */
	char name[IDF_DEVNAME_MAX + IDF_NETNS_MAX + 2];	/* DEV or DEV@NETNS */
	int netns_fd;		/* -1: ours; only until listening_attach() */
	uint32_t ifindex;
	uint32_t id;		/* the session's interface id */
	bool lost;		/* it went away (MTG_IFACE_STATE_LOST) */
	uint64_t lost_ns;	/* when we saw it gone, CLOCK_TAI */
};

#endif /* MTGCTL_IFACE_H */
