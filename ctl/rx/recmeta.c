// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A recording's metadata as a reader checks it (recording.h,
 * Documentation/recording-format.rst "What a reader checks"): one JSON
 * object whose keys, where present, have the types below; unknown keys
 * are ignored. analysis/mtgsap/recording.py checks the same things.
 */
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rx/recording.h"

enum mt_kind {
	MT_INT,		/* an integer from lo to hi */
	MT_NUM,		/* any number */
	MT_STR,
	MT_BOOL,
	MT_CONST_STR,	/* this string */
	MT_CONST_INT,	/* this integer */
	MT_OBJ,		/* an object with these keys */
	MT_MAP,		/* an object of anything */
	MT_LIST,	/* a list of items of one type */
	MT_ANY,
	MT_OR,		/* one type or another */
};

struct mt_key;

/* A metadata type. */
struct mt {
	enum mt_kind kind;
	bool null;			/* or null */
	long long lo;			/* MT_INT */
	unsigned long long hi;		/* MT_INT; MT_CONST_INT: the value */
	const char *str;		/* MT_CONST_STR */
	const struct mt_key *keys;	/* MT_OBJ, up to a NULL name */
	const struct mt *item;		/* MT_LIST: its items; MT_OR: one */
	const struct mt *alt;		/* MT_OR: the other */
};

struct mt_key {
	const char *name;
	const struct mt *type;
	bool required;
};

#define U64_HI		18446744073709551615ULL
#define INT_T(l, h)	{ .kind = MT_INT, .lo = (l), .hi = (h) }

static const struct mt t_uint = INT_T(0, U64_HI);
static const struct mt t_u32 = INT_T(0, 4294967295ULL);
static const struct mt t_u16 = INT_T(0, 65535);
static const struct mt t_u32_null = { .kind = MT_INT, .hi = 4294967295ULL,
				      .null = true };
/* CLOCK_TAI ns before 2262, as a sequence number below 2^63 */
static const struct mt t_time_null = { .kind = MT_INT,
				       .hi = 9223372036854775807ULL,
				       .null = true };
static const struct mt t_int = INT_T(-9223372036854775807LL - 1, U64_HI);
static const struct mt t_str = { .kind = MT_STR };
static const struct mt t_str_null = { .kind = MT_STR, .null = true };
static const struct mt t_bool = { .kind = MT_BOOL };
static const struct mt t_map = { .kind = MT_MAP };
static const struct mt t_any = { .kind = MT_ANY };

#define OBJ(k)		{ .kind = MT_OBJ, .keys = (k) }
#define OBJ_NULL(k)	{ .kind = MT_OBJ, .keys = (k), .null = true }
#define LIST(t)		{ .kind = MT_LIST, .item = (t) }

/* A TG, as `mtgctl check --json` shows it: the keys readers use. */
static const struct mt_key k_pkts[] = {
	{ "min", &t_uint, false }, { "max", &t_uint, false }, { NULL },
};
static const struct mt_key k_thro[] = {
	{ "req", &t_uint, true }, { "min", &t_uint, true }, { NULL },
};
static const struct mt_key k_inta[] = {
	{ "min", &t_uint, true }, { "max", &t_uint, true }, { NULL },
};
static const struct mt_key k_gap[] = {
	{ "num", &t_uint, true }, { "den", &t_uint, true }, { NULL },
};
static const struct mt t_gap = OBJ(k_gap);
static const struct mt_key k_table[] = {
	{ "mean_gap_ns", &t_gap, false }, { NULL },
};
static const struct mt_key k_endpoint[] = {
	{ "addr", &t_str_null, false }, { "port", &t_u16, false }, { NULL },
};
static const struct mt_key k_patt[] = {
	{ "kind", &t_str, false }, { "value", &t_uint, false },
	{ "seed", &t_uint, false }, { NULL },
};
static const struct mt t_pkts = OBJ(k_pkts);
static const struct mt t_thro = OBJ_NULL(k_thro);
static const struct mt t_inta = OBJ_NULL(k_inta);
static const struct mt t_table = OBJ(k_table);
static const struct mt t_endpoint_obj = OBJ(k_endpoint);
/* an object, or "addr:port" as older metadata has it */
static const struct mt t_endpoint = { .kind = MT_OR, .item = &t_endpoint_obj,
				      .alt = &t_str };
