// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The JSON summary. Lateness and one-way delay percentiles come from
 * histograms in the module's buckets (hist.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "module/iface.h"
#include "module/module.h"
#include "remote/logc.h"
#include "rx/summary.h"
#include "util/jw.h"

void lateness_from_stats(const struct mtg_tg_stats *st,
			 struct hist_summary *l)
{
	hist_summarize(st->lateness_hist, st->lateness_max_ns,
		       st->lateness_sum_ns, l);
}

void owd_of_meter(const struct meter *m, struct hist_summary *l)
{
	hist_summarize(m->owd_hist, m->owd_max, m->owd_sum, l);
}

void meter_print(FILE *f, const struct meter *m, int64_t sent)
{
	struct hist_summary owd;

	fprintf(f, "%llu received, %llu lost%s, %llu duplicates, %llu reordered, %llu bit_errors",
		(unsigned long long)m->received,
		(unsigned long long)meter_lost(m, sent),
		sent < 0 ? " (gaps)" : "",
		(unsigned long long)m->duplicates,
		(unsigned long long)m->reordered,
		(unsigned long long)m->bit_errors);
	if (m->implausible)
		fprintf(f, ", %llu implausible",
			(unsigned long long)m->implausible);
	owd_of_meter(m, &owd);
	if (owd.valid)
		fprintf(f, ", %s p50 %llu p99 %llu max %llu ns",
			m->round_trip ? "rtt" : "owd",
			(unsigned long long)owd.p50,
			(unsigned long long)owd.p99,
			(unsigned long long)owd.max);
}

