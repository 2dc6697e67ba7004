// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * `dist behaviour` (behave.h). The packet to come is drawn ahead: in the
 * category of the moment, its model gives the gap to it; a departure that
 * would fall at or after the category's end is not sent, the chain moves
 * on (the next category, then the time in it) and the new category's
 * model gives the gap from its start. So each entry's length is that of a
 * packet whose category is the one at its departure, and mtgsap, which
 * knows each category's times from the seed, splits a recording by the
 * packets' scheduled departures. The arithmetic of the chain is plain
 * doubles and libm's log, written so that Python's floats give the same
 * results (analysis/mtgsap/behaviour.py).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "traffic/behave.h"
#include "traffic/models.h"
#include "traffic/rng.h"

uint32_t beh_chain_seed(uint32_t seed)
{
	uint64_t a = LEHMER_MULTIPLIER, x = 1, n = BEH_JUMP;

	/* a^BEH_JUMP mod m, then the seed that many steps on */
	for (; n; n >>= 1) {
		if (n & 1)
			x = x * a % LEHMER_MODULUS;
		a = a * a % LEHMER_MODULUS;
	}
	return (uint32_t)(x * seed % LEHMER_MODULUS);
}

/* A category drawn from the chances p (in order; the last possible one
 * takes what rounding leaves). */
static unsigned int pick(struct beh_gen *s, const double *p)
{
	double u = lehmer_uniform(&s->chain), acc = 0;
	unsigned int j, last = 0;

	for (j = 0; j < s->b->ncat; j++) {
		if (!(p[j] > 0))
			continue;
		last = j;
		acc += p[j];
		if (u < acc)
			return j;
	}
	return last;
}

/* The time in the category now: exponential, whole ns. */
static uint64_t sojourn(struct beh_gen *s)
{
	double u = lehmer_uniform(&s->chain);

	return (uint64_t)floor(-(double)s->b->cat[s->cat].mean * log(u) + 0.5);
}

/* The packet to come, after from (a departure, or a category's start). */
static void draw(struct beh_gen *s, uint64_t from)
{
	struct mtg_tt_entry e;

	for (;;) {
		model_next(&s->sub[s->cat], &e);
		if (from + e.gap_ns < s->end) {
			s->at = from + e.gap_ns;
			s->len = e.len;
			s->at_cat = s->cat;
			return;
		}
		from = s->end;
		s->cat = pick(s, s->b->next[s->cat]);
		s->end += sojourn(s);
	}
}

int beh_init(struct beh_gen *s, const struct idf_tg *tg, char *err,
	     size_t size)
{
	const struct idf_behaviour *b = tg->beh;
	unsigned int c;

	memset(s, 0, sizeof(*s));
	s->b = b;
	s->rng = rng_new(tg->rng, idf_seed(tg));
	s->sub = calloc(b->ncat, sizeof(*s->sub));
	if (!s->rng || !s->sub) {
		snprintf(err, size, "out of memory for the behaviour");
		beh_free(s);
		return -1;
	}
	for (c = 0; c < b->ncat; c++) {
		s->cat_tg[c] = b->cat[c].model;
		s->cat_tg[c].id = tg->id;
		s->cat_tg[c].dst.family = tg->dst.family;
		if (model_init_on(&s->sub[c], &s->cat_tg[c], s->rng, err,
				  size)) {
			beh_free(s);
			return -1;
		}
	}
	lehmer_init(&s->chain, beh_chain_seed(idf_seed(tg)));
	/* the chain starts in its stationary distribution (of the time) */
	s->cat = pick(s, b->share);
	s->end = sojourn(s);
	draw(s, 0);
	s->first_ns = s->at;
	return 0;
}

void beh_next(struct beh_gen *s, struct mtg_tt_entry *e)
{
	uint64_t at = s->at;

	memset(e, 0, sizeof(*e));
	e->len = s->len;
	s->last_cat = s->at_cat;
	draw(s, at);
	e->gap_ns = s->at - at;
}

void beh_counts(const struct beh_gen *s, uint64_t *clipped,
		uint64_t *len_clamped)
{
	unsigned int c;

	*clipped = *len_clamped = 0;
	for (c = 0; c < s->b->ncat; c++) {
		*clipped += s->sub[c].clipped;
		*len_clamped += s->sub[c].len_clamped;
	}
}

void beh_free(struct beh_gen *s)
{
	unsigned int c;

	for (c = 0; s->sub && c < s->b->ncat; c++)
		model_free(&s->sub[c]);
	free(s->sub);
	if (s->rng)
		gsl_rng_free(s->rng);
	memset(s, 0, sizeof(*s));
}

double beh_typical_gap(const struct idf_tg *tg)
{
	const struct idf_behaviour *b = tg->beh;
	double rate = 0;
	unsigned int c;

	if (!b || !b->valid)
		return 1e6;
	for (c = 0; c < b->ncat; c++)
		rate += b->share[c] / model_typical_gap(&b->cat[c].model);
	return rate > 0 ? 1 / rate : 1e6;
}
