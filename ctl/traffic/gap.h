/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A TG's mean gap between departures: the one place where a rate becomes
 * a gap, and a gap a rate again. `thro` over the mean frame's bits
 * (`pkts`), else the middle of `inta`; D-ITG's fixed presets (dns, voip)
 * at their own packet rates. Kept exact, as a fraction of nanoseconds, so
 * a fixed rate's table can spread it without rounding (tables.c, models.c).
 */
#ifndef MTGCTL_GAP_H
#define MTGCTL_GAP_H

#include <stdint.h>

#include "idf/idf.h"

struct gap {
	uint64_t num;		/* ns: num / den; num 0: no rate given */
	uint64_t den;
};

/* The gap `thro` (with `pkts`) or else `inta` asks for, whatever `dist`. */
struct gap gap_asked(const struct idf_tg *tg);
/* The gap of a fixed rate: a preset's own (dns, voip), else gap_asked(). */
struct gap gap_fixed(const struct idf_tg *tg);
/* The same fraction in lowest terms. */
struct gap gap_reduced(struct gap g);

/* In ns. */
static inline double gap_ns(struct gap g)
{
	return (double)g.num / (double)g.den;
}

/* Departures per second (num must not be 0). */
static inline double gap_pps(struct gap g)
{
	return 1e9 * (double)g.den / (double)g.num;
}

#endif /* MTGCTL_GAP_H */
