// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The IDF parser: a line is cut into tokens, a token in keyword position is
 * looked up (token.c), and the keyword's function (kw_gen.c, kw_net.c)
 * takes the arguments it needs. After an error the parser skips to the
 * next keyword, so one pass reports every mistake it can. Here: lines,
 * sections, `include`, reading files. Documentation/idf.rst is the
 * reference; Documentation/ctl-layout.rst shows the other files of idf/.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "idf/idf.h"
#include "idf/parser.h"

/* The keywords' parsers, by enum idf_kw (their names: token.c). */
static const kw_parse_fn parsers[IDF_KW_COUNT] = {
#define IDF_KW_ENTRY(n, a) [IDF_KW_##n] = parse_##n,
	IDF_KEYWORDS(IDF_KW_ENTRY)
#undef IDF_KW_ENTRY
};

/* Skip to the next token that is a keyword. */
static void resync(struct parser *p)
{
	while (p->pos < p->ntok && !is_keyword(p->toks[p->pos].s))
		p->pos++;
}

static void defaults(struct idf_tg *tg)
{
	memset(tg, 0, sizeof(*tg));
	tg->ttl = 64;
	tg->rtt_slot = IDF_RTT_SLOT;
}

/*
 * The slot of TG number id in the index of valid tgids: holding its index
 * + 1, or 0 where it would go. An index, not a scan of the TGs before, so
 * a file of 100,000 TGs reads in linear time. NULL: out of memory.
 */
static size_t *id_slot(struct idf_file *f, uint32_t id)
{
	size_t mask, i;

	if (2 * (f->ntgs + 1) > f->id_nslots) {
		size_t n = f->id_nslots ? 2 * f->id_nslots : 64;
		size_t *slots = calloc(n, sizeof(*slots));
		size_t k;

		if (!slots)
			return NULL;
		for (k = 0; k < f->id_nslots; k++) {
			size_t at = f->id_slots[k];

			if (!at)
				continue;
			i = (f->tgs[at - 1].id * 2654435761u) & (n - 1);
			while (slots[i])
				i = (i + 1) & (n - 1);
			slots[i] = at;
		}
		free(f->id_slots);
		f->id_slots = slots;
		f->id_nslots = n;
	}
	mask = f->id_nslots - 1;
	for (i = (id * 2654435761u) & mask; f->id_slots[i]; i = (i + 1) & mask)
		if (f->tgs[f->id_slots[i] - 1].id == id)
			break;
	return &f->id_slots[i];
}

