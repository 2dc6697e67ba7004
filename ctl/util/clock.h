/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The clock of every timestamp mtg keeps: CLOCK_TAI, in ns. */
#ifndef MTGCTL_CLOCK_H
#define MTGCTL_CLOCK_H

#include <stdint.h>
#include <time.h>

static inline uint64_t now_tai(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_TAI, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* Time limits (waits, deadlines): CLOCK_MONOTONIC, in ms. */
static inline uint64_t now_mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

#endif /* MTGCTL_CLOCK_H */
