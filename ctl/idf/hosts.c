// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Hosts (mtgctl manage, Documentation/idf.rst "Hosts"): the globals
 * declare each host whose `mtgctl daemon` runs TGs (`host NAME
 * ADDR[:PORT]`), a TG names the one it runs on (`host NAME`); a daemon
 * keeps its host's TGs of the file (idf_keep_host).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "idf/idf.h"
#include "idf/parser.h"

#define WHAT_HOST_NAME \
	"a host name (1 to 64 letters, digits, '-', '_', '.' not first)"

static bool name_ok(const char *s)
{
	size_t n = strlen(s);

	return n && n <= IDF_HOST_NAME_MAX && s[0] != '.' &&
	       strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
		      "0123456789-_.") == n;
}

const struct idf_host *idf_host_find(const struct idf_file *f,
				     const char *name)
{
	size_t i;

	for (i = 0; i < f->nhosts; i++)
		if (!strcmp(f->hosts[i].name, name))
			return &f->hosts[i];
	return NULL;
}

/* host NAME ADDR[:PORT], in the globals: a host declared. */
static int declare(struct parser *p, const struct tok *nt)
{
	const char *what = "ADDR[:PORT] of the host's `mtgctl daemon` (default port 9998; IPv6 in brackets)";
	struct idf_file *f = p->f;
	const struct idf_host *was;
	struct idf_host h = { 0 }, *n;
	struct tok *t;

	t = p->pos < p->ntok && !is_keyword(p->toks[p->pos].s) ?
		&p->toks[p->pos++] : NULL;
	if (!t) {
		error_at(f, p->line, nt->col,
			 "'host %s' in the globals declares a host: give its address, 'host %s ADDR[:PORT]' (a TG names its host after its 'tgid')",
			 nt->s, nt->s);
		return -1;
	}
	if (arg_endpoint(p, t, false, &h.addr))
		return -1;
	if (!h.addr.family)
		return expected(p, t, what, "no address");
	was = idf_host_find(f, nt->s);
	if (was) {
		error_at(f, p->line, nt->col,
			 "host '%s' declared twice (first at line %u)", nt->s,
			 was->loc.line);
		return -1;
	}
	strcpy(h.name, nt->s);
	h.loc.line = p->line;
	h.loc.col = nt->col;
	h.loc.src = f->cur_src;
	n = realloc(f->hosts, (f->nhosts + 1) * sizeof(*n));
	if (!n) {
		error_at(f, p->line, nt->col, "out of memory");
		return -1;
	}
	f->hosts = n;
	f->hosts[f->nhosts++] = h;
	return 0;
}

/* The declared hosts' names, for an error: "a, b" or "none declared". */
static void host_names(const struct idf_file *f, char *buf, size_t size)
{
	size_t i, at = 0;

	snprintf(buf, size, "none declared");
	for (i = 0; i < f->nhosts && at < size; i++)
		at += (size_t)snprintf(buf + at, size - at, "%s%s",
				       i ? ", " : "", f->hosts[i].name);
}

int parse_host(struct parser *p, struct idf_tg *tg)
{
	struct tok *t = need(p, WHAT_HOST_NAME);
	char names[160];

	if (!t)
		return -1;
	if (!name_ok(t->s))
		return expected(p, t, WHAT_HOST_NAME, NULL);
	if (p->cur < 0)
		return declare(p, t);
	if (!idf_host_find(p->f, t->s)) {
		host_names(p->f, names, sizeof(names));
		error_at(p->f, p->line, t->col,
			 "unknown host '%s' (declared: %s): declare it in the globals, 'host %s ADDR[:PORT]'",
			 t->s, names, t->s);
		return -1;
	}
	strcpy(tg->host, t->s);
	return 0;
}

bool idf_has_hosts(const struct idf_file *f)
{
	size_t i;

	for (i = 0; i < f->ntgs; i++)
		if (f->tgs[i].host[0])
			return true;
	return false;
}

void validate_hosts(struct idf_file *f)
{
	size_t i;

	if (!idf_has_hosts(f))
		return;
	for (i = 0; i < f->ntgs; i++)
		if (!f->tgs[i].host[0] &&
		    !(f->tgs[i].bad & IDF_KW_BIT(IDF_KW_host)))
			error_loc(f, &f->tgs[i].loc[IDF_KW_tgid],
				  "TG %u: names no host, where others do: give it 'host NAME' (mtgctl manage runs each TG on its host)",
				  f->tgs[i].id);
}

int idf_keep_host(struct idf_file *f, const char *name)
{
	size_t *to, i, k = 0, c = 0;

	if (!idf_host_find(f, name))
		return -ENOENT;
	to = calloc(f->ntgs ? f->ntgs : 1, sizeof(*to));
	if (!to)
		return -ENOMEM;
	for (i = 0; i < f->ntgs; i++) {
		if (strcmp(f->tgs[i].host, name))
			continue;
		to[i] = k + 1;
		f->tgs[k++] = f->tgs[i];
	}
	for (i = 0; i < f->nctrls; i++) {
		if (!to[f->ctrls[i].tg]) {
			free(f->ctrls[i].data);
			continue;
		}
		f->ctrls[c] = f->ctrls[i];
		f->ctrls[c++].tg = to[f->ctrls[i].tg] - 1;
	}
	f->ntgs = k;
	f->nctrls = c;
	/* the tgid index served the parser; it points at moved TGs now */
	free(f->id_slots);
	f->id_slots = NULL;
	f->id_nslots = 0;
	free(to);
	return 0;
}
