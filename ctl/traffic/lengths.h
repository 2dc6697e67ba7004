/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A TG's frame lengths (Documentation/idf.rst, `pkts`): the one place
 * where they are drawn (`pkts variable`, `pkts LAW`) and where their mean
 * is worked out, for the rate `thro` asks for and for `mtgctl check`.
 */
#ifndef MTGCTL_LENGTHS_H
#define MTGCTL_LENGTHS_H

#include <stdint.h>

#include <gsl/gsl_rng.h>

#include "idf/idf.h"

/* The shortest frame the TG sends: its MIN, or its family's smallest. */
uint32_t len_lowest(const struct idf_tg *tg);

/*
 * The mean frame length in bytes; a law's exactly, over its draws as sent:
 * rounded down, `plus` added, clamped to MIN .. MAX.
 */
double len_mean(const struct idf_tg *tg);

/*
 * The next frame's length of `pkts variable` or `pkts LAW`, from r; a
 * law's draw outside MIN .. MAX is clamped to it and counted in *clamped.
 */
uint32_t len_draw(gsl_rng *r, const struct idf_tg *tg, uint64_t *clamped);

#endif /* MTGCTL_LENGTHS_H */
