// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The probes' and reflectors' words: their counters, states and names as mtgctl shows
 * them. Built with or without eBPF (probe.c and
 * reflector.c, or none.c).
 */
#include <inttypes.h>
#include <stdio.h>

#include "bpf/probe.h"
#include "bpf/reflector.h"
#include "reflect.h"
#include "tp.h"
#include "util/jw.h"

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
	[RFL_NOT_AGREED] = "not_agreed",
	[RFL_CSUM_BAD] = "csum_bad",
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

void probe_info_print(FILE *f, const struct probe_info *p)
{
	char name[64 + IDF_NETNS_MAX];
	int k;

	fprintf(f, "%s: %s", probe_name(&p->id, name, sizeof(name)),
		probe_state_name(p->state));
	for (k = 0; k < PROBE_COUNTERS; k++)
		fprintf(f, ", %s %" PRIu64, probe_counter_names[k],
			p->counters[k]);
	fprintf(f, "\n");
}

void probe_info_json(struct jw *j, const struct probe_info *p)
{
	int k;

	jw_obj_begin(j);
	jw_kstr(j, "dev", p->id.dev);
	if (p->id.netns[0])
		jw_kstr(j, "netns", p->id.netns);
	else
		jw_knull(j, "netns");
	jw_kstr(j, "direction", p->id.egress ? "egress" : "ingress");
	jw_ku64(j, "slot", (uint64_t)p->id.slot);
	jw_kstr(j, "state", probe_state_name(p->state));
	jw_ku64(j, "prog_id", p->prog_id);
	jw_key(j, "counters");
	jw_obj_begin(j);
	for (k = 0; k < PROBE_COUNTERS; k++)
		jw_ku64(j, probe_counter_names[k], p->counters[k]);
	jw_obj_end(j);
	jw_obj_end(j);
}
