// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Every TSP message's layout, once (codec.h): the fields in their order,
 * sizes and byte orders, and the range each value must be in. D-ITG's
 * layouts are those of its 2.8.1 sources as Debian's binaries send them
 * (Documentation/tsp.rst); mtg's are framed: type, 'M', body length.
 */
#include <endian.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tsp/codec.h"
#include "util/text.h"

void tsp_fail(struct tsp_err *e, enum tsp_ecode code, uint8_t type,
	      bool have_type, uint64_t base, size_t off, const char *field,
	      const char *fmt, ...)
{
	va_list ap;

	e->code = code;
	e->type = type;
	e->have_type = have_type;
	e->field = field;
	e->msg_offset = base;
	e->offset = base + off;
	va_start(ap, fmt);
	vsnprintf(e->what, sizeof(e->what), fmt, ap);
	va_end(ap);
}

int bad(struct cur *c, enum tsp_ecode code, size_t at,
	       const char *field, const char *what)
{
	tsp_fail(c->e, code, c->type, true, c->base, at, field, "%s", what);
	c->bad = true;
	return -1;
}

/* room for len bytes at c->off */
int room(struct cur *c, const char *field, size_t len)
{
	char what[96];

	if (c->bad)
		return -1;
	if (c->mode == CUR_SIZE || c->end - c->off >= len)
		return 0;
	if (c->mode == CUR_WRITE)
		snprintf(what, sizeof(what), "%zu bytes do not fit in the "
			 "output's %zu", c->off + len, c->end);
	else
		snprintf(what, sizeof(what), "needs %zu byte%s, only %zu "
			 "left in the %s", len, len == 1 ? "" : "s",
			 c->end - c->off, c->frame_end ? "frame" : "input");
	return bad(c, c->mode == CUR_WRITE ? TSP_E_LENGTH : TSP_E_TRUNCATED,
		   c->off, field, what);
}

int raw(struct cur *c, const char *field, void *v, size_t len)
{
	if (room(c, field, len))
		return -1;
	if (c->mode == CUR_READ)
		memcpy(v, c->in + c->off, len);
	else if (c->mode == CUR_WRITE)
		memcpy(c->buf + c->off, v, len);
	c->off += len;
	return 0;
}

int u8(struct cur *c, const char *field, uint8_t *v)
{
	return raw(c, field, v, 1);
}

int u16be(struct cur *c, const char *field, uint16_t *v)
{
	uint16_t x = htobe16(*v);

	if (raw(c, field, &x, 2))
		return -1;
	*v = be16toh(x);
	return 0;
}

/* D-ITG's data ports in TSP_SEND_FLOW: host order of an x86 sender */
static int u16le(struct cur *c, const char *field, uint16_t *v)
{
	uint16_t x = htole16(*v);

	if (raw(c, field, &x, 2))
		return -1;
	*v = le16toh(x);
	return 0;
}

int u32be(struct cur *c, const char *field, uint32_t *v)
{
	uint32_t x = htobe32(*v);

	if (raw(c, field, &x, 4))
		return -1;
	*v = be32toh(x);
	return 0;
}

int u64be(struct cur *c, const char *field, uint64_t *v)
{
	uint64_t x = htobe64(*v);

	if (raw(c, field, &x, 8))
		return -1;
	*v = be64toh(x);
	return 0;
}

int range(struct cur *c, const char *field, size_t at, uint64_t v,
		 uint64_t lo, uint64_t hi, const char *what)
{
	char s[160];

	if (c->bad)
		return -1;
	if ((v >= lo && v <= hi) || c->lenient)
		return 0;
	snprintf(s, sizeof(s), "%" PRIu64 " is not %s (%" PRIu64 "..%"
		 PRIu64 ")", v, what, lo, hi);
	return bad(c, TSP_E_RANGE, at, field, s);
}

int u8r(struct cur *c, const char *field, uint8_t *v, uint8_t lo,
	       uint8_t hi, const char *what)
{
	size_t at = c->off;

	if (u8(c, field, v))
		return -1;
	return range(c, field, at, *v, lo, hi, what);
}