static const struct mt t_patt = OBJ(k_patt);
static const struct mt_key k_keep[] = {
	{ "payload", &t_bool, false }, { "wrong_bits", &t_bool, false },
	{ NULL },
};
static const struct mt t_keep = OBJ(k_keep);
static const struct mt_key k_tg[] = {
	{ "id", &t_u32, true }, { "dist", &t_str_null, false },
	{ "dist_params", &t_map, false }, { "pkts", &t_pkts, false },
	{ "thro", &t_thro, false }, { "inta_ns", &t_inta, false },
	{ "table", &t_table, false }, { "src", &t_endpoint, false },
	{ "dst", &t_endpoint, false }, { "patt", &t_patt, false },
	{ "mac", &t_str_null, false }, { "keep", &t_keep, false }, { NULL },
};
static const struct mt t_tg = OBJ(k_tg);

/* The record's flags, as the format defines them. */
#define FLAG(name, v)	{ name, &(const struct mt){ .kind = MT_CONST_INT, \
						    .hi = (v) }, false }
static const struct mt_key k_flags[] = {
	FLAG("stamp_mask", MTG_RX_F_STAMP), FLAG("stamp_hook", MTG_RX_STAMP_HOOK),
	FLAG("stamp_sw", MTG_RX_STAMP_SW), FLAG("stamp_hw", MTG_RX_STAMP_HW),
	FLAG("ipv6", MTG_RX_F_IPV6), FLAG("hdr_corrupt", MTG_RX_F_HDR_CORRUPT),
	FLAG("csum_bad", MTG_RX_F_CSUM_BAD), FLAG("kept", MTG_RX_F_KEPT),
	FLAG("keep_lost", MTG_RX_F_KEEP_LOST), FLAG("ditg", MTG_RX_F_DITG),
	FLAG("csum_partial", MTG_RX_F_CSUM_PARTIAL),
	FLAG("icmp", MTG_RX_F_ICMP), { NULL },
};
static const struct mt t_flags = OBJ(k_flags);
static const struct mt t_rec_bytes = { .kind = MT_CONST_INT,
				       .hi = sizeof(struct mtg_rx_rec) };
static const struct mt t_dtype = LIST(&t_any);
static const struct mt_key k_record[] = {
	{ "bytes", &t_rec_bytes, false }, { "dtype", &t_dtype, true },
	{ "flags", &t_flags, false }, { NULL },
};
static const struct mt_key k_abi[] = {
	{ "major", &t_uint, false }, { "minor", &t_uint, false }, { NULL },
};
static const struct mt_key k_host[] = {
	{ "name", &t_str, false }, { "kernel", &t_str, false },
	{ "kernel_version", &t_str, false }, { "machine", &t_str, false },
	{ NULL },
};
static const struct mt_key k_clock[] = {
	{ "id", &t_str, false }, { "synchronised", &t_bool, false },
	{ "tai_offset_s", &t_int, false }, { "maxerror_us", &t_uint, false },
	{ "esterror_us", &t_uint, false }, { NULL },
};
static const struct mt_key k_iface[] = {
	{ "id", &t_u16, true }, { "dev", &t_str_null, false },
	{ "netns", &t_str_null, false }, { "ifindex", &t_uint, false },
	{ NULL },
};
static const struct mt_key k_file[] = {
	{ "file", &t_str, false }, { "text", &t_str, false }, { NULL },
};
static const struct mt t_file = OBJ(k_file);
static const struct mt t_files = LIST(&t_file);
static const struct mt_key k_idf[] = {
	{ "file", &t_str, false }, { "text", &t_str, false },
	{ "includes", &t_files, false }, { NULL },
};
static const struct mt t_format = { .kind = MT_CONST_STR,
				    .str = "mtg-recording" };
