// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A `tgid LO-HI` range: its lines (the tgid's own and those up to the next
 * line that starts with tgid, or the end of the file) are read once for
 * each TG n of LO..HI, with every {EXPR} in a token replaced by its value
 * for n. EXPR is whole-number arithmetic on n: + - * / %, parentheses,
 * unary minus; text in quotes is left as written (Documentation/idf.rst,
 * "Many TGs from one block"). parse.c reads the lines and calls these.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "idf/parser.h"

#define EXPR_DEPTH_MAX	32	/* parentheses in one {EXPR} */

struct expr {
	const char *s;		/* just past the '{' */
	size_t pos;		/* where the reading is */
	int64_t n;
	unsigned int depth;
	const char *why;	/* set: what is wrong at pos */
};

static void skip_blanks(struct expr *e)
{
	while (e->s[e->pos] == ' ' || e->s[e->pos] == '\t')
		e->pos++;
}

static int64_t sum(struct expr *e);

static int64_t factor(struct expr *e)
{
	int64_t v = 0;
	char c;

	skip_blanks(e);
	c = e->s[e->pos];
	if (c == 'n') {
		e->pos++;
		return e->n;
	}
	if (c == '-') {
		e->pos++;
		v = factor(e);
		if (!e->why && v == INT64_MIN)
			e->why = "the value is too large";
		return e->why ? 0 : -v;
	}
	if (c == '(') {
		if (++e->depth > EXPR_DEPTH_MAX) {
			e->why = "parentheses nested too deep";
			return 0;
		}
		e->pos++;
		v = sum(e);
		if (e->why)
			return 0;
		skip_blanks(e);
		if (e->s[e->pos] != ')') {
			e->why = "expected ')'";
			return 0;
		}
		e->pos++;
		e->depth--;
		return v;
	}
	if (c < '0' || c > '9') {
		e->why = "expected a whole number, 'n' or '('";
		return 0;
	}
	while (e->s[e->pos] >= '0' && e->s[e->pos] <= '9') {
		if (__builtin_mul_overflow(v, 10, &v) ||
		    __builtin_add_overflow(v, e->s[e->pos] - '0', &v)) {
			e->why = "the number is too large";
			return 0;
		}
		e->pos++;
	}
	return v;
}

static int64_t product(struct expr *e)
{
	int64_t v = factor(e), w;
	size_t at;
	char op;

	for (;;) {
		skip_blanks(e);
		op = e->s[e->pos];
		if (e->why || (op != '*' && op != '/' && op != '%'))
			return v;
		at = e->pos++;
		w = factor(e);
		if (e->why)
			return 0;
		if (op == '*' && __builtin_mul_overflow(v, w, &v)) {
			e->pos = at;
			e->why = "the value is too large";
		} else if (op != '*' && w == 0) {
			e->pos = at;
			e->why = "divides by zero";
		} else if (op != '*' && v == INT64_MIN && w == -1) {
			e->pos = at;
			e->why = "the value is too large";
		} else if (op == '/') {
			v /= w;
		} else if (op == '%') {
			v %= w;
		}
	}
}

static int64_t sum(struct expr *e)
{
	int64_t v = product(e), w;
	size_t at;
	char op;

	for (;;) {
		skip_blanks(e);
		op = e->s[e->pos];
		if (e->why || (op != '+' && op != '-'))
			return v;
		at = e->pos++;
		w = product(e);
		if (e->why)
			return 0;
		if (op == '+' ? __builtin_add_overflow(v, w, &v) :
		    __builtin_sub_overflow(v, w, &v)) {
			e->pos = at;
			e->why = "the value is too large";
		}
	}
}

static bool has_template(const char *s)
{
	bool quoted = false;

	for (; *s; s++) {
		if (*s == '"')
			quoted = !quoted;
		else if (quoted && *s == '\\' && s[1])
			s++;
		else if (!quoted && (*s == '{' || *s == '}'))
			return true;
	}
	return false;
}

