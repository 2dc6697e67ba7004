/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A receiver's round trips (Documentation/tsp.rst, "Round trips"): the
 * flows of `meter rtt` TGs that `mtgctl recv` agreed to send back, each
 * through the XDP reflector of the interface it arrives on. One reflector
 * an interface, shared by every run that needs it: attached (agreed flows
 * only) for the first such flow unless one is there already, and
 * detached with the last flow of this receiver on it if it attached it.
 */
#ifndef MTGCTL_REMOTE_RTT_H
#define MTGCTL_REMOTE_RTT_H

#include <net/if.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bpf/reflector.h"

struct rtt_dev {
	char dev[IF_NAMESIZE];
	unsigned int slot;		/* the test-point slot it stamps */
	bool ours;			/* attached here: detached with the
					 * last flow */
	bool agreed_only;		/* it reflects only the flows agreed */
	size_t flows;			/* flows of ours it reflects */
};

struct rtt_set {
	struct rtt_dev *devs;
	size_t n;
};

/*
 * Reflect flow (run_id, tg_id), arriving on dev, stamped in slot (-1:
 * stamped nowhere, any reflector's slot will do: D-ITG's datagrams to a
 * port, run REFLECT_DITG_RUN and tg_id the port): TSP_ACCEPTED, or the
 * refusal's code (enum tsp_refusal) with why.
 */
uint16_t rtt_reflect(struct rtt_set *s, const char *dev, int slot,
		     uint32_t run_id, uint32_t tg_id, char *why, size_t len);
/* The frames of the flow reflected so far; 0 if they cannot be read. */
uint64_t rtt_reflected(const struct rtt_set *s, const char *dev,
		       uint32_t run_id, uint32_t tg_id);
/* The flow is no longer reflected; its reflector goes with its last one. */
void rtt_forget(struct rtt_set *s, const char *dev, uint32_t run_id,
		uint32_t tg_id);
/* Every reflector this receiver attached is detached. */
void rtt_free(struct rtt_set *s);

#endif /* MTGCTL_REMOTE_RTT_H */
