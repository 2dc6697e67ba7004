// SPDX-License-Identifier: GPL-2.0-or-later
/* The laws whose samplers differ between versions (draw.h). */
#include <stdlib.h>

#include <gsl/gsl_cdf.h>

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
 * Student's t. GSL's (samplers 1) is a normal over the root of a
 * chi-square, whose gamma below shape 1 costs a normal, logs and a
 * power. Samplers 2: a ziggurat (Marsaglia and Tsang, J. Stat.
 * Softw. 5(8), 2000) on the density's right half, f(x) = (1 + x^2/nu)
 * ^-(nu+1)/2, and a random sign. DRAW_T_LAYERS layers of equal area v
 * cover f: layer 0 is [0, x[0]) x [0, f(r)) with x[0] = v / f(r), whose
 * part beyond r = x[1] stands for the tail; layer i >= 1 is [0, x[i]) x
 * [f(x[i]), f(x[i+1])). A draw picks a layer and a point across it; left
 * of x[i+1] it lies under f (nearly always: one uniform and a compare),
 * else f decides, or the tail's sampler does. Exact: only f's own values
 * accept a point the rectangles do not.
 *
 * The tail beyond r is drawn from the Pareto density nu r^nu x^-(nu+1)
 * (by inversion) and kept with probability f(x) / (nu^((nu+1)/2)
 * x^-(nu+1)) = (1 + nu/x^2)^-(nu+1)/2: for the presets' heavy tails r is
 * far out (2777 for csa's nu, 217 for csi's) and it keeps all but 1 in
 * 10^5. (A nu of 10 and more would keep few: a lighter tail would want
 * another sampler.)
 */
#define DRAW_T_LAYERS	256

struct draw_tdist {
	double nu;
	double r;
	double x[DRAW_T_LAYERS + 1];	/* x[DRAW_T_LAYERS] = 0 */
	double f[DRAW_T_LAYERS + 1];	/* f(x[i]); f[DRAW_T_LAYERS] = 1 */
};

static double t_density(double nu, double x)
{
	return exp(-(nu + 1) / 2 * log1p(x * x / nu));
}

static double t_density_inverse(double nu, double y)
{
	return sqrt(nu * expm1(-2 / (nu + 1) * log(y)));
}

/*
 * The layers from r, each of the area v that r gives (c: the density's
 * constant, the tail's area is Q(r) / c). > 0 when r is too
 * small (v too large: the layers reach f(0) before the top one), < 0
 * when too large (the top layer is left more than v).
 */
static int t_layers(struct draw_tdist *t, double r, double c)
{
	double nu = t->nu, v, top;
	int i;

	t->r = r;
	t->f[1] = t_density(nu, r);
	v = r * t->f[1] + gsl_cdf_tdist_Q(r, nu) / c;
	t->x[0] = v / t->f[1];
	t->f[0] = 0;
	t->x[1] = r;
	t->x[DRAW_T_LAYERS] = 0;
	t->f[DRAW_T_LAYERS] = 1;
	for (i = 1; i < DRAW_T_LAYERS - 1; i++) {
		double y = t->f[i] + v / t->x[i];

		if (y >= 1)
			return 1;
		t->x[i + 1] = t_density_inverse(nu, y);
		t->f[i + 1] = y;
	}
	top = t->x[i] * (1 - t->f[i]);
	return top > v ? -1 : 1;
}

struct draw_tdist *draw_tdist_new(double nu)
{
	struct draw_tdist *t = calloc(1, sizeof(*t));
	double lo = -10, hi = 40;	/* log r */
	double c = exp(lgamma((nu + 1) / 2) - lgamma(nu / 2)) / sqrt(nu * M_PI);
	int k;

	if (!t)
		return NULL;
	t->nu = nu;
	/* bisection on log r to double precision */
	for (k = 0; k < 200 && hi - lo > 1e-15 * fabs(hi); k++) {
		double mid = (lo + hi) / 2;

		if (t_layers(t, exp(mid), c) > 0)
			lo = mid;
		else
			hi = mid;
	}
	t_layers(t, exp(hi), c);
	return t;
}

void draw_tdist_free(struct draw_tdist *t)
{
	free(t);
}

/* Beyond r: Pareto by inversion, kept by f over the Pareto's envelope. */
static double tdist_tail(gsl_rng *r, const struct draw_tdist *t)
{
	double nu = t->nu, x;

	do
		x = t->r * exp(-log(draw_uniform_pos(r)) / nu);
	while (draw_uniform(r) >= exp(-(nu + 1) / 2 * log1p(nu / (x * x))));
	return x;
}

double draw_tdist(gsl_rng *r, int samplers, const struct draw_tdist *t)
{
	if (samplers == SAMPLERS_GSL)
		return gsl_ran_tdist(r, t->nu);
	for (;;) {
		/* the layer and the sign from one uniform's top bits */
		unsigned int k = (unsigned int)(draw_uniform(r) *
						(2 * DRAW_T_LAYERS));
		unsigned int i = k % DRAW_T_LAYERS;
		double s = k < DRAW_T_LAYERS ? 1 : -1;
		double x = draw_uniform(r) * t->x[i];

		if (x < t->x[i + 1])
			return s * x;
		if (i == 0)
			return s * tdist_tail(r, t);
		if (t->f[i] + draw_uniform(r) * (t->f[i + 1] - t->f[i]) <
		    t_density(t->nu, x))
			return s * x;
	}
}
