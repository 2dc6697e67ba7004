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

#include "module/module.h"
#include "rx/receive.h"
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
		fprintf(f, ", owd p50 %llu p99 %llu max %llu ns",
			(unsigned long long)owd.p50,
			(unsigned long long)owd.p99,
			(unsigned long long)owd.max);
}

/* key: {p50, p99, p999, max, mean} or their nulls; only what is listed. */
static void percentiles_json(struct json *j, const char *key,
			     const struct hist_summary *l, bool p999)
{
	json_key(j, key);
	json_obj_begin(j);
#define PCT(name)					\
	do {						\
		if (l->valid)				\
			json_ku64(j, #name, l->name);	\
		else					\
			json_knull(j, #name);		\
	} while (0)
	PCT(p50);
	PCT(p99);
	if (p999)
		PCT(p999);
	PCT(max);
	PCT(mean);
#undef PCT
	json_obj_end(j);
}

/* What the receiving side measured of a flow (nulls: nothing listened). */
static void rx_json(struct json *j, const struct meter *m, int64_t sent)
{
	static const char *const keys[] = {
		"received", "lost", "duplicates", "reordered", "bit_errors",
		"bits", "records", "csum_bad", "implausible",
	};
	struct hist_summary owd = { .valid = false };
	size_t i;

	if (!m) {
		for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
			json_knull(j, keys[i]);
		json_knull(j, "ber");
		percentiles_json(j, "owd_ns", &owd, false);
		return;
	}
	json_ku64(j, "received", m->received);
	json_ku64(j, "lost", meter_lost(m, sent));
	json_ku64(j, "duplicates", m->duplicates);
	json_ku64(j, "reordered", m->reordered);
	json_ku64(j, "bit_errors", m->bit_errors);
	json_ku64(j, "bits", m->bits);
	json_ku64(j, "records", m->records);
	json_ku64(j, "csum_bad", m->csum_bad);
	json_ku64(j, "implausible", m->implausible);
	if (m->bits)
		json_kdouble(j, "ber", (double)m->bit_errors / (double)m->bits);
	else
		json_knull(j, "ber");
	owd_of_meter(m, &owd);
	percentiles_json(j, "owd_ns", &owd, false);
}

static void tg_json(struct json *j, const struct summary_tg *t)
{
	const struct mtg_tg_stats *st = t->st;
	struct hist_summary lat;
	char mac[18];

	json_obj_begin(j);
	json_ku64(j, "id", t->id);
	if (!st) {
		/* Receive only: what the records told. */
		json_ku64(j, "run_id", t->run_id);
		rx_json(j, t->m, -1);
		json_obj_end(j);
		return;
	}
	snprintf(mac, sizeof(mac), "%02x:%02x:%02x:%02x:%02x:%02x",
		 t->dst_mac[0], t->dst_mac[1], t->dst_mac[2], t->dst_mac[3],
		 t->dst_mac[4], t->dst_mac[5]);
	json_ku64(j, "sent", st->sent);
	json_ku64(j, "tx_errors", st->tx_errors);
	lateness_from_stats(st, &lat);
	percentiles_json(j, "lateness_ns", &lat, true);
	json_ku64(j, "events", st->events);
	json_kstr(j, "state", mtg_tg_state_name(st->state));
	json_kstr(j, "error", mtg_tg_error_name(st->error));
	json_ku64(j, "bytes", st->bytes);
	json_ku64(j, "skipped_late", st->skipped_late);
	json_ku64(j, "bad_entries", st->bad_entries);
	json_ku64(j, "underruns", st->underruns);
	json_ku64(j, "late_packets", st->late_packets);
	json_ku64(j, "ctrl_sent", st->ctrl_sent);
	json_ku64(j, "ctrl_unsent", t->ctrl_unsent);
	json_ku64(j, "starts", t->starts);
	json_ku64(j, "early", st->early);
	json_ku64(j, "cpu", st->cpu);
	json_kstr(j, "dev", t->dev);
	json_kstr(j, "netns", t->netns);
	json_kstr(j, "mode", t->mode);
	json_kstr(j, "path", t->path);
	json_ku64(j, "spin_ns", st->spin_ns);
	json_ku64(j, "lead_ns", st->lead_ns);
	json_kstr(j, "dst_mac", mac);
	json_kbool(j, "netns_deleted", t->netns_deleted);
	rx_json(j, t->m, (int64_t)st->sent);
	json_obj_end(j);
}

/* The interfaces listened on that went away, and when we saw it. */
static void ifaces_lost_json(struct json *j, const struct summary_rx *rx)
{
	size_t i;

	json_key(j, "ifaces_lost");
	json_arr_begin(j);
	for (i = 0; i < rx->ndevs; i++) {
		const struct listen_dev *d = &rx->devs[i];

		if (!d->lost)
			continue;
		json_obj_begin(j);
		json_ku64(j, "id", d->id);
		json_kstr(j, "dev", d->l.dev);
		json_kstr(j, "netns", d->l.netns[0] ? d->l.netns : NULL);
		json_ku64(j, "lost_ns", d->lost_ns);
		json_obj_end(j);
	}
	json_arr_end(j);
}

static void summary_rx_json(struct json *j, const struct summary_rx *rx)
{
	if (!rx) {
		json_knull(j, "ring_drops");
		json_knull(j, "ifaces_lost");
		json_knull(j, "recording");
		json_knull(j, "rx");
		return;
	}
	json_ku64(j, "ring_drops", rx->st.ring_drops);
	ifaces_lost_json(j, rx);
	json_key(j, "recording");
	if (rx->recording) {
		json_obj_begin(j);
		json_kstr(j, "path", rx->recording);
		json_ku64(j, "records", rx->written);
		json_ku64(j, "not_written", rx->not_written);
		json_ku64(j, "extras", rx->extras);
		json_ku64(j, "extras_not_written", rx->extras_lost);
		json_obj_end(j);
	} else {
		json_null(j);
	}
	json_key(j, "rx");
	json_obj_begin(j);
	json_ku64(j, "packets", rx->st.packets);
	json_ku64(j, "bytes", rx->st.bytes);
	json_ku64(j, "hdr_corrupt", rx->st.hdr_corrupt);
	json_ku64(j, "csum_bad", rx->st.csum_bad);
	json_ku64(j, "wrong_bits", rx->st.wrong_bits);
	json_ku64(j, "foreign", rx->st.foreign);
	json_ku64(j, "ctrl", rx->st.ctrl);
	json_ku64(j, "ctrl_drops", rx->st.ctrl_drops);
	json_ku64(j, "bad_consumer", rx->st.bad_consumer);
	json_ku64(j, "kept", rx->st.kept);
	json_ku64(j, "keep_drops", rx->st.keep_drops);
	json_ku64(j, "unknown_tg", rx->unknown);
	json_obj_end(j);
}

static void summary_json(FILE *f, const struct summary *s)
{
	struct json j;
	size_t i;

	json_init(&j, f);
	json_obj_begin(&j);
	json_kstr(&j, "format", SUMMARY_FORMAT);
	json_ku64(&j, "version", SUMMARY_VERSION);
	json_kstr(&j, "command", s->command);
	json_kstr(&j, "file", s->file);
	if (s->run_id)
		json_ku64(&j, "run_id", s->run_id);
	else
		json_knull(&j, "run_id");
	json_ku64(&j, "start_ns", s->start_ns);
	json_ku64(&j, "end_ns", s->end_ns);
	json_kbool(&j, "interrupted", s->interrupted);
	json_key(&j, "tgs");
	json_arr_begin(&j);
	for (i = 0; i < s->ntgs; i++)
		tg_json(&j, &s->tgs[i]);
	json_arr_end(&j);
	summary_rx_json(&j, s->rx);
	json_obj_end(&j);
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
