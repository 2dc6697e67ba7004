/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The Mersenne Twister MT19937 (Matsumoto and Nishimura, ACM TOMACS 8(1),
 * 1998), seeded as their 2002 init_genrand and GSL's gsl_rng_mt19937 are
 * (seed 0 taken as 4357, as GSL does): the same 32-bit stream as GSL's for
 * every seed, which the golden tables check (tests/golden/).
 *
 * mtgctl's own so that its samplers draw inline: through gsl_rng a value
 * costs an indirect call, about four times the value itself. rng.c gives
 * the same state to GSL as a generator type, so GSL's samplers and the
 * inline ones share one stream.
 */
#ifndef MTGCTL_MT19937_H
#define MTGCTL_MT19937_H

#include <stdint.h>

#define MT19937_N	624

struct mt19937 {
	uint32_t mt[MT19937_N];
	int next;		/* index of the next value; N: regenerate */
};

void mt19937_seed(struct mt19937 *g, unsigned long seed);

/* The next N values' untempered words, all at once. */
void mt19937_regenerate(struct mt19937 *g);

static inline uint32_t mt19937_next(struct mt19937 *g)
{
	uint32_t y;

	if (g->next >= MT19937_N)
		mt19937_regenerate(g);
	y = g->mt[g->next++];
	y ^= y >> 11;
	y ^= (y << 7) & 0x9d2c5680U;
	y ^= (y << 15) & 0xefc60000U;
	return y ^ (y >> 18);
}

/* [0, 1) in steps of 2^-32, as gsl_rng_uniform() on GSL's mt19937. */
static inline double mt19937_uniform(struct mt19937 *g)
{
	return mt19937_next(g) / 4294967296.0;
}

#endif /* MTGCTL_MT19937_H */
