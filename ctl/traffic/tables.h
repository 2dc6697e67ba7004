/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Timetables: what a TG's IDF parameters become in the module's shared
 * memory, a circular table of (gap, length) entries (struct mtg_tt_entry).
 * tt_build() is the one place that turns a TG into entries; each
 * distribution adds its builder here.
 */
#ifndef MTGCTL_TABLES_H
#define MTGCTL_TABLES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "idf/idf.h"
#include "uapi/mtg.h"

/*
 * A fixed rate whose gap is not a whole number of nanoseconds is spread
 * over up to this many entries, so the table's period is exact.
 */
#define TT_SPREAD_MAX	1000
/* Tables of random models: entries, and the traffic they cover by default. */
#define TT_LEN_MIN	4096
#define TT_LEN_MAX	(1U << 21)	/* 32 MiB */
#define TT_LOOP_SECONDS	60
/* Streaming tables hold this much traffic ahead of the module. */
#define TT_LOOKAHEAD_SECONDS	2
/* A trace or pcap file too long for one table streams through this many. */
#define TT_STREAM_FILE	(1U << 16)

struct model_gen;
struct beh_gen;

struct tt {
	struct mtg_tt_entry *entries;
	size_t len;		/* entries */
	bool stream;		/* refilled while running; else it loops */
	struct model_gen *gen;	/* stream: draws the entries after the first len */
	struct beh_gen *beh;	/* the same, for dist behaviour */
	uint64_t period_ns;	/* sum of the gaps: one pass of the table */
	uint64_t mean_num;	/* the mean gap asked for, ns: num / den */
	uint64_t mean_den;
	bool exact;		/* period_ns / len == mean_num / mean_den */
	uint64_t clipped;	/* gaps cut to an hour (MODEL_GAP_MAX_NS) */
	uint64_t negative;	/* fgn slots whose count was cut to 0 */
	uint64_t len_clamped;	/* pkts LAW: lengths clamped to MIN .. MAX */
	uint64_t first_ns;	/* the first departure after the TG's start */
	uint64_t backwards;	/* pcap: timestamps going back (gaps of 0) */
	uint8_t *cats;		/* dist behaviour: each entry's category */
};

/* A typical gap of the TG's model, ns (models.h; behave.h). */
double tt_typical_gap(const struct idf_tg *tg);

/* The entries of a random model's table. */
size_t tt_len_for(const struct idf_tg *tg);

/* Does the TG's table stream (`table`, or a run its table would not hold)? */
bool tt_streams(const struct idf_tg *tg);

/*
 * Entry k of the TG's timetable, taken in order (k = 0, 1, 2, ...): a
 * looping table repeats its entries; a stream gives its first len entries,
 * then draws new ones.
 */
void tt_entry(struct tt *tt, uint64_t k, struct mtg_tt_entry *e);

/*
 * dist behaviour: the category of entry k, the one tt_entry() gave last
 * (-1 for the other models).
 */
int tt_category(const struct tt *tt, uint64_t k);

/* 0, or -1 with a message in err (out of memory). */
int tt_build(const struct idf_tg *tg, struct tt *tt, char *err, size_t size);
void tt_free(struct tt *tt);

#endif /* MTGCTL_TABLES_H */
