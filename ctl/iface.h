/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Interfaces in network namespaces: what a TG's `dev`, `netns` and `src`
 * become for the module (an ifindex in a namespace given by an open fd, and
 * a source address).
 */
#ifndef MTGCTL_IFACE_H
#define MTGCTL_IFACE_H

#include <stdint.h>

#include "idf.h"

#define NETNS_DIR	"/run/netns"

/* An fd of /run/netns/NAME, or -errno (reported). */
int netns_open(const char *name);

/*
 * In namespace netns_fd (-1: ours), find dev's ifindex and, when src has
 * no address, the first address of dst's family on dev (for IPv6 a
 * link-local one only if dst is link-local). 0, or -errno (reported,
 * naming the TG).
 */
int iface_resolve(int netns_fd, const char *netns, const struct idf_tg *tg,
		  uint32_t *ifindex, struct idf_addr *src);

#endif /* MTGCTL_IFACE_H */
