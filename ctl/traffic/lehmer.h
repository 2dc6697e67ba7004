/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The MTG random number generator (seeds/003 section 4): a Lehmer
 * (multiplicative congruential) generator
 *
 *	x(k+1) = 950706376 * x(k) mod (2^31 - 1)
 *
 * with x(0) the seed, 1 .. 2^31 - 2. Its period is 2^31 - 2 (950706376 is
 * a primitive root of the prime 2^31 - 1). The products are computed
 * exactly in 64-bit integers, so a seed gives the same sequence on every
 * machine and compiler.
 */
#ifndef MTGCTL_LEHMER_H
#define MTGCTL_LEHMER_H

#include <stdint.h>

#define LEHMER_MODULUS		2147483647U	/* 2^31 - 1, prime */
#define LEHMER_MULTIPLIER	950706376U
#define LEHMER_SEED_MIN		1U
#define LEHMER_SEED_MAX		(LEHMER_MODULUS - 1)	/* 2^31 - 2 */

struct lehmer {
	uint32_t x;		/* the last value, 1 .. 2^31 - 2 */
};

/* 0, or -1 when seed is outside LEHMER_SEED_MIN .. LEHMER_SEED_MAX. */
int lehmer_init(struct lehmer *g, uint32_t seed);

/* The next value, 1 .. 2^31 - 2. */
uint32_t lehmer_next(struct lehmer *g);

/* The next value as a double in (0, 1), never 0 or 1. */
double lehmer_uniform(struct lehmer *g);

#endif /* MTGCTL_LEHMER_H */
