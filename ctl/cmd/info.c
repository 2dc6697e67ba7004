// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * mtgctl info: check a recording and say what it holds: its header, and
 * per flow what the records show (counted as a live run counts them,
 * meter.h), so a recording can be checked against the run's summary.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "idf/idf.h"
#include "idf/units.h"
#include "rx/meter.h"
#include "rx/recording.h"
#include "rx/summary.h"
#include "util/jw.h"

#define INFO_BATCH	4096	/* records read at a time */

struct info {
	struct rec_reader r;
	struct meter_set flows;
	uint64_t hdr_corrupt;
	uint64_t first_rx_ns, last_rx_ns;
	uint64_t extras[REC_EXTRA_RATE + 1];	/* entries by type */
	uint8_t *data;			/* an extra entry's data */
};

#define INFO_DATA_MAX	(65536 * 4)	/* an entry's data, read whole */

/*
 * The extra entries one by one (cb each, unless NULL): counted by type.
 * 0 or -errno (a damaged entry said so).
 */
static int each_extra(struct info *in,
		      void (*cb)(struct info *in, const struct rec_extra *e,
				 void *arg), void *arg)
{
	struct rec_extra e;
	uint64_t pos = 0;
	int ret;

	memset(in->extras, 0, sizeof(in->extras));
	while ((ret = rec_extra_next(&in->r, &pos, &e, in->data,
				     INFO_DATA_MAX)) > 0) {
		if (e.type <= REC_EXTRA_RATE)
			in->extras[e.type]++;
		else
			in->extras[0]++;	/* of a later version */
		if (cb)
			cb(in, &e, arg);
	}
	return ret;
}

static void print_ctrl(struct info *in, const struct rec_extra *e, void *arg)
{
	char text[128];

	(void)arg;
	if (e->type != REC_EXTRA_CTRL)
		return;
	idf_data_str(in->data, e->data_len, text, sizeof(text));
	printf("control message: run %u tg %u seq %" PRIu64 ", received %" PRIu64 " (CLOCK_TAI), %u bytes %s\n",
	       e->run_id, e->tg_id, e->seq, e->rx_ns, e->data_len, text);
}

static void json_ctrl(struct info *in, const struct rec_extra *e, void *arg)
{
	struct jw *j = arg;
	char hex[2 * MTG_CTRLMSG_MAX + 1];
	uint32_t i, n = e->data_len < MTG_CTRLMSG_MAX ? e->data_len :
		MTG_CTRLMSG_MAX;

	if (e->type != REC_EXTRA_CTRL)
		return;
	for (i = 0; i < n; i++)
		snprintf(hex + 2 * i, 3, "%02x", in->data[i]);
	hex[2 * n] = '\0';
	jw_obj_begin(j);
	jw_ku64(j, "run_id", e->run_id);
	jw_ku64(j, "tg_id", e->tg_id);
	jw_ku64(j, "seq", e->seq);
	jw_ku64(j, "rx_ns", e->rx_ns);
	jw_ku64(j, "tx_ns", e->tx_ns);
	jw_ku64(j, "iface", e->iface);
	jw_ku64(j, "flags", e->rx_flags);
	jw_ku64(j, "len", e->data_len);
	jw_kstr(j, "hex", hex);
	jw_obj_end(j);
}

/* A rate change's data (checked when the entry was read). */
static bool rate_of(const struct info *in, const struct rec_extra *e,
		    struct rec_extra_rate *d)
{
	char why[160];

	return e->type == REC_EXTRA_RATE &&
	       !rec_rate_read(e, in->data, d, why, sizeof(why));
}

static void print_rate(struct info *in, const struct rec_extra *e, void *arg)
{
	struct rec_extra_rate d;

	(void)arg;
	if (rate_of(in, e, &d))
		printf("rate change: run %u tg %u from %" PRIu64 " (CLOCK_TAI): x%u/%u of its timetable's throughput (by %s)\n",
		       e->run_id, e->tg_id, e->rx_ns, d.num, d.den,
		       rec_rate_by_name(d.by));
}