/* a value that must be a or b */
static int either(struct cur *c, const char *field, size_t at, uint64_t v,
		  uint64_t a, uint64_t b, const char *what)
{
	char s[160];

	if (c->bad || v == a || v == b || c->lenient)
		return c->bad ? -1 : 0;
	snprintf(s, sizeof(s), "%" PRIu64 " is not %s (%" PRIu64 " or %"
		 PRIu64 ")", v, what, a, b);
	return bad(c, TSP_E_RANGE, at, field, s);
}

/* D-ITG's fixed-size names: NUL-terminated within their bytes */
static int name(struct cur *c, const char *field, uint8_t *v, size_t len)
{
	size_t at = c->off;

	if (raw(c, field, v, len))
		return -1;
	if (!memchr(v, 0, len))
		return bad(c, TSP_E_RANGE, at, field,
			   "no NUL ends the name in its bytes");
	return 0;
}

static int addr(struct cur *c, const char *field, uint8_t *a, bool v4)
{
	static const uint8_t zero[12];

	if (v4 && c->mode != CUR_READ && memcmp(a + 4, zero, 12))
		return bad(c, TSP_E_RANGE, c->off, field,
			   "an IPv4 address with bytes beyond its 4");
	return raw(c, field, a, v4 ? 4 : 16);
}

static int walk_send_flow(struct cur *c, struct tsp_msg *m)
{
	struct tsp_send_flow *f = &m->u.flow;
	size_t at;

	u8r(c, "l4_proto", &f->l4, TSP_L4_TCP, TSP_L4_DCCP,
	    "a D-ITG L4 protocol");
	u8r(c, "l7_proto", &f->l7, 0, TSP_L7_MAX, "a D-ITG L7 protocol");
	u8r(c, "meter", &f->meter, TSP_METER_OWDM, TSP_METER_RTTM,
	    "a D-ITG meter");
	u8(c, "ds_byte", &f->ds);
	at = c->off;
	u8(c, "l3_proto", &f->l3);
	either(c, "l3_proto", at, f->l3, TSP_L3_IPV4, TSP_L3_IPV6,
	       "an IP version");
	u32be(c, "flow_id", &m->flow_id);
	u8r(c, "payload_type", &f->pl_type, 0, TSP_PL_MAX,
	    "a D-ITG payload log type");
	raw(c, "serial", f->serial, TSP_SERIAL_LEN);
	if (m->passive) {
		u16le(c, "passive_port", &f->pssv_port);
		at = c->off;
		u8(c, "src_specified", &f->src_specified);
		either(c, "src_specified", at, f->src_specified, 0,
		       TSP_SRC_SPECIFIED, "a flag");
	}
	u16le(c, "port", &f->port);
	return addr(c, "addr", f->addr, f->l3 == TSP_L3_IPV4);
}

static int walk_flow_log(struct cur *c, struct tsp_msg *m)
{
	struct tsp_flow_log *l = &m->u.log;
	size_t at = c->off;

	u32be(c, "family", &l->family);
	either(c, "family", at, l->family, TSP_AF_INET, TSP_AF_INET6,
	       "an address family");
	addr(c, "addr", l->addr, l->family == TSP_AF_INET);
	u16be(c, "port", &l->port);
	u8r(c, "log_proto", &l->proto, TSP_L4_TCP, TSP_L4_UDP,
	    "TCP or UDP");
	return name(c, "log_name", l->name, TSP_LOG_NAME_LEN);
}

static int walk_ditg(struct cur *c, struct tsp_msg *m)
{
	switch (m->type) {
	case TSP_SEND_FLOW:
		return walk_send_flow(c, m);
	case TSP_ACK_SEND_FLOW:
		u32be(c, "flow_id", &m->flow_id);
		if (m->passive || c->bad)
			return c->bad ? -1 : 0;
		return u16be(c, "port", &m->port);
	case TSP_CLOSED_FLOW:
	case TSP_ACK_CLOSED_FLOW:
	case TSP_ERR_MSG_2:
	case TSP_ERR_MSG_3:
	case TSP_CLOSED_ERR:
	case TSP_ERR_MSG_5:
		return u32be(c, "flow_id", &m->flow_id);
	case TSP_SEND_FLOW_LOG:
		return walk_flow_log(c, m);
	case TSP_SEND_NAME_LOG:
		return name(c, "log_name", m->u.log_name, TSP_LOG_NAME_LEN);
	default:
		return c->bad ? -1 : 0;	/* the type byte alone */
	}
}

