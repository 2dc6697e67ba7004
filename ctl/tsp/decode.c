// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Decoding TSP (wire.h): how long a message is from its first bytes, a
 * whole message from a buffer, and messages from a TCP stream in any
 * split. A length is checked against its type's bounds before a byte of
 * the body is held or allocated.
 */
#include <endian.h>
#include <stdlib.h>
#include <string.h>

#include "tsp/codec.h"

/* the bounds of an mtg frame's body, by type */
static const struct {
	uint32_t min, max;
} mtg_body[] = {
	[TSP_HELLO - TSP_MTG_FIRST] = { 16, 16 },
	[TSP_CHALLENGE - TSP_MTG_FIRST] = { 36, 36 },
	[TSP_AUTH - TSP_MTG_FIRST] = { 64, 64 },
	[TSP_AUTH_OK - TSP_MTG_FIRST] = { 32, 32 },
	[TSP_FLOW_REQ - TSP_MTG_FIRST] = { 60, 60 + TSP_MAX_TG_JSON },
	[TSP_FLOW_ACK - TSP_MTG_FIRST] = { 10, 10 + TSP_MAX_TEXT },
	[TSP_RESULT - TSP_MTG_FIRST] = { 96, 96 },
	[TSP_ERROR - TSP_MTG_FIRST] = { 6, 6 + TSP_MAX_TEXT },
	[TSP_START - TSP_MTG_FIRST] = { 28, 28 },
	[TSP_TIME_REQ - TSP_MTG_FIRST] = { 8, 8 },
	[TSP_TIME_RESP - TSP_MTG_FIRST] = { 24, 24 },
	[TSP_LOG_OPEN - TSP_MTG_FIRST] = { 14, TSP_LOG_OPEN_MAX },
	[TSP_LOG_ACK - TSP_MTG_FIRST] = { 6, 6 },
	[TSP_LOG_BATCH - TSP_MTG_FIRST] = {
		24 + TSP_LOG_REC, 24 + TSP_LOG_REC * TSP_LOG_BATCH_MAX },
	[TSP_LOG_CLOSE - TSP_MTG_FIRST] = { 40, 40 },
	[TSP_LOG_DONE - TSP_MTG_FIRST] = { 34, 34 + TSP_MAX_TEXT },
	[TSP_JOB_OFFER - TSP_MTG_FIRST] = {
		13, 10 + TSP_LOG_NAME_MAX + 2 + TSP_MAX_TEXT },
	[TSP_JOB_DATA - TSP_MTG_FIRST] = { 9, 8 + TSP_JOB_CHUNK },
	[TSP_JOB_READY - TSP_MTG_FIRST] = { 8, 8 },
	[TSP_JOB_START - TSP_MTG_FIRST] = { 12, 12 },
	[TSP_JOB_PROGRESS - TSP_MTG_FIRST] = {
		16, 16 + TSP_JOB_ROW * TSP_JOB_ROWS },
	[TSP_JOB_END - TSP_MTG_FIRST] = { 14, 14 + TSP_MAX_TEXT },
	[TSP_JOB_DROP - TSP_MTG_FIRST] = { 6, 6 + TSP_MAX_TEXT },
};

int tsp_check_type(uint8_t t, const struct tsp_cfg *c, uint64_t base,
		   struct tsp_err *e)
{
	unsigned int who = tsp_senders(t);
	bool sender = c->from == TSP_FROM_SENDER;
	const char *name = tsp_type_name(t);

	if (t == TSP_CRYPTO_RSA || t == TSP_SENDER_DOWN) {
		tsp_fail(e, TSP_E_TYPE, t, true, base, 0, "type", "%s is %s",
			 name, t == TSP_CRYPTO_RSA ?
			 "defined by D-ITG 2.8.1 but never sent: no layout" :
			 "ITGRecv's own, never on the wire");
		return -1;
	}
	if (!who) {
		tsp_fail(e, TSP_E_TYPE, t, false, base, 0, "type",
			 t >= TSP_MTG_FIRST && t <= TSP_MTG_RESERVED_END ?
			 "mtg type 0x%02x is not one of TSP %d.%d" :
			 "unknown type 0x%02x", t, TSP_VERSION_MAJOR,
			 TSP_VERSION_MINOR);
		return -1;
	}
	if (t == TSP_ACK_SEND_FLOW && sender && !c->passive)
		who = 2;	/* a sender sends it in passive mode only */
	if (!(who & (sender ? 1 : 2))) {
		tsp_fail(e, TSP_E_TYPE, t, true, base, 0, "type",
			 "%s comes from a %s, not from the %s%s", name,
			 sender ? "receiver" : "sender",
			 sender ? "sender" : "receiver",
			 t == TSP_ACK_SEND_FLOW ? " (outside passive mode)" :
			 "");
		return -1;
	}
	return 0;
}

