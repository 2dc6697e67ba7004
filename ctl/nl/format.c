// SPDX-License-Identifier: GPL-2.0-or-later
/* Sessions and TGs of the netlink family as text and JSON (format.h). */
#include <inttypes.h>

#include "module/module.h"
#include "nl/format.h"
#include "rx/hist.h"
#include "rx/summary.h"
#include "util/jw.h"
#include "util/text.h"

static void iface_text(FILE *f, const struct mtg_nl_iface *i)
{
	char name[4 * MTG_NL_TEXT_MAX];

	text_escape(name, sizeof(name), i->name);
	fprintf(f, "iface %u: %s ifindex %u %s netns_cookie %" PRIu64, i->id,
		name, i->ifindex, mtg_nl_iface_state_name(i->state),
		i->netns_cookie);
}

void nl_session_text(FILE *f, const struct mtg_nl_session *s, bool whole,
		     bool oneline)
{
	char comm[4 * MTG_NL_TEXT_MAX];
	size_t i;

	fprintf(f, "session %" PRIu64 ":", s->id);
	if (whole) {
		text_escape(comm, sizeof(comm), s->comm);
		fprintf(f, " pid %u comm %s <", s->pid, comm);
		mtg_nl_print_session_flags(f, s->flags, ",");
		fprintf(f, "> mem_bytes %" PRIu64 " ifaces %u ifaces_lost %u events %" PRIu64 " tgs %u",
			s->mem_bytes, s->ifaces, s->ifaces_lost, s->events,
			s->tgs);
	}
	for (i = 0; i < s->n_iface; i++) {
		fputs(oneline ? " " : "\n    ", f);
		iface_text(f, &s->iface[i]);
	}
	if (!oneline)
		fputc('\n', f);
}

/* The non-empty buckets, each as "LE:COUNT" (LE its largest value). */
static void hist_text(FILE *f, const __u64 *hist)
{
	unsigned int b;
	bool any = false;

	fputs("lateness_hist", f);
	for (b = 0; b < HIST_BUCKETS; b++) {
		if (!hist[b])
			continue;
		any = true;
		if (b == HIST_BUCKETS - 1)
			fprintf(f, " inf:%llu", (unsigned long long)hist[b]);
		else
			fprintf(f, " %" PRIu64 ":%llu", hist_bucket_max(b),
				(unsigned long long)hist[b]);
	}
	fputs(any ? "\n" : " empty\n", f);
}

void nl_tg_text(FILE *f, const struct mtg_nl_tg *t, const char *indent,
		bool oneline)
{
	const struct mtg_tg_stats *st = &t->st;
	const char *error = mtg_tg_error_name(st->error);
	const char *nl = oneline ? " " : "\n";
	struct hist_summary l;

	fprintf(f, "tg %" PRIu64 ":%u: %s", t->session_id, st->tg_id,
		mtg_tg_state_name(st->state));
	if (error)
		fprintf(f, " error %s", error);
	fputs(" <", f);
	mtg_nl_print_tg_flags(f, t->flags, ",");
	fprintf(f, "> run_id %u cpu %u ifindex %u%s", t->run_id, st->cpu,
		t->ifindex, nl);
	if (!oneline)
		fputs(indent, f);
	fprintf(f, "sent %llu bytes %llu tx_errors %llu skipped_late %llu bad_entries %llu underruns %llu late_packets %llu%s",
		(unsigned long long)st->sent, (unsigned long long)st->bytes,
		(unsigned long long)st->tx_errors,
		(unsigned long long)st->skipped_late,
		(unsigned long long)st->bad_entries,
		(unsigned long long)st->underruns,
		(unsigned long long)st->late_packets, nl);
	if (!oneline)
		fputs(indent, f);
	fprintf(f, "events %llu ctrl_sent %llu next_seq %llu next_ns %llu early %llu lead %llu spin %llu%s",
		(unsigned long long)st->events,
		(unsigned long long)st->ctrl_sent,
		(unsigned long long)st->next_seq,
		(unsigned long long)st->next_ns, (unsigned long long)st->early,
		(unsigned long long)st->lead_ns,
		(unsigned long long)st->spin_ns, nl);
	if (t->flags & (MTG_TG_FLAGS_TCP | MTG_TG_FLAGS_SCTP |
			MTG_TG_FLAGS_DCCP)) {
		if (!oneline)
			fputs(indent, f);
		fprintf(f, "sock_error %u retrans %llu write_waits %llu%s",
			st->sock_error, (unsigned long long)st->retrans,
			(unsigned long long)st->write_waits, nl);
	}
	if (!oneline)
		fputs(indent, f);
	lateness_from_stats(st, &l);
	if (l.valid)
		fprintf(f, "lateness p50 %" PRIu64 " p99 %" PRIu64 " p999 %" PRIu64 " max %" PRIu64 " mean %" PRIu64 " ns",
			l.p50, l.p99, l.p999, l.max, l.mean);
	else
		fputs("lateness none", f);
	if (oneline)
		return;
	fprintf(f, "\n%s", indent);
	hist_text(f, st->lateness_hist);
}

