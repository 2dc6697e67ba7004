// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The traffic models (Documentation/idf.rst, "Models"). Every variate
 * comes from GSL's samplers on the TG's generator; the only arithmetic of
 * our own is the structure of the models: the Markov chain of mmpp, the
 * talkspurts of voice, the circulant embedding and midpoint displacement
 * of fgn.
 */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <gsl/gsl_fft_complex.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_sf_gamma.h>

#include "traffic/draw.h"
#include "traffic/gap.h"
#include "traffic/lengths.h"
#include "traffic/models.h"
#include "traffic/rng.h"

#define P(i)	(g->tg->dist_param[i])

double model_typical_gap(const struct idf_tg *tg)
{
	const double *p = tg->dist_param;

	switch (tg->dist) {
	case IDF_DIST_PARETO:	/* the median where the mean is infinite */
		return p[0] > 1 ? p[1] * p[0] / (p[0] - 1) :
			p[1] * pow(2, 1 / p[0]);
	case IDF_DIST_CAUCHY:
		return p[0] + p[1];
	case IDF_DIST_NORMAL:
		return p[0] + p[1];
	case IDF_DIST_GAMMA:
		return p[0] * p[1];
	case IDF_DIST_WEIBULL:
		return p[1] * gsl_sf_gamma(1 + 1 / p[0]);
	case IDF_DIST_LOGNORMAL:
		return p[0] * exp(p[1] * p[1] / 2);
	case IDF_DIST_TRACE:	/* sized by the file, once read */
	case IDF_DIST_PCAP:
		return 1e6;
	case IDF_DIST_VOIP:
	case IDF_DIST_DNS:
		return gap_ns(gap_fixed(tg));
	case IDF_DIST_TELNET:	/* the median; the mean is infinite */
		return 1.1e6 * pow(2, 1 / 0.95);
	case IDF_DIST_QUAKE3:
		return 0.6 * 4.29e6 + 0.4 * 10.75e6;
	case IDF_DIST_CSA:
	case IDF_DIST_CSI:
		return 41.7e6;
	case IDF_DIST_VOICE:	/* the mean over talkspurts and silences */
		return gap_ns(gap_asked(tg)) * (p[0] + p[1]) / p[0];
	default:
		return gap_ns(gap_asked(tg));
	}
}

/*
 * D-ITG 2.8.1's presets (src/ITGSend/traffic.cpp), gaps in ms and
 * payload bytes as D-ITG draws them; each payload travels after mtg's
 * headers, MTG's header among them (preset_len()), or with `header ditg`
 * is D-ITG's payload, its header included, as ITGSend sends it.
 */
#define MS	1e6

static const double telnet_p[15] = {	/* payload 21 + i bytes */
	0.65, 0.13, 0.07, 0.05, 0.03, 0.01, 0.01, 0.01, 0.01,
	0.005, 0.005, 0.005, 0.005, 0.005, 0.005,
};
static const double csi_bytes[8] = { 27, 28, 29, 30, 31, 32, 33, 35 };
static const double csi_p[8] = {
	0.8312, 0.0018, 0.0453, 0.0195, 0.0879, 0.0024, 0.0106, 0.0013,
};

/* Counter-Strike's gaps: Student's t, location and scale in ns. */
struct student_law {
	double mu, sigma, nu;
};

static const struct student_law csa_gap = { 41.6994 * MS, 0.104821 * MS,
					    0.704073 };
static const struct student_law csi_gap = { 41.6858 * MS, 0.0694393 * MS,
					    1.08341 };

/* The law's t (g->tdist drawn for its nu), redrawn while below 0. */
static double student(struct model_gen *g, const struct student_law *law)
{
	double v;

	do
		v = law->mu + law->sigma *
			draw_tdist(g->rng, g->samplers, g->tdist);
	while (v < 0);
	return v;
}