static int mtg_need(uint8_t t, const uint8_t *p, size_t n, uint64_t base,
		    size_t *total, size_t *want, struct tsp_err *e);

int tsp_need(const struct tsp_cfg *c, const uint8_t *p, size_t n,
	     uint64_t base, size_t *total, size_t *want, struct tsp_err *e)
{
	struct cur cur = {
		.mode = CUR_SIZE, .from = c->from, .passive = c->passive,
		.base = base, .e = e, .lenient = true,
	};
	struct tsp_msg m;
	uint32_t len;
	uint8_t t;

	*total = 0;
	*want = 1;
	if (!n)
		return 0;
	t = p[0];
	if (tsp_check_type(t, c, base, e))
		return -1;
	memset(&m, 0, sizeof(m));
	if (t >= TSP_MTG_FIRST)
		return mtg_need(t, p, n, base, total, want, e);
	m.type = t;
	switch (t) {
	case TSP_SEND_FLOW:
		*want = 6;
		if (n < 6)
			return 0;
		if (p[5] != TSP_L3_IPV4 && p[5] != TSP_L3_IPV6) {
			tsp_fail(e, TSP_E_RANGE, t, true, base, 5, "l3_proto",
				 "%u is not an IP version (4 or 6)", p[5]);
			return -1;
		}
		m.u.flow.l3 = p[5];
		break;
	case TSP_SEND_FLOW_LOG:
		*want = 5;
		if (n < 5)
			return 0;
		memcpy(&len, p + 1, 4);
		m.u.log.family = be32toh(len);
		if (m.u.log.family != TSP_AF_INET &&
		    m.u.log.family != TSP_AF_INET6) {
			tsp_fail(e, TSP_E_RANGE, t, true, base, 1, "family",
				 "%u is not an address family (%d or %d)",
				 m.u.log.family, TSP_AF_INET, TSP_AF_INET6);
			return -1;
		}
		break;
	}
	/* the layout's own size, its values unchecked */
	if (tsp_walk(&cur, &m))
		return -1;
	*total = cur.off;
	return 0;
}

static int mtg_need(uint8_t t, const uint8_t *p, size_t n, uint64_t base,
		    size_t *total, size_t *want, struct tsp_err *e)
{
	uint32_t len;

	*want = TSP_FRAME_HDR;
	if (n < TSP_FRAME_HDR)
		return 0;
	if (p[1] != TSP_MARKER) {
		tsp_fail(e, TSP_E_RANGE, t, true, base, 1, "marker",
			 "0x%02x is not 'M', an mtg frame's second byte", p[1]);
		return -1;
	}
	memcpy(&len, p + 2, 4);
	len = be32toh(len);
	if (len < mtg_body[t - TSP_MTG_FIRST].min ||
	    len > mtg_body[t - TSP_MTG_FIRST].max) {
		if (mtg_body[t - TSP_MTG_FIRST].min ==
		    mtg_body[t - TSP_MTG_FIRST].max)
			tsp_fail(e, TSP_E_LENGTH, t, true, base, 2, "length",
				 "%u bytes; %s's body is %u", len,
				 tsp_type_name(t), mtg_body[t - TSP_MTG_FIRST].min);
		else
			tsp_fail(e, TSP_E_LENGTH, t, true, base, 2, "length",
				 "%u bytes; %s's body is %u to %u", len,
				 tsp_type_name(t), mtg_body[t - TSP_MTG_FIRST].min,
				 mtg_body[t - TSP_MTG_FIRST].max);
		return -1;
	}
	*total = TSP_FRAME_HDR + len;
	return 0;
}

