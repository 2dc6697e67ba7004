// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Lateness percentiles and the JSON summary.
 *
 * The histogram (kmod/uapi/mtg.h) has a bucket per value below 8, then 8
 * buckets per power of two. Percentile p is the bucket holding the packet of
 * rank ceil(count * p), reported as that bucket's largest value, capped at
 * lateness_max_ns (the last bucket has no upper end).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "json.h"
#include "module.h"
#include "summary.h"

uint64_t lat_bucket_max(unsigned int b)
{
	unsigned int e, sub;

	if (b < 8)
		return b;
	if (b >= MTG_LAT_BUCKETS - 1)
		return UINT64_MAX;
	e = 3 + (b - 8) / 8;
	sub = (b - 8) % 8;
	return ((uint64_t)(9 + sub) << (e - 3)) - 1;
}

/* The bucket of the packet of rank ceil(count * num / 1000). */
static uint64_t percentile(const struct mtg_tg_stats *st, uint64_t count,
			   unsigned int num)
{
	uint64_t rank = count / 1000 * num + (count % 1000 * num + 999) / 1000;
	uint64_t seen = 0, v;
	unsigned int b;

	if (!rank)
		rank = 1;
	for (b = 0; b < MTG_LAT_BUCKETS; b++) {
		seen += st->lateness_hist[b];
		if (seen >= rank)
			break;
	}
	v = lat_bucket_max(b < MTG_LAT_BUCKETS ? b : MTG_LAT_BUCKETS - 1);
	return v < st->lateness_max_ns ? v : st->lateness_max_ns;
}

void lateness_from_stats(const struct mtg_tg_stats *st, struct lateness *l)
{
	uint64_t count = 0;
	unsigned int b;

	memset(l, 0, sizeof(*l));
	for (b = 0; b < MTG_LAT_BUCKETS; b++)
		count += st->lateness_hist[b];
	if (!count || !st->sent)
		return;
	l->valid = true;
	l->p50 = percentile(st, count, 500);
	l->p99 = percentile(st, count, 990);
	l->p999 = percentile(st, count, 999);
	l->max = st->lateness_max_ns;
	l->mean = st->lateness_sum_ns / st->sent;
}

static void lateness_json(struct json *j, const struct mtg_tg_stats *st)
{
	struct lateness l;

	lateness_from_stats(st, &l);
	json_key(j, "lateness_ns");
	json_obj_begin(j);
#define LAT(name)					\
	do {						\
		if (l.valid)				\
			json_ku64(j, #name, l.name);	\
		else					\
			json_knull(j, #name);		\
	} while (0)
	LAT(p50);
	LAT(p99);
	LAT(p999);
	LAT(max);
	LAT(mean);
#undef LAT
	json_obj_end(j);
}

static void tg_json(struct json *j, const struct summary_tg *t)
{
	const struct mtg_tg_stats *st = t->st;
	char mac[18];

	snprintf(mac, sizeof(mac), "%02x:%02x:%02x:%02x:%02x:%02x",
		 t->dst_mac[0], t->dst_mac[1], t->dst_mac[2], t->dst_mac[3],
		 t->dst_mac[4], t->dst_mac[5]);

	json_obj_begin(j);
	json_ku64(j, "id", st->tg_id);
	json_ku64(j, "sent", st->sent);
	json_ku64(j, "tx_errors", st->tx_errors);
	lateness_json(j, st);
	json_ku64(j, "events", st->events);
	json_kstr(j, "state", mtg_tg_state_name(st->state));
	json_kstr(j, "error", mtg_tg_error_name(st->error));
	json_ku64(j, "bytes", st->bytes);
	json_ku64(j, "skipped_late", st->skipped_late);
	json_ku64(j, "bad_entries", st->bad_entries);
	json_ku64(j, "underruns", st->underruns);
	json_ku64(j, "late_packets", st->late_packets);
	json_ku64(j, "ctrl_sent", st->ctrl_sent);
	json_ku64(j, "early", st->early);
	json_ku64(j, "cpu", st->cpu);
	json_kstr(j, "dev", t->dev);
	json_kstr(j, "netns", t->netns);
	json_kstr(j, "mode", t->mode);
	json_kstr(j, "path", t->path);
	json_ku64(j, "spin_ns", st->spin_ns);
	json_ku64(j, "lead_ns", st->lead_ns);
	json_kstr(j, "dst_mac", mac);
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
	json_kstr(&j, "file", s->file);
	json_ku64(&j, "run_id", s->run_id);
	json_ku64(&j, "start_ns", s->start_ns);
	json_ku64(&j, "end_ns", s->end_ns);
	json_kbool(&j, "interrupted", s->interrupted);
	json_key(&j, "tgs");
	json_arr_begin(&j);
	for (i = 0; i < s->ntgs; i++)
		tg_json(&j, &s->tgs[i]);
	json_arr_end(&j);
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