static double preset_gap(struct model_gen *g)
{
	gsl_rng *r = g->rng;

	switch (g->tg->dist) {
	case IDF_DIST_TELNET:
		return draw_pareto(r, g->samplers, 0.95, 1.1 * MS);
	case IDF_DIST_QUAKE3:
		/* D-ITG's mixture: draw which part, then from it */
		return draw_uniform(r) < 0.6 ?
			draw_exponential(r, g->samplers, 4.29 * MS) : 10.75 * MS;
	case IDF_DIST_CSA:
		return student(g, &csa_gap);
	case IDF_DIST_CSI:
		return student(g, &csi_gap);
	default:	/* voip, dns: fixed, spread by base_next() */
		return 0;
	}
}

/* D-ITG's payload bytes: a whole number (cut down), 16 at least. */
static uint32_t preset_payload(struct model_gen *g)
{
	const struct idf_tg *tg = g->tg;
	gsl_rng *r = g->rng;
	double b;

	switch (tg->dist) {
	case IDF_DIST_VOIP:
		b = P(2) * idf_codecs[(int)P(0)].frame_bytes *
			idf_codecs[(int)P(0)].frames_per_pkt + P(1);
		break;
	case IDF_DIST_TELNET:
		b = 21 + (double)gsl_ran_discrete(r, g->sizes);
		break;
	case IDF_DIST_DNS:
		b = 100 + 220 * draw_uniform(r);
		break;
	case IDF_DIST_QUAKE3:
		b = 64.151757 + gsl_ran_gaussian_ziggurat(r, 3.2035755);
		break;
	case IDF_DIST_CSA:
		b = draw_uniform(r) < 0.3732 ?
			34.8352 + gsl_ran_gaussian_ziggurat(r, 4.3915) :
			49.4904 + gsl_ran_gaussian_ziggurat(r, 3.6186);
		break;
	case IDF_DIST_CSI:
		b = csi_bytes[gsl_ran_discrete(r, g->sizes)];
		break;
	default:
		b = 0;
	}
	b = floor(b);
	return b < 16 ? 16 : b > 4096 ? 4096 : (uint32_t)b;
}

static int preset_init(struct model_gen *g, char *err, size_t size)
{
	/* D-ITG's payloads hold its header: as ITGSend, with `header ditg` */
	g->min_len = idf_min_len(g->tg);
	g->headers = g->tg->header == IDF_HEADER_DITG ? idf_l4_over(g->tg) :
		g->min_len;
	bool ok;

	switch (g->tg->dist) {
	case IDF_DIST_TELNET:
		g->sizes = gsl_ran_discrete_preproc(15, telnet_p);
		ok = g->sizes;
		break;
	case IDF_DIST_CSA:
		g->tdist = draw_tdist_new(csa_gap.nu);
		ok = g->tdist;
		break;
	case IDF_DIST_CSI:
		g->sizes = gsl_ran_discrete_preproc(8, csi_p);
		g->tdist = draw_tdist_new(csi_gap.nu);
		ok = g->sizes && g->tdist;
		break;
	default:
		return 0;
	}
	if (!ok) {
		snprintf(err, size, "out of memory for the preset's tables");
		return -1;
	}
	return 0;
}

/* fGn's autocovariance at lag k, unit variance. */
static double fgn_acov(double h, double k)
{
	return (pow(fabs(k + 1), 2 * h) - 2 * pow(fabs(k), 2 * h) +
		pow(fabs(k - 1), 2 * h)) / 2;
}

/*
 * Davies and Harte (1987): embed the covariance in a circulant of size
 * 2N whose eigenvalues (one FFT) are the variances of independent
 * complex normals; a second FFT of those gives N exact fGn samples.
 */
