/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Histograms of nanoseconds in the module's lateness buckets
 * (kmod/uapi/mtg.h, MTG_LAT_BUCKETS): a bucket per value below 8, then 8
 * buckets per power of two, so no bucket is more than 12.5% wide. The
 * lateness comes in that shape from the kernel; mtgctl keeps one-way delays
 * the same way.
 */
#ifndef MTGCTL_HIST_H
#define MTGCTL_HIST_H

#include <stdbool.h>
#include <stdint.h>

#include "uapi/mtg.h"

#define HIST_BUCKETS	MTG_LAT_BUCKETS

/* Percentiles of a histogram; valid false (and all 0) when it is empty. */
struct hist_summary {
	bool valid;
	uint64_t p50, p99, p999, max, mean;	/* nanoseconds */
};

/* The bucket of ns, as the module computes it. */
unsigned int hist_bucket(uint64_t ns);
/* The largest value that falls into bucket b (UINT64_MAX for the last). */
uint64_t hist_bucket_max(unsigned int b);
/*
 * Percentile p is the bucket holding the sample of rank ceil(count * p),
 * reported as that bucket's largest value, capped at max; mean is sum /
 * count, rounded down.
 */
void hist_summarize(const __u64 *counts, uint64_t max, uint64_t sum,
		    struct hist_summary *out);

#endif /* MTGCTL_HIST_H */