enum tsp_res tsp_decode(const struct tsp_cfg *c, const uint8_t *p, size_t n,
			uint64_t base, bool at_end, struct tsp_msg *m,
			size_t *used, struct tsp_err *e)
{
	struct cur cur = {
		.mode = CUR_READ, .from = c->from, .passive = c->passive,
		.in = p, .base = base, .e = e,
	};
	size_t total, want;

	memset(m, 0, sizeof(*m));
	*used = 0;
	if (tsp_need(c, p, n, base, &total, &want, e))
		return TSP_BAD;
	if (!n || ((!total || n < total) && !at_end)) {
		*used = total ? total : want;
		return TSP_MORE;
	}
	cur.end = total && total <= n ? total : n;
	m->type = p[0];
	if (tsp_walk(&cur, m)) {
		tsp_msg_free(m);
		return TSP_BAD;
	}
	if (cur.off != total) {		/* the layouts and tsp_need disagree */
		tsp_fail(e, TSP_E_LENGTH, p[0], true, base, cur.off, "type",
			 "mtgctl's own error: %zu bytes read of %zu", cur.off,
			 total);
		tsp_msg_free(m);
		return TSP_BAD;
	}
	*used = total;
	return TSP_MSG;
}

void tsp_stream_init(struct tsp_stream *s, const struct tsp_cfg *c)
{
	memset(s, 0, sizeof(*s));
	s->cfg = *c;
}

void tsp_stream_free(struct tsp_stream *s)
{
	free(s->buf);
	s->buf = NULL;
	s->len = s->cap = 0;
}

static size_t stream_fail(struct tsp_stream *s, size_t used,
			  enum tsp_res *res, struct tsp_err *e)
{
	s->failed = true;
	s->err = *e;
	*res = TSP_BAD;
	return used;
}

size_t tsp_stream_feed(struct tsp_stream *s, const uint8_t *p, size_t n,
		       struct tsp_msg *m, enum tsp_res *res, struct tsp_err *e)
{
	size_t used = 0, total, want, goal, k;
	uint8_t *nb;

	memset(m, 0, sizeof(*m));
	if (s->failed) {
		*e = s->err;
		*res = TSP_BAD;
		return 0;
	}
	for (;;) {
		if (tsp_need(&s->cfg, s->buf, s->len, s->pos, &total, &want, e))
			return stream_fail(s, used, res, e);
		if (total && s->len == total) {
			if (tsp_decode(&s->cfg, s->buf, s->len, s->pos, true, m,
				       &k, e) != TSP_MSG)
				return stream_fail(s, used, res, e);
			s->pos += s->len;
			s->len = 0;
			*res = TSP_MSG;
			return used;
		}
		if (used == n) {
			*res = TSP_MORE;
			return used;
		}
		goal = total ? total : want;
		if (goal > TSP_MAX_MSG) {
			tsp_fail(e, TSP_E_LENGTH, s->len ? s->buf[0] : 0,
				 s->len, s->pos, 0, "length",
				 "mtgctl's own error: %zu bytes",
				 goal);
			return stream_fail(s, used, res, e);
		}
		if (goal > s->cap) {
			nb = realloc(s->buf, goal);
			if (!nb) {
				tsp_fail(e, TSP_E_LENGTH, s->len ? s->buf[0] : 0,
					 s->len, s->pos, 0, "length",
					 "out of memory for %zu bytes", goal);
				return stream_fail(s, used, res, e);
			}
			s->buf = nb;
			s->cap = goal;
		}
		k = goal - s->len < n - used ? goal - s->len : n - used;
		memcpy(s->buf + s->len, p + used, k);
		s->len += k;
		used += k;
	}
}

int tsp_stream_end(struct tsp_stream *s, struct tsp_err *e)
{
	struct tsp_msg m;
	size_t used;

	if (s->failed) {
		*e = s->err;
		return -1;
	}
	if (!s->len)
		return 0;
	if (tsp_decode(&s->cfg, s->buf, s->len, s->pos, true, &m, &used, e) ==
	    TSP_MSG) {		/* cannot be: a whole one was taken out */
		tsp_msg_free(&m);
		return 0;
	}
	s->failed = true;
	s->err = *e;
	return -1;
}
