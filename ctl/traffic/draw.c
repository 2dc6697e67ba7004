// SPDX-License-Identifier: GPL-2.0-or-later
/* The laws whose samplers differ between versions (draw.h). */
#include "traffic/draw.h"

/*
 * GSL's lognormal draws its normal by the polar method (two uniforms,
 * a log and a square root a try, one of the pair thrown away); the
 * ziggurat gives the same law in about a uniform's time.
 */
double draw_lognormal(gsl_rng *r, int samplers, double zeta, double sigma)
{
	if (samplers == SAMPLERS_GSL)
		return gsl_ran_lognormal(r, zeta, sigma);
	return exp(zeta + gsl_ran_gaussian_ziggurat(r, sigma));
}

/*
 * GSL's t is a normal over the root of a chi-square, whose gamma below
 * shape 1 costs a normal, logs and a power. Bailey's polar method (Math.
 * Comp. 62 (1994) 779-781) is exact with one power and one root: (U, V)
 * uniform in the unit disc, W = U^2 + V^2, T = U sqrt(nu (W^(-2/nu) - 1)
 * / W). W^(-2/nu) - 1 is expm1(y), y = -2/nu log W: libm's expm1 is
 * slow for large y, exp(y) - 1 loses at most 2^10 ulps for y above 2^-10
 * (and y is below that for one draw in 3,000 when nu is 0.7), so expm1
 * only there.
 */
double draw_tdist(gsl_rng *r, int samplers, double nu)
{
	double u, v, w, y;

	if (samplers == SAMPLERS_GSL)
		return gsl_ran_tdist(r, nu);
	do {
		u = 2 * draw_uniform(r) - 1;
		v = 2 * draw_uniform(r) - 1;
		w = u * u + v * v;
	} while (w >= 1 || w == 0);
	y = -2 / nu * log(w);
	return u * sqrt(nu * (y < 0x1p-10 ? expm1(y) : exp(y) - 1) / w);
}
