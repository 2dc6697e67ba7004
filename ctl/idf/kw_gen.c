// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The keywords of what a TG sends and when: the model, lengths, rate,
 * times, count, payload, seed, table, control messages, what is kept.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "idf/idf.h"
#include "idf/parser.h"
#include "idf/units.h"
#include "traffic/lehmer.h"
#include "traffic/draw.h"
#include "traffic/rng.h"

/* tgid is handled by parse_line(); this one is never called. */
int parse_tgid(struct parser *p, struct idf_tg *tg)
{
	(void)p;
	(void)tg;
	return -1;
}

/*
 * voip CODEC [rtp|crtp] [vad]: dist_param[0] the codec's index, [1] the
 * RTP header's bytes (12, compressed 2), [2] the share of each frame sent
 * (D-ITG's voice activity detection: 0.65).
 */
int parse_voip(struct parser *p, struct idf_tg *tg)
{
	const char *what = "a codec (G.711.1, G.711.2, G.729.2, G.729.3, G.723.1)";
	struct tok *t = need(p, what);
	int i;

	if (!t)
		return -1;
	for (i = 0; i < IDF_CODECS && strcmp(t->s, idf_codecs[i].name); i++)
		;
	if (i == IDF_CODECS)
		return expected(p, t, what, NULL);
	tg->dist_param[0] = i;
	tg->dist_param[1] = 12;
	tg->dist_param[2] = 1;
	while (p->pos < p->ntok) {
		const char *w = p->toks[p->pos].s;

		if (!strcmp(w, "rtp") || !strcmp(w, "crtp"))
			tg->dist_param[1] = w[0] == 'c' ? 2 : 12;
		else if (!strcmp(w, "vad"))
			tg->dist_param[2] = 0.65;
		else
			break;
		p->pos++;
	}
	return 0;
}

int parse_dist(struct parser *p, struct idf_tg *tg)
{
	/* the model `behaviour` is also the keyword that defines one */
	struct tok *t = p->pos < p->ntok &&
		!strcmp(p->toks[p->pos].s, "behaviour") ?
		&p->toks[p->pos++] : need(p, WHAT_DIST);
	const struct model *m;
	unsigned int i;
	int d;

	if (!t)
		return -1;
	d = model_lookup(t->s);
	if (d < 0)
		return expected(p, t, WHAT_DIST, NULL);
	m = &models[d];
	memset(tg->dist_param, 0, sizeof(tg->dist_param));
	if (d == IDF_DIST_TRACE || d == IDF_DIST_PCAP) {
		t = need(p, "a file name");
		if (!t || dist_path(p, t, tg->dist_file))
			return -1;
	}
	if (d == IDF_DIST_VOIP && parse_voip(p, tg))
		return -1;
	if (d == IDF_DIST_BEHAVIOUR && dist_behaviour(p, tg))
		return -1;
	for (i = 0; i < m->nparam; i++) {
		char what[128];

		param_desc(m, i, what, sizeof(what));
		t = i < m->nreq ? need(p, what) : maybe(p);
		if (!t) {
			if (i < m->nreq)
				return -1;
			for (; i < m->nparam; i++)
				tg->dist_param[i] = m->dflt[i];
			break;
		}
		if (arg_param(p, t, m, i, &tg->dist_param[i]))
			return -1;
	}
	tg->dist = (enum idf_dist)d;
	tg->fgn_method = IDF_FGN_EXACT;
	if (d == IDF_DIST_FGN && p->pos < p->ntok) {
		const char *w = p->toks[p->pos].s;

		if (!strcmp(w, "rmd") || !strcmp(w, "exact")) {
			tg->fgn_method = w[0] == 'r' ? IDF_FGN_RMD :
				IDF_FGN_EXACT;
			p->pos++;
		}
	}
	return 0;
}

/* A length law's name, or -1. */
static int len_law_lookup(const char *s)
{
	int i;

	for (i = 0; i < IDF_LEN_LAWS; i++)
		if (!strcmp(s, len_laws[i].name))
			return i;
	return -1;
}

/* MIN MAX into len_min, len_max (what: the words, for the error). */
static int len_min_max(struct parser *p, struct idf_tg *tg, const char *what)
{
	struct tok *t = need(p, "the smallest length in bytes");

	if (!t || arg_len(p, t, &tg->len_min))
		return -1;
	t = need(p, "the largest length in bytes");
	if (!t || arg_len(p, t, &tg->len_max))
		return -1;
	if (tg->len_min > tg->len_max) {
		error_at(p->f, p->line, t->col, "%s: MIN %u is above MAX %u",
			 what, tg->len_min, tg->len_max);
		return -1;
	}
	return 0;
}

