// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A view's numbers (SI prefixes, times, rates, a row from a meter) and its
 * JSON line for --json-stream and `mtgctl replay` (dash.h). No curses here.
 */
#include <math.h>
#include <string.h>

#include "rx/listening.h"
#include "rx/meter.h"
#include "screen/dash.h"
#include "util/jw.h"

const char *dash_si(char *buf, size_t size, double v)
{
	static const char units[] = " kMGTP";
	size_t u = 0;

	if (!isfinite(v)) {
		snprintf(buf, size, "-");
		return buf;
	}
	while (fabs(v) >= 999.5 && u < sizeof(units) - 2) {
		v /= 1000.0;
		u++;
	}
	if (u == 0 && v == floor(v))
		snprintf(buf, size, "%.0f", v);
	else
		snprintf(buf, size, v >= 99.95 ? "%.0f%c" : v >= 9.995 ?
			 "%.1f%c" : "%.2f%c", v, units[u]);
	if (u == 0 && v != floor(v))
		buf[strlen(buf) - 1] = '\0';	/* no unit letter */
	return buf;
}

const char *dash_time(char *buf, size_t size, double ns)
{
	if (ns < 1e3)
		snprintf(buf, size, "%.0fns", ns);
	else if (ns < 1e6)
		snprintf(buf, size, "%.1fus", ns / 1e3);
	else if (ns < 1e9)
		snprintf(buf, size, "%.1fms", ns / 1e6);
	else
		snprintf(buf, size, "%.2fs", ns / 1e9);
	return buf;
}

void dash_view_total(struct dash_view *v)
{
	struct dash_totals *t = &v->totals;
	size_t i;

	memset(t, 0, sizeof(*t));
	for (i = 0; i < v->nrows; i++) {
		const struct dash_row *r = &v->rows[i];

		t->sent += r->sent;
		t->bytes += r->bytes;
		t->received += r->received;
		t->lost += r->lost;
		t->duplicates += r->duplicates;
		t->reordered += r->reordered;
		t->bit_errors += r->bit_errors;
		if (r->has_tx) {
			t->tx_pps += r->pps;
			t->tx_bps += r->bps;
		}
		t->rx_pps += r->rx_pps;
		t->rx_bps += r->rx_bps;
	}
}

void dash_rate(uint64_t now, uint64_t packets, uint64_t bytes,
	       uint64_t mark[3], double *pps, double *bps)
{
	double dt;

	if (!mark[0] || packets < mark[1]) {
		mark[0] = now;
		mark[1] = packets;
		mark[2] = bytes;
		return;
	}
	if (now < mark[0] + DASH_RATE_NS)
		return;
	dt = (double)(now - mark[0]) / 1e9;
	*pps = (double)(packets - mark[1]) / dt;
	*bps = 8.0 * (double)(bytes - mark[2]) / dt;
	mark[0] = now;
	mark[1] = packets;
	mark[2] = bytes;
}

void dash_row_meter(struct dash_row *r, const struct meter *m, uint64_t now,
		    int64_t sent, uint64_t nowb)
{
	uint64_t errors, bits;

	r->has_rx = true;
	dash_rate(now, m->received, m->bytes, r->rx_mark, &r->rx_pps,
		  &r->rx_bps);
	r->received = m->received;
	r->lost = meter_lost(m, sent);
	r->duplicates = m->duplicates;
	r->reordered = m->reordered;
	r->bit_errors = m->bit_errors;
	meter_gaps(m, r->gaps, sizeof(r->gaps));
	r->owd_valid = m->owd_count > 0;
	r->owd_ns = r->owd_valid ? (double)m->owd_sum / (double)m->owd_count : 0;
	r->jitter_ns = m->jitter_ns;
	/* MTG: the BER shown moves once nowb more wrong bits came in. */
	errors = m->bit_errors - r->ber_errors_mark;
	bits = m->bits - r->ber_bits_mark;
	if (!nowb || !r->ber_valid) {
		r->ber_valid = m->bits > 0;
		r->ber = r->ber_valid ? (double)m->bit_errors / (double)m->bits : 0;
	}
	if (nowb && errors >= nowb && bits) {
		r->ber = (double)errors / (double)bits;
		r->ber_errors_mark = m->bit_errors;
		r->ber_bits_mark = m->bits;
	}
}

void dash_view_listening(struct dash_view *v, const struct listening *ls)
{
	struct mtg_rx_stats st;
	int64_t fill;

	mtg_dev_rx_stats_shm(ls->rx.dev, &st);
	fill = mtg_ring_ready(&ls->rx.dev->data);
	v->listening = true;
	v->ring_fill = fill > 0 ? (uint64_t)fill : 0;
	v->ring_size = ls->rx.dev->data.nr;
	v->ring_drops = st.ring_drops;
	v->ctrl_drops = st.ctrl_drops;
	v->keep_drops = st.keep_drops;
	v->rx_records = ls->rx.records;
	v->hdr_corrupt = ls->rx.hdr_corrupt;
	v->recording = ls->out;
	v->recorded = ls->rec.written + ls->rec.len / sizeof(struct mtg_rx_rec);
	v->recording_bytes = ls->recording || ls->out ? ls->rec.header_bytes +
		v->recorded * sizeof(struct mtg_rx_rec) : 0;
	v->ifaces_lost = ls->lost_names;
	v->nifaces_lost = ls->nlost;
}

static void kdouble_or_null(struct jw *j, const char *key, bool valid,
			    double v)
{
	if (valid && isfinite(v))
		jw_kdouble(j, key, v);
	else
		jw_knull(j, key);
}

