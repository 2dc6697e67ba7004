/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Between ctl/tsp's files only: each message's layout is written once,
 * as a walk over its fields that reads (decoding), writes (encoding) or
 * only counts (the encoded length), checking every value's range the
 * same way in all three.
 */
#ifndef MTGCTL_TSP_CODEC_H
#define MTGCTL_TSP_CODEC_H

#include "tsp/wire.h"

enum cur_mode { CUR_READ, CUR_WRITE, CUR_SIZE };

struct cur {
	enum cur_mode mode;
	enum tsp_dir from;
	bool passive;
	uint8_t *buf;		/* write: the output */
	const uint8_t *in;	/* read: the input */
	size_t end;		/* read: bytes there are; write: room */
	bool frame_end;		/* read: end is the frame's, not the input's */
	size_t off;		/* the next field's offset in the message */
	uint64_t base;		/* the message's offset in the stream */
	uint8_t type;
	struct tsp_err *e;
	bool bad;
	bool lenient;		/* size: values not checked (tsp_need) */
};

/*
 * The walkers' primitives (codec.c): each reads, writes or counts one
 * field at c->off and checks it; 0, or -1 with c->e (c->bad set).
 */
int bad(struct cur *c, enum tsp_ecode code, size_t at, const char *field,
	const char *what);
int room(struct cur *c, const char *field, size_t len);
int raw(struct cur *c, const char *field, void *v, size_t len);
int u8(struct cur *c, const char *field, uint8_t *v);
int u16be(struct cur *c, const char *field, uint16_t *v);
int u32be(struct cur *c, const char *field, uint32_t *v);
int u64be(struct cur *c, const char *field, uint64_t *v);
/* v within lo..hi (what names the range), unless c->lenient */
int range(struct cur *c, const char *field, size_t at, uint64_t v,
	  uint64_t lo, uint64_t hi, const char *what);
int u8r(struct cur *c, const char *field, uint8_t *v, uint8_t lo,
	uint8_t hi, const char *what);
/* a length (u16) and that much UTF-8 without control characters */
int text(struct cur *c, const char *field, struct tsp_text *t);
/* a host's name (a log's, a job's): 1..64 of [A-Za-z0-9._-], not '.' first */
int host_name(struct cur *c, const char *lfield, const char *field,
	      uint16_t *len, char *name);
/* n bytes a message owns: read into *p (malloc'd), or written from it */
int owned(struct cur *c, const char *field, uint8_t **p, size_t n);
/* The manager's and daemons' layouts (codec_job.c). */
int walk_job(struct cur *c, struct tsp_msg *m);

/* Walks m's layout (m->type set) from offset 0: 0, or -1 with c->e. */
int tsp_walk(struct cur *c, struct tsp_msg *m);

/*
 * The bytes of the message p[0..n) begins, as far as n tells: 0 with
 * *total (the whole message's length) or with *total 0 (the first n bytes
 * do not tell it yet: *want, the bytes that will); -1 with *e if they are
 * already wrong (type, direction, a length over its maximum).
 */
int tsp_need(const struct tsp_cfg *c, const uint8_t *p, size_t n,
	     uint64_t base, size_t *total, size_t *want, struct tsp_err *e);

/* Fills *e (code, field at the message's offset off, printf-style what). */
void tsp_fail(struct tsp_err *e, enum tsp_ecode code, uint8_t type,
	      bool have_type, uint64_t base, size_t off, const char *field,
	      const char *fmt, ...) __attribute__((format(printf, 8, 9)));

/* 0 if a message of type t may come from c->from, else -1 with *e. */
int tsp_check_type(uint8_t t, const struct tsp_cfg *c, uint64_t base,
		   struct tsp_err *e);

/* Who sends a type: 1 the sender, 2 the receiver, 3 both; 0 no one. */
unsigned int tsp_senders(uint8_t type);

#endif /* MTGCTL_TSP_CODEC_H */
