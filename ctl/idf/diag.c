// SPDX-License-Identifier: GPL-2.0-or-later
/* Diagnostics: file:line:col, TGs merged into ranges, sorted (idf.h). */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "idf/idf.h"
#include "idf/parser.h"
#include "util/text.h"

/* d->msg: "TG 3: body", "TGs 1..30, 35: body", "TGs 1..2 have no ..." */
static void diag_render(struct idf_diag *d)
{
	char ids[128];
	size_t n = 0, listed = 0;
	bool has = !strncmp(d->body, "has ", 4);
	unsigned int i;

	ids[0] = '\0';
	for (i = 0; i < d->nranges && n < sizeof(ids); i++) {
		const char *sep = i ? ", " : "";

		if (d->tgs[i].lo == d->tgs[i].hi)
			n += (size_t)snprintf(ids + n, sizeof(ids) - n, "%s%u",
					      sep, d->tgs[i].lo);
		else
			n += (size_t)snprintf(ids + n, sizeof(ids) - n,
					      "%s%u..%u", sep, d->tgs[i].lo,
					      d->tgs[i].hi);
		listed += (size_t)d->tgs[i].hi - d->tgs[i].lo + 1;
	}
	if (d->ntgs > listed && n < sizeof(ids))
		snprintf(ids + n, sizeof(ids) - n, " and %zu more",
			 d->ntgs - listed);
	if (d->ntgs == 1)
		snprintf(d->msg, sizeof(d->msg), "TG %s%s%s", ids,
			 has ? " " : ": ", d->body);
	else
		snprintf(d->msg, sizeof(d->msg), "TGs %s%s%s", ids,
			 has ? " have " : ": ", has ? d->body + 4 : d->body);
}

/* One more TG the diagnostic is about, in file order. */
static void diag_add_tg(struct idf_diag *d, uint32_t id)
{
	unsigned int r = d->nranges;

	/* the TGs past the last range that fits are counted, not listed */
	if (r && d->tgs[r - 1].hi != UINT32_MAX && d->tgs[r - 1].hi + 1 == id) {
		d->tgs[r - 1].hi = id;
	} else if (r < IDF_DIAG_RANGES) {
		d->tgs[r].lo = d->tgs[r].hi = id;
		d->nranges++;
	}
	d->ntgs++;
	diag_render(d);
}

/*
 * A message; file content in it is escaped. One that starts "TG %u" is
 * a check of that TG: the same message at the same place about another
 * TG (a mistake in the globals), or the same "TG %u has ..." anywhere,
 * names that TG too instead of being repeated.
 */
static void diag(struct idf_file *f, bool warning, unsigned int src,
		 unsigned int line, unsigned int col, const char *fmt,
		 va_list ap)
{
	struct idf_diag *d;
	char text[1024], body[sizeof(d->body)];
	bool about_tg = !strncmp(fmt, "TG %u", 5);
	uint32_t id = 0;
	size_t i;

	if (about_tg) {
		id = va_arg(ap, unsigned int);
		fmt += fmt[5] == ':' ? 7 : 6;	/* "TG %u: " or "TG %u " */
	}
	vsnprintf(text, sizeof(text), fmt, ap);
	/* a range's line, read for TG n: about TG n, merged with the others */
	if (!about_tg && f->expanding) {
		about_tg = true;
		id = f->expanding;
	}
	text_escape(body, sizeof(body), text);
	for (i = 0; about_tg && i < f->ndiags; i++) {
		d = &f->diags[i];
		if (!d->ntgs || d->warning != warning || strcmp(d->body, body))
			continue;
		if (strncmp(body, "has ", 4) && (d->loc.src != src ||
		    d->loc.line != line || d->loc.col != col))
			continue;
		diag_add_tg(d, id);
		return;
	}
	if (warning)
		f->nwarnings++;
	else
		f->nerrors++;
	if (f->ndiags == IDF_MAX_DIAGS)
		return;
	d = &f->diags[f->ndiags++];
	memset(d, 0, sizeof(*d));
	d->loc.line = line;
	d->loc.col = col;
	d->loc.src = src;
	d->warning = warning;
	if (about_tg) {
		strcpy(d->body, body);
		diag_add_tg(d, id);
	} else {
		text_escape(d->msg, sizeof(d->msg), text);
	}
}

__attribute__((format(printf, 4, 5)))
void error_at(struct idf_file *f, unsigned int line, unsigned int col,
	      const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	diag(f, false, f->cur_src, line, col, fmt, ap);
	va_end(ap);
}

__attribute__((format(printf, 3, 4)))
void error_loc(struct idf_file *f, const struct idf_loc *loc,
	       const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	diag(f, false, loc->src, loc->line, loc->col, fmt, ap);
	va_end(ap);
}

__attribute__((format(printf, 3, 4)))
void warn_loc(struct idf_file *f, const struct idf_loc *loc,
	      const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	diag(f, true, loc->src, loc->line, loc->col, fmt, ap);
	va_end(ap);
}

const char *idf_source_name(const struct idf_file *f, unsigned int src)
{
	return src && src <= f->nincludes ? f->includes[src - 1].name :
		f->name;
}

void idf_print_diags(const struct idf_file *f, FILE *out)
{
	char name[IDF_PATH_MAX + 1];
	size_t i;

	for (i = 0; i < f->ndiags; i++) {
		const struct idf_diag *d = &f->diags[i];
		const char *kind = d->warning ? "warning" : "error";

		/* an included file's name comes from a file too */
		text_escape(name, sizeof(name), idf_source_name(f, d->loc.src));
		if (d->loc.line)
			fprintf(out, "%s:%u:%u: %s: %s\n", name, d->loc.line,
				d->loc.col, kind, d->msg);
		else
			fprintf(out, "%s: %s: %s\n", name, kind, d->msg);
	}
	if (f->nerrors + f->nwarnings > f->ndiags)
		fprintf(out, "%s: %zu more errors or warnings not shown\n",
			f->name, f->nerrors + f->nwarnings - f->ndiags);
}

void idf_print_tg_error(const struct idf_file *f, const struct idf_tg *tg,
			const char *msg, FILE *out)
{
	const struct idf_loc *at = &tg->loc[idf_has(tg, IDF_KW_dist) ?
					    IDF_KW_dist : IDF_KW_tgid];
	char name[IDF_PATH_MAX + 1], text[512];

	text_escape(name, sizeof(name), idf_source_name(f, at->src));
	text_escape(text, sizeof(text), msg);
	fprintf(out, "%s:%u:%u: error: TG %u: %s\n", name, at->line, at->col,
		tg->id, text);
}

/* File order: by line, then column, then as found. */
void sort_diags(struct idf_file *f)
{
	size_t i, j;

	for (i = 1; i < f->ndiags; i++) {
		struct idf_diag d = f->diags[i];

		for (j = i; j > 0; j--) {
			const struct idf_loc *a = &f->diags[j - 1].loc;

			if (a->src < d.loc.src ||
			    (a->src == d.loc.src && (a->line < d.loc.line ||
			     (a->line == d.loc.line && a->col <= d.loc.col))))
				break;
			f->diags[j] = f->diags[j - 1];
		}
		f->diags[j] = d;
	}
}