static int begin_tg(struct parser *p, const struct tok *kt,
		    const struct tok *t)
{
	struct idf_file *f = p->f;
	struct idf_tg *tg;
	uint64_t id = 0;
	bool bad;

	bad = !t || arg_uint(p, t, 1, UINT32_MAX, WHAT_TGID, &id);
	if (f->ntgs == f->cap) {
		size_t cap = f->cap ? 2 * f->cap : 16;
		struct idf_tg *n = realloc(f->tgs, cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		f->tgs = n;
		f->cap = cap;
	}
	tg = &f->tgs[f->ntgs];
	*tg = f->globals;
	tg->set &= ~(IDF_KW_BIT(IDF_KW_tgid));
	tg->id = (uint32_t)id;
	tg->range_lo = p->range_lo;
	tg->range_hi = p->range_hi;
	tg->set |= IDF_KW_BIT(IDF_KW_tgid);
	tg->loc[IDF_KW_tgid].line = p->line;
	tg->loc[IDF_KW_tgid].col = kt->col;
	tg->loc[IDF_KW_tgid].src = f->cur_src;
	if (bad)
		tg->bad |= IDF_KW_BIT(IDF_KW_tgid);
	if (!bad) {
		size_t *slot = id_slot(f, tg->id);

		if (!slot)
			return -ENOMEM;
		if (*slot) {
			error_at(f, p->line, t->col,
				 "duplicate tgid %u (first at line %u)", tg->id,
				 f->tgs[*slot - 1].loc[IDF_KW_tgid].line);
			tg->bad |= IDF_KW_BIT(IDF_KW_tgid);
		} else {
			*slot = f->ntgs + 1;
		}
	}
	p->cur = (long)f->ntgs++;
	p->own = IDF_KW_BIT(IDF_KW_tgid);
	return 0;
}

int parse_line(struct parser *p)
{
	struct idf_file *f = p->f;

	p->pos = 0;
	p->line_kw = false;
	p->cat = NULL;
	while (p->pos < p->ntok) {
		struct tok *t = &p->toks[p->pos++];
		struct idf_tg *tg;
		int k = kw_lookup(t->s);
		const char *near;

		if (k == IDF_KW_tgid) {
			struct tok *v;

			/* need() names the keyword being read: this one */
			p->last_kw = IDF_KW_tgid;
			p->cat = NULL;
			if (p->range_line && (p->line != p->range_line ||
					      p->pos != 1)) {
				error_at(f, p->line, t->col,
					 "'tgid' inside the range of line %u: a TG starts a line of its own",
					 p->range_line);
				resync(p);
				continue;
			}
			v = need(p, WHAT_TGID);
			if (v && !p->range_line && v->s[0] != '-' &&
			    strchr(v->s, '-')) {
				error_at(f, p->line, v->col,
					 "a range 'tgid %s' starts a line of its own",
					 v->s);
				v = NULL;
			}

			if (begin_tg(p, t, v))
				return -ENOMEM;
			p->line_kw = true;
			if (current(p)->bad & (IDF_KW_BIT(IDF_KW_tgid)))
				resync(p);
			continue;
		}
		if (k < 0) {
			if (!isalpha((unsigned char)t->s[0]) && p->line_kw)
				error_at(f, p->line, t->col,
					 "expected a keyword, got '%s' (too many values for '%s'?)",
					 t->s, kw(p));
			else if (!isalpha((unsigned char)t->s[0]))
				error_at(f, p->line, t->col,
					 "expected a keyword, got '%s'", t->s);
			else if ((near = closest_keyword(t->s)))
				error_at(f, p->line, t->col,
					 "unknown keyword '%s'; did you mean '%s'?",
					 t->s, near);
			else
				error_at(f, p->line, t->col,
					 "unknown keyword '%s'", t->s);
			resync(p);
			continue;
		}
		tg = current(p);
		p->last_kw = (enum idf_kw)k;
		p->line_kw = true;
		if (p->cat) {
			/* the rest of a `category` line: its model's groups */
			if (category_group(p, k, t))
				resync(p);
			continue;
		}
		if (k == IDF_KW_behaviour || k == IDF_KW_category ||
		    k == IDF_KW_next || (k == IDF_KW_host && p->cur < 0)) {
			/* a behaviour's or a host's definition, not a setting
			 * of the section */
			if (parsers[k](p, tg))
				resync(p);
			continue;
		}
		if (k == IDF_KW_include && p->range_line) {
			error_at(f, p->line, t->col,
				 "'include' inside the range of line %u: include the file before the range, or write the range in it",
				 p->range_line);
			resync(p);
			continue;
		}
		if (k == IDF_KW_include) {
			/* not a setting: as often as wanted, nothing to record */
			if (parse_include(p, tg))
				resync(p);
			continue;
		}
		if (p->own & (IDF_KW_BIT(k)) && k != IDF_KW_ctrl &&
		    k != IDF_KW_probe)
			error_at(f, p->line, t->col,
				 "'%s' given twice (first at line %u)",
				 t->s, tg->loc[k].line);
		p->own |= IDF_KW_BIT(k);
		if (p->cur >= 0)
			tg->own |= IDF_KW_BIT(k);
		tg->set |= IDF_KW_BIT(k);
		tg->bad &= ~(IDF_KW_BIT(k));
		tg->loc[k].line = p->line;
		tg->loc[k].col = t->col;
		tg->loc[k].src = f->cur_src;
		if (parsers[k](p, tg)) {
			tg->bad |= IDF_KW_BIT(k);
			resync(p);
		}
	}
	return 0;
}

/*
 * Past the token that starts at c: up to a blank, which a "quoted text"
 * holds as it holds '#' (a backslash in it escapes the next byte),
 * and a range's {EXPR} holds too.
 */
static char *token_end(char *c)
{
	bool quoted = false;
	unsigned int braces = 0;	/* a range's {EXPR} may hold blanks */

	for (; *c && *c != '\n' &&
	     (quoted || braces || !isspace((unsigned char)*c)); c++) {
		if (*c == '{' && !quoted)
			braces++;
		else if (*c == '}' && !quoted && braces)
			braces--;
		else if (*c == '"')
			quoted = !quoted;
		else if (quoted && *c == '\\' && c[1])
			c++;
	}
	return c;
}

/* Where the comment starts: the first '#' outside a quoted text. */
static char *comment_start(char *line)
{
	bool quoted = false;
	char *c;

	for (c = line; *c; c++) {
		if (*c == '"')
			quoted = !quoted;
		else if (quoted && *c == '\\' && c[1])
			c++;
		else if (!quoted && *c == '#')
			return c;
	}
	return NULL;
}

/* Cut the line into tokens, in place; '#' starts a comment. */
int tokenize(struct parser *p, char *line)
{
	char *c = line, *end;

	end = comment_start(line);
	if (end)
		*end = '\0';
	p->ntok = 0;
	p->eol_col = 1;
	for (;;) {
		while (*c && isspace((unsigned char)*c))
			c++;
		if (!*c)
			break;
		if (p->ntok == p->tcap) {
			size_t cap = p->tcap ? 2 * p->tcap : 32;
			struct tok *n = realloc(p->toks, cap * sizeof(*n));

			if (!n)
				return -ENOMEM;
			p->toks = n;
			p->tcap = cap;
		}
		p->toks[p->ntok].s = c;
		p->toks[p->ntok].col = (unsigned int)(c - line) + 1;
		p->ntok++;
		c = token_end(c);
		p->eol_col = (unsigned int)(c - line) + 2;
		if (*c)
			*c++ = '\0';
	}
	return 0;
}

static int read_file(const char *path, bool regular, char **text,
		     size_t *text_len, const char **why);

/* Every line of in, into p's file (the one in f->cur_src). */
static int parse_stream(struct parser *p, FILE *in)
{
	struct range r = { 0 };
	bool in_range = false;
	char *line = NULL, *copy = NULL;
	int dropped;
	size_t cap = 0;
	ssize_t len;
	int err = 0;

	while ((len = getline(&line, &cap, in)) >= 0) {
		p->line++;
		if (memchr(line, '\0', (size_t)len)) {
			error_at(p->f, p->line, 1, "NUL byte in the line");
			continue;
		}
		/* tokenize() cuts the line: a range keeps it as written */
		free(copy);
		copy = strdup(line);
		err = copy ? tokenize(p, line) : -ENOMEM;
		if (err)
			break;
		if (in_range && !(p->ntok && !strcmp(p->toks[0].s, "tgid"))) {
			err = range_add_line(&r, copy, p->line);
			if (err)
				break;
			continue;
		}
		if (in_range) {
			err = r.bad ? 0 : range_read(p, &r);
			range_free(&r);
			in_range = false;
			if (!err)
				err = tokenize(p, strcpy(line, copy));
			if (err)
				break;
		}
		if (range_starts(p, &r)) {
			in_range = true;
			err = range_add_line(&r, copy, p->line);
			if (err)
				break;
			continue;
		}
		dropped = no_templates(p);
		err = parse_line(p);
		if (err)
			break;
		given_in_error(p, dropped);
	}
	if (!err && in_range && !r.bad)
		err = range_read(p, &r);
	range_free(&r);
	if (!err && ferror(in))
		err = -errno;
	free(copy);
	free(line);
	return err;
}

int idf_parse(struct idf_file *f, FILE *in)
{
	struct parser p = { .f = f, .cur = -1 };
	int err;

	defaults(&f->globals);
	f->cur_src = 0;
	err = parse_stream(&p, in);
	free(p.toks);
	return err;
}

int parse_text(struct parser *up, const char *text)
{
	struct parser p = { .f = up->f, .cur = -1, .src = up->src, .up = up };
	FILE *in = fmemopen((void *)text, strlen(text), "r");
	int err;

	if (!in)
		return -errno;
	err = parse_stream(&p, in);
	fclose(in);
	free(p.toks);
	return err;
}

/*
 * include FILE: the file's groups, read where the keyword stands, as if
 * written there (in the globals or the TG being read). A relative FILE is
 * taken from the including file's directory. Errors in it name it.
 */
int parse_include(struct parser *p, struct idf_tg *tg)
{
	struct idf_file *f = p->f;
	const char *from = idf_source_name(f, f->cur_src), *slash;
	const struct parser *up;
	struct idf_source *src, *n;
	struct parser saved;
	const char *why;
	struct tok *t;
	FILE *in;
	int dir, err = 0;

	(void)tg;
	t = need(p, "a file name");
	if (!t)
		return -1;
	if (f->no_include) {
		error_at(f, p->line, t->col, "'include' is not allowed here");
		return -1;
	}
	if (f->depth >= IDF_INCLUDE_DEPTH) {
		error_at(f, p->line, t->col,
			 "'include' nested more than %d deep (a loop?)",
			 IDF_INCLUDE_DEPTH);
		return -1;
	}
	n = realloc(f->includes, (f->nincludes + 1) * sizeof(*n));
	if (!n)
		return -ENOMEM;
	f->includes = n;
	src = &f->includes[f->nincludes];
	memset(src, 0, sizeof(*src));
	slash = strrchr(from, '/');
	dir = slash && t->s[0] != '/' ? (int)(slash - from) + 1 : 0;
	if (asprintf(&src->name, "%.*s%s", dir, from, t->s) < 0)
		return -ENOMEM;
	for (up = p; up; up = up->up)
		if (!strcmp(idf_source_name(f, up->src), src->name)) {
			error_at(f, p->line, t->col,
				 "'include %s' includes a file being read (a loop)",
				 t->s);
			free(src->name);
			return -1;
		}
	/* a FIFO or a device would block or never end */
	err = read_file(src->name, true, &src->text, &src->text_len, &why);
	if (err) {
		error_at(f, p->line, t->col, "'include' cannot read '%s': %s",
			 src->name, why ? why : strerror(-err));
		free(src->name);
		free(src->text);
		return -1;
	}
	f->nincludes++;
	/* read it with a parser of its own, then go on with this line */
	saved = *p;
	p->up = &saved;
	p->toks = NULL;
	p->tcap = p->ntok = p->pos = 0;
	p->line = 0;
	p->src = f->cur_src = (unsigned int)f->nincludes;
	f->depth++;
	if (src->text_len) {
		in = fmemopen(src->text, src->text_len, "r");
		err = in ? parse_stream(p, in) : -errno;
		if (in)
			fclose(in);
	}
	f->depth--;
	free(p->toks);
	/* the section may have changed: a tgid in the included file */
	saved.cur = p->cur;
	saved.own = p->own;
	*p = saved;
	f->cur_src = p->src;
	return err ? -1 : 0;
}

/* What a file that is not a regular one is. */
static const char *file_kind(mode_t mode)
{
	if (S_ISFIFO(mode))
		return "a FIFO, not a regular file";
	if (S_ISDIR(mode))
		return "a directory, not a regular file";
	if (S_ISCHR(mode))
		return "a character device, not a regular file";
	if (S_ISBLK(mode))
		return "a block device, not a regular file";
	if (S_ISSOCK(mode))
		return "a socket, not a regular file";
	return "not a regular file";
}

FILE *idf_fopen_regular(const char *path, const char **why)
{
	struct stat st;
	FILE *in;
	int fd;

	/* look before opening: opening a FIFO blocks, a device may act */
	if (stat(path, &st)) {
		*why = strerror(errno);
		return NULL;
	}
	if (!S_ISREG(st.st_mode)) {
		*why = file_kind(st.st_mode);
		errno = EINVAL;
		return NULL;
	}
	fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0) {
		*why = strerror(errno);
		return NULL;
	}
	/* what was opened, should the name have changed since */
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		*why = file_kind(st.st_mode);
		close(fd);
		errno = EINVAL;
		return NULL;
	}
	in = fdopen(fd, "r");
	if (!in) {
		*why = strerror(errno);
		close(fd);
	}
	return in;
}

