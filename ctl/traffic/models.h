/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The traffic models: a generator that gives a TG's timetable one entry
 * (gap to the next departure, frame length) at a time, from a seeded
 * uniform generator (rng.h) and GSL's samplers. tables.h lays the entries
 * out; `mtgctl table` prints them. Documentation/idf.rst describes each
 * model; the order of the draws (the gap, then the length) is part of the
 * reproducibility promise.
 */
#ifndef MTGCTL_MODELS_H
#define MTGCTL_MODELS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "idf/idf.h"
#include "uapi/mtg.h"

/* A gap is at most an hour: the tails of Pareto and Cauchy are cut there. */
#define MODEL_GAP_MAX_NS	3600000000000.0
/* fGn is made in independent batches of this many slots (MTG: 10 minutes). */
#define MODEL_FGN_BATCH		(1U << 16)

struct model_gen {
	const struct idf_tg *tg;
	gsl_rng *rng;
	bool rng_shared;	/* a behaviour's category: the TG's, not freed */
	double mean_gap;	/* ns: from thro or inta */
	int samplers;		/* idf_samplers(): which draw the tables */
	double lognormal_zeta;	/* lognormal: log of the median, once */
	uint64_t fix_num, fix_den;	/* a fixed rate's gap, ns: num / den */
	uint64_t k;		/* entries given */
	uint64_t clipped;	/* gaps cut to MODEL_GAP_MAX_NS */
	uint64_t len_clamped;	/* pkts LAW: draws clamped to MIN .. MAX */
	/* mmpp: the state (0 high, 1 low), time left in it, rates per ns */
	int state;
	double left;
	double rate[2];
	/* voice: packets left in the talkspurt */
	uint64_t spurt_left;
	/* fgn: a batch of packet counts per slot, and where we are in it */
	double *fgn_sqrt_eig;	/* exact method: sqrt of the eigenvalues / 2N */
	double *fgn_work;	/* 2 * 2N doubles: FFT, or the fBm path */
	double *fgn_x;		/* N doubles: the batch's unit fGn */
	uint32_t *counts;
	uint64_t slot_ns;
	uint64_t slot;		/* slots done, over all batches */
	uint32_t in_batch;	/* slot within the batch */
	uint32_t in_slot;	/* packet within the slot */
	uint64_t next_dep;	/* departure of the next packet, ns */
	uint64_t negative;	/* fgn slots whose count came out below 0 */
	/* time poisson: time left in the current call, ns */
	double call_left;
	/* jitt: nominal and jittered departure of the current packet, ns */
	uint64_t nominal, jittered;
	/* the first departure's offset from the TG's start (idle, jitter) */
	uint64_t first_ns;
	/* trace, pcap: the file's entries, given in a circle */
	struct mtg_tt_entry *file;
	size_t file_len;
	uint64_t backwards;	/* pcap: timestamps going back, gaps of 0 */
	/* D-ITG's presets: a discrete law of payload bytes; Student's t's
	 * sampler (csa, csi); headers' bytes */
	gsl_ran_discrete_t *sizes;
	struct draw_tdist *tdist;
	uint32_t headers;
	uint32_t min_len;	/* idf_min_len(), once */
};

/* 0, or -1 with a message in err. */
int model_init(struct model_gen *g, const struct idf_tg *tg, char *err,
	       size_t size);
/* The same on a generator of another's, which model_free() leaves. */
int model_init_on(struct model_gen *g, const struct idf_tg *tg, gsl_rng *rng,
		  char *err, size_t size);
void model_next(struct model_gen *g, struct mtg_tt_entry *e);
void model_free(struct model_gen *g);

/* trace, pcap: read the file into g->file (files.c); 0, or -1 and err. */
int model_file_init(struct model_gen *g, char *err, size_t size);

/* The entries a trace or pcap file gives (0 for the other models). */
static inline size_t model_file_len(const struct model_gen *g)
{
	return g->file_len;
}

/* A typical gap of the model, ns, to size its table (the mean if finite). */
double model_typical_gap(const struct idf_tg *tg);

#endif /* MTGCTL_MODELS_H */
