/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What a receiver consents to (Documentation/tsp.rst, "Consent"): the
 * addresses of this host a sender may target, the ports, the largest
 * rate, the flows at once. A flow request is checked against them before
 * anything is opened for it.
 */
#ifndef MTGCTL_REMOTE_CONSENT_H
#define MTGCTL_REMOTE_CONSENT_H

#include <net/if.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tsp/wire.h"

#define CONSENT_PORT_LO		1024
#define CONSENT_PORT_HI		65535
#define CONSENT_MAX_BPS		1000000000ULL	/* 1 Gbit/s */
#define CONSENT_MAX_FLOWS	1024

struct consent_addr {
	int family;			/* AF_INET or AF_INET6 */
	uint8_t addr[16];
};

struct consent {
	struct consent_addr *addrs;	/* --addr; none: any of this host's */
	size_t naddrs;
	uint16_t port_lo, port_hi;
	uint64_t max_bps;
	uint64_t max_flows;
	bool rtt;			/* --rtt: round trips reflected */
};

void consent_init(struct consent *c);
void consent_free(struct consent *c);
/* --addr ADDR: 0, or -1 with why. */
int consent_add_addr(struct consent *c, const char *s, char *why, size_t len);
/* --ports LO-HI or PORT: 0, or -1 with why. */
int consent_set_ports(struct consent *c, const char *s, char *why,
		      size_t len);
/* "192.0.2.1", "2001:db8::1" */
void consent_addr_str(int family, const uint8_t *addr, char *buf,
		      size_t size);

/*
 * A flow request against the consent: TSP_ACCEPTED with dev, the
 * interface of this host holding the address, or the refusal's code
 * with why (what the sender is told).
 */
uint16_t consent_check(const struct consent *c, const struct tsp_flow_req *r,
		       char dev[IF_NAMESIZE], char *why, size_t len);

#endif /* MTGCTL_REMOTE_CONSENT_H */
