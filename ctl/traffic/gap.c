// SPDX-License-Identifier: GPL-2.0-or-later
/* A TG's mean gap, from its rate (gap.h). */
#include <math.h>

#include "traffic/gap.h"
#include "traffic/lengths.h"

#define NS_PER_S	1000000000ULL

struct gap gap_asked(const struct idf_tg *tg)
{
	/*
	 * The mean frame's bits over the rate: len * 8 / thro s. Frames are
	 * at most IDF_LEN_MAX bytes, so num stays below 2^47.
	 */
	if (idf_has(tg, IDF_KW_thro) && tg->pkts != IDF_PKTS_COMPUTED) {
		/* a law's mean, whole bytes / 1024: num below 2^57 */
		if (tg->pkts == IDF_PKTS_LAW)
			return (struct gap){ (uint64_t)llround(len_mean(tg) *
					      1024) * 8 * NS_PER_S,
					     tg->thro_req * 1024 };
		if (tg->pkts == IDF_PKTS_VARIABLE)
			return (struct gap){ ((uint64_t)tg->len_min +
					      tg->len_max) * 4 * NS_PER_S,
					     tg->thro_req };
		return (struct gap){ (uint64_t)tg->len_max * 8 * NS_PER_S,
				     tg->thro_req };
	}
	if (tg->inta_min == tg->inta_max)
		return (struct gap){ tg->inta_min, 1 };
	return (struct gap){ tg->inta_min + tg->inta_max, 2 };
}

struct gap gap_fixed(const struct idf_tg *tg)
{
	if (tg->dist == IDF_DIST_DNS)
		return (struct gap){ 100 * NS_PER_S, 56 };	/* 0.56 packets/s */
	if (tg->dist == IDF_DIST_VOIP)
		return (struct gap){ NS_PER_S, (uint64_t)
			idf_codecs[(int)tg->dist_param[0]].pkts_per_s };
	return gap_asked(tg);
}

static uint64_t gcd(uint64_t a, uint64_t b)
{
	while (b) {
		uint64_t t = a % b;

		a = b;
		b = t;
	}
	return a;
}

struct gap gap_reduced(struct gap g)
{
	uint64_t d = gcd(g.num, g.den);

	return d ? (struct gap){ g.num / d, g.den / d } : g;
}
