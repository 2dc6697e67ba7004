// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Timetable builders.
 *
 * Fixed rate: with `pkts` and `thro` the gap is len * 8 / thro seconds, the
 * fraction num / den nanoseconds in lowest terms. When den is 1 the table
 * is one entry. Otherwise the table holds den entries (at most
 * TT_SPREAD_MAX) whose gaps are floor((k + 1) num / den) - floor(k num /
 * den): each within a nanosecond of the exact gap, and together exactly
 * num ns, so the long-run rate is the one asked. A den above TT_SPREAD_MAX
 * gets TT_SPREAD_MAX entries summing to the nearest whole number of ns: the
 * rate is then off by at most 0.5 ns per TT_SPREAD_MAX gaps.
 * With `inta` the gap is given in whole ns: one entry.
 *
 * Every other model (and fixed gaps with variable lengths) draws its
 * entries from models.h. Its table covers the TG's `count`, else its
 * `time` duration, else TT_LOOP_SECONDS of traffic at its mean rate,
 * within TT_LEN_MIN .. TT_LEN_MAX entries; a longer run loops over it.
 *
 * Streaming (`table stream`, or by default a random model whose run is
 * longer than that table: no count and no duration, or more packets than
 * it holds): the table holds TT_LOOKAHEAD_SECONDS of traffic at the mean
 * rate (within the same bounds), and the generator stays alive so that
 * mtgctl run refills the table behind the module and the run never
 * repeats. `mtgctl table` draws the same sequence.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "traffic/behave.h"
#include "traffic/gap.h"
#include "traffic/models.h"
#include "traffic/tables.h"

static int tt_alloc(struct tt *tt, size_t len, char *err, size_t size)
{
	tt->entries = calloc(len, sizeof(*tt->entries));
	if (!tt->entries) {
		snprintf(err, size, "out of memory for a %zu-entry table", len);
		return -1;
	}
	tt->len = len;
	return 0;
}

/* len entries of length bytes whose gaps sum to period, spread evenly. */
static void tt_spread(struct tt *tt, uint64_t period, uint32_t length)
{
	uint64_t prev = 0, next;
	size_t k;

	for (k = 0; k < tt->len; k++) {
		next = (k + 1) * period / tt->len;
		tt->entries[k].gap_ns = next - prev;
		tt->entries[k].len = length;
		prev = next;
	}
	tt->period_ns = period;
}

static int tt_build_fixed(const struct idf_tg *tg, struct tt *tt, char *err,
			  size_t size)
{
	struct gap g = gap_reduced(gap_asked(tg));
	uint64_t num = g.num, den = g.den;
	size_t len;

	tt->mean_num = num;
	tt->mean_den = den;
	tt->exact = den <= TT_SPREAD_MAX;
	len = tt->exact ? den : TT_SPREAD_MAX;
	if (tt_alloc(tt, len, err, size))
		return -1;
	/* num < 2^47 and len <= 1000: no product below overflows. */
	if (tt->exact)
		tt_spread(tt, num, tg->len_max);
	else
		tt_spread(tt, (len * num + den / 2) / den, tg->len_max);
	return 0;
}

double tt_typical_gap(const struct idf_tg *tg)
{
	if (tg->dist == IDF_DIST_BEHAVIOUR)
		return beh_typical_gap(tg);
	return model_typical_gap(tg);
}

size_t tt_len_for(const struct idf_tg *tg)
{
	double n, span = (double)TT_LOOP_SECONDS * 1e9;

	if (tg->count)
		n = (double)tg->count;
	else
		n = (tg->duration ? (double)tg->duration : span) /
			tt_typical_gap(tg) + 1;
	if (!tg->count && n < TT_LEN_MIN)
		n = TT_LEN_MIN;
	return n > TT_LEN_MAX ? TT_LEN_MAX : (size_t)ceil(n);
}

bool tt_streams(const struct idf_tg *tg)
{
	double loop = (double)tt_len_for(tg), expected;

	if (tg->dist == IDF_DIST_BEHAVIOUR)
		return true;	/* the categories never repeat */
	if (idf_has(tg, IDF_KW_table))
		return tg->table == IDF_TABLE_STREAM;
	if (tg->dist == IDF_DIST_TRACE || tg->dist == IDF_DIST_PCAP)
		return false;	/* tt_build_model() sizes it by the file */
	if (tg->dist == IDF_DIST_FIXED && !idf_len_drawn(tg) &&
	    !tg->jitter && tg->time != IDF_TIME_POISSON)
		return false;	/* exact and periodic: nothing to draw */
	if (tg->count)
		expected = (double)tg->count;
	else if (tg->duration)
		expected = (double)tg->duration / tt_typical_gap(tg);
	else
		return true;
	return expected > loop;
}

