/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The uniform generators a TG's tables are drawn from, as GSL generators
 * (gsl_rng), so GSL's samplers turn them into every distribution:
 *
 *   mt19937  the default: the Mersenne Twister (period 2^19937 - 1), our
 *            own (mt19937.h), GSL's stream;
 *   lehmer   MTG's own (lehmer.h), for comparison with MTG's tables.
 *
 * A generator and a seed give the same integer sequence everywhere; the
 * variates built from it can differ in the last bit where libm does
 * (Documentation/idf.rst, "Reproducibility").
 */
#ifndef MTGCTL_RNG_H
#define MTGCTL_RNG_H

#include <stdint.h>

#include <gsl/gsl_rng.h>

enum rng_kind { RNG_MT19937, RNG_LEHMER };

/* MTG's Lehmer generator as a GSL generator type ("lehmer"). */
extern const gsl_rng_type *const rng_lehmer;

/* MT19937 as a GSL generator type ("mt19937"), its state a struct mt19937. */
extern const gsl_rng_type *const rng_mt19937;

const char *rng_name(enum rng_kind kind);

/* A generator of that kind seeded with seed (1 .. 2^31 - 2); NULL: no memory. */
gsl_rng *rng_new(enum rng_kind kind, uint32_t seed);

#endif /* MTGCTL_RNG_H */
