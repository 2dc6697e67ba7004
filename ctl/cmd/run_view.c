// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * mtgctl run: what is shown: progress lines, the dashboard's and the
 * stream's view, the final report and the JSON summary (run.h).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/run.h"
#include "rx/summary.h"

void progress(const struct run *r, uint64_t now)
{
	unsigned long long elapsed = now > r->t0 ? now - r->t0 : 0;
	unsigned long long sent = 0, errors = 0, received = 0, gaps = 0;
	unsigned long long counts[MTG_TG_STATE_FAILED + 1] = { 0 };
	size_t i;

	printf("%4llu.%01llus", elapsed / 1000000000ULL,
	       elapsed / 100000000ULL % 10);
	if (r->ntgs <= PROGRESS_TGS) {
		for (i = 0; i < r->ntgs; i++) {
			const struct mtg_tg_stats *st = &r->tgs[i].st;
			const struct meter *m = r->tgs[i].m;

			printf("%s tg %u: %llu sent, %llu tx_errors, %s",
			       i ? " |" : "", r->tgs[i].tg->id, st->sent,
			       st->tx_errors,
			       mtg_tg_state_name(st->state));
			/* While packets are in flight: the gaps so far. */
			if (m)
				printf(", %llu received, %llu lost",
				       (unsigned long long)m->received,
				       (unsigned long long)meter_lost(m, -1));
		}
		printf("\n");
	} else {
		for (i = 0; i < r->ntgs; i++) {
			const struct mtg_tg_stats *st = &r->tgs[i].st;
			const struct meter *m = r->tgs[i].m;

			sent += st->sent;
			errors += st->tx_errors;
			if (st->state <= MTG_TG_STATE_FAILED)
				counts[st->state]++;
			if (m) {
				received += m->received;
				gaps += meter_lost(m, -1);
			}
		}
		printf(" %zu TGs: %llu running, %llu finished, %llu killed, %llu failed; %llu sent, %llu tx_errors",
		       r->ntgs, counts[MTG_TG_STATE_RUNNING] + counts[MTG_TG_STATE_SUSPENDED],
		       counts[MTG_TG_STATE_FINISHED], counts[MTG_TG_STATE_KILLED],
		       counts[MTG_TG_STATE_FAILED], sent, errors);
		if (r->listening)
			printf(", %llu received, %llu lost", received, gaps);
		printf("\n");
	}
	if (r->listening) {
		printf("%4llu.%01llus ", elapsed / 1000000000ULL,
		       elapsed / 100000000ULL % 10);
		listening_progress(&r->ls, stdout);
		printf("\n");
	}
	fflush(stdout);
}

static const char *row_state(const struct run_tg *t, uint64_t now)
{
	if (!t->started)
		return "waiting";
	switch (t->st.state) {
	case MTG_TG_STATE_RUNNING:
		return now < t->start.start_ns ? "waiting" : "running";
	case MTG_TG_STATE_SUSPENDED:
		return "suspended";
	case MTG_TG_STATE_FINISHED:
		return "done";
	case MTG_TG_STATE_KILLED:
		return "killed";
	default:
		return "error";
	}
}

static void row_dst(const struct run_tg *t, char *buf, size_t size)
{
	char a[INET6_ADDRSTRLEN] = "?";
	int family = t->dst.family ? t->dst.family : t->tg->dst.family;

	inet_ntop(family, t->dst.addr, a, sizeof(a));
	snprintf(buf, size, family == AF_INET6 ? "[%s]:%u" : "%s:%u", a,
		 t->tg->dst.port);
}

/*
 * The live view: every TG's row, the totals, the receiving side. final:
 * everything has been received that will be, so lost counts against sent
 * (as the summary does); before, only the gaps so far.
 */
