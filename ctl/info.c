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

#include "json.h"
#include "meter.h"
#include "mtgctl.h"
#include "recording.h"
#include "summary.h"

#define INFO_BATCH	4096	/* records read at a time */

struct info {
	struct rec_reader r;
	struct meter_set flows;
	uint64_t hdr_corrupt;
	uint64_t first_rx_ns, last_rx_ns;
};

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

static void print_text(const struct info *in)
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
	for (i = 0; i < in->flows.n; i++) {
		printf("run %u tg %u: ", in->flows.all[i]->run_id,
		       in->flows.all[i]->tg_id);
		meter_print(stdout, in->flows.all[i], -1);
		printf("\n");
	}
}

static void print_json(const struct info *in)
{
	const struct rec_reader *r = &in->r;
	struct hist_summary owd;
	struct json j;
	size_t i;

	json_init(&j, stdout);
	json_obj_begin(&j);
	json_kstr(&j, "path", r->path);
	json_ku64(&j, "version", r->h.version);
	json_kbool(&j, "complete", r->complete);
	json_ku64(&j, "header_bytes", r->h.header_bytes);
	json_ku64(&j, "record_bytes", r->h.record_bytes);
	json_ku64(&j, "meta_bytes", r->h.meta_bytes);
	json_ku64(&j, "records", r->records);
	json_ku64(&j, "partial_bytes", r->partial);
	if (r->complete) {
		json_ku64(&j, "not_written", r->h.not_written);
		json_ku64(&j, "ring_drops", r->h.ring_drops);
		json_ku64(&j, "end_ns", r->h.end_ns);
	} else {
		json_knull(&j, "not_written");
		json_knull(&j, "ring_drops");
		json_knull(&j, "end_ns");
	}
	json_ku64(&j, "ifaces_lost", r->h.ifaces_lost);
	json_ku64(&j, "hdr_corrupt", in->hdr_corrupt);
	json_key(&j, "flows");
	json_arr_begin(&j);
	for (i = 0; i < in->flows.n; i++) {
		const struct meter *m = in->flows.all[i];

		owd_of_meter(m, &owd);
		json_obj_begin(&j);
		json_ku64(&j, "run_id", m->run_id);
		json_ku64(&j, "tg_id", m->tg_id);
		json_ku64(&j, "records", m->records);
		json_ku64(&j, "received", m->received);
		json_ku64(&j, "gaps", meter_lost(m, -1));
		json_ku64(&j, "duplicates", m->duplicates);
		json_ku64(&j, "reordered", m->reordered);
		json_ku64(&j, "bit_errors", m->bit_errors);
		json_ku64(&j, "bits", m->bits);
		json_ku64(&j, "csum_bad", m->csum_bad);
		json_ku64(&j, "implausible", m->implausible);
		json_key(&j, "owd_ns");
		json_obj_begin(&j);
		if (owd.valid) {
			json_ku64(&j, "p50", owd.p50);
			json_ku64(&j, "p99", owd.p99);
			json_ku64(&j, "max", owd.max);
			json_ku64(&j, "mean", owd.mean);
		}
		json_obj_end(&j);
		json_obj_end(&j);
	}
	json_arr_end(&j);
	json_obj_end(&j);
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
	if (o->json)
		print_json(&in);
	else
		print_text(&in);
	rc = fflush(stdout) ? EXIT_ERROR : EXIT_OK;
out:
	rec_close(&in.r);
	meter_set_free(&in.flows);
	return rc;
}