void dash_view_json(FILE *f, const struct dash_view *v, const char *type,
		    const struct dash_events *ev, uint64_t *since)
{
	const struct dash_totals *t = &v->totals;
	struct jw j;
	uint64_t k;
	size_t i;

	jw_init_compact(&j, f);
	jw_obj_begin(&j);
	jw_kstr(&j, "format", DASH_FORMAT);
	jw_ku64(&j, "version", DASH_VERSION);
	jw_kstr(&j, "type", type);
	jw_kstr(&j, "command", v->command);
	jw_kstr(&j, "file", v->file);
	jw_ku64(&j, "run_id", v->run_id);
	jw_ku64(&j, "time_ns", v->time_ns);
	jw_ku64(&j, "elapsed_ns", v->elapsed_ns);
	if (v->remaining_known)
		jw_ku64(&j, "remaining_ns", v->remaining_ns);
	else
		jw_knull(&j, "remaining_ns");
	jw_kstr(&j, "phase", v->phase);
	jw_key(&j, "totals");
	jw_obj_begin(&j);
	jw_ku64(&j, "sent", t->sent);
	jw_ku64(&j, "bytes", t->bytes);
	jw_ku64(&j, "received", t->received);
	jw_ku64(&j, "lost", t->lost);
	jw_ku64(&j, "duplicates", t->duplicates);
	jw_ku64(&j, "reordered", t->reordered);
	jw_ku64(&j, "bit_errors", t->bit_errors);
	jw_ku64(&j, "late_packets", t->late_packets);
	jw_kdouble(&j, "tx_pps", t->tx_pps);
	jw_kdouble(&j, "tx_bps", t->tx_bps);
	jw_kdouble(&j, "rx_pps", t->rx_pps);
	jw_kdouble(&j, "rx_bps", t->rx_bps);
	jw_obj_end(&j);
	jw_key(&j, "rx");
	if (v->listening) {
		jw_obj_begin(&j);
		jw_ku64(&j, "ring_fill", v->ring_fill);
		jw_ku64(&j, "ring_size", v->ring_size);
		jw_ku64(&j, "ring_drops", v->ring_drops);
		jw_ku64(&j, "ctrl_drops", v->ctrl_drops);
		jw_ku64(&j, "keep_drops", v->keep_drops);
		jw_ku64(&j, "records", v->rx_records);
		jw_ku64(&j, "hdr_corrupt", v->hdr_corrupt);
		jw_kstr(&j, "recording", v->recording);
		jw_ku64(&j, "recorded", v->recorded);
		jw_ku64(&j, "recording_bytes", v->recording_bytes);
		jw_key(&j, "ifaces_lost");
		jw_arr_begin(&j);
		for (i = 0; i < v->nifaces_lost; i++)
			jw_str(&j, v->ifaces_lost[i]);
		jw_arr_end(&j);
		jw_obj_end(&j);
	} else {
		jw_null(&j);
	}
	jw_key(&j, "tgs");
	jw_arr_begin(&j);
	for (i = 0; i < v->nrows; i++) {
		const struct dash_row *r = &v->rows[i];

		jw_obj_begin(&j);
		jw_ku64(&j, "id", r->id);
		jw_ku64(&j, "run_id", r->run_id);
		jw_kstr(&j, "model", r->model);
		jw_kstr(&j, "dst", r->dst);
		jw_kstr(&j, "state", r->state);
		jw_kbool(&j, "tx", r->has_tx);
		jw_kbool(&j, "rx", r->has_rx);
		jw_kdouble(&j, "requested_pps", r->req_pps);
		jw_kdouble(&j, "requested_bps", r->req_bps);
		jw_kdouble(&j, "rate_factor", r->rate_factor);
		jw_kdouble(&j, "pps", r->pps);
		jw_kdouble(&j, "bps", r->bps);
		jw_kdouble(&j, "rx_pps", r->rx_pps);
		jw_kdouble(&j, "rx_bps", r->rx_bps);
		jw_ku64(&j, "sent", r->sent);
		jw_ku64(&j, "bytes", r->bytes);
		jw_ku64(&j, "received", r->received);
		jw_ku64(&j, "lost", r->lost);
		jw_kstr(&j, "gaps", r->gaps);
		jw_ku64(&j, "duplicates", r->duplicates);
		jw_ku64(&j, "reordered", r->reordered);
		jw_ku64(&j, "bit_errors", r->bit_errors);
		kdouble_or_null(&j, "ber", r->ber_valid, r->ber);
		kdouble_or_null(&j, "owd_ns", r->owd_valid, r->owd_ns);
		kdouble_or_null(&j, "jitter_ns", r->owd_valid, r->jitter_ns);
		if (r->late_valid)
			jw_ku64(&j, "lateness_p99_ns", r->late_p99_ns);
		else
			jw_knull(&j, "lateness_p99_ns");
		jw_obj_end(&j);
	}
	jw_arr_end(&j);
	jw_key(&j, "events");
	jw_arr_begin(&j);
	k = *since;
	if (ev->count > DASH_EVENTS && k < ev->count - DASH_EVENTS)
		k = ev->count - DASH_EVENTS;	/* the older ones are gone */
	for (; k < ev->count; k++)
		jw_str(&j, ev->ring[k % DASH_EVENTS].text);
	*since = ev->count;
	jw_arr_end(&j);
	jw_obj_end(&j);
	fflush(f);
}