void nl_session_json(struct jw *j, const struct mtg_nl_session *s,
		     bool whole)
{
	const struct mtg_nl_iface *i;
	size_t k;

	jw_ku64(j, "id", s->id);
	if (whole) {
		jw_ku64(j, "pid", s->pid);
		jw_kstr(j, "comm", s->comm);
		jw_key(j, "flags");
		mtg_nl_session_flags_json(j, s->flags);
		jw_ku64(j, "mem_bytes", s->mem_bytes);
		jw_ku64(j, "ifaces", s->ifaces);
		jw_ku64(j, "ifaces_lost", s->ifaces_lost);
		jw_ku64(j, "events", s->events);
		jw_ku64(j, "tgs", s->tgs);
	}
	jw_key(j, "iface");
	jw_arr_begin(j);
	for (k = 0; k < s->n_iface; k++) {
		i = &s->iface[k];
		jw_obj_begin(j);
		jw_ku64(j, "id", i->id);
		jw_ku64(j, "ifindex", i->ifindex);
		jw_kstr(j, "name", i->name);
		jw_kstr(j, "state", mtg_nl_iface_state_name(i->state));
		jw_ku64(j, "netns_cookie", i->netns_cookie);
		jw_obj_end(j);
	}
	jw_arr_end(j);
}

void nl_tg_json(struct jw *j, const struct mtg_nl_tg *t)
{
	const struct mtg_tg_stats *st = &t->st;
	unsigned int b;

	jw_ku64(j, "session_id", t->session_id);
	jw_ku64(j, "id", st->tg_id);
	jw_kstr(j, "state", mtg_tg_state_name(st->state));
	jw_kstr(j, "error", mtg_tg_error_name(st->error));
	jw_key(j, "flags");
	mtg_nl_tg_flags_json(j, t->flags);
	jw_ku64(j, "cpu", st->cpu);
	jw_ku64(j, "ifindex", t->ifindex);
	jw_ku64(j, "run_id", t->run_id);
	jw_ku64(j, "sent", st->sent);
	jw_ku64(j, "bytes", st->bytes);
	jw_ku64(j, "tx_errors", st->tx_errors);
	jw_ku64(j, "skipped_late", st->skipped_late);
	jw_ku64(j, "bad_entries", st->bad_entries);
	jw_ku64(j, "underruns", st->underruns);
	jw_ku64(j, "late_packets", st->late_packets);
	jw_ku64(j, "events", st->events);
	jw_ku64(j, "ctrl_sent", st->ctrl_sent);
	jw_ku64(j, "next_seq", st->next_seq);
	jw_ku64(j, "next_ns", st->next_ns);
	jw_ku64(j, "lateness_max", st->lateness_max_ns);
	jw_ku64(j, "lateness_sum", st->lateness_sum_ns);
	jw_ku64(j, "early", st->early);
	jw_ku64(j, "lead", st->lead_ns);
	jw_ku64(j, "spin", st->spin_ns);
	jw_ku64(j, "sock_error", st->sock_error);
	jw_ku64(j, "retrans", st->retrans);
	jw_ku64(j, "write_waits", st->write_waits);
	jw_key(j, "lateness_hist");
	jw_arr_begin(j);
	for (b = 0; b < HIST_BUCKETS; b++)
		jw_u64(j, st->lateness_hist[b]);
	jw_arr_end(j);
	if (t->event) {
		jw_key(j, "event");
		mtg_nl_tg_events_json(j, t->event);
	}
}