/* "MTG-TSP 001.000S": printable, no 0x01 byte, which ITGRecv would read
 * as TSP_CONNECT */
static const char hello_magic[8] = "MTG-TSP ";

static int version(struct cur *c, const char *field, uint16_t *v)
{
	char d[4];
	size_t at = c->off;
	int i;

	if (c->mode != CUR_READ) {
		if (range(c, field, at, *v, 0, 999, "a version number"))
			return -1;
		d[0] = (char)('0' + *v / 100);
		d[1] = (char)('0' + *v / 10 % 10);
		d[2] = (char)('0' + *v % 10);
	}
	if (raw(c, field, d, 3))
		return -1;
	for (i = 0, *v = 0; i < 3; i++) {
		if (d[i] < '0' || d[i] > '9')
			return bad(c, TSP_E_RANGE, at + i, field,
				   "not a decimal digit");
		*v = *v * 10 + (uint16_t)(d[i] - '0');
	}
	return 0;
}

static int walk_hello(struct cur *c, struct tsp_msg *m)
{
	char magic[8], dot = '.', role;
	size_t at = c->off;

	memcpy(magic, hello_magic, sizeof(magic));
	if (raw(c, "magic", magic, sizeof(magic)))
		return -1;
	if (memcmp(magic, hello_magic, sizeof(magic)))
		return bad(c, TSP_E_RANGE, at, "magic", "not \"MTG-TSP \"");
	version(c, "major", &m->u.hello.major);
	at = c->off;
	if (u8(c, "dot", (uint8_t *)&dot))
		return -1;
	if (dot != '.')
		return bad(c, TSP_E_RANGE, at, "dot", "not '.'");
	version(c, "minor", &m->u.hello.minor);
	role = c->from == TSP_FROM_SENDER ? 'S' : 'R';
	at = c->off;
	if (u8(c, "role", (uint8_t *)&role))
		return -1;
	if (role != (c->from == TSP_FROM_SENDER ? 'S' : 'R'))
		return bad(c, TSP_E_RANGE, at, "role", c->from ==
			   TSP_FROM_SENDER ? "not 'S', a sender's" :
			   "not 'R', a receiver's");
	return 0;
}

int text(struct cur *c, const char *field, struct tsp_text *t)
{
	size_t at = c->off, i;
	char s[80];

	if (u16be(c, "text_len", &t->len))
		return -1;
	if (t->len > TSP_MAX_TEXT) {
		snprintf(s, sizeof(s), "%u bytes, over the %d a text may have",
			 t->len, TSP_MAX_TEXT);
		return bad(c, TSP_E_LENGTH, at, "text_len", s);
	}
	at = c->off;
	if (raw(c, field, t->s, t->len))
		return -1;
	t->s[t->len] = '\0';
	i = text_unshowable(t->s, t->len);
	if (i < t->len)
		return bad(c, TSP_E_RANGE, at + i, field,
			   "a control character or a byte that is not UTF-8");
	return 0;
}

/*
 * A length (u32) and that many bytes of UTF-8 without a NUL (a TG's
 * JSON, a log's metadata): the length checked against max before
 * anything is allocated; decoded into *s, malloc'd and NUL-terminated.
 */
static int utf8_blob(struct cur *c, const char *lfield, const char *field,
		     const char *what, uint32_t max, uint32_t *len, char **s)
{
	const unsigned char *u;
	size_t at = c->off, i;
	char m[96];
	int n;

	if (u32be(c, lfield, len))
		return -1;
	if (*len > max) {
		snprintf(m, sizeof(m), "%u bytes, over the %u %s may have",
			 *len, max, what);
		return bad(c, TSP_E_LENGTH, at, lfield, m);
	}
	at = c->off;
	if (c->mode != CUR_READ && *len && !*s)
		return bad(c, TSP_E_LENGTH, at, field, "none given");
	if (c->mode == CUR_READ) {
		if (room(c, field, *len))
			return -1;
		*s = malloc(*len + 1);
		if (!*s)
			return bad(c, TSP_E_LENGTH, at, field, "out of memory");
	}
	if (raw(c, field, *s, *len))
		return -1;
	if (c->mode == CUR_READ)
		(*s)[*len] = '\0';
	u = (const unsigned char *)*s;
	for (i = 0; i < *len; i += (size_t)n) {
		n = u[i] ? utf8_len(u + i) : 0;
		if (!n || i + (size_t)n > *len)
			return bad(c, TSP_E_RANGE, at + i, field,
				   "a NUL or a byte that is not UTF-8");
	}
	return 0;
}

