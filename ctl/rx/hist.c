// SPDX-License-Identifier: GPL-2.0-or-later
/* Histograms in the module's lateness buckets (hist.h). */
#include <string.h>

#include "rx/hist.h"

unsigned int hist_bucket(uint64_t ns)
{
	unsigned int e;

	if (ns < 8)
		return (unsigned int)ns;
	if (ns >= (1ULL << 48))
		return HIST_BUCKETS - 1;
	e = 63 - (unsigned int)__builtin_clzll(ns);
	return 8 + 8 * (e - 3) + (unsigned int)((ns >> (e - 3)) & 7);
}

uint64_t hist_bucket_max(unsigned int b)
{
	unsigned int e, sub;

	if (b < 8)
		return b;
	if (b >= HIST_BUCKETS - 1)
		return UINT64_MAX;
	e = 3 + (b - 8) / 8;
	sub = (b - 8) % 8;
	return ((uint64_t)(9 + sub) << (e - 3)) - 1;
}

/* The bucket of the sample of rank ceil(count * num / 1000). */
static uint64_t percentile(const __u64 *counts, uint64_t count,
			   uint64_t max, unsigned int num)
{
	uint64_t rank = count / 1000 * num + (count % 1000 * num + 999) / 1000;
	uint64_t seen = 0, v;
	unsigned int b;

	if (!rank)
		rank = 1;
	for (b = 0; b < HIST_BUCKETS; b++) {
		seen += counts[b];
		if (seen >= rank)
			break;
	}
	v = hist_bucket_max(b < HIST_BUCKETS ? b : HIST_BUCKETS - 1);
	return v < max ? v : max;
}

void hist_summarize(const __u64 *counts, uint64_t max, uint64_t sum,
		    struct hist_summary *out)
{
	uint64_t count = 0;
	unsigned int b;

	memset(out, 0, sizeof(*out));
	for (b = 0; b < HIST_BUCKETS; b++)
		count += counts[b];
	if (!count)
		return;
	out->valid = true;
	out->p50 = percentile(counts, count, max, 500);
	out->p99 = percentile(counts, count, max, 990);
	out->p999 = percentile(counts, count, max, 999);
	out->max = max;
	out->mean = sum / count;
}