int build_view(struct run *r, uint64_t now, bool final)
{
	struct dash_view *v = &r->view;
	uint64_t late = 0, last_end = 0;
	bool known = true;
	size_t i;

	if (!v->rows) {
		v->rows = calloc(r->ntgs ? r->ntgs : 1, sizeof(*v->rows));
		if (!v->rows)
			return -ENOMEM;
		v->nrows = r->ntgs;
	}
	v->command = "run";
	v->file = r->file;
	v->run_id = r->run_id;
	v->time_ns = now;
	v->elapsed_ns = now > r->t0 ? now - r->t0 : 0;
	v->phase = r->phase;
	for (i = 0; i < r->ntgs; i++) {
		struct run_tg *t = &r->tgs[i];
		struct dash_row *row = &v->rows[i];
		struct hist_summary l;

		row->id = t->tg->id;
		row->run_id = r->run_id;
		snprintf(row->model, sizeof(row->model), "%s%s",
			 idf_dist_name(t->tg->dist),
			 t->tg->meter == IDF_METER_RTT ? " rtt" : "");
		row_dst(t, row->dst, sizeof(row->dst));
		snprintf(row->state, sizeof(row->state), "%s",
			 row_state(t, now));
		row->has_tx = true;
		row->rate_factor = t->rate_factor;
		row->req_pps = t->req_pps * t->rate_factor;
		row->req_bps = t->req_bps * t->rate_factor;
		row->sent = t->st.sent;
		row->bytes = t->st.bytes;
		dash_rate(now, t->st.sent, t->st.bytes, row->tx_mark, &row->pps,
			  &row->bps);
		if (t->m)
			dash_row_meter(row, t->m, now,
				       final ? (int64_t)t->st.sent : -1,
				       t->tg->nowb);
		lateness_from_stats(&t->st, &l);
		row->late_valid = l.valid;
		row->late_p99_ns = l.p99;
		late += t->st.late_packets;
		/* Time left: known while every live TG has an end time. */
		if (t->started && mtg_tg_ended(t->st.state))
			continue;
		if (!t->started || !t->start.stop_ns)
			known = false;
		else if (t->start.stop_ns > last_end)
			last_end = t->start.stop_ns;
	}
	dash_view_total(v);
	v->totals.late_packets = late;
	v->remaining_known = known;
	v->remaining_ns = known && last_end > now ? last_end - now : 0;
	if (r->listening)
		dash_view_listening(v, &r->ls);
	return 0;
}

void report(const struct run *r, FILE *f)
{
	struct hist_summary l;
	size_t i;

	for (i = 0; i < r->ntgs; i++) {
		const struct mtg_tg_stats *st = &r->tgs[i].st;
		const struct meter *m = r->tgs[i].m;
		const char *error = mtg_tg_error_name(st->error);

		lateness_from_stats(st, &l);
		fprintf(f, "tg %u: %s%s%s, %llu sent (%llu bytes), %llu tx_errors",
			r->tgs[i].tg->id,
			mtg_tg_state_name(st->state), error ? " " : "",
			error ? error : "", st->sent, st->bytes, st->tx_errors);
		if (st->bad_entries || st->underruns || st->skipped_late)
			fprintf(f, ", %llu bad_entries, %llu underruns, %llu skipped_late",
				st->bad_entries, st->underruns,
				st->skipped_late);
		if (idf_proto_connected(r->tgs[i].tg->proto))
			fprintf(f, ", %llu unwritten, %llu write_waits, %llu retrans%s%s",
				st->next_seq - st->sent,
				st->write_waits, st->retrans,
				st->sock_error ? ", connection: " : "",
				st->sock_error ? strerror((int)st->sock_error) : "");
		if (l.valid)
			fprintf(f, ", lateness p50 %llu p99 %llu max %llu ns",
				(unsigned long long)l.p50,
				(unsigned long long)l.p99,
				(unsigned long long)l.max);
		if (st->ctrl_sent || r->tgs[i].ctrl_unsent)
			fprintf(f, ", %llu control messages sent, %llu not",
				st->ctrl_sent,
				(unsigned long long)r->tgs[i].ctrl_unsent);
		if (m) {
			fprintf(f, "; ");
			meter_print(f, m, (int64_t)st->sent);
		}
		if (r->tgs[i].netns_deleted)
			fprintf(f, "; its namespace %s was deleted",
				r->tgs[i].tg->netns);
		fprintf(f, "\n");
	}
	if (r->listening)
		listening_report(&r->ls, f);
}

int write_summary(const struct run *r)
{
	struct summary_tg *tgs = calloc(r->ntgs, sizeof(*tgs));
	struct summary_rx rx;
	struct summary s = {
		.command = "run",
		.file = r->file,
		.run_id = r->run_id,
		.start_ns = r->t0,
		.end_ns = r->end,
		.interrupted = stop_signal != 0 || r->quits,
		.tgs = tgs,
		.ntgs = r->ntgs,
		.rx = r->listening ? &rx : NULL,
		.more = probes_summary,
		.more_arg = r,
	};
	size_t i;
	int err;

	if (!tgs)
		return -ENOMEM;
	if (r->listening)
		listening_summary(&r->ls, &rx);
	for (i = 0; i < r->ntgs; i++) {
		const struct run_tg *t = &r->tgs[i];

		tgs[i].id = t->tg->id;
		tgs[i].run_id = r->run_id;
		tgs[i].st = &t->st;
		tgs[i].m = t->m;
		tgs[i].dev = t->tg->dev;
		tgs[i].netns = t->tg->netns[0] ? t->tg->netns : NULL;
		tgs[i].mode = idf_mode_name(t->tg->mode);
		tgs[i].path = idf_path_name(t->tg->path);
		tgs[i].dst_mac = t->start.dst_mac;
		tgs[i].ctrl_unsent = t->ctrl_unsent;
		tgs[i].starts = t->starts;
		tgs[i].netns_deleted = t->netns_deleted;
		remote_summary(r, t, &tgs[i]);
	}
	err = summary_write(r->o->rx.json, &s);
	free(tgs);
	return err;
}
