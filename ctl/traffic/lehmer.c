// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The MTG Lehmer generator. Schrage's method (a = m q + r, q = m / a,
 * r = m mod a) keeps a 32-bit product in range only when r < q; for this
 * multiplier q = 2 and r = 246070895, so it does not apply. The product of
 * two values below 2^31 fits in 62 bits, and a 64-bit remainder gives the
 * exact result: the sequence is that of the recurrence, whatever the method.
 */
#include "traffic/lehmer.h"

int lehmer_init(struct lehmer *g, uint32_t seed)
{
	if (seed < LEHMER_SEED_MIN || seed > LEHMER_SEED_MAX)
		return -1;
	g->x = seed;
	return 0;
}

uint32_t lehmer_next(struct lehmer *g)
{
	uint64_t p = (uint64_t)g->x * LEHMER_MULTIPLIER;

	g->x = (uint32_t)(p % LEHMER_MODULUS);
	return g->x;
}

double lehmer_uniform(struct lehmer *g)
{
	return (double)lehmer_next(g) / (double)LEHMER_MODULUS;
}
