// SPDX-License-Identifier: GPL-2.0-or-later
/* The receiver: the module's rings into meters, recording, events (receive.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "idf/idf.h"
#include "idf/units.h"
#include "nl/family.h"
#include "rx/receive.h"

void event_prefix(FILE *f, uint64_t t0, uint64_t t)
{
	uint64_t dt = t > t0 ? t - t0 : 0;

	fprintf(f, "%4llu.%01llus event: ",
		(unsigned long long)(dt / 1000000000ULL),
		(unsigned long long)(dt / 100000000ULL % 10));
}

static void event_time(const struct receiver *x, uint64_t t)
{
	event_prefix(x->events, x->t0, t);
}

/* A control message received: into the recording's extra entries. */
static void ctrl_record(struct receiver *x, const struct mtg_ctrl_rec *c)
{
	struct rec_extra e = {
		.type = REC_EXTRA_CTRL,
		.record = REC_EXTRA_NO_RECORD,
		.rx_ns = c->time_ns,
		.seq = c->seq,
		.tx_ns = c->tx_ns,
		.run_id = c->run_id,
		.tg_id = c->tg_id,
		.iface = c->iface,
		.rx_flags = c->flags,
		.count = c->len,
		.data_len = c->len,
	};

	x->ctrl_msgs++;
	if (x->rec)
		rec_add_extra(x->rec, &e, c->data);
}

static void ctrl_event(const struct receiver *x, const struct mtg_ctrl_rec *c)
{
	const char *error;
	char text[80];

	if (!x->events)
		return;
	event_time(x, c->time_ns);
	switch (c->type) {
	case MTG_CTRL_MSG:
		idf_data_str(c->data, c->len, text, sizeof(text));
		fprintf(x->events, "control message from tg %u (run %u), seq %llu, %u bytes %s\n",
			c->tg_id, c->run_id, (unsigned long long)c->seq,
			c->len, text);
		break;
	case MTG_CTRL_TG_EVENT:
		error = mtg_tg_error_name(c->error);
		fprintf(x->events, "tg %u: ", c->tg_id);
		mtg_nl_print_tg_events(x->events, c->events, ", ");
		fprintf(x->events, " (%s%s%s)\n", mtg_tg_state_name(c->state),
			error ? " " : "", error ? error : "");
		break;
	case MTG_CTRL_RX_DROPS:
		fprintf(x->events, "the receive ring is full: %llu packets dropped so far\n",
			(unsigned long long)c->count);
		break;
	default:
		fprintf(x->events, "control record of unknown type %u\n",
			c->type);
	}
}

int receiver_take(struct receiver *x, const struct mtg_rx_rec *r)
{
	struct mtg_rx_rec shifted;
	struct meter *m;
	bool oom;

	if (x->clock_shift_ns) {
		shifted = *r;
		shifted.rx_ns += x->clock_shift_ns;
		r = &shifted;
	}
	x->records++;
	if (x->rec)
		rec_add(x->rec, r);
	if (x->log)
		logc_add(x->log, r);
	if (r->flags & MTG_RX_F_HDR_CORRUPT) {
		x->hdr_corrupt++;
		return 0;
	}
	m = meter_find(&x->meters, r->run_id, r->tg_id, x->any_flow, &oom);
	if (!m) {
		if (oom)
			return -ENOMEM;
		x->unknown++;
		return 0;
	}
	return meter_add(m, r);
}

/* The keep ring's entries into the recording's extra entries. */
static int take_kept(struct receiver *x)
{
	struct mtg_keep_reader *k = &x->dev->keep;
	const uint8_t *data;
	struct mtg_keep_rec e;
	int ret;

	while ((ret = mtg_keep_next(k, &e, &data)) > 0) {
		struct rec_extra ex = {
			.flags = e.flags & MTG_KEEP_F_CUT ? REC_EXTRA_F_CUT : 0,
			.record = e.record,
			.rx_ns = e.rx_ns,
			.seq = e.seq,
			.run_id = e.run_id,
			.tg_id = e.tg_id,
			.count = e.count,
			.data_len = e.data_len,
		};

		if (e.type == MTG_KEEP_PAYLOAD) {
			ex.type = REC_EXTRA_PAYLOAD;
			x->payloads++;
		} else if (e.type == MTG_KEEP_BITS) {
			ex.type = REC_EXTRA_WRONG_BITS;
			x->bit_lists++;
		} else {
			continue;	/* of a later module: not ours to read */
		}
		if (x->rec)
			rec_add_extra(x->rec, &ex, data);
	}
	mtg_keep_release(k);
	return ret;
}

void receiver_ctrl(struct receiver *x, struct mtg_ctrl_rec *c)
{
	/* the copy is checked: its length says what data is its */
	if (c->len > sizeof(c->data))
		c->len = sizeof(c->data);
	if (c->type == MTG_CTRL_MSG)
		ctrl_record(x, c);
	ctrl_event(x, c);
}

int receiver_sample(void *arg, const void *data, size_t size)
{
	struct receiver *x = arg;
	struct mtg_ctrl_rec ctrl;
	struct mtg_rx_rec rec;

	/* Copied once, as from the module's rings: the size says which. */
	if (size == sizeof(rec)) {
		memcpy(&rec, data, sizeof(rec));
		return receiver_take(x, &rec);
	}
	if (size == sizeof(ctrl)) {
		memcpy(&ctrl, data, sizeof(ctrl));
		receiver_ctrl(x, &ctrl);
		return 0;
	}
	return -EPROTO;
}

int64_t receiver_poll(struct receiver *x)
{
	struct mtg_dev *d = x->dev;
	struct mtg_rx_rec rec;
	struct mtg_ctrl_rec ctrl;
	int64_t n, i, total = 0;
	int err;

	n = mtg_ring_ready(&d->ctrl);
	if (n < 0)
		return n;
	for (i = 0; i < n; i++) {
		/* Copied once: the slot is the kernel's again after release. */
		memcpy(&ctrl, mtg_ring_record(&d->ctrl, (uint64_t)i),
		       sizeof(ctrl));
		receiver_ctrl(x, &ctrl);
	}
	mtg_ring_release(&d->ctrl, (uint64_t)n);
	if (n && x->events)
		fflush(x->events);

	/* In batches, so that the kernel gets room back while we work. */
	while ((n = mtg_ring_ready(&d->data)) > 0) {
		if (n > 4096)
			n = 4096;
		for (i = 0; i < n; i++) {
			memcpy(&rec, mtg_ring_record(&d->data, (uint64_t)i),
			       sizeof(rec));
			err = receiver_take(x, &rec);
			if (err)
				return err;
		}
		mtg_ring_release(&d->data, (uint64_t)n);
		total += n;
	}
	if (n < 0)
		return n;
	/* After the records: each entry is there before its record. */
	err = take_kept(x);
	return err < 0 ? err : total;
}
