// SPDX-License-Identifier: GPL-2.0-or-later
/* Per-flow measurements from receive records (meter.h). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rx/meter.h"

#define WINDOW_WORDS	(METER_WINDOW / 64)

static uint64_t flow_key(uint32_t run_id, uint32_t tg_id)
{
	return (uint64_t)run_id << 32 | tg_id;
}

static size_t slot_of(uint64_t key, size_t nslots)
{
	/* Fibonacci hashing: TG ids are often small and consecutive. */
	return (size_t)((key * 0x9e3779b97f4a7c15ULL) >> 32) & (nslots - 1);
}

static int grow(struct meter_set *s)
{
	size_t n = s->nslots ? 2 * s->nslots : 64, i;
	struct meter **slots = calloc(n, sizeof(*slots));

	if (!slots)
		return -ENOMEM;
	for (i = 0; i < s->n; i++) {
		struct meter *m = s->all[i];
		size_t k = slot_of(flow_key(m->run_id, m->tg_id), n);

		while (slots[k])
			k = (k + 1) & (n - 1);
		slots[k] = m;
	}
	free(s->slots);
	s->slots = slots;
	s->nslots = n;
	return 0;
}

struct meter *meter_find(struct meter_set *s, uint32_t run_id,
			 uint32_t tg_id, bool create, bool *oom)
{
	uint64_t key = flow_key(run_id, tg_id);
	struct meter *m, **all;
	size_t k;

	*oom = false;
	if (s->nslots) {
		for (k = slot_of(key, s->nslots); (m = s->slots[k]);
		     k = (k + 1) & (s->nslots - 1))
			if (flow_key(m->run_id, m->tg_id) == key)
				return m;
	}
	if (!create)
		return NULL;
	/* At most half full. */
	if (2 * (s->n + 1) > s->nslots && grow(s))
		goto err_oom;
	all = realloc(s->all, (s->n + 1) * sizeof(*all));
	if (!all)
		goto err_oom;
	s->all = all;
	m = calloc(1, sizeof(*m));
	if (!m)
		goto err_oom;
	m->run_id = run_id;
	m->tg_id = tg_id;
	s->all[s->n++] = m;
	for (k = slot_of(key, s->nslots); s->slots[k];
	     k = (k + 1) & (s->nslots - 1))
		;
	s->slots[k] = m;
	return m;

err_oom:
	*oom = true;
	return NULL;
}

void meter_set_free(struct meter_set *s)
{
	size_t i;

	for (i = 0; i < s->n; i++) {
		free(s->all[i]->seen);
		free(s->all[i]);
	}
	free(s->all);
	free(s->slots);
	memset(s, 0, sizeof(*s));
}

static bool seen_test(const struct meter *m, uint64_t seq)
{
	uint64_t bit = seq & (METER_WINDOW - 1);

	return m->seen[bit / 64] >> (bit % 64) & 1;
}

static void seen_set(struct meter *m, uint64_t seq, bool on)
{
	uint64_t bit = seq & (METER_WINDOW - 1);

	if (on)
		m->seen[bit / 64] |= 1ULL << (bit % 64);
	else
		m->seen[bit / 64] &= ~(1ULL << (bit % 64));
}

/* The highest moves up to seq: the window forgets what fell out of it. */
static void window_advance(struct meter *m, uint64_t seq)
{
	uint64_t s;

	if (seq - m->next_exp >= METER_WINDOW) {
		memset(m->seen, 0, WINDOW_WORDS * sizeof(uint64_t));
		return;
	}
	for (s = m->next_exp; s <= seq; s++)
		seen_set(m, s, false);
}

static void owd_add(struct meter *m, const struct mtg_rx_rec *r)
{
	uint64_t d;

	/* D-ITG's send time may be no time of day: 0 (abi.rst) */
	if (r->flags & MTG_RX_F_CSUM_BAD || !r->tx_ns)
		return;
	if (r->rx_ns < r->tx_ns) {
		m->owd_negative++;
		return;
	}
	d = r->rx_ns - r->tx_ns;
	/* In arrival order, as RFC 3550 takes its interarrival jitter. */
	if (m->owd_count)
		m->jitter_ns += (fabs((double)d - (double)m->last_owd) -
				 m->jitter_ns) / 16.0;
	m->last_owd = d;
	if (!m->owd_count || d < m->owd_min)
		m->owd_min = d;
	m->owd_count++;
	m->owd_sum += d;
	if (d > m->owd_max)
		m->owd_max = d;
	m->owd_hist[hist_bucket(d)]++;
}

int meter_add(struct meter *m, const struct mtg_rx_rec *r)
{
	uint64_t seq = r->seq;
	bool first = true;

	if (!m->seen) {
		m->seen = calloc(WINDOW_WORDS, sizeof(uint64_t));
		if (!m->seen)
			return -ENOMEM;
		m->first_rx_ns = r->rx_ns;
	}
	m->records++;
	m->last_rx_ns = r->rx_ns;
	if (seq >= METER_SEQ_LIMIT) {
		m->implausible++;
		return 0;
	}
	m->bytes += r->len;
	m->bit_errors += r->wrong_bits;
	/* D-ITG's filler follows no pattern: nothing compared */
	if (!(r->flags & MTG_RX_F_DITG))
		m->bits += (uint64_t)r->payload_len * 8;
	if (r->flags & MTG_RX_F_CSUM_BAD)
		m->csum_bad++;

	if (!m->received || seq >= m->next_exp) {
		if (m->received)
			window_advance(m, seq);
		if (seq > m->next_exp) {	/* next_exp is 0 at first */
			uint64_t *g = m->gaps[m->ngaps++ % METER_GAPS];

			g[0] = m->next_exp;
			g[1] = seq - 1;
		}
		seen_set(m, seq, true);
		m->next_exp = seq + 1;
	} else if (m->next_exp - seq > METER_WINDOW) {
		/* Too far behind to tell a duplicate: a late first arrival. */
		m->reordered++;
	} else if (seen_test(m, seq)) {
		m->duplicates++;
		first = false;
	} else {
		seen_set(m, seq, true);
		m->reordered++;
	}
	if (first) {
		m->received++;
		owd_add(m, r);
	}
	return 0;
}

uint64_t meter_lost(const struct meter *m, int64_t sent)
{
	uint64_t expected = sent < 0 ? m->next_exp : (uint64_t)sent;

	return expected > m->received ? expected - m->received : 0;
}

void meter_gaps(const struct meter *m, char *buf, size_t size)
{
	uint64_t k, n = m->ngaps < METER_GAPS ? m->ngaps : METER_GAPS;
	size_t used = 0;
	int w;

	if (size)
		buf[0] = '\0';
	for (k = 0; k < n && used < size; k++) {
		const uint64_t *g = m->gaps[(m->ngaps - 1 - k) % METER_GAPS];

		if (g[0] == g[1])
			w = snprintf(buf + used, size - used, "%s%llu",
				     k ? "," : "", (unsigned long long)g[0]);
		else
			w = snprintf(buf + used, size - used, "%s%llu-%llu",
				     k ? "," : "", (unsigned long long)g[0],
				     (unsigned long long)g[1]);
		if (w < 0)
			break;
		used += (size_t)w;
	}
}