/* key: {p50, p99, p999, max, mean} or their nulls; only what is listed. */
static void percentiles_json(struct jw *j, const char *key,
			     const struct hist_summary *l, bool p999)
{
	jw_key(j, key);
	jw_obj_begin(j);
#define PCT(name)					\
	do {						\
		if (l->valid)				\
			jw_ku64(j, #name, l->name);	\
		else					\
			jw_knull(j, #name);		\
	} while (0)
	PCT(p50);
	PCT(p99);
	if (p999)
		PCT(p999);
	PCT(max);
	PCT(mean);
#undef PCT
	jw_obj_end(j);
}

/* What the receiving side measured of a flow (nulls: nothing listened). */
static void rx_json(struct jw *j, const struct meter *m, int64_t sent)
{
	static const char *const keys[] = {
		"received", "lost", "duplicates", "reordered", "bit_errors",
		"bits", "records", "csum_bad", "implausible",
	};
	struct hist_summary owd = { .valid = false }, none = owd;
	size_t i;

	if (!m) {
		for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
			jw_knull(j, keys[i]);
		jw_knull(j, "ber");
		percentiles_json(j, "owd_ns", &owd, false);
		percentiles_json(j, "rtt_ns", &owd, false);
		return;
	}
	jw_ku64(j, "received", m->received);
	jw_ku64(j, "lost", meter_lost(m, sent));
	jw_ku64(j, "duplicates", m->duplicates);
	jw_ku64(j, "reordered", m->reordered);
	jw_ku64(j, "bit_errors", m->bit_errors);
	jw_ku64(j, "bits", m->bits);
	jw_ku64(j, "records", m->records);
	jw_ku64(j, "csum_bad", m->csum_bad);
	jw_ku64(j, "implausible", m->implausible);
	if (m->bits)
		jw_kdouble(j, "ber", (double)m->bit_errors / (double)m->bits);
	else
		jw_knull(j, "ber");
	owd_of_meter(m, &owd);
	/* a reflected flow's delays, on one clock, are its round trips */
	percentiles_json(j, "owd_ns", m->round_trip ? &none : &owd, false);
	percentiles_json(j, "rtt_ns", m->round_trip ? &owd : &none, false);
}

/* An estimate of the receiver's clock (tsp/conn.h), or null. */
static void clock_json(struct jw *j, const char *key,
		       const struct tsp_clock *c)
{
	jw_key(j, key);
	if (!c || !c->valid) {
		jw_null(j);
		return;
	}
	jw_obj_begin(j);
	jw_ki64(j, "offset_ns", c->offset_ns);
	jw_ku64(j, "uncertainty_ns", c->uncertainty_ns);
	jw_ku64(j, "rtt_ns", c->rtt_ns);
	jw_ku64(j, "samples", c->samples);
	jw_obj_end(j);
}

/* What the TG's remote receiver measured (TSP_RESULT), or why not. */
static void remote_json(struct jw *j, const struct summary_tg *t,
			uint64_t sent)
{
	const struct tsp_result *r = t->remote;

	jw_key(j, "remote");
	if (!t->rcvr) {
		jw_null(j);
		return;
	}
	jw_obj_begin(j);
	jw_kstr(j, "rcvr", t->rcvr);
	jw_kstr(j, "signalling", t->remote_ditg ? "ditg" : "mtg");
	if (!r && t->remote_ditg && t->remote_closed) {
		/* ITGRecv keeps its figures in its log: nothing went wrong */
		jw_knull(j, "error");
		jw_kstr(j, "note", t->remote_why);
		jw_obj_end(j);
		return;
	}
	if (!r) {
		jw_kstr(j, "error", t->remote_why ? t->remote_why : "no result");
		jw_obj_end(j);
		return;
	}
	jw_knull(j, "error");
	/* rtt: what the receiver got is what its reflector sent back */
	jw_kstr(j, "meter", t->m && t->m->round_trip ? "rtt" : "owd");
	jw_ku64(j, "received", r->received);
	/* of what was sent; the receiver alone sees only gaps */
	jw_ku64(j, "lost", sent > r->received ? sent - r->received : 0);
	jw_ku64(j, "duplicates", r->duplicates);
	jw_ku64(j, "reordered", r->reordered);
	jw_ku64(j, "bytes", r->bytes);
	jw_kbool(j, "incomplete", r->flags & TSP_RESULT_INCOMPLETE);
	if (r->flags & TSP_RESULT_NO_OWD) {
		jw_knull(j, "owd_ns");
	} else {
		jw_key(j, "owd_ns");
		jw_obj_begin(j);
		jw_ki64(j, "min", r->owd_min_ns);
		jw_ki64(j, "mean", r->owd_mean_ns);
		jw_ki64(j, "max", r->owd_max_ns);
		jw_obj_end(j);
	}
	jw_ku64(j, "jitter_ns", r->jitter_ns);
	jw_ku64(j, "first_rx_ns", r->first_rx_ns);
	jw_ku64(j, "last_rx_ns", r->last_rx_ns);
	clock_json(j, "clock", t->clock_setup);
	clock_json(j, "clock_end", t->clock_teardown);
	/* the delays with the receiver's clock brought to ours */
	if (r->flags & TSP_RESULT_NO_OWD || !t->clock_setup ||
	    !t->clock_setup->valid) {
		jw_knull(j, "owd_corrected_ns");
	} else {
		jw_key(j, "owd_corrected_ns");
		jw_obj_begin(j);
		jw_ki64(j, "min", r->owd_min_ns - t->clock_setup->offset_ns);
		jw_ki64(j, "mean", r->owd_mean_ns - t->clock_setup->offset_ns);
		jw_ki64(j, "max", r->owd_max_ns - t->clock_setup->offset_ns);
		jw_obj_end(j);
	}
	jw_obj_end(j);
}

static void tg_json(struct jw *j, const struct summary_tg *t)
{
	const struct mtg_tg_stats *st = t->st;
	struct hist_summary lat;
	char mac[18];

	jw_obj_begin(j);
	jw_ku64(j, "id", t->id);
	if (!st) {
		/* Receive only: what the records told. */
		jw_ku64(j, "run_id", t->run_id);
		rx_json(j, t->m, -1);
		jw_obj_end(j);
		return;
	}
	snprintf(mac, sizeof(mac), "%02x:%02x:%02x:%02x:%02x:%02x",
		 t->dst_mac[0], t->dst_mac[1], t->dst_mac[2], t->dst_mac[3],
		 t->dst_mac[4], t->dst_mac[5]);
	jw_ku64(j, "sent", st->sent);
	jw_ku64(j, "tx_errors", st->tx_errors);
	lateness_from_stats(st, &lat);
	percentiles_json(j, "lateness_ns", &lat, true);
	jw_ku64(j, "events", st->events);
	jw_kstr(j, "state", mtg_tg_state_name(st->state));
	jw_kstr(j, "error", mtg_tg_error_name(st->error));
	jw_ku64(j, "bytes", st->bytes);
	jw_ku64(j, "skipped_late", st->skipped_late);
	jw_ku64(j, "bad_entries", st->bad_entries);
	jw_ku64(j, "underruns", st->underruns);
	jw_ku64(j, "late_packets", st->late_packets);
	jw_ku64(j, "ctrl_sent", st->ctrl_sent);
	jw_ku64(j, "ctrl_unsent", t->ctrl_unsent);
	jw_ku64(j, "starts", t->starts);
	jw_ku64(j, "early", st->early);
	jw_ku64(j, "cpu", st->cpu);
	jw_kstr(j, "dev", t->dev);
	jw_kstr(j, "netns", t->netns);
	jw_kstr(j, "mode", t->mode);
	jw_kstr(j, "path", t->path);
	jw_ku64(j, "spin_ns", st->spin_ns);
	jw_ku64(j, "sock_error", st->sock_error);
	jw_ku64(j, "retrans", st->retrans);
	jw_ku64(j, "write_waits", st->write_waits);
	jw_ku64(j, "lead_ns", st->lead_ns);
	jw_kstr(j, "dst_mac", mac);
	jw_kbool(j, "netns_deleted", t->netns_deleted);
	rx_json(j, t->m, (int64_t)st->sent);
	remote_json(j, t, st->sent);
	jw_obj_end(j);
}

/* The interfaces listened on that went away, and when we saw it. */
/* The log at logd (--log): what was sent, what logd wrote and lost. */
static void log_json(struct jw *j, const struct logc *l)
{
	jw_key(j, "log");
	jw_obj_begin(j);
	jw_kstr(j, "to", l->c.peer);
	jw_kstr(j, "transport", l->udp ? "udp" : "tcp");
	jw_ku64(j, "log_id", l->log_id);
	jw_ku64(j, "sent", l->sent);
	jw_ku64(j, "batches", l->seq);
	jw_ku64(j, "not_sent", l->not_sent);
	jw_kbool(j, "done", l->done);
	if (l->done) {
		jw_kstr(j, "file", l->result.file.s);
		jw_ku64(j, "written", l->result.records);
		jw_ku64(j, "lost", l->result.lost);
		jw_ku64(j, "batches_lost", l->result.batches_lost);
		jw_ku64(j, "late", l->result.late);
	}
	jw_obj_end(j);
}

static void ifaces_lost_json(struct jw *j, const struct summary_rx *rx)
{
	size_t i;

	jw_key(j, "ifaces_lost");
	jw_arr_begin(j);
	for (i = 0; i < rx->ndevs; i++) {
		const struct listen_dev *d = &rx->devs[i];

		if (!d->lost)
			continue;
		jw_obj_begin(j);
		jw_ku64(j, "id", d->id);
		jw_kstr(j, "dev", d->l.dev);
		jw_kstr(j, "netns", d->l.netns[0] ? d->l.netns : NULL);
		jw_ku64(j, "lost_ns", d->lost_ns);
		jw_obj_end(j);
	}
	jw_arr_end(j);
}

static void summary_rx_json(struct jw *j, const struct summary_rx *rx)
{
	if (!rx) {
		jw_knull(j, "ring_drops");
		jw_knull(j, "ifaces_lost");
		jw_knull(j, "recording");
		jw_knull(j, "rx");
		return;
	}
	jw_ku64(j, "ring_drops", rx->st.ring_drops);
	ifaces_lost_json(j, rx);
	jw_key(j, "recording");
	if (rx->recording) {
		jw_obj_begin(j);
		jw_kstr(j, "path", rx->recording);
		jw_ku64(j, "records", rx->written);
		jw_ku64(j, "not_written", rx->not_written);
		jw_ku64(j, "extras", rx->extras);
		jw_ku64(j, "extras_not_written", rx->extras_lost);
		jw_obj_end(j);
	} else {
		jw_null(j);
	}
	if (rx->log)
		log_json(j, rx->log);
	jw_key(j, "rx");
	jw_obj_begin(j);
	jw_ku64(j, "packets", rx->st.packets);
	jw_ku64(j, "bytes", rx->st.bytes);
	jw_ku64(j, "hdr_corrupt", rx->st.hdr_corrupt);
	jw_ku64(j, "csum_bad", rx->st.csum_bad);
	jw_ku64(j, "wrong_bits", rx->st.wrong_bits);
	jw_ku64(j, "foreign", rx->st.foreign);
	jw_ku64(j, "ctrl", rx->st.ctrl);
	jw_ku64(j, "ctrl_drops", rx->st.ctrl_drops);
	jw_ku64(j, "bad_consumer", rx->st.bad_consumer);
	jw_ku64(j, "kept", rx->st.kept);
	jw_ku64(j, "keep_drops", rx->st.keep_drops);
	jw_ku64(j, "unknown_tg", rx->unknown);
	if (rx->xdp) {
		jw_key(j, "xdp");
		jw_obj_begin(j);
		jw_ku64(j, "not_mtg", rx->not_mtg);
		jw_ku64(j, "unparsed", rx->unparsed);
		jw_obj_end(j);
	}
	if (rx->conns) {
		jw_key(j, "connections");
		jw_obj_begin(j);
		jw_ku64(j, "accepted", rx->conn.accepted);
		jw_ku64(j, "ended", rx->conn.ended);
		jw_ku64(j, "cut", rx->conn.cut);
		jw_ku64(j, "errors", rx->conn.errors);
		jw_ku64(j, "not_mtg", rx->conn.not_mtg);
		jw_ku64(j, "other_runs", rx->conn.other_runs);
		jw_obj_end(j);
	}
	jw_obj_end(j);
}

static void summary_json(FILE *f, const struct summary *s)
{
	struct jw j;
	size_t i;

	jw_init(&j, f);
	jw_obj_begin(&j);
	jw_kstr(&j, "format", SUMMARY_FORMAT);
	jw_ku64(&j, "version", SUMMARY_VERSION);
	jw_kstr(&j, "command", s->command);
	jw_kstr(&j, "file", s->file);
	if (s->run_id)
		jw_ku64(&j, "run_id", s->run_id);
	else
		jw_knull(&j, "run_id");
	jw_ku64(&j, "start_ns", s->start_ns);
	jw_ku64(&j, "end_ns", s->end_ns);
	jw_kbool(&j, "interrupted", s->interrupted);
	jw_key(&j, "tgs");
	jw_arr_begin(&j);
	for (i = 0; i < s->ntgs; i++)
		tg_json(&j, &s->tgs[i]);
	jw_arr_end(&j);
	summary_rx_json(&j, s->rx);
	if (s->more)
		s->more(&j, s->more_arg);
	jw_obj_end(&j);
}

int summary_write(const char *path, const struct summary *s)
{
	size_t n = strlen(path);
	char *tmp = malloc(n + 8);
	mode_t mask;
	FILE *f;
	int fd, err = 0;

	if (!tmp)
		return -ENOMEM;
	snprintf(tmp, n + 8, "%s.XXXXXX", path);
	fd = mkstemp(tmp);
	if (fd < 0) {
		err = -errno;
		goto err_free;
	}
	mask = umask(0);
	umask(mask);
	if (fchmod(fd, 0666 & ~mask))
		goto err_errno;
	f = fdopen(fd, "w");
	if (!f)
		goto err_errno;
	summary_json(f, s);
	if (fflush(f) || fsync(fileno(f)) || ferror(f)) {
		err = -errno;
		fclose(f);
		goto err_unlink;
	}
	if (fclose(f) || rename(tmp, path)) {
		err = -errno;
		goto err_unlink;
	}
	free(tmp);
	return 0;

err_errno:
	err = -errno;
	close(fd);
err_unlink:
	unlink(tmp);
err_free:
	free(tmp);
	return err ? err : -EIO;
}
