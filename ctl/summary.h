/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The run summary: lateness percentiles from the kernel's histogram, and
 * the JSON file `mtgctl run --json` writes (format "mtgctl-summary",
 * Documentation/mtgctl.rst describes every field).
 */
#ifndef MTGCTL_SUMMARY_H
#define MTGCTL_SUMMARY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../kmod/uapi/mtg.h"

#define SUMMARY_FORMAT		"mtgctl-summary"
#define SUMMARY_VERSION		1

struct lateness {
	bool valid;		/* false: no packet sent, all null */
	uint64_t p50, p99, p999, max, mean;	/* nanoseconds */
};

struct summary_tg {
	const struct mtg_tg_stats *st;	/* the last counters read */
	const char *dev;
	const char *netns;		/* NULL: the caller's namespace */
	const char *mode;
	const char *path;
	const uint8_t *dst_mac;		/* 6 bytes, as the module used it */
};

struct summary {
	const char *file;		/* the IDF */
	uint32_t run_id;
	uint64_t start_ns;		/* T0, CLOCK_TAI */
	uint64_t end_ns;		/* when the last TG was seen ended */
	bool interrupted;
	const struct summary_tg *tgs;
	size_t ntgs;
};

/* The largest lateness, ns, that falls into histogram bucket b. */
uint64_t lat_bucket_max(unsigned int b);
void lateness_from_stats(const struct mtg_tg_stats *st, struct lateness *l);

/* Write path atomically (a temporary file, then rename). 0 or -errno. */
int summary_write(const char *path, const struct summary *s);

#endif /* MTGCTL_SUMMARY_H */