static size_t tt_lookahead(const struct idf_tg *tg)
{
	double n = TT_LOOKAHEAD_SECONDS * 1e9 / tt_typical_gap(tg);

	if (n < TT_LEN_MIN)
		return TT_LEN_MIN;
	return n > TT_LEN_MAX ? TT_LEN_MAX : (size_t)ceil(n);
}

static int tt_build_model(const struct idf_tg *tg, struct tt *tt, char *err,
			  size_t size)
{
	struct model_gen *g = calloc(1, sizeof(*g));
	size_t k, len;

	if (!g) {
		snprintf(err, size, "out of memory for the generator");
		return -1;
	}
	tt->stream = tt_streams(tg);
	if (model_init(g, tg, err, size)) {
		free(g);
		return -1;
	}
	len = tt->stream ? tt_lookahead(tg) : tt_len_for(tg);
	if (g->file_len) {
		/* a file loops in one table, or streams round if too long */
		tt->stream = tt->stream || g->file_len > TT_LEN_MAX;
		len = g->file_len < TT_LEN_MAX ? g->file_len : TT_LEN_MAX;
		if (tt->stream && len > TT_STREAM_FILE)
			len = TT_STREAM_FILE;
	}
	if (tt_alloc(tt, len, err, size)) {
		model_free(g);
		free(g);
		return -1;
	}
	for (k = 0; k < tt->len; k++) {
		model_next(g, &tt->entries[k]);
		tt->period_ns += tt->entries[k].gap_ns;
	}
	tt->clipped = g->clipped;
	tt->negative = g->negative;
	tt->len_clamped = g->len_clamped;
	tt->first_ns = g->first_ns;
	tt->backwards = g->backwards;
	if (tt->stream) {
		tt->gen = g;
	} else {
		model_free(g);
		free(g);
	}
	return 0;
}

/*
 * dist behaviour: always a stream (the categories never repeat), its
 * entries' categories beside them.
 */
static int tt_build_behaviour(const struct idf_tg *tg, struct tt *tt,
			      char *err, size_t size)
{
	struct beh_gen *s = calloc(1, sizeof(*s));
	size_t k;

	if (!s) {
		snprintf(err, size, "out of memory for the generator");
		return -1;
	}
	if (beh_init(s, tg, err, size)) {
		free(s);
		return -1;
	}
	tt->stream = true;
	tt->beh = s;
	if (tt_alloc(tt, tt_lookahead(tg), err, size)) {
		tt_free(tt);
		return -1;
	}
	tt->cats = malloc(tt->len);
	if (!tt->cats) {
		snprintf(err, size, "out of memory for a %zu-entry table",
			 tt->len);
		tt_free(tt);
		return -1;
	}
	for (k = 0; k < tt->len; k++) {
		beh_next(s, &tt->entries[k]);
		tt->period_ns += tt->entries[k].gap_ns;
		tt->cats[k] = (uint8_t)s->last_cat;
	}
	beh_counts(s, &tt->clipped, &tt->len_clamped);
	tt->first_ns = s->first_ns;
	return 0;
}

int tt_category(const struct tt *tt, uint64_t k)
{
	if (!tt->cats)
		return -1;
	if (k < tt->len)
		return tt->cats[k];
	return (int)tt->beh->last_cat;
}

void tt_entry(struct tt *tt, uint64_t k, struct mtg_tt_entry *e)
{
	if (tt->beh && k >= tt->len) {
		beh_next(tt->beh, e);
		beh_counts(tt->beh, &tt->clipped, &tt->len_clamped);
		return;
	}
	if (!tt->stream || k < tt->len) {
		*e = tt->entries[k % tt->len];
		return;
	}
	model_next(tt->gen, e);
	tt->clipped = tt->gen->clipped;
	tt->negative = tt->gen->negative;
	tt->len_clamped = tt->gen->len_clamped;
}

int tt_build(const struct idf_tg *tg, struct tt *tt, char *err, size_t size)
{
	memset(tt, 0, sizeof(*tt));
	if (tg->dist == IDF_DIST_BEHAVIOUR)
		return tt_build_behaviour(tg, tt, err, size);
	if (tg->dist == IDF_DIST_FIXED && !idf_len_drawn(tg) &&
	    !tg->jitter && tg->time != IDF_TIME_POISSON && !tt_streams(tg))
		return tt_build_fixed(tg, tt, err, size);
	return tt_build_model(tg, tt, err, size);
}

void tt_free(struct tt *tt)
{
	if (tt->gen) {
		model_free(tt->gen);
		free(tt->gen);
	}
	if (tt->beh) {
		beh_free(tt->beh);
		free(tt->beh);
	}
	free(tt->entries);
	free(tt->cats);
	memset(tt, 0, sizeof(*tt));
}