static void json_rate(struct info *in, const struct rec_extra *e, void *arg)
{
	struct jw *j = arg;
	struct rec_extra_rate d;

	if (!rate_of(in, e, &d))
		return;
	jw_obj_begin(j);
	jw_ku64(j, "run_id", e->run_id);
	jw_ku64(j, "tg_id", e->tg_id);
	jw_ku64(j, "at_ns", e->rx_ns);
	jw_ku64(j, "num", d.num);
	jw_ku64(j, "den", d.den);
	jw_kstr(j, "by", rec_rate_by_name(d.by));
	jw_obj_end(j);
}

static int scan(struct info *in)
{
	struct mtg_rx_rec *buf = malloc(INFO_BATCH * sizeof(*buf));
	uint64_t k = 0;
	int64_t n, i;
	struct meter *m;
	bool oom;
	int err = 0;

	if (!buf)
		return -ENOMEM;
	while (k < in->r.records) {
		n = rec_read(&in->r, k, buf, INFO_BATCH);
		if (n <= 0) {
			err = n < 0 ? (int)n : -EIO;
			break;
		}
		for (i = 0; i < n; i++) {
			const struct mtg_rx_rec *rec = &buf[i];

			if (!k && !i)
				in->first_rx_ns = rec->rx_ns;
			in->last_rx_ns = rec->rx_ns;
			if (rec->flags & MTG_RX_F_HDR_CORRUPT) {
				in->hdr_corrupt++;
				continue;
			}
			m = meter_find(&in->flows, rec->run_id, rec->tg_id,
				       true, &oom);
			if (!m || meter_add(m, rec)) {
				err = -ENOMEM;
				break;
			}
		}
		if (err)
			break;
		k += (uint64_t)n;
	}
	free(buf);
	return err;
}

static void print_text(struct info *in)
{
	const struct rec_reader *r = &in->r;
	size_t i;

	printf("%s: mtg recording, format %u, %s\n", r->path, r->h.version,
	       r->complete ? "complete" : "not finished (the recorder stopped without closing it)");
	printf("records: %" PRIu64 " of %u bytes from byte %u", r->records,
	       r->h.record_bytes, r->h.header_bytes);
	if (r->partial)
		printf(", and %" PRIu64 " bytes of a cut one", r->partial);
	printf("\n");
	if (r->complete)
		printf("not written: %" PRIu64 ", ring drops: %" PRIu64 ", ended %" PRIu64 " (CLOCK_TAI)\n",
		       r->h.not_written, r->h.ring_drops, r->h.end_ns);
	if (r->h.ifaces_lost)
		printf("interfaces that went away while it recorded: %u (nothing was received on them after that)\n",
		       r->h.ifaces_lost);
	printf("metadata: %u bytes of JSON at byte 64\n", r->h.meta_bytes);
	printf("header-corrupt records: %" PRIu64 "\n", in->hdr_corrupt);
	if (r->h.version == REC_VERSION_EXTRAS) {
		printf("extra entries: %" PRIu64 " (%" PRIu64 " control messages, %" PRIu64 " payloads, %" PRIu64 " wrong-bit lists, %" PRIu64 " rate changes), %" PRIu64 " not written; the module lost %" PRIu64 " control messages and %" PRIu64 " payloads or wrong-bit lists\n",
		       r->has_extras ? r->xh.entries : 0,
		       in->extras[REC_EXTRA_CTRL],
		       in->extras[REC_EXTRA_PAYLOAD],
		       in->extras[REC_EXTRA_WRONG_BITS],
		       in->extras[REC_EXTRA_RATE], r->xh.extras_lost,
		       r->xh.ctrl_drops, r->xh.keep_drops);
	}
	for (i = 0; i < in->flows.n; i++) {
		printf("run %u tg %u: ", in->flows.all[i]->run_id,
		       in->flows.all[i]->tg_id);
		meter_print(stdout, in->flows.all[i], -1);
		printf("\n");
	}
	each_extra(in, print_ctrl, NULL);
	each_extra(in, print_rate, NULL);
}

