// SPDX-License-Identifier: GPL-2.0-or-later
/* A TG's frame lengths (lengths.h): GSL's samplers and tails. */
#include <math.h>
#include <string.h>
#include <sys/socket.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_randist.h>

#include "traffic/draw.h"
#include "traffic/lengths.h"

uint32_t len_lowest(const struct idf_tg *tg)
{
	if (tg->len_min)
		return tg->len_min;
	return idf_min_len(tg);
}

/* P(X >= x) of the law's variate X (before rounding down). */
static double tail(const struct idf_tg *tg, double x)
{
	const double *p = tg->len_param;

	switch (tg->len_law) {
	case IDF_LEN_EXPONENTIAL:
		return x <= 0 ? 1 : gsl_cdf_exponential_Q(x, p[0]);
	case IDF_LEN_POISSON:	/* whole already: P(X >= k) = P(X > k - 1) */
		return x <= 0 ? 1 : gsl_cdf_poisson_Q((unsigned int)
			fmin(ceil(x) - 1, (double)UINT32_MAX), p[0]);
	case IDF_LEN_NORMAL:
		return gsl_cdf_gaussian_Q(x - p[0], p[1]);
	case IDF_LEN_CAUCHY:
		return gsl_cdf_cauchy_Q(x - p[0], p[1]);
	case IDF_LEN_PARETO:
		return gsl_cdf_pareto_Q(x, p[0], p[1]);
	case IDF_LEN_GAMMA:
		return x <= 0 ? 1 : gsl_cdf_gamma_Q(x, p[0], p[1]);
	case IDF_LEN_WEIBULL:
		return x <= 0 ? 1 : gsl_cdf_weibull_Q(x, p[1], p[0]);
	case IDF_LEN_LOGNORMAL:
		return x <= 0 ? 1 : gsl_cdf_lognormal_Q(x, log(p[0]), p[1]);
	default:
		return 0;
	}
}

/*
 * E[L] = lo + sum over l = lo .. hi - 1 of P(L > l), and L > l when the
 * draw rounded down is l - plus + 1 or more. One tail a byte of the range:
 * the last TG's answer is kept, for the many TGs a range makes alike.
 */
static double law_mean(const struct idf_tg *tg)
{
	static _Thread_local struct {
		bool valid;
		enum idf_len_law law;
		double param[2];
		uint32_t plus, lo, hi;
		double mean;
	} last;
	uint32_t lo = len_lowest(tg), hi = tg->len_max, l;
	double sum = lo;

	if (last.valid && last.law == tg->len_law && last.plus == tg->len_plus &&
	    last.lo == lo && last.hi == hi &&
	    !memcmp(last.param, tg->len_param, sizeof(last.param)))
		return last.mean;
	for (l = lo; l < hi; l++)
		sum += tail(tg, (double)l - tg->len_plus + 1);
	last.valid = true;
	last.law = tg->len_law;
	memcpy(last.param, tg->len_param, sizeof(last.param));
	last.plus = tg->len_plus;
	last.lo = lo;
	last.hi = hi;
	last.mean = sum;
	return sum;
}

double len_mean(const struct idf_tg *tg)
{
	switch (tg->pkts) {
	case IDF_PKTS_VARIABLE:
		return ((double)tg->len_min + tg->len_max) / 2;
	case IDF_PKTS_LAW:
		return law_mean(tg);
	default:
		return tg->len_max;
	}
}

static double law_draw(gsl_rng *r, const struct idf_tg *tg)
{
	const double *p = tg->len_param;

	switch (tg->len_law) {
	case IDF_LEN_EXPONENTIAL:
		return draw_exponential(r, idf_samplers(tg), p[0]);
	case IDF_LEN_POISSON:
		return gsl_ran_poisson(r, p[0]);
	case IDF_LEN_NORMAL:
		return p[0] + gsl_ran_gaussian_ziggurat(r, p[1]);
	case IDF_LEN_CAUCHY:
		return p[0] + gsl_ran_cauchy(r, p[1]);
	case IDF_LEN_PARETO:
		return draw_pareto(r, idf_samplers(tg), p[0], p[1]);
	case IDF_LEN_GAMMA:
		return gsl_ran_gamma(r, p[0], p[1]);
	case IDF_LEN_WEIBULL:
		return gsl_ran_weibull(r, p[1], p[0]);
	case IDF_LEN_LOGNORMAL:
		return draw_lognormal(r, idf_samplers(tg), log(p[0]), p[1]);
	default:
		return 0;
	}
}

uint32_t len_draw(gsl_rng *r, const struct idf_tg *tg, uint64_t *clamped)
{
	uint32_t lo = len_lowest(tg);
	double v;

	if (tg->pkts != IDF_PKTS_LAW)
		return lo + (uint32_t)gsl_rng_uniform_int(r,
						tg->len_max - lo + 1);
	/* in doubles until clamped: a Cauchy draw can be any size */
	v = floor(law_draw(r, tg)) + tg->len_plus;
	if (v >= lo && v <= tg->len_max)
		return (uint32_t)v;
	(*clamped)++;
	return v < lo ? lo : tg->len_max;
}
