// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The IDF's tokens: a keyword looked up by name (or the closest one, for
 * a misspelling), and the arguments a keyword takes from the line, each
 * refused with what was expected and what came.
 */
#include <ctype.h>
#include <string.h>

#include "idf/idf.h"
#include "idf/parser.h"

static const char *const kw_names[IDF_KW_COUNT] = {
#define IDF_KW_NAME(n, a) [IDF_KW_##n] = #n,
	IDF_KEYWORDS(IDF_KW_NAME)
#undef IDF_KW_NAME
};

int kw_lookup(const char *s)
{
	int i;

	for (i = 0; i < IDF_KW_COUNT; i++)
		if (!strcmp(s, kw_names[i]))
			return i;
	return -1;
}

bool is_keyword(const char *s)
{
	return kw_lookup(s) >= 0;
}

static size_t edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), i, j;
	size_t row[32], prev, tmp;

	if (la >= 32 || lb >= 32)
		return 99;
	for (j = 0; j <= lb; j++)
		row[j] = j;
	for (i = 1; i <= la; i++) {
		prev = row[0];
		row[0] = i;
		for (j = 1; j <= lb; j++) {
			size_t best = prev + (a[i - 1] != b[j - 1]);

			if (row[j] + 1 < best)
				best = row[j] + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			tmp = row[j];
			row[j] = best;
			prev = tmp;
		}
	}
	return row[lb];
}

const char *closest_keyword(const char *s)
{
	const char *best = NULL;
	size_t d, best_d = 3;
	int i;

	for (i = 0; i < IDF_KW_COUNT; i++) {
		d = edit_distance(s, kw_names[i]);
		if (d < best_d && d < strlen(s)) {
			best_d = d;
			best = kw_names[i];
		}
	}
	return best;
}

const char *kw(const struct parser *p)
{
	return kw_names[p->last_kw];
}

/*
 * The next token, which the keyword needs; NULL (reported) at the end of
 * the line or at a keyword, which is left for the next group.
 */
struct tok *need(struct parser *p, const char *what)
{
	struct tok *t = &p->toks[p->pos];

	if (p->pos >= p->ntok) {
		error_at(p->f, p->line, p->eol_col,
			 "'%s' expects %s, got end of line", kw(p), what);
		return NULL;
	}
	if (is_keyword(t->s)) {
		error_at(p->f, p->line, t->col,
			 "'%s' expects %s, got keyword '%s'", kw(p), what,
			 t->s);
		return NULL;
	}
	p->pos++;
	return t;
}

/*
 * The next token if it is an optional argument: the optional arguments
 * are numbers, so a word (a keyword, or a misspelt one) is not taken.
 */
struct tok *maybe(struct parser *p)
{
	const char *s;

	if (p->pos >= p->ntok)
		return NULL;
	s = p->toks[p->pos].s;
	/* a negative number too, to be refused as one */
	if (!isdigit((unsigned char)s[0]) && s[0] != '.' && !negative(s))
		return NULL;
	return &p->toks[p->pos++];
}

int expected(struct parser *p, const struct tok *t, const char *what,
	     const char *why)
{
	if (why)
		error_at(p->f, p->line, t->col, "'%s' expects %s, got '%s' (%s)",
			 kw(p), what, t->s, why);
	else
		error_at(p->f, p->line, t->col, "'%s' expects %s, got '%s'",
			 kw(p), what, t->s);
	return -1;
}