/* the TG's JSON: its length checked before anything is allocated */
static int tg_json(struct cur *c, struct tsp_flow_req *r)
{
	return utf8_blob(c, "tg_json_len", "tg_json", "a TG's JSON",
			 TSP_MAX_TG_JSON, &r->tg_json_len, &r->tg_json);
}

static int walk_flow_req(struct cur *c, struct tsp_msg *m)
{
	struct tsp_flow_req *r = &m->u.req;
	uint16_t reserved = 0;
	size_t at;

	u32be(c, "flow_id", &m->flow_id);
	u32be(c, "run_id", &r->run_id);
	u8r(c, "l4_proto", &r->l4, TSP_L4_TCP, TSP_L4_DCCP,
	    "a D-ITG L4 protocol");
	at = c->off;
	u8(c, "l3_proto", &r->l3);
	either(c, "l3_proto", at, r->l3, TSP_L3_IPV4, TSP_L3_IPV6,
	       "an IP version");
	u16be(c, "port", &r->port);
	at = c->off;
	raw(c, "addr", r->addr, 16);
	if (!c->bad && r->l3 == TSP_L3_IPV4 &&
	    memcmp(r->addr + 4, (uint8_t [12]){ 0 }, 12))
		return bad(c, TSP_E_RANGE, at + 4, "addr",
			   "an IPv4 address with bytes beyond its 4");
	u16be(c, "src_port", &r->src_port);
	at = c->off;
	u16be(c, "reserved", &reserved);
	range(c, "reserved", at, reserved, 0, 0, "zero");
	u64be(c, "bit_rate", &r->bit_rate);
	u64be(c, "pkt_rate_milli", &r->pkt_rate_milli);
	u64be(c, "duration_ns", &r->duration_ns);
	return c->bad ? -1 : tg_json(c, r);
}

static int walk_result(struct cur *c, struct tsp_msg *m)
{
	struct tsp_result *r = &m->u.result;
	size_t at;

	u32be(c, "flow_id", &m->flow_id);
	at = c->off;
	u32be(c, "flags", &r->flags);
	if (!c->bad && (r->flags & ~TSP_RESULT_FLAGS))
		return bad(c, TSP_E_RANGE, at, "flags", "unknown flag bits");
	u64be(c, "received", &r->received);
	u64be(c, "lost", &r->lost);
	u64be(c, "duplicates", &r->duplicates);
	u64be(c, "reordered", &r->reordered);
	u64be(c, "bytes", &r->bytes);
	u64be(c, "owd_min_ns", (uint64_t *)&r->owd_min_ns);
	u64be(c, "owd_mean_ns", (uint64_t *)&r->owd_mean_ns);
	u64be(c, "owd_max_ns", (uint64_t *)&r->owd_max_ns);
	u64be(c, "jitter_ns", &r->jitter_ns);
	u64be(c, "first_rx_ns", &r->first_rx_ns);
	return u64be(c, "last_rx_ns", &r->last_rx_ns);
}

static int walk_error(struct cur *c, struct tsp_msg *m)
{
	struct tsp_error *er = &m->u.error;
	uint8_t reserved = 0;
	size_t at = c->off;

	u16be(c, "code", &er->code);
	range(c, "code", at, er->code, 1, TSP_ERR_LAST, "an error code");
	at = c->off;
	u8(c, "about", &er->about);
	if (!c->bad && er->about && !tsp_type_name(er->about))
		return bad(c, TSP_E_RANGE, at, "about",
			   "not 0 nor a message's type");
	at = c->off;
	u8(c, "reserved", &reserved);
	range(c, "reserved", at, reserved, 0, 0, "zero");
	return c->bad ? -1 : text(c, "text", &er->text);
}

/* a host's name (a log's, a job's): 1..64 of [A-Za-z0-9._-], not "."
 * first, so that it can name a file */