static int fgn_exact_init(struct model_gen *g, char *err, size_t size)
{
	size_t n = MODEL_FGN_BATCH, m = 2 * n, j;
	double *w = g->fgn_work;

	g->fgn_sqrt_eig = calloc(m, sizeof(double));
	if (!g->fgn_sqrt_eig) {
		snprintf(err, size, "out of memory for fgn's eigenvalues");
		return -1;
	}
	for (j = 0; j < m; j++) {
		w[2 * j] = fgn_acov(P(1), (double)(j <= n ? j : m - j));
		w[2 * j + 1] = 0;
	}
	gsl_fft_complex_radix2_forward(w, 1, m);
	for (j = 0; j < m; j++) {
		/* >= 0 for fGn (Craigmile 2003); rounding can go below */
		double ev = w[2 * j] > 0 ? w[2 * j] : 0;

		g->fgn_sqrt_eig[j] = sqrt(ev / (double)m);
	}
	return 0;
}

static void fgn_exact_batch(struct model_gen *g, double *x)
{
	size_t n = MODEL_FGN_BATCH, m = 2 * n, k;
	double *w = g->fgn_work, *s = g->fgn_sqrt_eig;

	w[0] = s[0] * gsl_ran_gaussian_ziggurat(g->rng, 1);
	w[1] = 0;
	for (k = 1; k < n; k++) {
		double re = gsl_ran_gaussian_ziggurat(g->rng, 1) * M_SQRT1_2;
		double im = gsl_ran_gaussian_ziggurat(g->rng, 1) * M_SQRT1_2;

		w[2 * k] = s[k] * re;
		w[2 * k + 1] = s[k] * im;
		w[2 * (m - k)] = s[k] * re;
		w[2 * (m - k) + 1] = -s[k] * im;
	}
	w[2 * n] = s[n] * gsl_ran_gaussian_ziggurat(g->rng, 1);
	w[2 * n + 1] = 0;
	gsl_fft_complex_radix2_forward(w, 1, m);
	for (k = 0; k < n; k++)
		x[k] = w[2 * k];
}

/*
 * MTG's method: random midpoint displacement of fractional Brownian
 * motion on [0, 1] (Lau et al. 1995), then its increments, scaled to unit
 * variance. An approximation (its covariances are not exactly fGn's);
 * the tests find its Hurst parameter within 0.05 of the one asked.
 */
static void fgn_rmd_batch(struct model_gen *g, double *x)
{
	size_t n = MODEL_FGN_BATCH, step, i;
	double h = P(1), *b = g->fgn_work;
	double c = sqrt(1 - pow(2, 2 * h - 2)), sd;
	int level;

	b[0] = 0;
	b[n] = gsl_ran_gaussian_ziggurat(g->rng, 1);
	for (level = 1, step = n / 2; step; level++, step /= 2) {
		sd = c * pow(2, -level * h);
		for (i = step; i < n; i += 2 * step)
			b[i] = (b[i - step] + b[i + step]) / 2 +
				gsl_ran_gaussian_ziggurat(g->rng, sd);
	}
	sd = pow((double)n, h);
	for (i = 0; i < n; i++)
		x[i] = (b[i + 1] - b[i]) * sd;
}

/* Packet counts per slot of the next batch: mean + sqrt(peakedness * mean) * fGn. */
static void fgn_batch(struct model_gen *g)
{
	size_t n = MODEL_FGN_BATCH, k;
	double mean = (double)g->slot_ns / g->mean_gap;
	double sd = sqrt(P(0) * mean), *x = g->fgn_x;

	if (g->tg->fgn_method == IDF_FGN_RMD)
		fgn_rmd_batch(g, x);
	else
		fgn_exact_batch(g, x);
	for (k = 0; k < n; k++) {
		long long c = llround(mean + sd * x[k]);

		if (c < 0) {
			g->negative++;
			c = 0;
		}
		g->counts[k] = c > UINT32_MAX ? UINT32_MAX : (uint32_t)c;
	}
	g->in_batch = 0;
}

