// SPDX-License-Identifier: GPL-2.0-or-later
/* The JSON writer: values in place, a comma and newline before each one. */
#include <inttypes.h>

#include "util/jw.h"
#include "util/text.h"

void jw_init(struct jw *j, FILE *f)
{
	j->f = f;
	j->depth = 0;
	j->first[0] = true;
	j->after_key = false;
	j->compact = false;
}

void jw_init_compact(struct jw *j, FILE *f)
{
	jw_init(j, f);
	j->compact = true;
}

/* Separate a new value (or key) from what came before at this depth. */
static void jw_sep(struct jw *j)
{
	if (j->after_key) {
		j->after_key = false;
		return;
	}
	if (j->depth > 0 && j->compact) {
		if (!j->first[j->depth])
			fputc(',', j->f);
	} else if (j->depth > 0) {
		fputs(j->first[j->depth] ? "\n" : ",\n", j->f);
		fprintf(j->f, "%*s", 2 * j->depth, "");
	}
	j->first[j->depth] = false;
}

static void jw_open(struct jw *j, char c)
{
	jw_sep(j);
	fputc(c, j->f);
	if (j->depth < JW_MAX_DEPTH - 1)
		j->depth++;
	j->first[j->depth] = true;
}

static void jw_close(struct jw *j, char c)
{
	bool empty = j->first[j->depth];

	if (j->depth > 0)
		j->depth--;
	if (!empty && !j->compact)
		fprintf(j->f, "\n%*s", 2 * j->depth, "");
	fputc(c, j->f);
	if (j->depth == 0)
		fputc('\n', j->f);
}

void jw_raw(struct jw *j, const char *json)
{
	jw_sep(j);
	fputs(json, j->f);
	if (j->depth == 0)
		fputc('\n', j->f);
}

void jw_obj_begin(struct jw *j)
{
	jw_open(j, '{');
}

void jw_obj_end(struct jw *j)
{
	jw_close(j, '}');
}

void jw_arr_begin(struct jw *j)
{
	jw_open(j, '[');
}

void jw_arr_end(struct jw *j)
{
	jw_close(j, ']');
}

/* A JSON string; bytes that are not UTF-8 become U+FFFD. */
static void jw_quote(FILE *f, const char *s)
{
	int n;

	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c >= 0x80) {
			n = utf8_len((const unsigned char *)s);
			if (n)
				fwrite(s, 1, (size_t)n, f);
			else
				fputs("\\ufffd", f);
			s += n ? n - 1 : 0;
			continue;
		}
		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c == '\n')
			fputs("\\n", f);
		else if (c == '\t')
			fputs("\\t", f);
		else if (c < 0x20 || c == 0x7f)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

void jw_key(struct jw *j, const char *key)
{
	jw_sep(j);
	jw_quote(j->f, key);
	fputs(": ", j->f);
	j->after_key = true;
}

void jw_str(struct jw *j, const char *s)
{
	jw_sep(j);
	if (s)
		jw_quote(j->f, s);
	else
		fputs("null", j->f);
}

void jw_u64(struct jw *j, uint64_t v)
{
	jw_sep(j);
	fprintf(j->f, "%" PRIu64, v);
}

void jw_i64(struct jw *j, int64_t v)
{
	jw_sep(j);
	fprintf(j->f, "%" PRId64, v);
}

void jw_bool(struct jw *j, bool v)
{
	jw_sep(j);
	fputs(v ? "true" : "false", j->f);
}

void jw_null(struct jw *j)
{
	jw_sep(j);
	fputs("null", j->f);
}

void jw_double(struct jw *j, double v)
{
	jw_sep(j);
	fprintf(j->f, "%.17g", v);
}

void jw_kstr(struct jw *j, const char *key, const char *s)
{
	jw_key(j, key);
	jw_str(j, s);
}

void jw_ku64(struct jw *j, const char *key, uint64_t v)
{
	jw_key(j, key);
	jw_u64(j, v);
}

void jw_ki64(struct jw *j, const char *key, int64_t v)
{
	jw_key(j, key);
	jw_i64(j, v);
}

void jw_kbool(struct jw *j, const char *key, bool v)
{
	jw_key(j, key);
	jw_bool(j, v);
}

void jw_knull(struct jw *j, const char *key)
{
	jw_key(j, key);
	jw_null(j);
}

void jw_kdouble(struct jw *j, const char *key, double v)
{
	jw_key(j, key);
	jw_double(j, v);
}