int host_name(struct cur *c, const char *lfield, const char *field,
		     uint16_t *len, char *name)
{
	size_t at = c->off, i;
	char s[80];

	if (u16be(c, lfield, len))
		return -1;
	if (!*len || *len > TSP_LOG_NAME_MAX) {
		snprintf(s, sizeof(s), "%u bytes; a name is 1 to %d",
			 *len, TSP_LOG_NAME_MAX);
		return bad(c, TSP_E_LENGTH, at, lfield, s);
	}
	at = c->off;
	if (raw(c, field, name, *len))
		return -1;
	name[*len] = '\0';
	for (i = 0; i < *len; i++) {
		char ch = name[i];

		if ((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
		    (ch >= '0' && ch <= '9') || ch == '-' || ch == '_' ||
		    (ch == '.' && i))
			continue;
		return bad(c, TSP_E_RANGE, at + i, field,
			   "not a letter, digit, '-', '_' or a '.' after the "
			   "first");
	}
	return 0;
}

static int log_name(struct cur *c, struct tsp_log_open *o)
{
	return host_name(c, "name_len", "name", &o->name_len, o->name);
}

static int walk_log_open(struct cur *c, struct tsp_msg *m)
{
	struct tsp_log_open *o = &m->u.lopen;
	uint8_t reserved = 0;
	size_t at;

	u32be(c, "run_id", &o->run_id);
	u8r(c, "transport", &o->transport, TSP_LOG_TCP, TSP_LOG_UDP,
	    "a log's transport");
	at = c->off;
	u8(c, "reserved", &reserved);
	range(c, "reserved", at, reserved, 0, 0, "zero");
	if (c->bad || log_name(c, o))
		return -1;
	at = c->off;
	if (utf8_blob(c, "meta_len", "meta", "a log's metadata",
		      TSP_MAX_LOG_META, &o->meta_len, &o->meta))
		return -1;
	if (!o->meta_len)
		return bad(c, TSP_E_LENGTH, at, "meta_len",
			   "0 bytes: a log opens with its recording's metadata");
	return 0;
}

int owned(struct cur *c, const char *field, uint8_t **p, size_t n)
{
	size_t at = c->off;

	if (c->mode == CUR_READ) {
		if (room(c, field, n))
			return -1;
		*p = malloc(n ? n : 1);
		if (!*p)
			return bad(c, TSP_E_LENGTH, at, field, "out of memory");
	} else if (!*p) {
		return bad(c, TSP_E_LENGTH, at, field, "none given");
	}
	return raw(c, field, *p, n);
}

static int walk_log_batch(struct cur *c, struct tsp_msg *m)
{
	struct tsp_log_batch *b = &m->u.batch;
	uint16_t reserved = 0;
	size_t at, n;

	u32be(c, "log_id", &b->log_id);
	u64be(c, "seq", &b->seq);
	u64be(c, "first", &b->first);
	at = c->off;
	u16be(c, "count", &b->count);
	range(c, "count", at, b->count, 1, TSP_LOG_BATCH_MAX,
	      "a batch's records");
	at = c->off;
	u16be(c, "reserved", &reserved);
	range(c, "reserved", at, reserved, 0, 0, "zero");
	if (c->bad)
		return -1;
	n = (size_t)b->count * TSP_LOG_REC;
	return owned(c, "records", &b->recs, n);
}

static int walk_log_done(struct cur *c, struct tsp_msg *m)
{
	struct tsp_log_done *d = &m->u.ldone;

	u64be(c, "records", &d->records);
	u64be(c, "lost", &d->lost);
	u64be(c, "batches_lost", &d->batches_lost);
	u64be(c, "late", &d->late);
	return c->bad ? -1 : text(c, "file", &d->file);
}

static int walk_log(struct cur *c, struct tsp_msg *m)
{
	size_t at;

	switch (m->type) {
	case TSP_LOG_OPEN:
		return walk_log_open(c, m);
	case TSP_LOG_ACK:
		at = c->off;
		u32be(c, "log_id", &m->u.lack.log_id);
		range(c, "log_id", at, m->u.lack.log_id, 1, UINT32_MAX,
		      "a log id");
		return u16be(c, "udp_port", &m->u.lack.udp_port);
	case TSP_LOG_BATCH:
		return walk_log_batch(c, m);
	case TSP_LOG_CLOSE:
		u64be(c, "records", &m->u.lclose.records);
		u64be(c, "batches", &m->u.lclose.batches);
		u64be(c, "not_sent", &m->u.lclose.not_sent);
		u64be(c, "ring_drops", &m->u.lclose.ring_drops);
		return u64be(c, "end_ns", &m->u.lclose.end_ns);
	default:
		return walk_log_done(c, m);
	}
}

static int walk_mtg_body(struct cur *c, struct tsp_msg *m)
{
	size_t at;

	if (m->type >= TSP_JOB_OFFER)
		return walk_job(c, m);
	switch (m->type) {
	case TSP_HELLO:
		return walk_hello(c, m);
	case TSP_CHALLENGE:
		raw(c, "nonce", m->u.challenge.nonce, TSP_NONCE_LEN);
		at = c->off;
		u32be(c, "lifetime_ms", &m->u.challenge.lifetime_ms);
		return range(c, "lifetime_ms", at, m->u.challenge.lifetime_ms,
			     1, 600000, "a lifetime in ms");
	case TSP_AUTH:
		raw(c, "nonce", m->u.auth.nonce, TSP_NONCE_LEN);
		return raw(c, "mac", m->u.auth.mac, TSP_MAC_LEN);
	case TSP_AUTH_OK:
		return raw(c, "mac", m->u.auth_ok, TSP_MAC_LEN);
	case TSP_FLOW_REQ:
		return walk_flow_req(c, m);
	case TSP_FLOW_ACK:
		u32be(c, "flow_id", &m->flow_id);
		at = c->off;
		u16be(c, "code", &m->u.ack.code);
		range(c, "code", at, m->u.ack.code, 0, TSP_REFUSE_LAST,
		      "a refusal code");
		u16be(c, "port", &m->u.ack.port);
		return c->bad ? -1 : text(c, "reason", &m->u.ack.reason);
	case TSP_RESULT:
		return walk_result(c, m);
	case TSP_START:
		u32be(c, "run_id", &m->u.start.run_id);
		u64be(c, "start_ns", &m->u.start.start_ns);
		u64be(c, "offset_ns", (uint64_t *)&m->u.start.offset_ns);
		return u64be(c, "uncertainty_ns", &m->u.start.uncertainty_ns);
	case TSP_TIME_REQ:
		return u64be(c, "t1", &m->u.time.t1);
	case TSP_TIME_RESP:
		u64be(c, "t1", &m->u.time.t1);
		u64be(c, "t2", &m->u.time.t2);
		return u64be(c, "t3", &m->u.time.t3);
	case TSP_ERROR:
		return walk_error(c, m);
	default:
		return walk_log(c, m);
	}
}

static int walk_mtg(struct cur *c, struct tsp_msg *m)
{
	uint8_t marker = TSP_MARKER;
	uint32_t len = 0;
	size_t at, body;
	char s[96];

	at = c->off;
	u8(c, "marker", &marker);
	range(c, "marker", at, marker, TSP_MARKER, TSP_MARKER, "'M'");
	at = c->off;
	if (u32be(c, "length", &len))
		return -1;
	body = c->off;
	if (c->mode == CUR_READ && c->end - body >= len) {
		c->end = body + len;
		c->frame_end = true;
	}
	if (walk_mtg_body(c, m))
		return -1;
	if (c->mode == CUR_READ && c->off != body + len) {
		snprintf(s, sizeof(s), "the frame's body is %u bytes, its "
			 "fields end after %zu", len, c->off - body);
		return bad(c, TSP_E_LENGTH, at, "length", s);
	}
	len = (uint32_t)(c->off - body);
	if (c->mode == CUR_WRITE) {
		len = htobe32(len);
		memcpy(c->buf + at, &len, 4);
	}
	return 0;
}

int tsp_walk(struct cur *c, struct tsp_msg *m)
{
	c->type = m->type;
	if (m->type == TSP_SEND_FLOW)
		m->passive = c->passive && c->from == TSP_FROM_SENDER;
	if (m->type == TSP_ACK_SEND_FLOW)
		m->passive = c->from == TSP_FROM_SENDER;
	if (u8(c, "type", &m->type))
		return -1;
	if (m->type >= TSP_MTG_FIRST)
		return walk_mtg(c, m);
	return walk_ditg(c, m);
}
