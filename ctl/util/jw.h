/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A small streaming JSON writer: indented, strings escaped, no allocation.
 * Its names are jw_*: json_* are jansson's, which reads JSON here (replay,
 * the recording's metadata check), and a file may need both.
 */
#ifndef MTGCTL_JW_H
#define MTGCTL_JW_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define JW_MAX_DEPTH	16

struct jw {
	FILE *f;
	int depth;
	bool first[JW_MAX_DEPTH];	/* nothing written yet at this depth */
	bool after_key;
	bool compact;		/* one line: no newlines, no indentation */
};

void jw_init(struct jw *j, FILE *f);
/* One line per top-level value, for JSON Lines streams. */
void jw_init_compact(struct jw *j, FILE *f);
void jw_obj_begin(struct jw *j);
void jw_obj_end(struct jw *j);
void jw_arr_begin(struct jw *j);
void jw_arr_end(struct jw *j);
void jw_key(struct jw *j, const char *key);
void jw_str(struct jw *j, const char *s);	/* NULL writes null */
void jw_u64(struct jw *j, uint64_t v);
void jw_i64(struct jw *j, int64_t v);
void jw_bool(struct jw *j, bool v);
void jw_null(struct jw *j);
/* a value already in JSON (checked by the caller), written as it is */
void jw_raw(struct jw *j, const char *json);
/* A finite double with enough digits to read back the same value. */
void jw_double(struct jw *j, double v);

/* key and value in one call */
void jw_kstr(struct jw *j, const char *key, const char *s);
void jw_ku64(struct jw *j, const char *key, uint64_t v);
void jw_ki64(struct jw *j, const char *key, int64_t v);
void jw_kbool(struct jw *j, const char *key, bool v);
void jw_knull(struct jw *j, const char *key);
void jw_kdouble(struct jw *j, const char *key, double v);

#endif /* MTGCTL_JW_H */
