// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The probes' and reflectors' words: their counters, states and names as mtgctl shows
 * them. Built with or without eBPF (probe.c and
 * reflector.c, or none.c).
 */
#include <stdio.h>

#include "bpf/probe.h"
#include "bpf/reflector.h"
#include "reflect.h"
#include "tp.h"

_Static_assert(PROBE_COUNTERS == TP_COUNTERS, "probe.h and ebpf/tp.h");
_Static_assert(PROBE_SLOTS == TP_SLOTS, "probe.h and ebpf/tp.h");
_Static_assert(REFLECT_COUNTERS == RFL_COUNTERS, "reflector.h and ebpf/reflect.h");

const char *const probe_counter_names[PROBE_COUNTERS] = {
	[TP_STAMPED] = "stamped",
	[TP_ALREADY_SET] = "already_set",
	[TP_NOT_MTG] = "not_mtg",
	[TP_UNPARSED] = "unparsed",
	[TP_FAILED] = "failed",
};

const char *const reflect_counter_names[REFLECT_COUNTERS] = {
	[RFL_REFLECTED] = "reflected",
	[RFL_ALREADY_SET] = "already_set",
	[RFL_NOT_MTG] = "not_mtg",
	[RFL_UNPARSED] = "unparsed",
};

const char *probe_state_name(enum probe_state s)
{
	switch (s) {
	case PROBE_ATTACHED:
		return "attached";
	case PROBE_DETACHED:
		return "detached";
	case PROBE_REPLACED:
		return "replaced";
	case PROBE_NO_DEVICE:
		return "no device";
	case PROBE_NO_NETNS:
		return "no namespace";
	}
	return "?";
}

const char *probe_name(const struct probe_id *p, char *buf, size_t size)
{
	snprintf(buf, size, "%s%s%s %s slot %d", p->dev, p->netns[0] ? "@" : "",
		 p->netns, p->egress ? "egress" : "ingress", p->slot);
	return buf;
}
