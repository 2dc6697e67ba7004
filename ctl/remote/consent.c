// SPDX-License-Identifier: GPL-2.0-or-later
/* What a receiver consents to, and a flow request checked against it. */
#include <arpa/inet.h>
#include <ifaddrs.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "remote/consent.h"

void consent_init(struct consent *c)
{
	memset(c, 0, sizeof(*c));
	c->port_lo = CONSENT_PORT_LO;
	c->port_hi = CONSENT_PORT_HI;
	c->max_bps = CONSENT_MAX_BPS;
	c->max_flows = CONSENT_MAX_FLOWS;
}

void consent_free(struct consent *c)
{
	free(c->addrs);
	c->addrs = NULL;
	c->naddrs = 0;
}

int consent_add_addr(struct consent *c, const char *s, char *why, size_t len)
{
	struct consent_addr a = { .family = AF_INET };
	struct consent_addr *n;

	if (inet_pton(AF_INET, s, a.addr) != 1) {
		a.family = AF_INET6;
		if (inet_pton(AF_INET6, s, a.addr) != 1) {
			snprintf(why, len, "'%s' is not an IPv4 or IPv6 address",
				 s);
			return -1;
		}
	}
	n = realloc(c->addrs, (c->naddrs + 1) * sizeof(*n));
	if (!n) {
		snprintf(why, len, "out of memory");
		return -1;
	}
	c->addrs = n;
	c->addrs[c->naddrs++] = a;
	return 0;
}

static int port_of(const char *s, const char **end, uint16_t *p)
{
	char *e;
	unsigned long v;

	if (*s < '0' || *s > '9')
		return -1;
	v = strtoul(s, &e, 10);
	if (v < 1 || v > 65535)
		return -1;
	*p = (uint16_t)v;
	*end = e;
	return 0;
}

int consent_set_ports(struct consent *c, const char *s, char *why,
		      size_t len)
{
	uint16_t lo, hi;
	const char *e;

	if (port_of(s, &e, &lo))
		goto bad;
	hi = lo;
	if (*e == '-' && port_of(e + 1, &e, &hi))
		goto bad;
	if (*e || hi < lo)
		goto bad;
	c->port_lo = lo;
	c->port_hi = hi;
	return 0;
bad:
	snprintf(why, len, "'%s' is not PORT or LO-HI (1 .. 65535, LO <= HI)",
		 s);
	return -1;
}

void consent_addr_str(int family, const uint8_t *addr, char *buf,
		      size_t size)
{
	if (!inet_ntop(family, addr, buf, (socklen_t)size))
		snprintf(buf, size, "?");
}

/* The interface of this host that holds the address: 0, or -1. */
static int host_iface(int family, const uint8_t *addr, char dev[IF_NAMESIZE])
{
	struct ifaddrs *ifs, *i;
	int ret = -1;

	if (getifaddrs(&ifs))
		return -1;
	for (i = ifs; i && ret; i = i->ifa_next) {
		const void *a;

		if (!i->ifa_addr || i->ifa_addr->sa_family != family)
			continue;
		a = family == AF_INET ?
			(const void *)&((struct sockaddr_in *)i->ifa_addr)->sin_addr :
			(const void *)&((struct sockaddr_in6 *)i->ifa_addr)->sin6_addr;
		if (!memcmp(a, addr, family == AF_INET ? 4 : 16)) {
			snprintf(dev, IF_NAMESIZE, "%s", i->ifa_name);
			ret = 0;
		}
	}
	freeifaddrs(ifs);
	return ret;
}

static bool offered(const struct consent *c, int family, const uint8_t *addr)
{
	size_t i;

	if (!c->naddrs)
		return true;
	for (i = 0; i < c->naddrs; i++)
		if (c->addrs[i].family == family &&
		    !memcmp(c->addrs[i].addr, addr, family == AF_INET ? 4 : 16))
			return true;
	return false;
}

uint16_t consent_check(const struct consent *c, const struct tsp_flow_req *r,
		       char dev[IF_NAMESIZE], char *why, size_t len)
{
	int family = r->l3 == TSP_L3_IPV6 ? AF_INET6 : AF_INET;
	char a[INET6_ADDRSTRLEN];

	consent_addr_str(family, r->addr, a, sizeof(a));
	if (r->l4 != TSP_L4_UDP) {
		snprintf(why, len, "protocol %u: this receiver takes UDP (2) only",
			 r->l4);
		return TSP_REFUSE_PROTO;
	}
	if (!offered(c, family, r->addr)) {
		snprintf(why, len, "%s is not an address this receiver offers",
			 a);
		return TSP_REFUSE_ADDR;
	}
	if (host_iface(family, r->addr, dev)) {
		snprintf(why, len, "%s is not an address of this host", a);
		return TSP_REFUSE_ADDR;
	}
	if (r->port < c->port_lo || r->port > c->port_hi) {
		snprintf(why, len, "port %u is outside the %u-%u this receiver allows",
			 r->port, c->port_lo, c->port_hi);
		return TSP_REFUSE_PORT;
	}
	if (r->bit_rate > c->max_bps) {
		snprintf(why, len, "%" PRIu64 " bit/s is over the %" PRIu64
			 " bit/s this receiver accepts", r->bit_rate,
			 c->max_bps);
		return TSP_REFUSE_RATE;
	}
	return TSP_ACCEPTED;
}
