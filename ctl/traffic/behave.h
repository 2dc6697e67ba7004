/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * `dist behaviour`: a TG's categories of actions (Documentation/idf.rst,
 * "Behaviours"). The categories follow each other as a Markov chain with
 * exponential times in each, drawn from a generator of their own (MTG's
 * Lehmer stream of the TG's seed, BEH_JUMP steps on), so that the
 * categories are a function of the seed and the behaviour alone:
 * mtgsap works them out again from a recording's metadata. In each
 * category its model (models.h, on the TG's generator) gives the gaps
 * and lengths.
 */
#ifndef MTGCTL_BEHAVE_H
#define MTGCTL_BEHAVE_H

#include <stddef.h>
#include <stdint.h>

#include <gsl/gsl_rng.h>

#include "idf/idf.h"
#include "traffic/lehmer.h"
#include "uapi/mtg.h"

/* The categories' stream starts this many steps into the TG's Lehmer stream. */
#define BEH_JUMP	(1ULL << 30)

struct model_gen;

struct beh_gen {
	const struct idf_behaviour *b;
	gsl_rng *rng;		/* the TG's: its categories' models draw from it */
	uint64_t first_ns;	/* the first departure after the TG's start */
	struct lehmer chain;	/* the categories' own generator */
	struct idf_tg cat_tg[IDF_BEH_CATS];	/* each model, the TG's family */
	struct model_gen *sub;	/* each category's model, on the TG's rng */
	unsigned int cat;	/* the category now */
	uint64_t end;		/* ns after the TG's start: the category's end */
	/* the packet to come: its departure, length and category */
	uint64_t at;
	uint32_t len;
	unsigned int at_cat;
	unsigned int last_cat;	/* the category of the entry given last */
};

/* The TG's generator; 0, or -1 with err (out of memory). */
int beh_init(struct beh_gen *s, const struct idf_tg *tg, char *err,
	     size_t size);
/* The next entry; its category is then s->last_cat. */
void beh_next(struct beh_gen *s, struct mtg_tt_entry *e);
/* Gaps its categories' models cut to an hour, lengths clamped. */
void beh_counts(const struct beh_gen *s, uint64_t *clipped,
		uint64_t *len_clamped);
void beh_free(struct beh_gen *s);

/* The TG's typical gap over its categories' shares of time, ns. */
double beh_typical_gap(const struct idf_tg *tg);

/* The seed of the categories' stream, from the TG's seed. */
uint32_t beh_chain_seed(uint32_t seed);

#endif /* MTGCTL_BEHAVE_H */