/* The words `pkts` takes first, for its errors. */
#define WHAT_PKTS	"a length in bytes, 'fixed', 'variable', 'computed', " \
	"'uniform' or a law: exponential, poisson, normal, cauchy, pareto, " \
	"gamma, weibull, lognormal"

/*
 * pkts LAW PARAM... [plus BYTES] [within MIN MAX]: each length the law's
 * draw rounded down, plus BYTES, clamped to MIN .. MAX.
 */
static int parse_len_law(struct parser *p, struct idf_tg *tg, int law)
{
	const struct model *m = &len_laws[law];
	struct tok *t;
	unsigned int i;
	uint64_t v;

	tg->pkts = IDF_PKTS_LAW;
	tg->len_law = (enum idf_len_law)law;
	tg->len_plus = 0;
	tg->len_within = false;
	tg->len_min = 0;	/* the smallest frame: validate_tg() */
	tg->len_max = IDF_LEN_LAW_MAX;
	memset(tg->len_param, 0, sizeof(tg->len_param));
	for (i = 0; i < m->nparam; i++) {
		char what[128];

		param_desc(m, i, what, sizeof(what));
		t = need(p, what);
		if (!t || arg_param(p, t, m, i, &tg->len_param[i]))
			return -1;
	}
	/* words, which maybe() leaves (as fgn's rmd and exact) */
	while (p->pos < p->ntok && (!strcmp(p->toks[p->pos].s, "plus") ||
				    !strcmp(p->toks[p->pos].s, "within"))) {
		t = &p->toks[p->pos++];
		if (!strcmp(t->s, "plus")) {
			t = need(p, "the bytes added to each draw");
			if (!t || arg_uint(p, t, 0, IDF_LEN_MAX,
					   "the bytes added to each draw, 0 .. 9018",
					   &v))
				return -1;
			tg->len_plus = (uint32_t)v;
		} else {
			if (len_min_max(p, tg, "'within MIN MAX'"))
				return -1;
			tg->len_within = true;
		}
	}
	return 0;
}

int parse_pkts(struct parser *p, struct idf_tg *tg)
{
	struct tok *t = need(p, WHAT_LEN), *m;
	int law;

	if (!t)
		return -1;
	tg->pkts = IDF_PKTS_FIXED;
	tg->len_max = tg->len_min = 0;
	if (!strcmp(t->s, "computed")) {
		tg->pkts = IDF_PKTS_COMPUTED;
		return 0;
	}
	law = len_law_lookup(t->s);
	if (law >= 0)
		return parse_len_law(p, tg, law);
	if (!strcmp(t->s, "uniform") || !strcmp(t->s, "random")) {
		const char *word = t->s;

		/* as the gaps' uniform: MIN first */
		tg->pkts = IDF_PKTS_VARIABLE;
		return len_min_max(p, tg, strcmp(word, "random") ?
				   "'pkts uniform MIN MAX'" :
				   "'pkts random MIN MAX'");
	}
	if (model_lookup(t->s) >= 0 && strcmp(t->s, "fixed")) {
		error_at(p->f, p->line, t->col,
			 "'pkts %s': '%s' draws departures, not lengths; 'pkts' takes %s",
			 t->s, t->s, WHAT_PKTS);
		return -1;
	}
	if (!strcmp(t->s, "fixed") || !strcmp(t->s, "variable")) {
		if (t->s[0] == 'v')
			tg->pkts = IDF_PKTS_VARIABLE;
		t = need(p, WHAT_LEN);
		if (!t)
			return -1;
	} else if (isalpha((unsigned char)t->s[0])) {
		return expected(p, t, WHAT_PKTS, NULL);
	}
	if (arg_len(p, t, &tg->len_max))
		return -1;
	tg->len_min = tg->len_max;
	m = tg->pkts == IDF_PKTS_VARIABLE ? need(p, "a minimum length in bytes") :
		maybe(p);
	if (!m)
		return tg->pkts == IDF_PKTS_VARIABLE ? -1 : 0;
	if (arg_len(p, m, &tg->len_min))
		return -1;
	if (tg->pkts == IDF_PKTS_FIXED && tg->len_min != tg->len_max) {
		error_at(p->f, p->line, m->col,
			 "with 'pkts fixed', MIN must equal MAX (got %u and %u)",
			 tg->len_max, tg->len_min);
		return -1;
	}
	if (tg->len_min > tg->len_max) {
		error_at(p->f, p->line, m->col,
			 "'pkts variable' MIN %u is above MAX %u", tg->len_min,
			 tg->len_max);
		return -1;
	}
	return 0;
}

