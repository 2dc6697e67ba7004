// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The layouts of the manager's and daemons' messages (TSP_JOB_OFFER ..
 * TSP_JOB_DROP, Documentation/tsp.rst "The manager and its daemons"),
 * walked with codec.c's primitives as every other layout is.
 */
#include <stdlib.h>

#include "tsp/codec.h"

static int walk_job_offer(struct cur *c, struct tsp_msg *m)
{
	struct tsp_job_offer *o = &m->u.offer;
	size_t at = c->off;

	u32be(c, "run_id", &o->run_id);
	range(c, "run_id", at, o->run_id, 1, UINT32_MAX, "a run id");
	at = c->off;
	u32be(c, "idf_len", &o->idf_len);
	range(c, "idf_len", at, o->idf_len, 1, TSP_JOB_IDF_MAX,
	      "an IDF's bytes");
	if (c->bad || host_name(c, "host_len", "host", &o->host_len, o->host))
		return -1;
	return text(c, "file", &o->file);
}

/* a piece of the IDF (from the manager) or of the summary (the daemon) */
static int walk_job_data(struct cur *c, struct tsp_msg *m)
{
	struct tsp_job_data *d = &m->u.jdata;
	uint8_t reserved = 0, kind = c->from == TSP_FROM_SENDER ?
		TSP_JOB_IDF : TSP_JOB_SUMMARY;
	size_t at = c->off;

	u8(c, "kind", &d->kind);
	range(c, "kind", at, d->kind, kind, kind, c->from == TSP_FROM_SENDER ?
	      "the IDF's, a manager's" : "the summary's, a daemon's");
	at = c->off;
	u8(c, "reserved", &reserved);
	range(c, "reserved", at, reserved, 0, 0, "zero");
	u32be(c, "offset", &d->offset);
	at = c->off;
	u16be(c, "len", &d->len);
	range(c, "len", at, d->len, 1, TSP_JOB_CHUNK, "a piece's bytes");
	if (c->bad)
		return -1;
	return owned(c, "bytes", &d->bytes, d->len);
}

static int walk_job_row(struct cur *c, struct tsp_job_row *r)
{
	uint8_t reserved[3] = { 0 };
	size_t at;

	u32be(c, "tgid", &r->tgid);
	u8r(c, "state", &r->state, 0, TSP_JOB_STATE_LAST, "a TG's state");
	at = c->off;
	raw(c, "reserved", reserved, sizeof(reserved));
	if (!c->bad && (reserved[0] || reserved[1] || reserved[2]))
		return bad(c, TSP_E_RANGE, at, "reserved", "not zero");
	u64be(c, "sent", &r->sent);
	u64be(c, "bytes", &r->bytes);
	return u64be(c, "late_p99_ns", &r->late_p99_ns);
}

static int walk_job_progress(struct cur *c, struct tsp_msg *m)
{
	struct tsp_job_progress *p = &m->u.prog;
	uint16_t reserved = 0, i;
	size_t at;

	u32be(c, "run_id", &p->run_id);
	u64be(c, "elapsed_ns", &p->elapsed_ns);
	at = c->off;
	u16be(c, "count", &p->count);
	range(c, "count", at, p->count, 0, TSP_JOB_ROWS, "a part's rows");
	at = c->off;
	u16be(c, "reserved", &reserved);
	range(c, "reserved", at, reserved, 0, 0, "zero");
	if (c->bad)
		return -1;
	at = c->off;
	if (c->mode == CUR_READ) {
		if (room(c, "rows", (size_t)p->count * TSP_JOB_ROW))
			return -1;
		p->rows = calloc(p->count ? p->count : 1, sizeof(*p->rows));
		if (!p->rows)
			return bad(c, TSP_E_LENGTH, at, "rows",
				   "out of memory");
	} else if (p->count && !p->rows) {
		return bad(c, TSP_E_LENGTH, at, "rows", "none given");
	}
	for (i = 0; i < p->count; i++)
		if (walk_job_row(c, &p->rows[i]))
			return -1;
	return 0;
}

static int walk_job_end(struct cur *c, struct tsp_msg *m)
{
	struct tsp_job_end *e = &m->u.jend;
	uint16_t reserved = 0;
	size_t at;

	u32be(c, "run_id", &e->run_id);
	u8(c, "status", &e->status);
	at = c->off;
	u8(c, "flags", &e->flags);
	if (!c->bad && (e->flags & ~TSP_JOB_FLAGS))
		return bad(c, TSP_E_RANGE, at, "flags", "unknown flag bits");
	at = c->off;
	u16be(c, "reserved", &reserved);
	range(c, "reserved", at, reserved, 0, 0, "zero");
	at = c->off;
	u32be(c, "summary_len", &e->summary_len);
	range(c, "summary_len", at, e->summary_len, 0, TSP_JOB_SUMMARY_MAX,
	      "a summary's bytes");
	return c->bad ? -1 : text(c, "why", &e->why);
}

int walk_job(struct cur *c, struct tsp_msg *m)
{
	size_t at;

	switch (m->type) {
	case TSP_JOB_OFFER:
		return walk_job_offer(c, m);
	case TSP_JOB_DATA:
		return walk_job_data(c, m);
	case TSP_JOB_READY:
		u32be(c, "run_id", &m->u.ready.run_id);
		return u32be(c, "tgs", &m->u.ready.tgs);
	case TSP_JOB_START:
		u32be(c, "run_id", &m->u.jstart.run_id);
		at = c->off;
		u64be(c, "start_ns", &m->u.jstart.start_ns);
		return range(c, "start_ns", at, m->u.jstart.start_ns, 1,
			     UINT64_MAX, "a time");
	case TSP_JOB_PROGRESS:
		return walk_job_progress(c, m);
	case TSP_JOB_END:
		return walk_job_end(c, m);
	default:
		u32be(c, "run_id", &m->u.drop.run_id);
		return c->bad ? -1 : text(c, "why", &m->u.drop.why);
	}
}
