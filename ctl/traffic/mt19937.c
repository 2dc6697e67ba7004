// SPDX-License-Identifier: GPL-2.0-or-later
/* MT19937's seeding and regeneration (mt19937.h). */
#include "traffic/mt19937.h"

#define MT19937_M	397
#define UPPER		0x80000000U
#define LOWER		0x7fffffffU
#define MATRIX_A	0x9908b0dfU

void mt19937_seed(struct mt19937 *g, unsigned long seed)
{
	int i;

	g->mt[0] = seed ? (uint32_t)seed : 4357;
	for (i = 1; i < MT19937_N; i++)
		g->mt[i] = 1812433253U * (g->mt[i - 1] ^ (g->mt[i - 1] >> 30)) +
			   (uint32_t)i;
	g->next = MT19937_N;
}

static uint32_t twist(uint32_t far, uint32_t upper, uint32_t lower)
{
	uint32_t y = (upper & UPPER) | (lower & LOWER);

	return far ^ (y >> 1) ^ (y & 1 ? MATRIX_A : 0);
}

void mt19937_regenerate(struct mt19937 *g)
{
	uint32_t *mt = g->mt;
	int k;

	for (k = 0; k < MT19937_N - MT19937_M; k++)
		mt[k] = twist(mt[k + MT19937_M], mt[k], mt[k + 1]);
	for (; k < MT19937_N - 1; k++)
		mt[k] = twist(mt[k + MT19937_M - MT19937_N], mt[k], mt[k + 1]);
	mt[k] = twist(mt[MT19937_M - 1], mt[k], mt[0]);
	g->next = 0;
}