int parse_inta(struct parser *p, struct idf_tg *tg)
{
	struct tok *t = need(p, WHAT_INTA), *m;

	if (!t || arg_time(p, t, 6, WHAT_INTA, &tg->inta_min))
		return -1;
	tg->inta_max = tg->inta_min;
	m = maybe(p);
	if (m) {
		if (arg_time(p, m, 6, WHAT_INTA, &tg->inta_max))
			return -1;
		if (tg->inta_max < tg->inta_min) {
			error_at(p->f, p->line, m->col,
				 "'inta' MAX is below MIN");
			return -1;
		}
	}
	return 0;
}

int parse_thro(struct parser *p, struct idf_tg *tg)
{
	struct tok *t = need(p, WHAT_THRO), *m;

	if (!t || arg_thro(p, t, &tg->thro_req))
		return -1;
	tg->thro_min = 0;
	m = maybe(p);
	if (m) {
		if (arg_thro(p, m, &tg->thro_min))
			return -1;
		if (tg->thro_min > tg->thro_req) {
			error_at(p->f, p->line, m->col,
				 "'thro' MIN is above REQ");
			return -1;
		}
	}
	return 0;
}

int parse_time(struct parser *p, struct idf_tg *tg)
{
	struct tok *t = need(p, "'relative', 'absolute', 'user' or 'poisson'"),
		*d;

	if (!t)
		return -1;
	tg->start = tg->duration = tg->call_idle = tg->call_len = 0;
	tg->start_abs = 0;
	if (!strcmp(t->s, "user")) {
		tg->time = IDF_TIME_USER;
		d = maybe(p);
		if (d && arg_time(p, d, 9, "the duration, " WHAT_TIME,
				  &tg->duration))
			return -1;
		return 0;
	}
	if (!strcmp(t->s, "absolute")) {
		const char *what = "a local time, YYYY-MM-DDTHH:MM:SS[.F] or HH:MM:SS[.F] (Z at the end: UTC)";

		tg->time = IDF_TIME_ABSOLUTE;
		t = need(p, what);
		if (!t)
			return -1;
		if (idf_parse_when(t->s, &tg->start_abs))
			return expected(p, t, what, NULL);
		d = maybe(p);
		if (d && arg_time(p, d, 9, "the duration, " WHAT_TIME,
				  &tg->duration))
			return -1;
		return 0;
	}
	if (!strcmp(t->s, "poisson")) {
		tg->time = IDF_TIME_POISSON;
		t = need(p, "the mean idle time, " WHAT_TIME);
		if (!t || arg_time(p, t, 9, "the mean idle time, " WHAT_TIME,
				   &tg->call_idle))
			return -1;
		t = need(p, "the mean call time, " WHAT_TIME);
		if (!t || arg_time(p, t, 9, "the mean call time, " WHAT_TIME,
				   &tg->call_len))
			return -1;
		if (!tg->call_idle || !tg->call_len) {
			error_at(p->f, p->line, t->col,
				 "'time poisson' means must be above 0");
			return -1;
		}
		return 0;
	}
	if (strcmp(t->s, "relative"))
		return expected(p, t, "'relative', 'absolute', 'user' or 'poisson'",
				NULL);
	tg->time = IDF_TIME_RELATIVE;
	t = need(p, "the start, " WHAT_TIME);
	if (!t || arg_time(p, t, 9, "the start, " WHAT_TIME, &tg->start))
		return -1;
	d = maybe(p);
	if (d && arg_time(p, d, 9, "the duration, " WHAT_TIME, &tg->duration))
		return -1;
	return 0;
}

int parse_jitt(struct parser *p, struct idf_tg *tg)
{
	struct tok *t = need(p, WHAT_INTA);

	return t ? arg_time(p, t, 6, WHAT_INTA, &tg->jitter) : -1;
}

int parse_count(struct parser *p, struct idf_tg *tg)
{
	const char *what = "a number of packets (suffixes k, M, G)";
	const char *why = NULL;
	struct tok *t = need(p, what);

	if (!t)
		return -1;
	if (idf_parse_count(t->s, &tg->count, &why))
		return expected(p, t, what, why);
	return 0;
}

int parse_patt(struct parser *p, struct idf_tg *tg)
{
	const char *what = "'fixed', 'random' or 'incremental'";
	struct tok *t = need(p, what);

	if (!t)
		return -1;
	if (!strcmp(t->s, "random")) {
		tg->patt = IDF_PATT_RANDOM;
		tg->patt_value = 0;
		t = maybe(p);	/* MTG writes a value; random ignores it */
		return t ? arg_byte(p, t, &tg->patt_value) : 0;
	}
	if (!strcmp(t->s, "fixed"))
		tg->patt = IDF_PATT_FIXED;
	else if (!strcmp(t->s, "incremental"))
		tg->patt = IDF_PATT_INCR;
	else
		return expected(p, t, what, NULL);
	t = need(p, WHAT_BYTE);
	return t ? arg_byte(p, t, &tg->patt_value) : -1;
}