/* Append len bytes of s to the growing string *out (*used, *cap). */
static int append(char **out, size_t *used, size_t *cap, const char *s,
		  size_t len)
{
	if (*used + len + 1 > *cap) {
		size_t n = 2 * (*used + len + 1);
		char *grown = realloc(*out, n);

		if (!grown)
			return -1;
		*out = grown;
		*cap = n;
	}
	memcpy(*out + *used, s, len);
	*used += len;
	(*out)[*used] = '\0';
	return 0;
}

static int template_subst(struct parser *p, const struct tok *t,
			  int64_t n, char **out)
{
	const char *s = t->s;
	size_t used = 0, cap = 0, i = 0, lit;
	bool quoted = false;
	char num[24];

	*out = NULL;
	for (;;) {
		/* the literal part, up to a '{' outside quotes */
		for (lit = i; s[i]; i++) {
			if (s[i] == '"')
				quoted = !quoted;
			else if (quoted && s[i] == '\\' && s[i + 1])
				i++;
			else if (!quoted && (s[i] == '{' || s[i] == '}'))
				break;
		}
		if (append(out, &used, &cap, s + lit, i - lit))
			goto nomem;
		if (!s[i])
			return 0;
		if (s[i] == '}') {
			error_at(p->f, p->line, t->col + (unsigned int)i,
				 "'}' without its '{' in '%s'", s);
			goto bad;
		} else {
			struct expr e = { .s = s + i + 1, .n = n };
			int64_t v = sum(&e);

			skip_blanks(&e);
			if (!e.why && e.s[e.pos] != '}')
				e.why = e.s[e.pos] ? "expected an operator or '}'" :
					"expected '}'";
			if (e.why) {
				error_at(p->f, p->line,
					 t->col + (unsigned int)(i + 1 + e.pos),
					 "in the template of '%s': %s", s,
					 e.why);
				goto bad;
			}
			snprintf(num, sizeof(num), "%" PRId64, v);
			if (append(out, &used, &cap, num, strlen(num)))
				goto nomem;
			i += 1 + e.pos + 1;
		}
	}
nomem:
	free(*out);
	*out = NULL;
	return -ENOMEM;
bad:
	free(*out);
	*out = NULL;
	return -1;
}


void range_free(struct range *r)
{
	size_t i;

	for (i = 0; i < r->n; i++)
		free(r->lines[i]);
	free(r->lines);
	free(r->line_no);
	memset(r, 0, sizeof(*r));
}

int range_add_line(struct range *r, const char *line,
			  unsigned int line_no)
{
	if (r->n == r->cap) {
		size_t cap = r->cap ? 2 * r->cap : 8;
		char **lines = realloc(r->lines, cap * sizeof(*lines));
		unsigned int *nos;

		if (!lines)
			return -ENOMEM;
		r->lines = lines;
		nos = realloc(r->line_no, cap * sizeof(*nos));
		if (!nos)
			return -ENOMEM;
		r->line_no = nos;
		r->cap = cap;
	}
	r->lines[r->n] = strdup(line);
	if (!r->lines[r->n])
		return -ENOMEM;
	r->line_no[r->n++] = line_no;
	return 0;
}

/*
 * Whether p's tokens (a line) start with `tgid LO-HI`; if so, *r holds
 * LO and HI, or bad with the error reported.
 */