/* The next packet's departure: the slots' packets spread evenly in them. */
static uint64_t fgn_departure(struct model_gen *g)
{
	uint64_t dep;

	while (g->in_slot >= g->counts[g->in_batch]) {
		g->in_slot = 0;
		g->slot++;
		if (++g->in_batch == MODEL_FGN_BATCH)
			fgn_batch(g);
	}
	dep = g->slot * g->slot_ns +
		g->in_slot * g->slot_ns / g->counts[g->in_batch];
	g->in_slot++;
	return dep;
}

static int fgn_init(struct model_gen *g, char *err, size_t size)
{
	size_t n = MODEL_FGN_BATCH;

	g->slot_ns = (uint64_t)P(2);
	g->counts = calloc(n, sizeof(*g->counts));
	g->fgn_work = calloc(4 * n + 2, sizeof(double));
	g->fgn_x = calloc(n, sizeof(double));
	if (!g->counts || !g->fgn_work || !g->fgn_x) {
		snprintf(err, size, "out of memory for fgn's batch");
		return -1;
	}
	if (g->tg->fgn_method == IDF_FGN_EXACT && fgn_exact_init(g, err, size))
		return -1;
	fgn_batch(g);
	g->next_dep = fgn_departure(g);
	return 0;
}

/* 2-state MMPP: exponential stays in each state, Poisson arrivals in it. */
static double mmpp_gap(struct model_gen *g)
{
	double gap = 0, x;

	for (;;) {
		x = draw_exponential(g->rng, g->samplers,
				     1 / g->rate[g->state]);
		if (x <= g->left) {
			g->left -= x;
			return gap + x;
		}
		/* memoryless: what was drawn past the change is forgotten */
		gap += g->left;
		g->state ^= 1;
		g->left = draw_exponential(g->rng, g->samplers, P(g->state));
	}
}

static void mmpp_init(struct model_gen *g)
{
	double th = P(0), tl = P(1), ratio = P(2);
	/* mean rate (th * high + tl * low) / (th + tl) = 1 / mean_gap */
	double low = (th + tl) / (g->mean_gap * (ratio * th + tl));

	g->rate[0] = ratio * low;
	g->rate[1] = low;
	/* start in the stationary distribution of the chain */
	g->state = draw_uniform(g->rng) < th / (th + tl) ? 0 : 1;
	g->left = draw_exponential(g->rng, g->samplers, P(g->state));
}

/* Talkspurts of a geometric number of packets (mean TALK), silences exponential. */
static uint64_t voice_spurt(struct model_gen *g)
{
	double p = g->mean_gap / P(0);

	return gsl_ran_geometric(g->rng, p < 1 ? p : 1);
}

static double voice_gap(struct model_gen *g)
{
	double gap = g->mean_gap;

	if (!--g->spurt_left) {
		gap += draw_exponential(g->rng, g->samplers, P(1));
		g->spurt_left = voice_spurt(g);
	}
	return gap;
}

/*
 * Normal and Cauchy gaps: drawn again while below 0, so the law is the
 * distribution truncated to [0, inf). LOCATION and MEAN are not below 0,
 * so a draw is kept with probability 1/2 at least.
 */
static double truncated(gsl_rng *r, double loc, double scale, bool cauchy)
{
	double v;

	do
		v = loc + (cauchy ? gsl_ran_cauchy(r, scale) :
			   gsl_ran_gaussian_ziggurat(r, scale));
	while (v < 0);
	return v;
}