static void print_json(struct info *in)
{
	const struct rec_reader *r = &in->r;
	struct hist_summary owd;
	struct jw j;
	size_t i;

	jw_init(&j, stdout);
	jw_obj_begin(&j);
	jw_kstr(&j, "path", r->path);
	jw_ku64(&j, "version", r->h.version);
	jw_kbool(&j, "complete", r->complete);
	jw_ku64(&j, "header_bytes", r->h.header_bytes);
	jw_ku64(&j, "record_bytes", r->h.record_bytes);
	jw_ku64(&j, "meta_bytes", r->h.meta_bytes);
	jw_ku64(&j, "records", r->records);
	jw_ku64(&j, "partial_bytes", r->partial);
	if (r->complete) {
		jw_ku64(&j, "not_written", r->h.not_written);
		jw_ku64(&j, "ring_drops", r->h.ring_drops);
		jw_ku64(&j, "end_ns", r->h.end_ns);
	} else {
		jw_knull(&j, "not_written");
		jw_knull(&j, "ring_drops");
		jw_knull(&j, "end_ns");
	}
	jw_ku64(&j, "ifaces_lost", r->h.ifaces_lost);
	jw_ku64(&j, "hdr_corrupt", in->hdr_corrupt);
	jw_key(&j, "flows");
	jw_arr_begin(&j);
	for (i = 0; i < in->flows.n; i++) {
		const struct meter *m = in->flows.all[i];

		owd_of_meter(m, &owd);
		jw_obj_begin(&j);
		jw_ku64(&j, "run_id", m->run_id);
		jw_ku64(&j, "tg_id", m->tg_id);
		jw_ku64(&j, "records", m->records);
		jw_ku64(&j, "received", m->received);
		jw_ku64(&j, "gaps", meter_lost(m, -1));
		jw_ku64(&j, "duplicates", m->duplicates);
		jw_ku64(&j, "reordered", m->reordered);
		jw_ku64(&j, "bit_errors", m->bit_errors);
		jw_ku64(&j, "bits", m->bits);
		jw_ku64(&j, "csum_bad", m->csum_bad);
		jw_ku64(&j, "implausible", m->implausible);
		jw_key(&j, "owd_ns");
		jw_obj_begin(&j);
		if (owd.valid) {
			jw_ku64(&j, "p50", owd.p50);
			jw_ku64(&j, "p99", owd.p99);
			jw_ku64(&j, "max", owd.max);
			jw_ku64(&j, "mean", owd.mean);
		}
		jw_obj_end(&j);
		jw_obj_end(&j);
	}
	jw_arr_end(&j);
	jw_key(&j, "extras");
	if (r->h.version == REC_VERSION_EXTRAS) {
		jw_obj_begin(&j);
		jw_ku64(&j, "entries", r->has_extras ? r->xh.entries : 0);
		jw_ku64(&j, "not_written", r->xh.extras_lost);
		jw_ku64(&j, "ctrl_drops", r->xh.ctrl_drops);
		jw_ku64(&j, "keep_drops", r->xh.keep_drops);
		jw_ku64(&j, "payloads", in->extras[REC_EXTRA_PAYLOAD]);
		jw_ku64(&j, "wrong_bit_lists", in->extras[REC_EXTRA_WRONG_BITS]);
		jw_key(&j, "ctrl");
		jw_arr_begin(&j);
		each_extra(in, json_ctrl, &j);
		jw_arr_end(&j);
		jw_key(&j, "rate_changes");
		jw_arr_begin(&j);
		each_extra(in, json_rate, &j);
		jw_arr_end(&j);
		jw_obj_end(&j);
	} else {
		jw_null(&j);
	}
	jw_obj_end(&j);
}

int cmd_info(const char *file, const struct info_opts *o)
{
	struct info in;
	int err, rc = EXIT_ERROR;

	memset(&in, 0, sizeof(in));
	if (rec_open(&in.r, file))
		return EXIT_ERROR;
	err = scan(&in);
	if (err) {
		pr_err("%s: cannot read the records: %s\n", file,
		       strerror(-err));
		goto out;
	}
	in.data = malloc(INFO_DATA_MAX);
	if (!in.data) {
		pr_err("out of memory\n");
		goto out;
	}
	/* every entry checked before anything is printed */
	err = each_extra(&in, NULL, NULL);
	if (err) {
		if (err != -EINVAL)
			pr_err("%s: cannot read the extra entries: %s\n",
			       file, strerror(-err));
		goto out;
	}
	if (o->json)
		print_json(&in);
	else
		print_text(&in);
	rc = fflush(stdout) ? EXIT_ERROR : EXIT_OK;
out:
	rec_close(&in.r);
	free(in.data);
	meter_set_free(&in.flows);
	return rc;
}