int parse_seed(struct parser *p, struct idf_tg *tg)
{
	const char *what = "a seed from 1 to 2147483646";
	struct tok *t = need(p, what);
	uint64_t v;

	if (!t || arg_uint(p, t, LEHMER_SEED_MIN, LEHMER_SEED_MAX, what, &v))
		return -1;
	tg->seed = (uint32_t)v;
	return 0;
}

/* The enum rng_kind values are parse_choice()'s 0 and 1. */
int parse_rng(struct parser *p, struct idf_tg *tg)
{
	return parse_choice(p, rng_name(RNG_MT19937), rng_name(RNG_LEHMER),
			    &tg->rng);
}

int parse_samplers(struct parser *p, struct idf_tg *tg)
{
	int second;

	if (parse_choice(p, "1", "2", &second))
		return -1;
	tg->samplers = second ? SAMPLERS_FAST : SAMPLERS_GSL;
	return 0;
}

/* enum idf_table's values are parse_choice()'s 0 and 1. */
int parse_table(struct parser *p, struct idf_tg *tg)
{
	return parse_choice(p, "loop", "stream", &tg->table);
}

int parse_nowb(struct parser *p, struct idf_tg *tg)
{
	const char *what = "a number of wrong bits";
	struct tok *t = need(p, what);

	return t ? arg_uint(p, t, 0, UINT32_MAX, what, &tg->nowb) : -1;
}

int parse_qlen(struct parser *p, struct idf_tg *tg)
{
	const char *what = "a number of packets";
	struct tok *t = need(p, what);

	return t ? arg_uint(p, t, 0, UINT32_MAX, what, &tg->qlen) : -1;
}

int parse_rpol(struct parser *p, struct idf_tg *tg)
{
	const char *what = "a percentage, 0 .. 100";
	struct tok *t = need(p, what);
	uint64_t v;

	if (!t || arg_uint(p, t, 0, 100, what, &v))
		return -1;
	tg->rpol = (uint32_t)v;
	return 0;
}

/* keep headers | payload [wrongbits] | wrongbits [payload] */
int parse_keep(struct parser *p, struct idf_tg *tg)
{
	const char *what = "'headers', 'payload' or 'wrongbits'";
	struct tok *t = need(p, what);
	unsigned int k;

	if (!t)
		return -1;
	tg->keep = 0;
	if (!strcmp(t->s, "headers"))
		return 0;
	for (;;) {
		if (!strcmp(t->s, "payload"))
			k = IDF_KEEP_PAYLOAD;
		else if (!strcmp(t->s, "wrongbits"))
			k = IDF_KEEP_BITS;
		else
			return expected(p, t, what, NULL);
		if (tg->keep & k) {
			error_at(p->f, p->line, t->col, "'keep': '%s' twice",
				 t->s);
			return -1;
		}
		tg->keep |= k;
		/* a second word of the two, if it is one */
		if (p->pos >= p->ntok ||
		    (strcmp(p->toks[p->pos].s, "payload") &&
		     strcmp(p->toks[p->pos].s, "wrongbits")))
			return 0;
		t = &p->toks[p->pos++];
	}
}

/* ctrl TIME DATA: the TG sends a control message TIME after its start. */
int parse_ctrl(struct parser *p, struct idf_tg *tg)
{
	const char *what = "the time after the TG's start, " WHAT_TIME;
	struct idf_file *f = p->f;
	uint8_t buf[IDF_CTRL_MAX];
	struct idf_ctrl c = { 0 }, *n;
	const char *why;
	struct tok *t;

	if (p->cur < 0) {
		error_loc(f, &tg->loc[IDF_KW_ctrl],
			  "'ctrl' goes in a TG's section (after its 'tgid'): a control message is sent by one TG");
		return -1;
	}
	c.loc = tg->loc[IDF_KW_ctrl];
	t = need(p, what);
	if (!t || arg_time(p, t, 9, what, &c.at))
		return -1;
	t = need(p, WHAT_DATA);
	if (!t)
		return -1;
	if (idf_parse_data(t->s, buf, sizeof(buf), &c.len, &why))
		return expected(p, t, WHAT_DATA, why);
	n = realloc(f->ctrls, (f->nctrls + 1) * sizeof(*n));
	c.data = malloc(c.len ? c.len : 1);
	if (!n || !c.data) {
		if (n)
			f->ctrls = n;
		free(c.data);
		error_at(f, p->line, t->col, "out of memory");
		return -1;
	}
	memcpy(c.data, buf, c.len);
	c.tg = (size_t)p->cur;
	f->ctrls = n;
	f->ctrls[f->nctrls++] = c;
	return 0;
}