static double gap_draw(struct model_gen *g)
{
	gsl_rng *r = g->rng;
	const struct idf_tg *tg = g->tg;

	switch (tg->dist) {
	case IDF_DIST_FIXED:
		return 0;	/* model_next() spreads the fixed gap */
	case IDF_DIST_UNIFORM:
		if (idf_has(tg, IDF_KW_thro))
			return draw_flat(r, 0, 2 * g->mean_gap);
		return draw_flat(r, (double)tg->inta_min,
				    (double)tg->inta_max);
	case IDF_DIST_EXPONENTIAL:
		return draw_exponential(r, g->samplers, g->mean_gap);
	case IDF_DIST_MMPP:
		return mmpp_gap(g);
	case IDF_DIST_VOICE:
		return voice_gap(g);
	case IDF_DIST_FGN:
		return 0;	/* model_next() takes the departures */
	case IDF_DIST_PARETO:
		return draw_pareto(r, g->samplers, P(0), P(1));
	case IDF_DIST_CAUCHY:
		return truncated(r, P(0), P(1), true);
	case IDF_DIST_NORMAL:
		return truncated(r, P(0), P(1), false);
	case IDF_DIST_GAMMA:
		return gsl_ran_gamma(r, P(0), P(1));
	case IDF_DIST_WEIBULL:
		return gsl_ran_weibull(r, P(1), P(0));
	case IDF_DIST_LOGNORMAL:
		return draw_lognormal(r, g->samplers, g->lognormal_zeta, P(1));
	default:	/* files and presets: base_next() */
		break;
	}
	return 0;
}

/*
 * A fixed rate of fix_num / fix_den ns a gap: departure k at floor(k num /
 * den), in 128-bit integers, so that the rate is exact over any run (as
 * tables.c's fixed tables).
 */
static uint64_t fixed_gap(const struct model_gen *g)
{
	unsigned __int128 at = (unsigned __int128)g->k * g->fix_num;

	return (uint64_t)((at + g->fix_num) / g->fix_den - at / g->fix_den);
}

static void fixed_init(struct model_gen *g)
{
	struct gap f = gap_fixed(g->tg);

	g->fix_num = f.num;
	g->fix_den = f.den;
}

/* A drawn gap in whole ns, cut to an hour (counted). */
static uint64_t drawn_gap(struct model_gen *g, double gap)
{
	if (gap > MODEL_GAP_MAX_NS) {
		gap = MODEL_GAP_MAX_NS;
		g->clipped++;
	}
	return (uint64_t)llround(gap);
}

/* The model's own entry: the gap to the next departure, the length. */
static void base_next(struct model_gen *g, struct mtg_tt_entry *e)
{
	const struct idf_tg *tg = g->tg;

	memset(e, 0, sizeof(*e));
	if (tg->dist >= IDF_DIST_VOIP) {
		if (tg->dist == IDF_DIST_VOIP || tg->dist == IDF_DIST_DNS) {
			e->gap_ns = fixed_gap(g);
		} else {
			e->gap_ns = drawn_gap(g, preset_gap(g));
		}
		/* mtg's headers (Ethernet, IP, UDP, MTG), then D-ITG's payload */
		e->len = g->headers + preset_payload(g);
		if (e->len < g->min_len)
			e->len = g->min_len;
		g->k++;
		return;
	}
	if (tg->dist == IDF_DIST_FIXED) {
		e->gap_ns = fixed_gap(g);
	} else if (tg->dist == IDF_DIST_TRACE || tg->dist == IDF_DIST_PCAP) {
		*e = g->file[g->k % g->file_len];
		if (tg->dist == IDF_DIST_PCAP && idf_len_drawn(tg))
			e->len = len_draw(g->rng, tg, &g->len_clamped);
		g->k++;
		return;
	} else if (tg->dist == IDF_DIST_FGN) {
		uint64_t dep = fgn_departure(g);

		e->gap_ns = dep - g->next_dep;
		g->next_dep = dep;
	} else {
		e->gap_ns = drawn_gap(g, gap_draw(g));
	}
	if (idf_len_drawn(tg))
		e->len = len_draw(g->rng, tg, &g->len_clamped);
	else
		e->len = tg->len_max;
	g->k++;
}

/*
 * time poisson (MTG's phone calls): the model runs during calls of
 * exponential length (mean CALL); a departure that would fall after the
 * call's end moves to the start of the next call, an exponential idle
 * time (mean IDLE) after that end.
 */
