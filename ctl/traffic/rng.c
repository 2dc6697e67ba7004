// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * mtgctl's generators wrapped as GSL generator types: GSL calls set() with
 * the seed and get() for each value, and its samplers take any type.
 */
#include "traffic/lehmer.h"
#include "traffic/mt19937.h"
#include "traffic/rng.h"

static void lehmer_set(void *state, unsigned long seed)
{
	/* MTG's seeds are 1 .. 2^31 - 2; fold anything else into them. */
	if (seed < LEHMER_SEED_MIN || seed > LEHMER_SEED_MAX)
		seed = seed % LEHMER_SEED_MAX + 1;
	lehmer_init(state, (uint32_t)seed);
}

static unsigned long lehmer_get(void *state)
{
	return lehmer_next(state);
}

static double lehmer_get_double(void *state)
{
	return lehmer_uniform(state);
}

/*
 * The values are 1 .. 2^31 - 2: GSL's integer samplers (uniform_int,
 * ...) take max - min + 1 values, so give them exactly the range.
 */
static const gsl_rng_type lehmer_type = {
	.name = "lehmer",
	.max = LEHMER_SEED_MAX,
	.min = LEHMER_SEED_MIN,
	.size = sizeof(struct lehmer),
	.set = lehmer_set,
	.get = lehmer_get,
	.get_double = lehmer_get_double,
};

const gsl_rng_type *const rng_lehmer = &lehmer_type;

static void mt_set(void *state, unsigned long seed)
{
	mt19937_seed(state, seed);
}

static unsigned long mt_get(void *state)
{
	return mt19937_next(state);
}

static double mt_get_double(void *state)
{
	return mt19937_uniform(state);
}

static const gsl_rng_type mt19937_type = {
	.name = "mt19937",
	.max = 0xffffffffUL,
	.min = 0,
	.size = sizeof(struct mt19937),
	.set = mt_set,
	.get = mt_get,
	.get_double = mt_get_double,
};

const gsl_rng_type *const rng_mt19937 = &mt19937_type;

const char *rng_name(enum rng_kind kind)
{
	return kind == RNG_LEHMER ? "lehmer" : "mt19937";
}

gsl_rng *rng_new(enum rng_kind kind, uint32_t seed)
{
	gsl_rng *r = gsl_rng_alloc(kind == RNG_LEHMER ? rng_lehmer :
				   rng_mt19937);

	if (r)
		gsl_rng_set(r, seed);
	return r;
}
