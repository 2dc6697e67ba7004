/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Per-flow measurements from receive records (struct mtg_rx_rec), one
 * meter per (run id, TG id). Definitions (Documentation/mtgctl.rst):
 *
 * - received: distinct sequence numbers; a copy of one already received
 *   is a duplicate (recognised within METER_WINDOW sequence numbers of the
 *   highest received);
 * - reordered: RFC 4737 Type-P-Reordered: a packet (not a duplicate) whose
 *   sequence number is below the next expected one, the highest received
 *   plus one;
 * - lost: of what was sent, what was not received (sent - received); with
 *   no count of what was sent, the gaps below the highest received;
 * - bit errors: payload bits unlike the pattern, of every record with a
 *   sound header, duplicates included; BER is bit errors over bits
 *   compared;
 * - one-way delay: receive stamp minus TX stamp, of first arrivals whose
 *   stamps the checksums vouch for;
 * - implausible: records whose sequence number is METER_SEQ_LIMIT or more,
 *   which no sender reaches (2^63 packets): counted in records and here,
 *   and nowhere else (their packet is as if it never came), so that no
 *   count wraps.
 *
 * Records whose header failed its CRC belong to no flow (their ids cannot
 * be trusted): the caller counts them.
 */
#ifndef MTGCTL_METER_H
#define MTGCTL_METER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rx/hist.h"
#include "uapi/mtg.h"

#define METER_WINDOW	65536	/* sequence numbers, a power of two */
#define METER_GAPS	4	/* the latest gaps kept */
#define METER_SEQ_LIMIT	(1ULL << 63)	/* a sequence number never sent */

struct meter {
	uint32_t run_id;
	uint32_t tg_id;
	uint64_t records;	/* records of this flow, duplicates included */
	uint64_t bytes;		/* their L2 bytes */
	uint64_t received;	/* distinct sequence numbers */
	uint64_t duplicates;
	uint64_t reordered;
	uint64_t next_exp;	/* highest sequence number received + 1 */
	uint64_t bit_errors;
	uint64_t bits;		/* payload bits compared */
	uint64_t csum_bad;	/* records whose stamps are not vouched for */
	uint64_t implausible;	/* records with seq >= METER_SEQ_LIMIT */
	uint64_t owd_count;	/* one-way delays taken */
	uint64_t owd_sum;	/* ns */
	uint64_t owd_max;	/* ns */
	uint64_t owd_min;	/* ns, valid if owd_count */
	uint64_t owd_negative;	/* received before sent: clocks apart */
	__u64 owd_hist[HIST_BUCKETS];	/* the module's histogram type */
	double jitter_ns;	/* RFC 3550 6.4.1: smoothed |change of delay| */
	uint64_t last_owd;	/* ns, the one before; valid if owd_count */
	uint64_t gaps[METER_GAPS][2];	/* the latest gaps: first, last seq */
	uint64_t ngaps;		/* gaps ever opened */
	uint64_t first_rx_ns;
	uint64_t last_rx_ns;
	uint64_t *seen;		/* METER_WINDOW bits: seq mod window */
	bool round_trip;	/* a reflector sent the flow back: its delays
				 * are round trips (meter rtt) */
};

/* Meters of the flows seen, found by (run id, TG id). */
struct meter_set {
	struct meter **slots;	/* open addressing */
	size_t nslots;		/* a power of two */
	struct meter **all;	/* in the order they were added */
	size_t n;
};

/* The meter of a flow, added if missing when create; NULL if not found
 * or out of memory (*oom set). */
struct meter *meter_find(struct meter_set *s, uint32_t run_id,
			 uint32_t tg_id, bool create, bool *oom);
void meter_set_free(struct meter_set *s);

/* Account one record of the meter's flow (its header sound). 0, -ENOMEM. */
int meter_add(struct meter *m, const struct mtg_rx_rec *r);

/* Lost packets: sent - received, or the gaps when sent is unknown (-1). */
uint64_t meter_lost(const struct meter *m, int64_t sent);

/* The latest gaps, newest first: "812-815,790"; "" if none. */
void meter_gaps(const struct meter *m, char *buf, size_t size);

#endif /* MTGCTL_METER_H */
