/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A small streaming JSON writer: indented, strings escaped, no allocation. */
#ifndef MTGCTL_JSON_H
#define MTGCTL_JSON_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define JSON_MAX_DEPTH	16

struct json {
	FILE *f;
	int depth;
	bool first[JSON_MAX_DEPTH];	/* nothing written yet at this depth */
	bool after_key;
	bool compact;		/* one line: no newlines, no indentation */
};

void json_init(struct json *j, FILE *f);
/* One line per top-level value, for JSON Lines streams. */
void json_init_compact(struct json *j, FILE *f);
void json_obj_begin(struct json *j);
void json_obj_end(struct json *j);
void json_arr_begin(struct json *j);
void json_arr_end(struct json *j);
void json_key(struct json *j, const char *key);
void json_str(struct json *j, const char *s);	/* NULL writes null */
void json_u64(struct json *j, uint64_t v);
void json_bool(struct json *j, bool v);
void json_null(struct json *j);
/* A finite double with enough digits to read back the same value. */
void json_double(struct json *j, double v);

/* key and value in one call */
void json_kstr(struct json *j, const char *key, const char *s);
void json_ku64(struct json *j, const char *key, uint64_t v);
void json_kbool(struct json *j, const char *key, bool v);
void json_knull(struct json *j, const char *key);
void json_kdouble(struct json *j, const char *key, double v);

#endif /* MTGCTL_JSON_H */