bool range_starts(struct parser *p, struct range *r)
{
	struct idf_file *f = p->f;
	uint32_t most = f->range_max ? f->range_max : IDF_RANGE_MAX;
	const struct tok *t;
	uint64_t lo, hi;
	char *dash;

	if (p->ntok < 2 || strcmp(p->toks[0].s, "tgid"))
		return false;
	t = &p->toks[1];
	dash = strchr(t->s, '-');
	if (!dash || dash == t->s)
		return false;
	memset(r, 0, sizeof(*r));
	*dash = '\0';
	if (parse_uint(t->s, UINT32_MAX, &lo) || !lo ||
	    parse_uint(dash + 1, UINT32_MAX, &hi) || !hi) {
		*dash = '-';
		error_at(f, p->line, t->col,
			 "'tgid' expects a TG number or a range LO-HI of them (1 to 4294967295), got '%s'",
			 t->s);
		r->bad = true;
		return true;
	}
	*dash = '-';
	if (lo > hi) {
		error_at(f, p->line, t->col,
			 "the range '%s' ends before it starts", t->s);
		r->bad = true;
	} else if (hi - lo >= most) {
		error_at(f, p->line, t->col,
			 "the range '%s' makes %" PRIu64 " TGs; at most %u",
			 t->s, hi - lo + 1, most);
		r->bad = true;
	}
	r->lo = (uint32_t)lo;
	r->hi = (uint32_t)hi;
	return true;
}

/*
 * Token k is in error (reported): the line is cut at the keyword it
 * belongs to, which is returned (-1: none) for given_in_error().
 */
static int cut_at_keyword(struct parser *p, size_t k)
{
	while (k > 0 && !is_keyword(p->toks[k].s))
		k--;
	p->ntok = k;
	return kw_lookup(p->toks[k].s);
}

/* A keyword cut from its line was given, with an error: nothing more. */
void given_in_error(struct parser *p, int k)
{
	if (k < 0 || k == IDF_KW_tgid || k == IDF_KW_include)
		return;
	current(p)->set |= IDF_KW_BIT(k);
	current(p)->bad |= IDF_KW_BIT(k);
}

/* r's lines once for each TG n of the range. */
int range_read(struct parser *p, struct range *r)
{
	unsigned int last_line = p->line;
	char **made = NULL, *line = NULL, number[16];
	size_t i, k, nmade, width = 0;
	int err = 0;
	uint64_t n;

	for (i = 0; i < r->n; i++)
		width = strlen(r->lines[i]) > width ? strlen(r->lines[i]) : width;
	line = malloc(width + 1);
	if (!line)
		return -ENOMEM;
	p->range_lo = r->lo;
	p->range_hi = r->hi;
	p->range_line = r->line_no[0];
	for (n = r->lo; n <= r->hi && !err; n++) {
		p->f->expanding = (uint32_t)n;
		for (i = 0; i < r->n && !err; i++) {
			int dropped = -1;

			strcpy(line, r->lines[i]);
			p->line = r->line_no[i];
			err = tokenize(p, line);
			if (err)
				break;
			made = calloc(p->ntok ? p->ntok : 1, sizeof(*made));
			if (!made) {
				err = -ENOMEM;
				break;
			}
			nmade = p->ntok;
			if (!i) {
				snprintf(number, sizeof(number), "%u",
					 (uint32_t)n);
				p->toks[1].s = number;
			}
			for (k = 0; k < p->ntok && !err; k++) {
				int bad;

				if (!has_template(p->toks[k].s))
					continue;
				bad = template_subst(p, &p->toks[k],
						     (int64_t)n, &made[k]);
				if (bad == -ENOMEM) {
					err = bad;
				} else if (bad) {
					dropped = cut_at_keyword(p, k);
				} else {
					p->toks[k].s = made[k];
				}
			}
			if (!err)
				err = parse_line(p);
			given_in_error(p, dropped);
			for (k = 0; k < nmade; k++)
				free(made[k]);
			free(made);
		}
	}
	p->f->expanding = 0;
	p->range_lo = p->range_hi = 0;
	p->range_line = 0;
	p->line = last_line;
	free(line);
	return err;
}

/*
 * Braces outside a range: said where they stand, and the line cut there;
 * the keyword cut (-1: none) for given_in_error().
 */
int no_templates(struct parser *p)
{
	size_t k;

	for (k = 0; k < p->ntok; k++)
		if (has_template(p->toks[k].s)) {
			error_at(p->f, p->line, p->toks[k].col,
				 "'%s': a template {...} is only read in the lines of a 'tgid LO-HI' range",
				 p->toks[k].s);
			return cut_at_keyword(p, k);
		}
	return -1;
}
