// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Behaviours (Documentation/idf.rst, "Behaviours"): `behaviour NAME`, its
 * `category` lines (a name, the mean time in it, and the groups of its
 * model: dist, pkts, inta, thro, read by the keywords' own parsers) and its
 * `next` lines (the chances of the category that follows); a TG takes one
 * with `dist behaviour NAME`. mtgctl's own, `mmorpg`, is IDF text read the
 * same way the first time a TG names it. The chain's shares of the changes
 * and of the time are worked out here, once the file is read.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "idf/idf.h"
#include "idf/parser.h"
#include "traffic/gap.h"

/*
 * The default set for an MMORPG. The categories are those of Suznjevic,
 * Stupar and Matijasevic (NetGames 2011, DISIO 2011) and their
 * measurements' ordering (PvP the most client traffic, trading the least);
 * every number is assumed (Documentation/idf.rst says which and why).
 */
static const char mmorpg_text[] =
	"behaviour mmorpg\n"
	"category trading   300s dist exponential inta 400ms pkts variable 250 150\n"
	"category questing  900s dist exponential inta 200ms pkts variable 300 150\n"
	"category dungeon  1200s dist exponential inta 100ms pkts variable 350 150\n"
	"category raiding  1800s dist exponential inta 80ms  pkts variable 400 150\n"
	"category pvp       600s dist exponential inta 50ms  pkts variable 300 150\n"
	"category idle      300s dist exponential inta 1s    pkts 150\n"
	"next trading  questing 0.4  dungeon 0.2  raiding 0.1  pvp 0.1  idle 0.2\n"
	"next questing trading 0.3   dungeon 0.25 raiding 0.05 pvp 0.15 idle 0.25\n"
	"next dungeon  trading 0.35  questing 0.3 raiding 0.05 pvp 0.1  idle 0.2\n"
	"next raiding  trading 0.3   questing 0.1 dungeon 0.1  pvp 0.1  idle 0.4\n"
	"next pvp      trading 0.3   questing 0.3 dungeon 0.15 raiding 0.05 idle 0.2\n"
	"next idle     trading 0.35  questing 0.3 dungeon 0.15 raiding 0.1  pvp 0.1\n";

#define MMORPG	"mmorpg"
#define WHAT_NAME \
	"a name (a letter, then letters, digits, '_' or '-', at most 31 bytes)"
/* how far a row's chances may be from summing to 1 */
#define ROW_EPSILON	1e-9

static const char *bad_name(const char *s)
{
	size_t i;

	if (!isalpha((unsigned char)s[0]))
		return "it must start with a letter";
	for (i = 0; s[i]; i++)
		if (!isalnum((unsigned char)s[i]) && s[i] != '_' && s[i] != '-')
			return "only letters, digits, '_' and '-'";
	return i > IDF_BEH_NAME_MAX ? "longer than 31 bytes" : NULL;
}

static struct idf_behaviour *find_behaviour(const struct idf_file *f,
					    const char *name)
{
	size_t i;

	for (i = 0; i < f->nbehs; i++)
		if (!strcmp(f->behs[i]->name, name))
			return f->behs[i];
	return NULL;
}

static int find_category(const struct idf_behaviour *b, const char *name)
{
	unsigned int i;

	for (i = 0; i < b->ncat; i++)
		if (!strcmp(b->cat[i].name, name))
			return (int)i;
	return -1;
}

/* A behaviour is defined in the globals, from its `behaviour` line on. */
static int in_definition(struct parser *p)
{
	const struct tok *t = &p->toks[p->pos - 1];
	bool starts = p->last_kw == IDF_KW_behaviour;

	if (p->cur < 0 && (starts || p->beh))
		return 0;
	if (starts)
		error_at(p->f, p->line, t->col,
			 "'behaviour' defines a behaviour: give it before the first 'tgid' (a TG takes it with 'dist behaviour NAME')");
	else
		error_at(p->f, p->line, t->col,
			 "'%s' belongs to a behaviour: write it after a 'behaviour NAME' line, before the first 'tgid'",
			 kw(p));
	return -1;
}

int parse_behaviour(struct parser *p, struct idf_tg *tg)
{
	struct idf_file *f = p->f;
	struct idf_behaviour *b, **n;
	const struct idf_behaviour *old;
	const char *why;
	struct tok *t;

	(void)tg;
	if (in_definition(p))
		return -1;
	t = need(p, WHAT_NAME);
	if (!t)
		return -1;
	why = bad_name(t->s);
	if (why)
		return expected(p, t, WHAT_NAME, why);
	old = find_behaviour(f, t->s);
	if (old) {
		if (old->builtin)
			error_at(f, p->line, t->col,
				 "behaviour '%s' is mtgctl's own, which a TG above took: give yours another name",
				 t->s);
		else
			error_at(f, p->line, t->col,
				 "behaviour '%s' defined twice (first at line %u)",
				 t->s, old->loc.line);
		return -1;
	}
	n = realloc(f->behs, (f->nbehs + 1) * sizeof(*n));
	if (!n)
		return -ENOMEM;
	f->behs = n;
	b = calloc(1, sizeof(*b));
	if (!b)
		return -ENOMEM;
	f->behs[f->nbehs++] = b;
	snprintf(b->name, sizeof(b->name), "%s", t->s);
	b->loc.line = p->line;
	b->loc.col = t->col;
	b->loc.src = f->cur_src;
	p->beh = b;
	return 0;
}

int parse_category(struct parser *p, struct idf_tg *tg)
{
	struct idf_behaviour *b = p->beh;
	struct idf_category *c;
	const char *why;
	struct tok *t, *m;
	uint64_t mean;
	int i;

	(void)tg;
	if (in_definition(p))
		return -1;
	t = need(p, "a category name");
	if (!t)
		return -1;
	why = bad_name(t->s);
	if (why)
		return expected(p, t, WHAT_NAME, why);
	i = find_category(b, t->s);
	if (i >= 0) {
		error_at(p->f, p->line, t->col,
			 "category '%s' of behaviour '%s' given twice (first at line %u)",
			 t->s, b->name, b->cat[i].loc.line);
		return -1;
	}
	if (b->ncat == IDF_BEH_CATS) {
		error_at(p->f, p->line, t->col,
			 "behaviour '%s' has more than %d categories", b->name,
			 IDF_BEH_CATS);
		return -1;
	}
	m = need(p, "the mean time in the category (s, or a unit: ns, us, ms, s)");
	if (!m || arg_time(p, m, 9, WHAT_TIME, &mean))
		return -1;
	if (!mean) {
		error_at(p->f, p->line, m->col,
			 "a category's mean time must be above 0");
		return -1;
	}
	c = &b->cat[b->ncat++];
	snprintf(c->name, sizeof(c->name), "%s", t->s);
	c->mean = mean;
	c->loc.line = p->line;
	c->loc.col = t->col;
	c->loc.src = p->f->cur_src;
	memset(&c->model, 0, sizeof(c->model));
	c->model.loc[IDF_KW_tgid] = c->loc;
	p->cat = c;
	p->cat_own = 0;
	return 0;
}

/* A group on a category's line, after its name and mean: its model's. */
int category_group(struct parser *p, int k, const struct tok *t)
{
	struct idf_tg *m = &p->cat->model;
	int ret;

	if (k != IDF_KW_dist && k != IDF_KW_pkts && k != IDF_KW_inta &&
	    k != IDF_KW_thro) {
		error_at(p->f, p->line, t->col,
			 "'%s' does not go on a 'category' line: a category takes 'dist', 'pkts', 'inta' and 'thro'",
			 t->s);
		return -1;
	}
	if (p->cat_own & IDF_KW_BIT(k)) {
		error_at(p->f, p->line, t->col, "'%s' given twice", t->s);
		return -1;
	}
	p->cat_own |= IDF_KW_BIT(k);
	m->set |= IDF_KW_BIT(k);
	m->own |= IDF_KW_BIT(k);
	m->loc[k].line = p->line;
	m->loc[k].col = t->col;
	m->loc[k].src = p->f->cur_src;
	switch (k) {
	case IDF_KW_dist:
		ret = parse_dist(p, m);
		break;
	case IDF_KW_pkts:
		ret = parse_pkts(p, m);
		break;
	case IDF_KW_inta:
		ret = parse_inta(p, m);
		break;
	default:
		ret = parse_thro(p, m);
		break;
	}
	if (ret)
		m->bad |= IDF_KW_BIT(k);
	return ret;
}

/* A chance: a number from 0 to 1. */
static int arg_chance(struct parser *p, const struct tok *t, double *v)
{
	const char *what = "a chance, a number from 0 to 1";
	char *end;

	errno = 0;
	*v = strtod(t->s, &end);
	if (!isdigit((unsigned char)t->s[0]) && t->s[0] != '.')
		return expected(p, t, what, negative(t->s));
	if (errno || *end || end == t->s || !(*v >= 0 && *v <= 1))
		return expected(p, t, what, NULL);
	return 0;
}

int parse_next(struct parser *p, struct idf_tg *tg)
{
	struct idf_behaviour *b = p->beh;
	double row[IDF_BEH_CATS] = { 0 }, sum = 0;
	bool given[IDF_BEH_CATS] = { false };
	struct tok *t, *to, *pr;
	bool was_bad;
	int from, j;

	(void)tg;
	if (in_definition(p))
		return -1;
	t = need(p, "the category the chances are from");
	if (!t)
		return -1;
	from = find_category(b, t->s);
	if (from < 0) {
		error_at(p->f, p->line, t->col,
			 "'next': behaviour '%s' has no category '%s' (a category is given before the 'next' lines that name it)",
			 b->name, t->s);
		return -1;
	}
	if (b->next_loc[from].line) {
		error_at(p->f, p->line, t->col,
			 "'next %s' given twice (first at line %u)", t->s,
			 b->next_loc[from].line);
		return -1;
	}
	/* given: a mistake in it is reported once, here */
	b->next_loc[from].line = p->line;
	b->next_loc[from].col = t->col;
	b->next_loc[from].src = p->f->cur_src;
	was_bad = b->bad;
	b->bad = true;
	do {
		to = need(p, "the category that follows, then its chance");
		if (!to)
			return -1;
		j = find_category(b, to->s);
		if (j < 0) {
			error_at(p->f, p->line, to->col,
				 "'next': behaviour '%s' has no category '%s' (a category is given before the 'next' lines that name it)",
				 b->name, to->s);
			return -1;
		}
		if (given[j]) {
			error_at(p->f, p->line, to->col,
				 "'next %s': '%s' given twice", t->s, to->s);
			return -1;
		}
		pr = need(p, "a chance, a number from 0 to 1");
		if (!pr || arg_chance(p, pr, &row[j]))
			return -1;
		given[j] = true;
		sum += row[j];
	} while (p->pos < p->ntok && !is_keyword(p->toks[p->pos].s));
	if (fabs(sum - 1) > ROW_EPSILON) {
		error_at(p->f, p->line, t->col,
			 "'next %s': the chances sum to %.9g, not 1", t->s, sum);
		return -1;
	}
	memcpy(b->next[from], row, sizeof(row));
	b->bad = was_bad;
	return 0;
}

/* dist behaviour NAME */
int dist_behaviour(struct parser *p, struct idf_tg *tg)
{
	const char *what = "the name of a behaviour (one the file defines, or mmorpg)";
	struct tok *t = need(p, what);
	struct idf_behaviour *b;
	int err;

	if (!t)
		return -1;
	if (p->cat) {
		error_at(p->f, p->line, t->col,
			 "a category's model cannot be a behaviour");
		return -1;
	}
	b = find_behaviour(p->f, t->s);
	if (!b && !strcmp(t->s, MMORPG)) {
		err = parse_text(p, mmorpg_text);
		if (err)
			return err;
		b = find_behaviour(p->f, t->s);
		if (b)
			b->builtin = true;
	}
	if (!b) {
		error_at(p->f, p->line, t->col,
			 "no behaviour '%s': define it with 'behaviour %s' and its 'category' and 'next' lines before the first 'tgid', or take mtgctl's own, 'mmorpg'",
			 t->s, t->s);
		return -1;
	}
	tg->beh = b;
	return 0;
}

/* A category's model: what a TG's validation would ask of it. */
static void check_category(struct idf_file *f, struct idf_behaviour *b,
			   struct idf_category *c)
{
	struct idf_tg *m = &c->model;
	uint64_t ok = m->set & ~m->bad;

#define GIVEN(k)	idf_has(m, IDF_KW_##k)
#define KNOWN(k)	(ok & IDF_KW_BIT(IDF_KW_##k))
	if (GIVEN(dist) && !KNOWN(dist))
		return;		/* reported */
	if (m->dist == IDF_DIST_TRACE || m->dist == IDF_DIST_PCAP) {
		error_loc(f, &m->loc[IDF_KW_dist],
			  "category '%s': a category's model cannot be 'dist %s' (a file's timing is not a category's)",
			  c->name, idf_dist_name(m->dist));
		return;
	}
	if (!GIVEN(pkts) && !idf_dist_sets_lengths(m->dist))
		error_loc(f, &c->loc, "category '%s' of behaviour '%s' has no 'pkts' (the packet length)",
			  c->name, b->name);
	if (KNOWN(pkts) && m->pkts == IDF_PKTS_COMPUTED)
		error_loc(f, &m->loc[IDF_KW_pkts],
			  "category '%s': 'pkts computed' is for a TG; give the length",
			  c->name);
	if (!idf_dist_sets_gaps(m->dist) && !GIVEN(thro) && !GIVEN(inta))
		error_loc(f, &c->loc, "category '%s' of behaviour '%s' has neither 'thro' nor 'inta': nothing sets its rate",
			  c->name, b->name);
	if (!idf_dist_sets_gaps(m->dist) && KNOWN(inta) &&
	    !(GIVEN(thro) && GIVEN(pkts))) {
		if (!m->inta_min)
			error_loc(f, &m->loc[IDF_KW_inta],
				  "category '%s': 'inta' must be above 0", c->name);
		else if (m->dist == IDF_DIST_FIXED &&
			 m->inta_min != m->inta_max)
			error_loc(f, &m->loc[IDF_KW_inta],
				  "category '%s': with 'dist fixed', 'inta' MIN must equal MAX",
				  c->name);
	}
	if (m->dist == IDF_DIST_FGN && KNOWN(pkts) &&
	    (KNOWN(thro) || KNOWN(inta)) &&
	    m->dist_param[2] < gap_ns(gap_asked(m)))
		error_loc(f, &m->loc[IDF_KW_dist],
			  "category '%s': 'dist fgn' SLOT %.0f ns holds less than one packet on average (the mean gap is %.0f ns): make it longer",
			  c->name, m->dist_param[2], gap_ns(gap_asked(m)));
#undef GIVEN
#undef KNOWN
}

/* Can every category be reached from every other? -1, or one that cannot. */
static void unreached(const struct idf_behaviour *b, int *from, int *to)
{
	unsigned int n = b->ncat, s, i, j;
	bool seen[IDF_BEH_CATS];
	int stack[IDF_BEH_CATS], top;

	*from = *to = -1;
	for (s = 0; s < n; s++) {
		memset(seen, 0, sizeof(seen));
		seen[s] = true;
		stack[0] = (int)s;
		top = 1;
		while (top) {
			i = (unsigned int)stack[--top];
			for (j = 0; j < n; j++)
				if (b->next[i][j] > 0 && !seen[j]) {
					seen[j] = true;
					stack[top++] = (int)j;
				}
		}
		for (j = 0; j < n; j++)
			if (!seen[j]) {
				*from = (int)s;
				*to = (int)j;
				return;
			}
	}
}

/*
 * The chain's stationary distribution v = v P, sum 1 (the shares of the
 * changes), by Gaussian elimination with partial pivoting on (P^T - I)
 * with its last row replaced by the sum; then the shares of the time,
 * v_i * mean_i / sum_j v_j * mean_j.
 */
static void stationary(struct idf_behaviour *b)
{
	unsigned int n = b->ncat, i, j, k, piv;
	double a[IDF_BEH_CATS][IDF_BEH_CATS + 1], sum = 0;

	for (i = 0; i < n; i++) {
		for (j = 0; j < n; j++)
			a[i][j] = b->next[j][i] - (i == j);
		a[i][n] = 0;
	}
	for (j = 0; j < n; j++)
		a[n - 1][j] = 1;
	a[n - 1][n] = 1;
	for (k = 0; k < n; k++) {
		piv = k;
		for (i = k + 1; i < n; i++)
			if (fabs(a[i][k]) > fabs(a[piv][k]))
				piv = i;
		for (j = 0; j <= n; j++) {
			double x = a[k][j];

			a[k][j] = a[piv][j];
			a[piv][j] = x;
		}
		for (i = 0; i < n; i++) {
			double r;

			if (i == k || !a[k][k])
				continue;
			r = a[i][k] / a[k][k];
			for (j = k; j <= n; j++)
				a[i][j] -= r * a[k][j];
		}
	}
	for (i = 0; i < n; i++) {
		b->visits[i] = a[i][i] ? a[i][n] / a[i][i] : 0;
		if (b->visits[i] < 0)
			b->visits[i] = 0;	/* rounding */
		sum += b->visits[i] * (double)b->cat[i].mean;
	}
	for (i = 0; i < n; i++)
		b->share[i] = b->visits[i] * (double)b->cat[i].mean / sum;
}

void validate_behaviours(struct idf_file *f)
{
	size_t i;
	unsigned int c;
	int from, to;

	for (i = 0; i < f->nbehs; i++) {
		struct idf_behaviour *b = f->behs[i];
		size_t errors = f->nerrors;

		if (!b->ncat) {
			error_loc(f, &b->loc, "behaviour '%s' has no 'category'",
				  b->name);
			continue;
		}
		for (c = 0; c < b->ncat; c++)
			check_category(f, b, &b->cat[c]);
		if (b->ncat == 1 && !b->next_loc[0].line)
			b->next[0][0] = 1;	/* one category: it stays */
		for (c = 0; c < b->ncat; c++)
			if (!b->next_loc[c].line && b->ncat > 1)
				error_loc(f, &b->cat[c].loc,
					  "category '%s' of behaviour '%s' has no 'next' line: which category follows it?",
					  b->cat[c].name, b->name);
		if (f->nerrors != errors || b->bad)
			continue;
		unreached(b, &from, &to);
		if (from >= 0) {
			error_loc(f, &b->next_loc[from],
				  "behaviour '%s': category '%s' is never reached from '%s' (every category must lead to every other, or the shares of time depend on where it starts)",
				  b->name, b->cat[to].name, b->cat[from].name);
			continue;
		}
		stationary(b);
		b->valid = true;
	}
}

/* A TG that takes a behaviour: what does not go with it. */
void validate_behaviour_tg(struct idf_file *f, struct idf_tg *tg)
{
	const struct idf_behaviour *b = tg->beh;
	uint32_t min_len = idf_min_len(tg);
	unsigned int c;

	if (tg->dist != IDF_DIST_BEHAVIOUR || !b ||
	    (tg->bad & IDF_KW_BIT(IDF_KW_dist)))
		return;
	if (tg->jitter)
		error_loc(f, &tg->loc[IDF_KW_jitt],
			  "TG %u: 'jitt' does not go with 'dist behaviour': a packet's category is the one at its departure",
			  tg->id);
	if (tg->time == IDF_TIME_POISSON)
		error_loc(f, &tg->loc[IDF_KW_time],
			  "TG %u: 'time poisson' does not go with 'dist behaviour': its categories set when it sends",
			  tg->id);
	if (idf_has(tg, IDF_KW_table) && tg->table == IDF_TABLE_LOOP)
		error_loc(f, &tg->loc[IDF_KW_table],
			  "TG %u: 'table loop' would repeat the categories: a behaviour's table streams",
			  tg->id);
	for (c = 0; c < b->ncat; c++) {
		const struct idf_tg *m = &b->cat[c].model;

		if (!idf_has(m, IDF_KW_pkts) || (m->bad & IDF_KW_BIT(IDF_KW_pkts)) ||
		    m->len_min >= min_len || m->pkts == IDF_PKTS_COMPUTED ||
		    (m->pkts == IDF_PKTS_LAW && !m->len_within))
			continue;
		error_loc(f, b->builtin ? &tg->loc[IDF_KW_dist] :
			  &m->loc[IDF_KW_pkts],
			  "TG %u: category '%s' of behaviour '%s': 'pkts' %u is below the smallest %s frame, %u bytes",
			  tg->id, b->cat[c].name, b->name, m->len_min,
			  tg->dst.family == AF_INET6 ? "IPv6" : "IPv4", min_len);
	}
}
