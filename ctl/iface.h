/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Interfaces in network namespaces: what a TG's `dev`, `netns` and `src`
 * become for the module (an ifindex in a namespace given by an open fd, and
 * a source address).
 */
#ifndef MTGCTL_IFACE_H
#define MTGCTL_IFACE_H

#include <stddef.h>
#include <stdint.h>

#include "idf.h"

#define NETNS_DIR	"/run/netns"

/* An fd of /run/netns/NAME, or -errno (reported). */
int netns_open(const char *name);

/* Namespaces opened by name, each once. */
struct netns_cache {
	struct netns_ref {
		const char *name;
		int fd;			/* or -errno */
	} *refs;
	size_t n;
};

/* The fd of namespace name ("": ours, -1); 0 or -errno (reported once). */
int netns_cache_get(struct netns_cache *c, const char *name, int *fd);
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

#endif /* MTGCTL_IFACE_H */
