// SPDX-License-Identifier: GPL-2.0-or-later
/* The JSON writer: values in place, a comma and newline before each one. */
#include <inttypes.h>

#include "util/jw.h"
#include "util/text.h"

void json_init(struct json *j, FILE *f)
{
	j->f = f;
	j->depth = 0;
	j->first[0] = true;
	j->after_key = false;
	j->compact = false;
}

void json_init_compact(struct json *j, FILE *f)
{
	json_init(j, f);
	j->compact = true;
}

/* Separate a new value (or key) from what came before at this depth. */
static void json_sep(struct json *j)
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

static void json_open(struct json *j, char c)
{
	json_sep(j);
	fputc(c, j->f);
	if (j->depth < JSON_MAX_DEPTH - 1)
		j->depth++;
	j->first[j->depth] = true;
}

static void json_close(struct json *j, char c)
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

void json_obj_begin(struct json *j)
{
	json_open(j, '{');
}

void json_obj_end(struct json *j)
{
	json_close(j, '}');
}

void json_arr_begin(struct json *j)
{
	json_open(j, '[');
}

void json_arr_end(struct json *j)
{
	json_close(j, ']');
}

/* A JSON string; bytes that are not UTF-8 become U+FFFD. */
static void json_quote(FILE *f, const char *s)
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

void json_key(struct json *j, const char *key)
{
	json_sep(j);
	json_quote(j->f, key);
	fputs(": ", j->f);
	j->after_key = true;
}

void json_str(struct json *j, const char *s)
{
	json_sep(j);
	if (s)
		json_quote(j->f, s);
	else
		fputs("null", j->f);
}

void json_u64(struct json *j, uint64_t v)
{
	json_sep(j);
	fprintf(j->f, "%" PRIu64, v);
}

void json_bool(struct json *j, bool v)
{
	json_sep(j);
	fputs(v ? "true" : "false", j->f);
}

void json_null(struct json *j)
{
	json_sep(j);
	fputs("null", j->f);
}

void json_double(struct json *j, double v)
{
	json_sep(j);
	fprintf(j->f, "%.17g", v);
}

void json_kstr(struct json *j, const char *key, const char *s)
{
	json_key(j, key);
	json_str(j, s);
}

void json_ku64(struct json *j, const char *key, uint64_t v)
{
	json_key(j, key);
	json_u64(j, v);
}

void json_kbool(struct json *j, const char *key, bool v)
{
	json_key(j, key);
	json_bool(j, v);
}

void json_knull(struct json *j, const char *key)
{
	json_key(j, key);
	json_null(j);
}

void json_kdouble(struct json *j, const char *key, double v)
{
	json_key(j, key);
	json_double(j, v);
}