/*
 * A whole file, which a recording keeps as the run's description; regular:
 * only a regular file (*why: what it is instead, or strerror).
 */
static int read_file(const char *path, bool regular, char **text,
		     size_t *text_len, const char **why)
{
	size_t cap = 0, n;
	FILE *in;
	char *t;
	int err = 0;

	*text = NULL;
	*text_len = 0;
	*why = NULL;
	in = regular ? idf_fopen_regular(path, why) : fopen(path, "r");
	if (!in)
		return -errno;
	errno = 0;
	for (;;) {
		if (*text_len == cap) {
			if (cap >= IDF_TEXT_MAX) {
				err = -EFBIG;
				break;
			}
			cap = cap ? 2 * cap : 4096;
			t = realloc(*text, cap + 1);
			if (!t) {
				err = -ENOMEM;
				break;
			}
			*text = t;
		}
		n = fread(*text + *text_len, 1, cap - *text_len, in);
		*text_len += n;
		if (!n)
			break;
	}
	if (!err && ferror(in))
		err = errno ? -errno : -EIO;
	fclose(in);
	if (!err)
		(*text)[*text_len] = '\0';
	return err;
}

/* f's text, read: parse and validate it. */
static int load_text(struct idf_file *f)
{
	FILE *in;
	int err;

	if (f->text_len) {
		in = fmemopen(f->text, f->text_len, "r");
		if (!in)
			return -errno;
		err = idf_parse(f, in);
		fclose(in);
		if (err)
			return err;
	}
	return idf_validate(f) ? -EINVAL : 0;
}

