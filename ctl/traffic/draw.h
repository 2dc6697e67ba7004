/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The samplers of the tables, drawn inline from the TG's generator where
 * the generator is mtgctl's MT19937 (mt19937.h), through GSL otherwise.
 *
 * The samplers version (the IDF's `samplers`, Documentation/idf.rst,
 * "Reproducibility") says which ones draw the laws that have two:
 *
 *   1  GSL's samplers for every law: the tables mtg drew before 2026-11-28.
 *   2  the default: faster exact samplers for the laws whose GSL sampler is
 *      slow (lognormal, Student's t, Pareto, exponential); everything
 *      else as 1.
 *
 * Where a sampler here computes exactly what GSL's does (uniform, flat:
 * the same uniform, the same formula), both versions use it: the tables
 * are the same bytes, the golden tables say so.
 */
#ifndef MTGCTL_DRAW_H
#define MTGCTL_DRAW_H

#include <math.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "traffic/mt19937.h"
#include "traffic/rng.h"

#define SAMPLERS_GSL	1
#define SAMPLERS_FAST	2
#define SAMPLERS_LATEST	SAMPLERS_FAST

/* [0, 1): gsl_rng_uniform()'s value, without its indirect call. */
static inline double draw_uniform(gsl_rng *r)
{
	if (r->type == rng_mt19937)
		return mt19937_uniform(r->state);
	return gsl_rng_uniform(r);
}

/* (0, 1): gsl_rng_uniform_pos()'s value. */
static inline double draw_uniform_pos(gsl_rng *r)
{
	double u;

	do
		u = draw_uniform(r);
	while (u == 0);
	return u;
}

/* Uniform on [a, b), as gsl_ran_flat(). */
static inline double draw_flat(gsl_rng *r, double a, double b)
{
	double u = draw_uniform(r);

	return a * (1 - u) + b * u;
}

/*
 * Exponential of mean mu by inversion: 1 as gsl_ran_exponential(), 2
 * with log(1 - u) for libm's log1p(-u), a quarter of its time: 1 - u is
 * exact (u is k 2^-32), so both are the correctly rounded log within an
 * ulp.
 */
static inline double draw_exponential(gsl_rng *r, int samplers, double mu)
{
	double u = draw_uniform(r);

	if (samplers == SAMPLERS_GSL)
		return -mu * log1p(-u);
	return -mu * log(1 - u);
}

/*
 * Pareto of shape a and scale b by inversion: 1 as gsl_ran_pareto(), 2
 * with exp and log for libm's pow, a third faster, within a few ulps.
 */
static inline double draw_pareto(gsl_rng *r, int samplers, double a, double b)
{
	double u = draw_uniform_pos(r);

	if (samplers == SAMPLERS_GSL)
		return b * pow(u, -1 / a);
	return b * exp(log(u) * (-1 / a));
}

/* exp(N(zeta, sigma)). */
double draw_lognormal(gsl_rng *r, int samplers, double zeta, double sigma);

/* Student's t with nu degrees of freedom: its sampler's tables, once. */
struct draw_tdist;
struct draw_tdist *draw_tdist_new(double nu);	/* NULL: out of memory */
void draw_tdist_free(struct draw_tdist *t);
double draw_tdist(gsl_rng *r, int samplers, const struct draw_tdist *t);

#endif /* MTGCTL_DRAW_H */