static const struct mt t_abi = OBJ(k_abi);
static const struct mt t_host = OBJ(k_host);
static const struct mt t_clock = OBJ(k_clock);
static const struct mt t_record = OBJ(k_record);
static const struct mt t_iface = OBJ(k_iface);
static const struct mt t_ifaces = LIST(&t_iface);
static const struct mt t_idf = OBJ_NULL(k_idf);
static const struct mt t_tgs = LIST(&t_tg);
/* recv: the sender over TSP and its estimate of our clock */
static const struct mt_key k_tsp_clock[] = {
	{ "offset_ns", &t_int, true }, { "uncertainty_ns", &t_uint, true },
	{ NULL },
};
static const struct mt t_tsp_clock = OBJ_NULL(k_tsp_clock);
static const struct mt_key k_tsp[] = {
	{ "sender", &t_str, false }, { "key", &t_str_null, false },
	{ "clock", &t_tsp_clock, false }, { NULL },
};
static const struct mt t_tsp = OBJ(k_tsp);
static const struct mt_key k_receiver[] = {
	{ "source", &t_str, true }, { "stamp", &t_str, false },
	{ "payload_compared", &t_bool, false }, { NULL },
};
static const struct mt t_receiver = OBJ(k_receiver);
/* a log server's file: how the log came (mtgctl logd) */
static const struct mt t_uint_null = { .kind = MT_INT, .hi = U64_HI,
				       .null = true };
static const struct mt_key k_logd[] = {
	{ "transport", &t_str, true }, { "peer", &t_str, false },
	{ "host", &t_str, false }, { "log_id", &t_u32, false },
	{ "records", &t_uint, true }, { "lost", &t_uint, true },
	{ "batches_lost", &t_uint, false }, { "late", &t_uint, false },
	{ "not_sent", &t_uint_null, false }, { "complete", &t_bool, true },
	{ "why", &t_str_null, false }, { NULL },
};
static const struct mt t_logd = OBJ(k_logd);
static const struct mt_key k_meta[] = {
	{ "format", &t_format, true }, { "version", &t_uint, true },
	{ "command", &t_str, false }, { "mtgctl", &t_str, false },
	{ "abi", &t_abi, false }, { "run_id", &t_u32_null, false },
	{ "start_ns", &t_time_null, false }, { "host", &t_host, false },
	{ "clock", &t_clock, false }, { "record", &t_record, true },
	{ "ring_records", &t_uint, false }, { "passthrough", &t_bool, false },
	{ "interfaces", &t_ifaces, false }, { "idf", &t_idf, false },
	{ "tgs", &t_tgs, false }, { "filtered", &t_map, false },
	{ "copied_from_partial", &t_bool, false }, { "tsp", &t_tsp, false },
	{ "receiver", &t_receiver, false }, { "logd", &t_logd, false },
	{ NULL },
};
static const struct mt t_meta = OBJ(k_meta);

/* What is wrong, and where. */
struct mt_check {
	bool reals;		/* integers were decoded as reals (too large) */
	char where[256];	/* "tgs[0].pkts.max" */
	char *why;
	size_t size;
};

__attribute__((format(printf, 2, 3)))
static int wrong(struct mt_check *c, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(c->why, c->size, fmt, ap);
	va_end(ap);
	return -1;
}

/* An integer (or, decoded as a real, a whole number) as a double too. */
static bool integer(const struct mt_check *c, const json_t *v, double *d)
{
	if (json_is_integer(v)) {
		*d = (double)json_integer_value(v);
		return true;
	}
	if (!c->reals || !json_is_real(v))
		return false;
	*d = json_real_value(v);
	return *d == floor(*d);
}