int idf_load(struct idf_file *f, const char *path)
{
	const char *why;
	int err;

	memset(f, 0, sizeof(*f));
	f->name = strdup(path);
	if (!f->name)
		return -ENOMEM;
	err = read_file(path, false, &f->text, &f->text_len, &why);
	return err ? err : load_text(f);
}

int idf_load_text(struct idf_file *f, const char *name, const char *text)
{
	memset(f, 0, sizeof(*f));
	f->name = strdup(name);
	f->text = strdup(text);
	if (!f->name || !f->text)
		return -ENOMEM;
	f->text_len = strlen(text);
	return load_text(f);
}

void idf_free(struct idf_file *f)
{
	size_t i;

	for (i = 0; i < f->nincludes; i++) {
		free(f->includes[i].name);
		free(f->includes[i].text);
	}
	free(f->includes);
	for (i = 0; i < f->nbehs; i++)
		free(f->behs[i]);
	free(f->behs);
	free(f->tgs);
	free(f->id_slots);
	free(f->name);
	free(f->text);
	free(f->listen);
	free(f->out);
	free(f->key);
	free(f->probes);
	free(f->hosts);
	for (i = 0; i < f->nctrls; i++)
		free(f->ctrls[i].data);
	free(f->ctrls);
	memset(f, 0, sizeof(*f));
}
