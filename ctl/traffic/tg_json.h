/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A TG as mtgctl resolved it, in JSON: what `mtgctl check --json` prints
 * and what a recording's metadata keeps of each TG.
 */
#ifndef MTGCTL_TG_JSON_H
#define MTGCTL_TG_JSON_H

#include <stdbool.h>

#include "idf/idf.h"
#include "traffic/tables.h"
#include "util/jw.h"

/* The TG and its timetable (with every entry if entries). */
void tg_json(struct jw *j, const struct idf_tg *tg, const struct tt *tt,
	     bool entries);

#endif /* MTGCTL_TG_JSON_H */