static bool fits(const struct mt_check *c, const json_t *v,
		 const struct mt *t)
{
	double d;

	if (t->null && json_is_null(v))
		return true;
	switch (t->kind) {
	case MT_INT:
		if (!integer(c, v, &d))
			return false;
		if (json_is_integer(v)) {
			json_int_t x = json_integer_value(v);

			return x >= t->lo &&
			       (x < 0 || (unsigned long long)x <= t->hi);
		}
		/* Beyond json_int_t: compared as doubles (2^64 - 1 reads
		 * as 2^64, 2^63 - 1 as 2^63). */
		return d >= (double)t->lo &&
		       (t->hi == U64_HI ? d <= 0x1p64 : d < (double)t->hi + 1.0);
	case MT_NUM:
		return json_is_number(v);
	case MT_STR:
		return json_is_string(v);
	case MT_BOOL:
		return json_is_boolean(v);
	case MT_CONST_STR:
		return json_is_string(v) && !strcmp(json_string_value(v), t->str);
	case MT_CONST_INT:
		return integer(c, v, &d) && d == (double)t->hi &&
		       (!json_is_integer(v) ||
			json_integer_value(v) == (json_int_t)t->hi);
	case MT_OBJ:
	case MT_MAP:
		return json_is_object(v);
	case MT_LIST:
		return json_is_array(v);
	case MT_ANY:
		return true;
	case MT_OR:
		return fits(c, v, t->item) || fits(c, v, t->alt);
	}
	return false;
}

/* What a value of type t is, in words, at buf (as mtgsap says it). */
static void says(const struct mt *t, char *buf, size_t size)
{
	size_t n;

	switch (t->kind) {
	case MT_INT:
		if (t->lo < 0)
			snprintf(buf, size, "an integer");
		else
			snprintf(buf, size, "an integer from %lld to %llu",
				 t->lo, t->hi);
		break;
	case MT_NUM:
		snprintf(buf, size, "a number");
		break;
	case MT_STR:
		snprintf(buf, size, "a string");
		break;
	case MT_BOOL:
		snprintf(buf, size, "true or false");
		break;
	case MT_CONST_STR:
		snprintf(buf, size, "\"%s\"", t->str);
		break;
	case MT_CONST_INT:
		snprintf(buf, size, "%llu", t->hi);
		break;
	case MT_OBJ:
	case MT_MAP:
		snprintf(buf, size, "an object");
		break;
	case MT_LIST:
		snprintf(buf, size, "a list");
		break;
	case MT_ANY:
		snprintf(buf, size, "anything");
		break;
	case MT_OR:
		says(t->item, buf, size);
		n = strlen(buf);
		snprintf(buf + n, size - n, " or ");
		n = strlen(buf);
		says(t->alt, buf + n, size - n);
		break;
	}
	n = strlen(buf);
	if (t->null)
		snprintf(buf + n, size - n, " or null");
}

/* The value as JSON, cut to 40 characters. */
static void shown(const json_t *v, char *buf, size_t size)
{
	char *text = json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT);

	if (!text) {
		snprintf(buf, size, "?");
		return;
	}
	if (strlen(text) > 40)
		snprintf(buf, size, "%.37s...", text);
	else
		snprintf(buf, size, "%s", text);
	free(text);
}

static int check(struct mt_check *c, const json_t *v, const struct mt *t)
{
	size_t len = strlen(c->where), i;
	const struct mt_key *k;
	char what[160], value[48];
	json_t *item;

	if (!fits(c, v, t)) {
		says(t, what, sizeof(what));
		shown(v, value, sizeof(value));
		return wrong(c, "%s is %s, not %s", c->where, value, what);
	}
	if (json_is_null(v))
		return 0;
	if (t->kind == MT_OR)
		t = fits(c, v, t->item) ? t->item : t->alt;
	if (t->kind == MT_OBJ) {
		for (k = t->keys; k->name; k++) {
			item = json_object_get(v, k->name);
			snprintf(c->where + len, sizeof(c->where) - len, "%s%s",
				 len ? "." : "", k->name);
			if (item && check(c, item, k->type))
				return -1;
			if (!item && k->required)
				return wrong(c, "%s is missing", c->where);
		}
	} else if (t->kind == MT_LIST) {
		json_array_foreach(v, i, item) {
			snprintf(c->where + len, sizeof(c->where) - len,
				 "[%zu]", i);
			if (check(c, item, t->item))
				return -1;
		}
	}
	c->where[len] = '\0';
	return 0;
}

