// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The words mtgctl shows for the netlink family's values: the spec's names
 * (Documentation/netlink/specs/mtg.yaml) with '_' for '-', as mtgctl's
 * other JSON spells keys and values. Each list is written once; `mtgctl
 * show --ids` prints them and tests/host/test_nl_ids.py checks them
 * against the spec.
 */
#include "module/module.h"
#include "nl/family.h"
#include "util/jw.h"

struct nl_name {
	const char *id;		/* the uapi's name of the value */
	uint32_t value;
	const char *name;	/* the word shown */
};

#define NAME(_id, _name)	{ #_id, _id, _name }
#define N_NAMES(a)		(sizeof(a) / sizeof((a)[0]))

static const struct nl_name iface_states[] = {
	NAME(MTG_IFACE_STATE_ATTACHED, "attached"),
	NAME(MTG_IFACE_STATE_LOST, "lost"),
};

static const struct nl_name session_flags[] = {
	NAME(MTG_SESSION_FLAGS_ALLOCATED, "allocated"),
	NAME(MTG_SESSION_FLAGS_ENDED, "ended"),
};

static const struct nl_name tg_flags[] = {
	NAME(MTG_TG_FLAGS_IPV6, "ipv6"),
	NAME(MTG_TG_FLAGS_STREAM, "stream"),
	NAME(MTG_TG_FLAGS_LATE_SKIP, "late_skip"),
	NAME(MTG_TG_FLAGS_QDISC, "qdisc"),
	NAME(MTG_TG_FLAGS_PRECISE, "precise"),
	NAME(MTG_TG_FLAGS_DST_MAC, "dst_mac"),
	NAME(MTG_TG_FLAGS_RESTART, "restart"),
	NAME(MTG_TG_FLAGS_KEEP_PAYLOAD, "keep_payload"),
	NAME(MTG_TG_FLAGS_KEEP_BITS, "keep_bits"),
	NAME(MTG_TG_FLAGS_DITG, "ditg"),
	NAME(MTG_TG_FLAGS_ICMP, "icmp"),
	NAME(MTG_TG_FLAGS_TCP, "tcp"),
	NAME(MTG_TG_FLAGS_SCTP, "sctp"),
	NAME(MTG_TG_FLAGS_DCCP, "dccp"),
};

static const struct nl_name tg_events[] = {
	NAME(MTG_TG_EVENT_ERROR, "error"),
	NAME(MTG_TG_EVENT_LATE, "late"),
	NAME(MTG_TG_EVENT_UNDERRUN, "underrun"),
	NAME(MTG_TG_EVENT_FINISHED, "finished"),
};

/* Named by module.c (run's summary shows them too): name NULL here. */
static const struct nl_name tg_states[] = {
	NAME(MTG_TG_STATE_RUNNING, NULL),
	NAME(MTG_TG_STATE_SUSPENDED, NULL),
	NAME(MTG_TG_STATE_FINISHED, NULL),
	NAME(MTG_TG_STATE_KILLED, NULL),
	NAME(MTG_TG_STATE_FAILED, NULL),
};

static const struct nl_name tg_errors[] = {
	NAME(MTG_TG_ERROR_NONE, NULL),
	NAME(MTG_TG_ERROR_DEV_GONE, NULL),
	NAME(MTG_TG_ERROR_CPU_OFFLINE, NULL),
	NAME(MTG_TG_ERROR_RING, NULL),
	NAME(MTG_TG_ERROR_TIME, NULL),
	NAME(MTG_TG_ERROR_SOCKET, NULL),
};

const char *mtg_nl_iface_state_name(uint32_t state)
{
	size_t i;

	for (i = 0; i < N_NAMES(iface_states); i++)
		if (iface_states[i].value == state)
			return iface_states[i].name;
	return "unknown";
}

/* The words of flags' bits, sep between; bits without a word in hex. */
static void print_bits(FILE *f, const struct nl_name *names, size_t n,
		       uint32_t flags, const char *sep)
{
	const char *s = "";
	size_t i;

	if (!flags) {
		fputs("none", f);
		return;
	}
	for (i = 0; i < n; i++) {
		if (flags & names[i].value) {
			fprintf(f, "%s%s", s, names[i].name);
			flags &= ~names[i].value;
			s = sep;
		}
	}
	if (flags)
		fprintf(f, "%s0x%x", s, flags);
}

static void bits_json(struct jw *j, const struct nl_name *names, size_t n,
		      uint32_t flags)
{
	char other[16];
	size_t i;

	jw_arr_begin(j);
	for (i = 0; i < n; i++) {
		if (flags & names[i].value) {
			jw_str(j, names[i].name);
			flags &= ~names[i].value;
		}
	}
	if (flags) {
		snprintf(other, sizeof(other), "0x%x", flags);
		jw_str(j, other);
	}
	jw_arr_end(j);
}

void mtg_nl_print_session_flags(FILE *f, uint32_t flags, const char *sep)
{
	print_bits(f, session_flags, N_NAMES(session_flags), flags, sep);
}

void mtg_nl_print_tg_flags(FILE *f, uint32_t flags, const char *sep)
{
	print_bits(f, tg_flags, N_NAMES(tg_flags), flags, sep);
}

void mtg_nl_print_tg_events(FILE *f, uint32_t events, const char *sep)
{
	print_bits(f, tg_events, N_NAMES(tg_events), events, sep);
}

void mtg_nl_session_flags_json(struct jw *j, uint32_t flags)
{
	bits_json(j, session_flags, N_NAMES(session_flags), flags);
}

void mtg_nl_tg_flags_json(struct jw *j, uint32_t flags)
{
	bits_json(j, tg_flags, N_NAMES(tg_flags), flags);
}

void mtg_nl_tg_events_json(struct jw *j, uint32_t events)
{
	bits_json(j, tg_events, N_NAMES(tg_events), events);
}

static void print_names(FILE *f, const struct nl_name *names, size_t n,
			const char *(*name_of)(uint32_t value))
{
	const char *name;
	size_t i;

	for (i = 0; i < n; i++) {
		name = name_of ? name_of(names[i].value) : names[i].name;
		fprintf(f, "value %s %u %s\n", names[i].id, names[i].value,
			name ? name : "none");
	}
}

void mtg_nl_print_value_ids(FILE *f)
{
	print_names(f, iface_states, N_NAMES(iface_states), NULL);
	print_names(f, session_flags, N_NAMES(session_flags), NULL);
	print_names(f, tg_flags, N_NAMES(tg_flags), NULL);
	print_names(f, tg_events, N_NAMES(tg_events), NULL);
	print_names(f, tg_states, N_NAMES(tg_states), mtg_tg_state_name);
	print_names(f, tg_errors, N_NAMES(tg_errors), mtg_tg_error_name);
}