static void calls(struct model_gen *g, struct mtg_tt_entry *e)
{
	const struct idf_tg *tg = g->tg;
	double gap = (double)e->gap_ns;

	if (gap <= g->call_left) {
		g->call_left -= gap;
		return;
	}
	gap = g->call_left + draw_exponential(g->rng, g->samplers,
					      (double)tg->call_idle);
	g->call_left = draw_exponential(g->rng, g->samplers,
					(double)tg->call_len);
	e->gap_ns = (uint64_t)llround(gap < MODEL_GAP_MAX_NS ? gap :
				      MODEL_GAP_MAX_NS);
}

/*
 * jitt (MTG): each departure later than the model's by U(0, jitt); one
 * never goes before the one ahead of it (it then leaves right after).
 */
static void jitter(struct model_gen *g, struct mtg_tt_entry *e)
{
	uint64_t next = g->nominal + e->gap_ns, at;

	at = next + (uint64_t)llround(draw_flat(g->rng, 0,
						   (double)g->tg->jitter));
	if (at < g->jittered)
		at = g->jittered;
	e->gap_ns = at - g->jittered;
	g->nominal = next;
	g->jittered = at;
}

void model_next(struct model_gen *g, struct mtg_tt_entry *e)
{
	base_next(g, e);
	if (g->tg->time == IDF_TIME_POISSON)
		calls(g, e);
	if (g->tg->jitter)
		jitter(g, e);
}

int model_init(struct model_gen *g, const struct idf_tg *tg, char *err,
	       size_t size)
{
	gsl_rng *rng = rng_new(tg->rng, idf_seed(tg));

	if (!rng) {
		memset(g, 0, sizeof(*g));
		snprintf(err, size, "out of memory for the generator");
		return -1;
	}
	if (model_init_on(g, tg, rng, err, size)) {
		gsl_rng_free(rng);
		return -1;
	}
	g->rng_shared = false;
	return 0;
}

int model_init_on(struct model_gen *g, const struct idf_tg *tg, gsl_rng *rng,
		  char *err, size_t size)
{
	int ret = 0;

	memset(g, 0, sizeof(*g));
	g->tg = tg;
	g->rng = rng;
	g->rng_shared = true;
	g->mean_gap = gap_ns(gap_asked(tg));
	g->samplers = idf_samplers(tg);
	fixed_init(g);
	switch (tg->dist) {
	case IDF_DIST_LOGNORMAL:
		g->lognormal_zeta = log(P(0));
		break;
	case IDF_DIST_MMPP:
		mmpp_init(g);
		break;
	case IDF_DIST_VOICE:
		g->spurt_left = voice_spurt(g);
		break;
	case IDF_DIST_FGN:
		ret = fgn_init(g, err, size);
		break;
	case IDF_DIST_TRACE:
	case IDF_DIST_PCAP:
		ret = model_file_init(g, err, size);
		break;
	default:
		if (tg->dist >= IDF_DIST_VOIP)
			ret = preset_init(g, err, size);
		break;
	}
	if (ret) {
		model_free(g);
		return -1;
	}
	/* the first call starts after an idle time; the first packet's jitter */
	if (tg->time == IDF_TIME_POISSON) {
		g->first_ns = (uint64_t)llround(draw_exponential(g->rng,
				g->samplers, (double)tg->call_idle));
		g->call_left = draw_exponential(g->rng, g->samplers,
						(double)tg->call_len);
	}
	if (tg->jitter) {
		g->jittered = (uint64_t)llround(draw_flat(g->rng, 0,
							      (double)tg->jitter));
		g->first_ns += g->jittered;
	}
	return 0;
}

void model_free(struct model_gen *g)
{
	if (g->rng && !g->rng_shared)
		gsl_rng_free(g->rng);
	free(g->fgn_sqrt_eig);
	free(g->fgn_work);
	free(g->fgn_x);
	free(g->counts);
	free(g->file);
	if (g->sizes)
		gsl_ran_discrete_free(g->sizes);
	draw_tdist_free(g->tdist);
	memset(g, 0, sizeof(*g));
}