/* The record's dtype: version 1's fields, in order, of their types (a
 * one-byte type may be spelt "|u1", as numpy does). */
static int check_dtype(struct mt_check *c, const json_t *dtype)
{
	size_t n = json_array_size(dtype), i;
	char got[48], want[64];

	if (n != REC_NFIELDS)
		return wrong(c, "record.dtype has %zu fields, not the %d of version 1",
			     n, REC_NFIELDS);
	for (i = 0; i < n; i++) {
		const struct rec_field *f = &rec_fields[i];
		const json_t *e = json_array_get(dtype, i);
		const json_t *name = json_array_get(e, 0);
		const json_t *type = json_array_get(e, 1);
		const json_t *shape = json_array_get(e, 2);
		const char *ts = json_string_value(type);
		bool same;

		same = json_is_array(e) &&
		       json_array_size(e) == (f->count ? 3U : 2U) &&
		       json_is_string(name) &&
		       !strcmp(json_string_value(name), f->name) && ts &&
		       (!strcmp(ts, f->type) ||
			(!strcmp(f->type, "u1") && !strcmp(ts, "|u1")));
		if (same && f->count)
			same = json_is_array(shape) &&
			       json_array_size(shape) == 1 &&
			       json_is_integer(json_array_get(shape, 0)) &&
			       json_integer_value(json_array_get(shape, 0)) ==
			       (json_int_t)f->count;
		if (same)
			continue;
		shown(e, got, sizeof(got));
		if (f->count)
			snprintf(want, sizeof(want), "[\"%s\", \"%s\", [%u]]",
				 f->name, f->type, f->count);
		else
			snprintf(want, sizeof(want), "[\"%s\", \"%s\"]", f->name,
				 f->type);
		return wrong(c, "record.dtype[%zu] is %s, not %s (version 1's records)",
			     i, got, want);
	}
	return 0;
}

int rec_meta_check(const char *raw, size_t len, uint32_t version, char *why,
		   size_t size)
{
	struct mt_check c = { .why = why, .size = size };
	size_t flags = JSON_REJECT_DUPLICATES | JSON_ALLOW_NUL;
	json_t *meta, *v;
	json_error_t jerr;
	int err = -1;
	double d;

	meta = json_loadb(raw, len, flags, &jerr);
	if (!meta && json_error_code(&jerr) == json_error_numeric_overflow) {
		/* An integer beyond json_int_t (a u64 of 2^63 or more). */
		c.reals = true;
		meta = json_loadb(raw, len, flags | JSON_DECODE_INT_AS_REAL,
				  &jerr);
	}
	if (!meta)
		return wrong(&c, "not JSON: %s at line %d, column %d", jerr.text,
			     jerr.line, jerr.column);
	if (!json_is_object(meta)) {
		wrong(&c, "not a JSON object");
		goto out;
	}
	if (check(&c, meta, &t_meta))
		goto out;
	v = json_object_get(meta, "version");
	if (!integer(&c, v, &d) || d != (double)version) {
		char value[48];

		shown(v, value, sizeof(value));
		wrong(&c, "version is %s, but the header says %u", value,
		      version);
		goto out;
	}
	err = check_dtype(&c, json_object_get(json_object_get(meta, "record"),
					      "dtype"));
out:
	json_decref(meta);
	return err;
}
