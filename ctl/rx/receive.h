/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The receiver, shared by `run` and `listen` (listening.h): it takes the
 * module's rings (no system call per packet), or the XDP receiver's ring
 * buffer (listen --xdp), feeds the meters and the recording, and turns
 * control-queue records into event lines.
 */
#ifndef MTGCTL_RECEIVE_H
#define MTGCTL_RECEIVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "module/module.h"
#include "remote/logc.h"
#include "rx/meter.h"
#include "rx/recording.h"

/* Ring polling when idle: from MIN, doubling, up to MAX between looks. */
#define RX_IDLE_MIN_NS	20000ULL	/* 20 us */
#define RX_IDLE_MAX_NS	1000000ULL	/* 1 ms */

struct receiver {
	struct mtg_dev *dev;	/* NULL: the XDP receiver feeds it */
	struct meter_set meters;
	bool any_flow;		/* meter every flow met (listen); else only
				 * the flows added beforehand (a run's TGs)
				 */
	struct recorder *rec;	/* NULL: not recording */
	struct logc *log;	/* the log at logd; NULL: none */
	uint64_t records;	/* data records taken */
	uint64_t hdr_corrupt;	/* of them: header CRC wrong (no flow) */
	uint64_t unknown;	/* of them: of no known flow */
	uint64_t ctrl_msgs;	/* control messages taken */
	uint64_t payloads;	/* payloads kept, taken */
	uint64_t bit_lists;	/* wrong bits' positions kept, taken */
	uint64_t t0;		/* CLOCK_TAI: events say the time since */
	uint64_t clock_shift_ns;	/* added to every receive stamp: a
					 * clock set ahead on purpose (recv's
					 * --clock-shift, to test estimates) */
	FILE *events;		/* where event lines go; NULL: nowhere */
};

/* An event line's start: the time since t0, "event: ". */
void event_prefix(FILE *f, uint64_t t0, uint64_t t);

/*
 * One data record to the meters, the recording and the log: 0, or -ENOMEM. The
 * module's ring and the XDP receiver's (bpf/xdprx.h) both come here.
 */
int receiver_take(struct receiver *x, const struct mtg_rx_rec *r);
/* One control record (its len clamped) to the recording and event lines. */
void receiver_ctrl(struct receiver *x, struct mtg_ctrl_rec *c);
/*
 * A sample of the XDP receiver's ring buffer (arg: the receiver): a data
 * or control record by its size; 0, or -errno (-EPROTO: neither size).
 */
int receiver_sample(void *arg, const void *data, size_t size);

/*
 * Take what the rings hold: data records to the meters and the recording,
 * control records to event lines. The number of data records taken, or
 * -errno (-EPROTO: the rings' counts make no sense; -ENOMEM).
 */
int64_t receiver_poll(struct receiver *x);

#endif /* MTGCTL_RECEIVE_H */
