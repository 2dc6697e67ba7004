// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The IDF parser: a line is cut into tokens, a token in keyword position is
 * looked up in one table, and the keyword's function takes the arguments
 * it needs. After an error the parser skips to the next keyword, so one
 * pass reports every mistake it can. Documentation/idf.rst is the reference.
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "idf/idf.h"
#include "traffic/lehmer.h"
#include "traffic/rng.h"
#include "util/text.h"

struct tok {
	char *s;		/* NUL-terminated, inside the line buffer */
	unsigned int col;	/* 1-based byte column */
};

struct parser {
	struct idf_file *f;
	unsigned int line;
	struct tok *toks;
	size_t ntok, pos, tcap;
	unsigned int eol_col;	/* just past the line's last token */
	long cur;		/* index of the TG being read; -1: globals */
	uint64_t own;		/* keywords given in the current section */
	enum idf_kw last_kw;	/* the keyword being read */
	bool line_kw;		/* a keyword was read on this line */
	unsigned int src;	/* the file being read (struct idf_loc.src) */
	const struct parser *up;	/* the includer's, while including */
};

typedef int (*kw_parse_fn)(struct parser *p, struct idf_tg *tg);

#define IDF_KW_PROTO(name, args) \
	static int parse_##name(struct parser *p, struct idf_tg *tg);
IDF_KEYWORDS(IDF_KW_PROTO)
#undef IDF_KW_PROTO

static const struct {
	const char *name;
	const char *args;
	kw_parse_fn parse;
} keywords[IDF_KW_COUNT] = {
#define IDF_KW_ENTRY(n, a) [IDF_KW_##n] = { #n, a, parse_##n },
	IDF_KEYWORDS(IDF_KW_ENTRY)
#undef IDF_KW_ENTRY
};

/* Keywords of the full language (MTG's Fig. 4) that this version lacks. */


/* What a model's parameter is, and the values it takes. */
enum param_kind {
	P_TIME,			/* a time, 0 or more */
	P_TIME_POS,		/* a time above 0 */
	P_POS,			/* a number above 0 */
	P_RATIO,		/* a number, 1 or more */
	P_HURST,		/* a number between 0 and 1 */
};

/*
 * The models `dist` takes, by enum idf_dist: the name, MTG's name for it,
 * the parameters (the first nreq required) and the defaults of the others.
 */
static const struct model {
	const char *name;
	const char *alias;
	const char *args;
	unsigned int nreq, nparam;
	const char *pname[IDF_DIST_PARAMS];
	enum param_kind kind[IDF_DIST_PARAMS];
	double dflt[IDF_DIST_PARAMS];
} models[IDF_DIST_COUNT] = {
	[IDF_DIST_FIXED] = { "fixed", NULL, "", 0, 0 },
	[IDF_DIST_UNIFORM] = { "uniform", "random", "", 0, 0 },
	[IDF_DIST_EXPONENTIAL] = { "exponential", "poisson", "", 0, 0 },
	[IDF_DIST_MMPP] = { "mmpp", "markov", "HIGH LOW RATIO", 3, 3,
		{ "HIGH", "LOW", "RATIO" }, { P_TIME_POS, P_TIME_POS, P_RATIO } },
	/* ITU-T P.59's mean talkspurt and pause, English speech. */
	[IDF_DIST_VOICE] = { "voice", NULL, "[TALK SILENCE]", 0, 2,
		{ "TALK", "SILENCE" }, { P_TIME_POS, P_TIME_POS },
		{ 1004e6, 1587e6 } },
	[IDF_DIST_FGN] = { "fgn", "fractal",
		"PEAKEDNESS HURST [SLOT] [exact|rmd]", 2, 3,
		{ "PEAKEDNESS", "HURST", "SLOT" },
		{ P_POS, P_HURST, P_TIME_POS }, { 0, 0, 10e6 } },
	[IDF_DIST_PARETO] = { "pareto", NULL, "SHAPE SCALE", 2, 2,
		{ "SHAPE", "SCALE" }, { P_POS, P_TIME_POS } },
	[IDF_DIST_CAUCHY] = { "cauchy", NULL, "MEDIAN SCALE", 2, 2,
		{ "MEDIAN", "SCALE" }, { P_TIME, P_TIME_POS } },
	[IDF_DIST_NORMAL] = { "normal", NULL, "MEAN SD", 2, 2,
		{ "MEAN", "SD" }, { P_TIME, P_TIME_POS } },
	[IDF_DIST_GAMMA] = { "gamma", NULL, "SHAPE SCALE", 2, 2,
		{ "SHAPE", "SCALE" }, { P_POS, P_TIME_POS } },
	[IDF_DIST_WEIBULL] = { "weibull", NULL, "SHAPE SCALE", 2, 2,
		{ "SHAPE", "SCALE" }, { P_POS, P_TIME_POS } },
	[IDF_DIST_LOGNORMAL] = { "lognormal", NULL, "MEDIAN SIGMA", 2, 2,
		{ "MEDIAN", "SIGMA" }, { P_TIME_POS, P_POS } },
	/* the FILE argument is parsed by parse_dist() */
	[IDF_DIST_TRACE] = { "trace", "file", "FILE", 0, 0 },
	[IDF_DIST_PCAP] = { "pcap", NULL, "FILE", 0, 0 },
	/* D-ITG's presets; voip's words are parsed by parse_dist() */
	[IDF_DIST_VOIP] = { "voip", NULL, "CODEC [rtp|crtp] [vad]", 0, 0 },
	[IDF_DIST_TELNET] = { "telnet", NULL, "", 0, 0 },
	[IDF_DIST_DNS] = { "dns", NULL, "", 0, 0 },
	[IDF_DIST_QUAKE3] = { "quake3", NULL, "", 0, 0 },
	[IDF_DIST_CSA] = { "csa", NULL, "", 0, 0 },
	[IDF_DIST_CSI] = { "csi", NULL, "", 0, 0 },
};

/*
 * D-ITG 2.8.1's VoIP codecs (src/ITGSend/traffic.cpp): bytes per frame,
 * frames per packet, packets per second.
 */
const struct idf_codec idf_codecs[IDF_CODECS] = {
	{ "G.711.1", 80, 1, 100 },
	{ "G.711.2", 80, 2, 50 },
	{ "G.729.2", 10, 2, 50 },
	{ "G.729.3", 10, 3, 33 },
	{ "G.723.1", 30, 1, 26 },
};

const char *idf_kw_name(enum idf_kw kw)
{
	return keywords[kw].name;
}

const char *idf_kw_args(enum idf_kw kw)
{
	return keywords[kw].args;
}

const char *idf_dist_name(enum idf_dist d)
{
	return d < IDF_DIST_COUNT ? models[d].name : "?";
}

const char *idf_pkts_name(enum idf_pkts k)
{
	static const char *const names[] = {
		[IDF_PKTS_FIXED] = "fixed",
		[IDF_PKTS_VARIABLE] = "variable",
		[IDF_PKTS_COMPUTED] = "computed",
	};

	return k <= IDF_PKTS_COMPUTED ? names[k] : "?";
}

const char *idf_data_name(enum idf_data d)
{
	static const char *const names[] = {
		[IDF_DATA_STREAM] = "stream",
		[IDF_DATA_BULK] = "bulk",
		[IDF_DATA_INTERACTIVE] = "interactive",
	};

	return d <= IDF_DATA_INTERACTIVE ? names[d] : "?";
}

uint8_t idf_data_dscp(enum idf_data d)
{
	/* RFC 4594: telephony EF; low-latency data AF21; high-throughput AF11 */
	static const uint8_t dscp[] = {
		[IDF_DATA_STREAM] = 46,
		[IDF_DATA_INTERACTIVE] = 18,
		[IDF_DATA_BULK] = 10,
	};

	return d <= IDF_DATA_INTERACTIVE ? dscp[d] : 0;
}

void idf_nut(const struct idf_tg *tg, uint8_t nut[6])
{
	uint64_t q = tg->qlen < 0xffff ? tg->qlen : 0xffff;
	uint64_t k = idf_has(tg, IDF_KW_rpol) ? idf_rpol_request(tg) / 1000 : 0;

	if (k > 0xffffffff)
		k = 0xffffffff;
	nut[0] = (uint8_t)(q >> 8);
	nut[1] = (uint8_t)q;
	nut[2] = (uint8_t)(k >> 24);
	nut[3] = (uint8_t)(k >> 16);
	nut[4] = (uint8_t)(k >> 8);
	nut[5] = (uint8_t)k;
}

uint64_t idf_rpol_request(const struct idf_tg *tg)
{
	uint64_t lo = tg->thro_min ? tg->thro_min : tg->thro_req;

	return lo + (tg->thro_req - lo) * tg->rpol / 100;
}

unsigned int idf_dist_nparams(enum idf_dist d)
{
	return d < IDF_DIST_COUNT ? models[d].nparam : 0;
}

const char *idf_dist_param(enum idf_dist d, unsigned int i, bool *is_time)
{
	if (d >= IDF_DIST_COUNT || i >= models[d].nparam)
		return NULL;
	*is_time = models[d].kind[i] == P_TIME ||
		models[d].kind[i] == P_TIME_POS;
	return models[d].pname[i];
}

bool idf_dist_sets_gaps(enum idf_dist d)
{
	return d >= IDF_DIST_PARETO;
}

bool idf_dist_sets_lengths(enum idf_dist d)
{
	return d == IDF_DIST_TRACE || d >= IDF_DIST_VOIP;
}

const char *idf_rng_name(int rng)
{
	return rng_name(rng);
}

double idf_mean_len(const struct idf_tg *tg)
{
	return tg->pkts == IDF_PKTS_VARIABLE ?
		(tg->len_min + (double)tg->len_max) / 2 : tg->len_max;
}

double idf_mean_gap_ns(const struct idf_tg *tg)
{
	if (idf_has(tg, IDF_KW_thro) && tg->pkts != IDF_PKTS_COMPUTED)
		return idf_mean_len(tg) * 8e9 / (double)tg->thro_req;
	return (tg->inta_min + (double)tg->inta_max) / 2;
}

const char *idf_patt_name(enum idf_patt pt)
{
	static const char *const names[] = {
		[IDF_PATT_FIXED] = "fixed",
		[IDF_PATT_RANDOM] = "random",
		[IDF_PATT_INCR] = "incremental",
	};
	return names[pt];
}

const char *idf_path_name(enum idf_path pt)
{
	return pt == IDF_PATH_QDISC ? "qdisc" : "driver";
}

const char *idf_mode_name(enum idf_mode m)
{
	return m == IDF_MODE_PRECISE ? "precise" : "plain";
}

const char *idf_late_name(enum idf_late l)
{
	return l == IDF_LATE_SKIP ? "skip" : "catchup";
}

uint32_t idf_seed(const struct idf_tg *tg)
{
	if (idf_has(tg, IDF_KW_seed))
		return tg->seed;
	return (tg->id - 1) % LEHMER_SEED_MAX + 1;
}

uint32_t idf_patt_seed(const struct idf_tg *tg)
{
	struct lehmer g;

	lehmer_init(&g, idf_seed(tg));
	return lehmer_next(&g);
}

uint16_t idf_src_port(const struct idf_tg *tg)
{
	if (tg->src.port)
		return tg->src.port;
	return IDF_SRC_PORT_BASE + tg->id % (65536 - IDF_SRC_PORT_BASE);
}

void idf_addr_str(const struct idf_addr *a, char *buf, size_t size)
{
	if (!a->family || !inet_ntop(a->family, a->addr, buf, size))
		snprintf(buf, size, "-");
}

/* Diagnostics */

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
static void error_at(struct idf_file *f, unsigned int line, unsigned int col,
		     const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	diag(f, false, f->cur_src, line, col, fmt, ap);
	va_end(ap);
}

__attribute__((format(printf, 3, 4)))
static void error_loc(struct idf_file *f, const struct idf_loc *loc,
		      const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	diag(f, false, loc->src, loc->line, loc->col, fmt, ap);
	va_end(ap);
}

__attribute__((format(printf, 3, 4)))
static void warn_loc(struct idf_file *f, const struct idf_loc *loc,
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

/* Numbers */

static int pow10_mul(uint64_t *v, int exp)
{
	while (exp-- > 0) {
		if (*v > UINT64_MAX / 10)
			return -1;
		*v *= 10;
	}
	return 0;
}

/*
 * s[0..n) as a decimal number with an optional fraction, times 10^exp;
 * the result must be whole.
 */
static int parse_scaled(const char *s, size_t n, int exp, uint64_t *out,
			const char **why)
{
	uint64_t v = 0;
	size_t i = 0;
	int frac = -1, digits = 0;

	for (; i < n; i++) {
		if (s[i] == '.' && frac < 0) {
			frac = 0;
			continue;
		}
		if (!isdigit((unsigned char)s[i])) {
			*why = "not a number";
			return -1;
		}
		if (v > (UINT64_MAX - 9) / 10) {
			*why = "too large";
			return -1;
		}
		v = v * 10 + (uint64_t)(s[i] - '0');
		digits++;
		if (frac >= 0)
			frac++;
	}
	if (!digits) {
		*why = "not a number";
		return -1;
	}
	exp -= frac > 0 ? frac : 0;
	for (; exp < 0; exp++) {
		if (v % 10) {
			*why = "finer than the smallest unit";
			return -1;
		}
		v /= 10;
	}
	if (pow10_mul(&v, exp)) {
		*why = "too large";
		return -1;
	}
	*out = v;
	return 0;
}

struct unit {
	const char *suffix;
	int exp;		/* power of ten of the base unit */
};

/* Why s is refused when it is a negative number: NULL if it is not one. */
static const char *negative(const char *s)
{
	if (s[0] == '-' && (isdigit((unsigned char)s[1]) || s[1] == '.'))
		return "negative values are not allowed";
	return NULL;
}

static int parse_with_units(const char *s, const struct unit *units,
			    int bare_exp, uint64_t *out, const char **why)
{
	size_t n = strlen(s), k = n;
	const struct unit *u;

	*why = negative(s);
	if (*why)
		return -1;
	while (k > 0 && isalpha((unsigned char)s[k - 1]))
		k--;
	if (k == n)
		return parse_scaled(s, n, bare_exp, out, why);
	if (k == 0) {
		*why = NULL;
		return -1;
	}
	for (u = units; u->suffix; u++)
		if (!strcmp(s + k, u->suffix))
			return parse_scaled(s, k, u->exp, out, why);
	*why = "unknown unit";
	return -1;
}

int idf_parse_time(const char *s, int bare_exp, uint64_t *ns, const char **why)
{
	static const struct unit units[] = {
		{ "ns", 0 }, { "us", 3 }, { "ms", 6 }, { "s", 9 }, { NULL, 0 }
	};

	return parse_with_units(s, units, bare_exp, ns, why);
}

int idf_parse_when(const char *s, uint64_t *ns)
{
	struct tm tm = { 0 };
	uint64_t frac = 0;
	const char *end;
	bool utc;
	time_t now, secs;
	size_t n = strlen(s);
	int digits = 0;

	utc = n && s[n - 1] == 'Z';
	if (strchr(s, '-')) {
		end = strptime(s, "%Y-%m-%dT%H:%M:%S", &tm);
	} else {
		now = time(NULL);
		if (!localtime_r(&now, &tm))
			return -1;
		end = strptime(s, "%H:%M:%S", &tm);
	}
	if (!end)
		return -1;
	if (*end == '.') {
		for (end++; isdigit((unsigned char)*end); end++, digits++)
			if (digits < 9)
				frac = frac * 10 + (uint64_t)(*end - '0');
		if (!digits)
			return -1;
		for (; digits < 9; digits++)
			frac *= 10;
	}
	if (*end != (utc ? 'Z' : '\0') || (utc && end[1]))
		return -1;
	tm.tm_isdst = -1;
	secs = utc ? timegm(&tm) : mktime(&tm);
	if (secs == (time_t)-1 || secs < 0)
		return -1;
	*ns = (uint64_t)secs * 1000000000ULL + frac;
	return 0;
}

int idf_parse_count(const char *s, uint64_t *v, const char **why)
{
	static const struct unit units[] = {
		{ "k", 3 }, { "K", 3 }, { "M", 6 }, { "G", 9 }, { NULL, 0 }
	};

	return parse_with_units(s, units, 0, v, why);
}

/* A whole number, decimal or 0x hexadecimal, at most max. */
static int parse_uint(const char *s, uint64_t max, uint64_t *out)
{
	int base = 10;
	char *end;

	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		s += 2;
	}
	if (!isxdigit((unsigned char)s[0]))
		return -1;
	errno = 0;
	*out = strtoull(s, &end, base);
	if (*end || errno || *out > max)
		return -1;
	return 0;
}

/* Tokens */

static int kw_lookup(const char *s)
{
	int i;

	for (i = 0; i < IDF_KW_COUNT; i++)
		if (!strcmp(s, keywords[i].name))
			return i;
	return -1;
}

static bool is_keyword(const char *s)
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

static const char *closest_keyword(const char *s)
{
	const char *best = NULL;
	size_t d, best_d = 3;
	int i;

	for (i = 0; i < IDF_KW_COUNT; i++) {
		d = edit_distance(s, keywords[i].name);
		if (d < best_d && d < strlen(s)) {
			best_d = d;
			best = keywords[i].name;
		}
	}
	return best;
}

static const char *kw(const struct parser *p)
{
	return keywords[p->last_kw].name;
}

/*
 * The next token, which the keyword needs; NULL (reported) at the end of
 * the line or at a keyword, which is left for the next group.
 */
static struct tok *need(struct parser *p, const char *what)
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
static struct tok *maybe(struct parser *p)
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

static int expected(struct parser *p, const struct tok *t, const char *what,
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

/* Arguments */

#define WHAT_LEN	"a length in bytes"
#define WHY_LEN_MAX \
	"a 9000-byte jumbo MTU + Ethernet 14 + VLAN 4; the interface's MTU + 14 may allow less"
#define WHAT_INTA	"a time (ms, or a unit: ns, us, ms, s)"
#define WHAT_TIME	"a time (s, or a unit: ns, us, ms, s)"
#define WHAT_THRO	"a throughput in bit/s (suffixes k, M, G)"
#define WHAT_BYTE	"a number from 0 to 255"

static int arg_uint(struct parser *p, const struct tok *t, uint64_t min,
		    uint64_t max, const char *what, uint64_t *v)
{
	if (parse_uint(t->s, max, v) || *v < min)
		return expected(p, t, what, negative(t->s));
	return 0;
}

static int arg_time(struct parser *p, const struct tok *t, int bare_exp,
		    const char *what, uint64_t *ns)
{
	const char *why;

	if (idf_parse_time(t->s, bare_exp, ns, &why))
		return expected(p, t, what, why);
	return 0;
}

static int arg_len(struct parser *p, const struct tok *t, uint32_t *len)
{
	uint64_t v;

	if (!parse_uint(t->s, IDF_LEN_MAX, &v)) {
		*len = (uint32_t)v;
		return 0;
	}
	/* a number above the largest, or with more digits than a uint64_t */
	if (!parse_uint(t->s, UINT64_MAX, &v) ||
	    !t->s[strspn(t->s, "0123456789")]) {
		error_at(p->f, p->line, t->col,
			 "'%s' %s is above the largest frame, %u bytes (%s)",
			 kw(p), t->s, IDF_LEN_MAX, WHY_LEN_MAX);
		return -1;
	}
	return expected(p, t, WHAT_LEN, negative(t->s));
}

static int arg_thro(struct parser *p, const struct tok *t, uint64_t *v)
{
	const char *why = NULL;

	if (idf_parse_count(t->s, v, &why) || !*v)
		return expected(p, t, WHAT_THRO, why);
	return 0;
}

static int arg_byte(struct parser *p, const struct tok *t, uint8_t *b)
{
	uint64_t v;

	if (arg_uint(p, t, 0, 255, WHAT_BYTE, &v))
		return -1;
	*b = (uint8_t)v;
	return 0;
}

/* ADDR[:PORT]: 192.0.2.1, 192.0.2.1:5000, [2001:db8::1]:5000, :5000 */
static int arg_endpoint(struct parser *p, const struct tok *t, bool need_port,
			struct idf_addr *a)
{
	const char *what = need_port ?
		"ADDR:PORT (IPv6 in brackets: [2001:db8::1]:5000)" :
		"ADDR[:PORT] (IPv6 in brackets: [2001:db8::1]:5000)";
	char buf[INET6_ADDRSTRLEN + 8];
	const char *port = NULL;
	char *host = buf, *c;
	uint64_t v;

	memset(a, 0, sizeof(*a));
	if (strlen(t->s) >= sizeof(buf))
		return expected(p, t, what, NULL);
	strcpy(buf, t->s);
	if (buf[0] == '[') {
		c = strchr(buf, ']');
		if (!c)
			return expected(p, t, what, "no ']'");
		*c = '\0';
		host = buf + 1;
		if (c[1] == ':')
			port = c + 2;
		else if (c[1])
			return expected(p, t, what, NULL);
		if (inet_pton(AF_INET6, host, a->addr) != 1)
			return expected(p, t, what, "not an IPv6 address");
		a->family = AF_INET6;
	} else if (strchr(buf, ':') != strrchr(buf, ':')) {
		if (need_port)
			return expected(p, t, what,
					"an IPv6 address with a port goes in brackets");
		if (inet_pton(AF_INET6, buf, a->addr) != 1)
			return expected(p, t, what, "not an IPv6 address");
		a->family = AF_INET6;
	} else {
		c = strchr(buf, ':');
		if (c) {
			*c = '\0';
			port = c + 1;
		}
		if (*host) {
			if (inet_pton(AF_INET, host, a->addr) != 1)
				return expected(p, t, what,
						"not an IPv4 address");
			a->family = AF_INET;
		} else if (need_port) {
			return expected(p, t, what, "no address");
		}
	}
	if (!port && need_port)
		return expected(p, t, what, "no port");
	if (port) {
		if (parse_uint(port, 65535, &v) || !v)
			return expected(p, t, what, "port must be 1..65535");
		a->port = (uint16_t)v;
	}
	return 0;
}

/* A name for the kernel: no '/', not "." or "..", not too long. */
static int arg_name(struct parser *p, const struct tok *t, size_t max,
		    const char *reject, char *out, const char *what)
{
	if (strlen(t->s) > max || strpbrk(t->s, reject) ||
	    !strcmp(t->s, ".") || !strcmp(t->s, ".."))
		return expected(p, t, what, NULL);
	strcpy(out, t->s);
	return 0;
}

const char *idf_parse_listen(const char *s, struct idf_listen *l)
{
	const char *at = strchr(s, '@');
	size_t dev_len = at ? (size_t)(at - s) : strlen(s);

	memset(l, 0, sizeof(*l));
	if (!dev_len || dev_len > IDF_DEVNAME_MAX || memchr(s, '/', dev_len) ||
	    memchr(s, ':', dev_len))
		return "an interface name (at most 15 bytes, no '/' or ':')";
	memcpy(l->dev, s, dev_len);
	if (!at)
		return NULL;
	at++;
	if (!*at || strlen(at) > IDF_NETNS_MAX || strpbrk(at, "/@") ||
	    !strcmp(at, ".") || !strcmp(at, ".."))
		return "a namespace name after '@' (a file in /run/netns)";
	strcpy(l->netns, at);
	return NULL;
}

static int hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = (char)tolower((unsigned char)c);
	return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* "TEXT": the bytes between the quotes, escapes undone. */
static int parse_quoted(const char *s, uint8_t *out, size_t max, size_t *len,
			const char **why)
{
	size_t n = 0;
	int hi, lo;
	char c;

	for (s++; *s != '"'; s++) {
		c = *s;
		if (!c) {
			*why = "no closing '\"'";
			return -1;
		}
		if (c == '\\') {
			switch (*++s) {
			case '\\': case '"': c = *s; break;
			case 'n': c = '\n'; break;
			case 'r': c = '\r'; break;
			case 't': c = '\t'; break;
			case '0': c = '\0'; break;
			case 'x':
				hi = hex_digit(s[1]);
				lo = hi < 0 ? -1 : hex_digit(s[2]);
				if (lo < 0) {
					*why = "'\\x' takes two hexadecimal digits";
					return -1;
				}
				c = (char)(hi << 4 | lo);
				s += 2;
				break;
			default:
				*why = "unknown escape: use \\\\ \\\" \\n \\r \\t \\0 \\xHH";
				return -1;
			}
		}
		if (n == max) {
			*why = "longer than the 1024 bytes a control message holds";
			return -1;
		}
		out[n++] = (uint8_t)c;
	}
	if (s[1]) {
		*why = "text after the closing '\"'";
		return -1;
	}
	*len = n;
	return 0;
}

int idf_parse_data(const char *s, uint8_t *out, size_t max, size_t *len,
		   const char **why)
{
	size_t n;
	int hi, lo;

	*why = NULL;
	if (s[0] == '"')
		return parse_quoted(s, out, max, len, why);
	if (strncmp(s, "hex:", 4)) {
		n = strlen(s);
		if (n > max) {
			*why = "longer than the 1024 bytes a control message holds";
			return -1;
		}
		memcpy(out, s, n);
		*len = n;
		return 0;
	}
	for (s += 4, n = 0; *s; s += 2) {
		hi = hex_digit(s[0]);
		lo = hi < 0 ? -1 : hex_digit(s[1]);
		if (lo < 0) {
			*why = "'hex:' takes pairs of hexadecimal digits";
			return -1;
		}
		if (n == max) {
			*why = "longer than the 1024 bytes a control message holds";
			return -1;
		}
		out[n++] = (uint8_t)(hi << 4 | lo);
	}
	*len = n;
	return 0;
}

void idf_data_str(const uint8_t *data, size_t len, char *buf, size_t size)
{
	size_t i, n = 0;
	char esc[5];

	if (size < 8) {
		snprintf(buf, size, "%s", size > 3 ? "..." : "");
		return;
	}
	buf[n++] = '"';
	for (i = 0; i < len; i++) {
		uint8_t c = data[i];

		if (c == '"' || c == '\\')
			snprintf(esc, sizeof(esc), "\\%c", c);
		else if (c == '\n')
			snprintf(esc, sizeof(esc), "\\n");
		else if (c >= 0x20 && c < 0x7f)
			snprintf(esc, sizeof(esc), "%c", c);
		else
			snprintf(esc, sizeof(esc), "\\x%02x", c);
		/* room for this, the quote, "..." and the NUL */
		if (n + strlen(esc) + 5 > size) {
			snprintf(buf + n, size - n, "\"...");
			return;
		}
		memcpy(buf + n, esc, strlen(esc));
		n += strlen(esc);
	}
	buf[n++] = '"';
	buf[n] = '\0';
}

/* Keywords */

static struct idf_tg *current(struct parser *p);

/* A setting of the whole run: refused after the first tgid. */
static int global_only(struct parser *p)
{
	if (p->cur < 0)
		return 0;
	error_loc(p->f, &current(p)->loc[p->last_kw],
		  "'%s' is a setting of the whole run: give it before the first 'tgid'",
		  kw(p));
	return -1;
}

/* tgid is handled by parse_line(); this one is never called. */
static int parse_tgid(struct parser *p, struct idf_tg *tg)
{
	(void)p;
	(void)tg;
	return -1;
}

#define WHAT_DIST \
	"a model (fixed, uniform, exponential, mmpp, voice, fgn, pareto, cauchy, normal, gamma, weibull, lognormal, trace, pcap) or a D-ITG preset (voip, telnet, dns, quake3, csa, csi)"

static int model_lookup(const char *s)
{
	int i;

	for (i = 0; i < IDF_DIST_COUNT; i++)
		if (!strcmp(s, models[i].name) ||
		    (models[i].alias && !strcmp(s, models[i].alias)))
			return i;
	return -1;
}

/* What the errors call the i-th parameter of the model m. */
static void param_desc(const struct model *m, unsigned int i, char *desc,
		       size_t size)
{
	static const char *const what[] = {
		[P_TIME] = "a time (ms, or a unit: ns, us, ms, s)",
		[P_TIME_POS] = "a time above 0 (ms, or a unit: ns, us, ms, s)",
		[P_POS] = "a number above 0",
		[P_RATIO] = "a number, 1 or more",
		[P_HURST] = "a number between 0 and 1 (exclusive)",
	};

	snprintf(desc, size, "%s's %s, %s", m->name, m->pname[i],
		 what[m->kind[i]]);
}

/* One parameter of the model m into *v. */
static int arg_param(struct parser *p, const struct tok *t,
		     const struct model *m, unsigned int i, double *v)
{
	enum param_kind k = m->kind[i];
	char desc[128];
	const char *why = NULL;
	uint64_t ns;
	char *end;
	bool ok;

	param_desc(m, i, desc, sizeof(desc));
	if (k == P_TIME || k == P_TIME_POS) {
		ok = !idf_parse_time(t->s, 6, &ns, &why) &&
			(k == P_TIME || ns > 0);
		*v = (double)ns;
	} else {
		errno = 0;
		*v = strtod(t->s, &end);
		ok = !errno && !*end && end != t->s && isfinite(*v) &&
			(isdigit((unsigned char)t->s[0]) || t->s[0] == '.');
		ok = ok && (k == P_POS ? *v > 0 : k == P_RATIO ? *v >= 1 :
			    *v > 0 && *v < 1);
	}
	return ok ? 0 : expected(p, t, desc, why ? why : negative(t->s));
}

/* FILE, relative to the IDF's directory unless absolute. */
static int dist_path(struct parser *p, const struct tok *t, char *out)
{
	const char *name = p->f->name ? p->f->name : "";
	const char *slash = strrchr(name, '/');
	int dir = slash && t->s[0] != '/' ? (int)(slash - name) + 1 : 0;

	if ((size_t)dir + strlen(t->s) > IDF_PATH_MAX)
		return expected(p, t, "a file name", "too long");
	snprintf(out, IDF_PATH_MAX + 1, "%.*s%s", dir, name, t->s);
	return 0;
}

/*
 * voip CODEC [rtp|crtp] [vad]: dist_param[0] the codec's index, [1] the
 * RTP header's bytes (12, compressed 2), [2] the share of each frame sent
 * (D-ITG's voice activity detection: 0.65).
 */
static int parse_voip(struct parser *p, struct idf_tg *tg)
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

static int parse_dist(struct parser *p, struct idf_tg *tg)
{
	struct tok *t = need(p, WHAT_DIST);
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

static int parse_pkts(struct parser *p, struct idf_tg *tg)
{
	struct tok *t = need(p, WHAT_LEN), *m;

	if (!t)
		return -1;
	tg->pkts = IDF_PKTS_FIXED;
	tg->len_max = tg->len_min = 0;
	if (!strcmp(t->s, "computed")) {
		tg->pkts = IDF_PKTS_COMPUTED;
		return 0;
	}
	if (!strcmp(t->s, "fixed") || !strcmp(t->s, "variable")) {
		if (t->s[0] == 'v')
			tg->pkts = IDF_PKTS_VARIABLE;
		t = need(p, WHAT_LEN);
		if (!t)
			return -1;
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

static int parse_inta(struct parser *p, struct idf_tg *tg)
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

static int parse_thro(struct parser *p, struct idf_tg *tg)
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

static int parse_time(struct parser *p, struct idf_tg *tg)
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

static int parse_jitt(struct parser *p, struct idf_tg *tg)
{
	struct tok *t = need(p, WHAT_INTA);

	return t ? arg_time(p, t, 6, WHAT_INTA, &tg->jitter) : -1;
}

static int parse_cos(struct parser *p, struct idf_tg *tg)
{
	const char *what = "a class of service, the DSCP 0 .. 63";
	struct tok *t = need(p, what);
	uint64_t v;

	if (!t || arg_uint(p, t, 0, 63, what, &v))
		return -1;
	tg->tos = (uint8_t)(v << 2);
	return 0;
}

static int parse_data(struct parser *p, struct idf_tg *tg)
{
	const char *what = "'stream', 'bulk' or 'interactive'";
	struct tok *t = need(p, what);
	int d;

	if (!t)
		return -1;
	for (d = IDF_DATA_STREAM; d <= IDF_DATA_INTERACTIVE; d++)
		if (!strcmp(t->s, idf_data_name((enum idf_data)d))) {
			tg->data = (enum idf_data)d;
			return 0;
		}
	return expected(p, t, what, NULL);
}

static int parse_nowb(struct parser *p, struct idf_tg *tg)
{
	const char *what = "a number of wrong bits";
	struct tok *t = need(p, what);

	return t ? arg_uint(p, t, 0, UINT32_MAX, what, &tg->nowb) : -1;
}

static int parse_qlen(struct parser *p, struct idf_tg *tg)
{
	const char *what = "a number of packets";
	struct tok *t = need(p, what);

	return t ? arg_uint(p, t, 0, UINT32_MAX, what, &tg->qlen) : -1;
}

static int parse_rpol(struct parser *p, struct idf_tg *tg)
{
	const char *what = "a percentage, 0 .. 100";
	struct tok *t = need(p, what);
	uint64_t v;

	if (!t || arg_uint(p, t, 0, 100, what, &v))
		return -1;
	tg->rpol = (uint32_t)v;
	return 0;
}

static int parse_count(struct parser *p, struct idf_tg *tg)
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

static int parse_patt(struct parser *p, struct idf_tg *tg)
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

static int parse_seed(struct parser *p, struct idf_tg *tg)
{
	const char *what = "a seed from 1 to 2147483646";
	struct tok *t = need(p, what);
	uint64_t v;

	if (!t || arg_uint(p, t, LEHMER_SEED_MIN, LEHMER_SEED_MAX, what, &v))
		return -1;
	tg->seed = (uint32_t)v;
	return 0;
}

static int parse_dev(struct parser *p, struct idf_tg *tg)
{
	const char *what = "an interface name (at most 15 bytes)";
	struct tok *t = need(p, what);

	return t ? arg_name(p, t, IDF_DEVNAME_MAX, "/:", tg->dev, what) : -1;
}

static int parse_netns(struct parser *p, struct idf_tg *tg)
{
	const char *what = "a namespace name (a file in /run/netns)";
	struct tok *t = need(p, what);

	return t ? arg_name(p, t, IDF_NETNS_MAX, "/", tg->netns, what) : -1;
}

static int parse_cpu(struct parser *p, struct idf_tg *tg)
{
	const char *what = "a CPU number";
	struct tok *t = need(p, what);
	uint64_t v;

	if (!t || arg_uint(p, t, 0, 65535, what, &v))
		return -1;
	tg->cpu = (uint32_t)v;
	return 0;
}

static int parse_src(struct parser *p, struct idf_tg *tg)
{
	struct tok *t = need(p, "ADDR[:PORT]");

	return t ? arg_endpoint(p, t, false, &tg->src) : -1;
}

static int parse_dst(struct parser *p, struct idf_tg *tg)
{
	struct tok *t = need(p, "ADDR:PORT");

	return t ? arg_endpoint(p, t, true, &tg->dst) : -1;
}

/*
 * addr (MTG): station ADDR:PORT is dst; broadcast PORT, the IPv4 broadcast
 * address of dev; myself PORT, the TG's own source address (the network
 * under test brings the packets back; `mac` names its first hop).
 */
static int parse_addr(struct parser *p, struct idf_tg *tg)
{
	const char *what = "'station', 'broadcast' or 'myself'";
	struct tok *t = need(p, what);
	uint64_t port;

	if (!t)
		return -1;
	if (!strcmp(t->s, "station")) {
		t = need(p, "ADDR:PORT");
		if (!t || arg_endpoint(p, t, true, &tg->dst))
			return -1;
		tg->addr = IDF_ADDR_STATION;
		return 0;
	}
	if (strcmp(t->s, "broadcast") && strcmp(t->s, "myself"))
		return expected(p, t, what, NULL);
	tg->addr = t->s[0] == 'b' ? IDF_ADDR_BROADCAST : IDF_ADDR_MYSELF;
	t = need(p, "a UDP port, 1 .. 65535");
	if (!t || arg_uint(p, t, 1, 65535, "a UDP port, 1 .. 65535", &port))
		return -1;
	memset(&tg->dst, 0, sizeof(tg->dst));
	tg->dst.family = AF_INET;	/* myself: src's, at validation */
	tg->dst.port = (uint16_t)port;
	return 0;
}

static int parse_tos(struct parser *p, struct idf_tg *tg)
{
	struct tok *t = need(p, WHAT_BYTE);

	return t ? arg_byte(p, t, &tg->tos) : -1;
}

static int parse_ttl(struct parser *p, struct idf_tg *tg)
{
	const char *what = "a number from 1 to 255";
	struct tok *t = need(p, what);
	uint64_t v;

	if (!t || arg_uint(p, t, 1, 255, what, &v))
		return -1;
	tg->ttl = (uint8_t)v;
	return 0;
}

/* One of two words: 0 for the first, 1 for the second. */
static int parse_choice(struct parser *p, const char *a, const char *b,
			int *out)
{
	char what[64];
	struct tok *t;

	snprintf(what, sizeof(what), "'%s' or '%s'", a, b);
	t = need(p, what);
	if (!t)
		return -1;
	if (!strcmp(t->s, a))
		*out = 0;
	else if (!strcmp(t->s, b))
		*out = 1;
	else
		return expected(p, t, what, NULL);
	return 0;
}

static int parse_path(struct parser *p, struct idf_tg *tg)
{
	int v;

	if (parse_choice(p, "driver", "qdisc", &v))
		return -1;
	tg->path = v ? IDF_PATH_QDISC : IDF_PATH_DRIVER;
	return 0;
}

static int parse_mode(struct parser *p, struct idf_tg *tg)
{
	int v;

	if (parse_choice(p, "plain", "precise", &v))
		return -1;
	tg->mode = v ? IDF_MODE_PRECISE : IDF_MODE_PLAIN;
	return 0;
}

static int parse_late(struct parser *p, struct idf_tg *tg)
{
	int v;

	if (parse_choice(p, "catchup", "skip", &v))
		return -1;
	tg->late = v ? IDF_LATE_SKIP : IDF_LATE_CATCHUP;
	return 0;
}

/* enum idf_table's values are parse_choice()'s 0 and 1. */
static int parse_table(struct parser *p, struct idf_tg *tg)
{
	return parse_choice(p, "loop", "stream", &tg->table);
}

/* The enum rng_kind values are parse_choice()'s 0 and 1. */
static int parse_rng(struct parser *p, struct idf_tg *tg)
{
	return parse_choice(p, rng_name(RNG_MT19937), rng_name(RNG_LEHMER),
			    &tg->rng);
}

static int parse_mac(struct parser *p, struct idf_tg *tg)
{
	const char *what = "a MAC address XX:XX:XX:XX:XX:XX";
	struct tok *t = need(p, what);
	const char *s;
	int i;

	if (!t)
		return -1;
	s = t->s;
	for (i = 0; i < 6; i++, s += 3) {
		if (!isxdigit((unsigned char)s[0]) ||
		    !isxdigit((unsigned char)s[1]) ||
		    s[2] != (i == 5 ? '\0' : ':'))
			return expected(p, t, what, NULL);
		tg->mac[i] = (uint8_t)strtoul((char[]){ s[0], s[1], 0 },
					      NULL, 16);
	}
	return 0;
}

static int parse_threshold(struct parser *p, struct idf_tg *tg)
{
	struct tok *t = need(p, WHAT_INTA);

	return t ? arg_time(p, t, 6, WHAT_INTA, &tg->threshold) : -1;
}

static int parse_listen(struct parser *p, struct idf_tg *tg)
{
	const char *what = "DEV or DEV@NETNS";
	struct idf_file *f = p->f;
	struct idf_listen l, *n;
	const char *why;
	struct tok *t;
	size_t i;

	(void)tg;
	if (global_only(p))
		return -1;
	t = need(p, what);
	if (!t)
		return -1;
	for (; t; t = p->pos < p->ntok && !is_keyword(p->toks[p->pos].s) ?
			&p->toks[p->pos++] : NULL) {
		why = idf_parse_listen(t->s, &l);
		if (why)
			return expected(p, t, what, why);
		l.loc.line = p->line;
		l.loc.col = t->col;
		l.loc.src = p->f->cur_src;
		for (i = 0; i < f->nlisten; i++) {
			if (!strcmp(f->listen[i].dev, l.dev) &&
			    !strcmp(f->listen[i].netns, l.netns)) {
				error_at(f, p->line, t->col,
					 "'listen' names '%s' twice (first at line %u)",
					 t->s, f->listen[i].loc.line);
				return -1;
			}
		}
		n = realloc(f->listen, (f->nlisten + 1) * sizeof(*n));
		if (!n) {
			error_at(f, p->line, t->col, "out of memory");
			return -1;
		}
		f->listen = n;
		f->listen[f->nlisten++] = l;
	}
	return 0;
}

static int parse_out(struct parser *p, struct idf_tg *tg)
{
	struct tok *t;

	(void)tg;
	if (global_only(p))
		return -1;
	t = need(p, "a file name");
	if (!t)
		return -1;
	free(p->f->out);
	p->f->out = strdup(t->s);
	return p->f->out ? 0 : -1;
}

static int parse_passthrough(struct parser *p, struct idf_tg *tg)
{
	int v;

	(void)tg;
	if (global_only(p) || parse_choice(p, "no", "yes", &v))
		return -1;
	p->f->passthrough = v;
	return 0;
}

/* keep headers | payload [wrongbits] | wrongbits [payload] */
static int parse_keep(struct parser *p, struct idf_tg *tg)
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

#define WHAT_DATA \
	"the message: \"TEXT\" (escapes \\n \\t \\xHH ...), hex:HEX or a word"

/* ctrl TIME DATA: the TG sends a control message TIME after its start. */
static int parse_ctrl(struct parser *p, struct idf_tg *tg)
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

/* Lines */

static struct idf_tg *current(struct parser *p)
{
	return p->cur < 0 ? &p->f->globals : &p->f->tgs[p->cur];
}

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

#define WHAT_TGID	"a TG number from 1 to 4294967295"

static int start_tg(struct parser *p, const struct tok *kt,
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

static int parse_line(struct parser *p)
{
	struct idf_file *f = p->f;

	p->pos = 0;
	p->line_kw = false;
	while (p->pos < p->ntok) {
		struct tok *t = &p->toks[p->pos++];
		struct idf_tg *tg;
		int k = kw_lookup(t->s);
		const char *near;

		if (k == IDF_KW_tgid) {
			struct tok *v;

			/* need() names the keyword being read: this one */
			p->last_kw = IDF_KW_tgid;
			v = need(p, WHAT_TGID);

			if (start_tg(p, t, v))
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
		if (k == IDF_KW_include) {
			/* not a setting: as often as wanted, nothing to record */
			if (parse_include(p, tg))
				resync(p);
			continue;
		}
		if (p->own & (IDF_KW_BIT(k)) && k != IDF_KW_ctrl)
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
		if (keywords[k].parse(p, tg)) {
			tg->bad |= IDF_KW_BIT(k);
			resync(p);
		}
	}
	return 0;
}

/*
 * Past the token that starts at c: up to a blank, which a "quoted text"
 * holds as it holds '#' (a backslash in it escapes the next byte).
 */
static char *token_end(char *c)
{
	bool quoted = false;

	for (; *c && *c != '\n' && (quoted || !isspace((unsigned char)*c));
	     c++) {
		if (*c == '"')
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
static int tokenize(struct parser *p, char *line)
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
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	int err = 0;

	while ((len = getline(&line, &cap, in)) >= 0) {
		p->line++;
		if (memchr(line, '\0', (size_t)len)) {
			error_at(p->f, p->line, 1, "NUL byte in the line");
			continue;
		}
		err = tokenize(p, line);
		if (!err)
			err = parse_line(p);
		if (err)
			break;
	}
	if (!err && ferror(in))
		err = -errno;
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

/*
 * include FILE: the file's groups, read where the keyword stands, as if
 * written there (in the globals or the TG being read). A relative FILE is
 * taken from the including file's directory. Errors in it name it.
 */
static int parse_include(struct parser *p, struct idf_tg *tg)
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

/* Validation: what only the whole TG tells. */

/* `pkts computed`: the length that carries `thro` with one packet per `inta`. */
static void compute_len(struct idf_file *f, struct idf_tg *tg,
			uint32_t min_len)
{
	uint64_t ok = tg->set & ~tg->bad;
	double len;

	if (!(ok & (IDF_KW_BIT(IDF_KW_thro))) || !(ok & (IDF_KW_BIT(IDF_KW_inta))) ||
	    tg->inta_min != tg->inta_max) {
		error_loc(f, &tg->loc[IDF_KW_pkts],
			  "TG %u: 'pkts computed' needs 'thro' and one 'inta' (the length is thro * inta / 8)",
			  tg->id);
		tg->bad |= IDF_KW_BIT(IDF_KW_pkts);
		return;
	}
	len = round((double)tg->thro_req * (double)tg->inta_min / 8e9);
	if (len < min_len || len > IDF_LEN_MAX) {
		error_loc(f, &tg->loc[IDF_KW_pkts],
			  "TG %u: 'pkts computed' gives %.0f bytes (thro %llu bit/s * inta %llu ns / 8), outside %u .. %u",
			  tg->id, len, (unsigned long long)tg->thro_req,
			  (unsigned long long)tg->inta_min, min_len,
			  IDF_LEN_MAX);
		tg->bad |= IDF_KW_BIT(IDF_KW_pkts);
		return;
	}
	tg->len_max = tg->len_min = (uint32_t)len;
}

/*
 * No link sends frames closer than their time on the wire. The fastest
 * Ethernet, 800 Gbit/s (IEEE 802.3df), carries a frame of LEN bytes as
 * `pkts` counts them as LEN + 24 bytes (FCS 4, preamble and start
 * delimiter 8, inter-frame gap 12): (LEN + 24) / 100 ns. A rate whose
 * mean gap is shorter than that of the mean frame is refused.
 */
#define IDF_WIRE_GBPS		800
#define IDF_WIRE_EXTRA		24	/* bytes: FCS 4, preamble 8, gap 12 */

static void check_wire_rate(struct idf_file *f, const struct idf_tg *tg)
{
	uint64_t ok = tg->set & ~tg->bad;
	/* twice the mean length, and of its bytes on the wire */
	uint64_t len2 = (uint64_t)tg->len_min + tg->len_max;
	uint64_t wire2 = len2 + 2 * IDF_WIRE_EXTRA;
	double wire_ns = wire2 * 4.0 / IDF_WIRE_GBPS;
	unsigned __int128 gap2;
	char len_s[64], by[64], tail[96];
	enum idf_kw k;

	if (idf_dist_sets_gaps(tg->dist) || (idf_has(tg, IDF_KW_dist) &&
					     !(ok & IDF_KW_BIT(IDF_KW_dist))))
		return;
	if (idf_has(tg, IDF_KW_thro) && tg->pkts != IDF_PKTS_COMPUTED) {
		/* the gap, len * 8 / thro s, against wire * 8 / 800e9 s */
		if (!(ok & IDF_KW_BIT(IDF_KW_thro)) ||
		    (unsigned __int128)len2 * IDF_WIRE_GBPS * 1000000000ULL >=
		    (unsigned __int128)wire2 * tg->thro_req)
			return;
		k = IDF_KW_thro;
		snprintf(by, sizeof(by), "'thro' %llu bit/s",
			 (unsigned long long)tg->thro_req);
		snprintf(tail, sizeof(tail), "'thro' can be %llu bit/s at most",
			 (unsigned long long)((unsigned __int128)len2 *
			 IDF_WIRE_GBPS * 1000000000ULL / wire2));
	} else {
		/* the gap, gap2 / 2 ns, against wire * 8 / 800 ns */
		gap2 = (unsigned __int128)tg->inta_min + tg->inta_max;
		if (!(ok & IDF_KW_BIT(IDF_KW_inta)) || !gap2 ||
		    gap2 * IDF_WIRE_GBPS >= (unsigned __int128)wire2 * 8)
			return;
		k = IDF_KW_inta;
		snprintf(by, sizeof(by), "'inta'%s",
			 tg->inta_min != tg->inta_max ? ", on average" : "");
		snprintf(tail, sizeof(tail), "'inta' must be %.6g ns at least",
			 wire_ns);
	}
	if (tg->len_min == tg->len_max)
		snprintf(len_s, sizeof(len_s), "a %u-byte frame", tg->len_max);
	else
		snprintf(len_s, sizeof(len_s), "a frame of %.6g bytes on average",
			 len2 / 2.0);
	error_loc(f, &tg->loc[k],
		  "TG %u: %s every %.9g ns (%s) is faster than any link carries: a frame is %.6g bytes on the wire (+ FCS 4, preamble 8, inter-frame gap 12), %.6g ns at %u Gbit/s, the fastest Ethernet; %s",
		  tg->id, len_s, idf_mean_gap_ns(tg), by,
		  wire2 / 2.0, wire_ns, IDF_WIRE_GBPS, tail);
}

static void validate_tg(struct idf_file *f, struct idf_tg *tg)
{
	const struct idf_loc *at = &tg->loc[IDF_KW_tgid];
	uint32_t min_len;
	bool v6;

	/* addr myself: our own address, of src's family if src gives one */
	if (idf_has(tg, IDF_KW_addr) && tg->addr == IDF_ADDR_MYSELF &&
	    tg->src.family)
		tg->dst.family = tg->src.family;
	v6 = tg->dst.family == AF_INET6;
	min_len = v6 ? IDF_LEN_MIN_IPV6 : IDF_LEN_MIN_IPV4;

#define KNOWN(k)	(tg->set & ~tg->bad & IDF_KW_BIT(IDF_KW_##k))
#define GIVEN(k)	idf_has(tg, IDF_KW_##k)
	/* given in the TG's own section (globals come before every tgid) */
#define OWN(k)		(tg->own & IDF_KW_BIT(IDF_KW_##k))
	if (GIVEN(dst) && GIVEN(addr))
		error_loc(f, &tg->loc[IDF_KW_addr],
			  "TG %u: 'addr' and 'dst' both name the destination: give one",
			  tg->id);
	else if (!GIVEN(dst) && !GIVEN(addr))
		error_loc(f, at, "TG %u has no 'dst' (the destination ADDR:PORT)",
			  tg->id);
	if (KNOWN(addr) && tg->addr == IDF_ADDR_MYSELF) {
		if (!GIVEN(mac))
			error_loc(f, &tg->loc[IDF_KW_addr],
				  "TG %u: 'addr myself' needs 'mac', the first hop of the network that brings the packets back",
				  tg->id);
	}
	if (!GIVEN(dev))
		error_loc(f, at, "TG %u has no 'dev' (the interface to send from)",
			  tg->id);
	/* a model given with an error may be one that sets the lengths */
	if (!GIVEN(pkts) && !idf_dist_sets_lengths(tg->dist) &&
	    !(GIVEN(dist) && !KNOWN(dist)))
		error_loc(f, at, "TG %u has no 'pkts' (the packet length)",
			  tg->id);
	if (KNOWN(pkts) && tg->pkts == IDF_PKTS_COMPUTED)
		compute_len(f, tg, min_len);
	if (GIVEN(dist) && !KNOWN(dist)) {
		/* reported; which model it was to be is unknown */
	} else if (idf_dist_sets_gaps(tg->dist)) {
		/* a rate in the globals is for the other TGs: no warning */
		if (OWN(thro) && tg->pkts != IDF_PKTS_COMPUTED)
			warn_loc(f, &tg->loc[IDF_KW_thro],
				 "TG %u: 'thro' is ignored: 'dist %s' sets the gaps",
				 tg->id, idf_dist_name(tg->dist));
		if (OWN(inta))
			warn_loc(f, &tg->loc[IDF_KW_inta],
				 "TG %u: 'inta' is ignored: 'dist %s' sets the gaps",
				 tg->id, idf_dist_name(tg->dist));
		if (OWN(pkts) && idf_dist_sets_lengths(tg->dist))
			warn_loc(f, &tg->loc[IDF_KW_pkts],
				 "TG %u: 'pkts' is ignored: 'dist %s' sets the lengths",
				 tg->id, idf_dist_name(tg->dist));
	} else if (!GIVEN(thro) && !GIVEN(inta)) {
		error_loc(f, at, "TG %u has neither 'thro' nor 'inta': nothing sets its rate",
			  tg->id);
	}
	if (KNOWN(src) && KNOWN(dst) && tg->src.family &&
	    tg->src.family != tg->dst.family)
		error_loc(f, &tg->loc[IDF_KW_src],
			  "TG %u: 'src' is %s but 'dst' is %s", tg->id,
			  v6 ? "IPv4" : "IPv6", v6 ? "IPv6" : "IPv4");
	if (KNOWN(pkts) && tg->len_min < min_len)
		error_loc(f, &tg->loc[IDF_KW_pkts],
			  "TG %u: 'pkts' %u is below the smallest %s frame, %u bytes (Ethernet 14 + %s + UDP 8 + MTG header 88)",
			  tg->id, tg->len_min, v6 ? "IPv6" : "IPv4", min_len,
			  v6 ? "IPv6 40" : "IPv4 20");
	if (KNOWN(pkts) && tg->len_min >= min_len)
		check_wire_rate(f, tg);
	if (idf_dist_sets_gaps(tg->dist) || (GIVEN(dist) && !KNOWN(dist))) {
		/* warned above */
	} else if (GIVEN(thro) && GIVEN(pkts) && GIVEN(inta) &&
		   tg->pkts != IDF_PKTS_COMPUTED) {
		warn_loc(f, &tg->loc[IDF_KW_inta],
			 "TG %u: 'inta' is ignored: 'pkts' and 'thro' set the gap",
			 tg->id);
	} else if (KNOWN(inta)) {
		if (!tg->inta_min)
			error_loc(f, &tg->loc[IDF_KW_inta],
				  "TG %u: 'inta' must be above 0", tg->id);
		else if (tg->dist == IDF_DIST_FIXED &&
			 tg->inta_min != tg->inta_max)
			error_loc(f, &tg->loc[IDF_KW_inta],
				  "TG %u: with 'dist fixed', 'inta' MIN must equal MAX",
				  tg->id);
	}
	if (GIVEN(tos) && GIVEN(cos))
		error_loc(f, &tg->loc[IDF_KW_cos],
			  "TG %u: 'cos' and 'tos' both set the TOS byte (cos N is tos 4 * N): give one",
			  tg->id);
	else if (KNOWN(data) && !GIVEN(tos) && !GIVEN(cos))
		tg->tos = idf_data_dscp(tg->data) << 2;
	if (GIVEN(rpol) && !GIVEN(thro))
		error_loc(f, &tg->loc[IDF_KW_rpol],
			  "TG %u: 'rpol' is a share of 'thro' MIN .. REQ, and the TG has no 'thro'",
			  tg->id);
	if (tg->dist == IDF_DIST_FGN && KNOWN(dist) && KNOWN(pkts) &&
	    (KNOWN(thro) || KNOWN(inta)) &&
	    tg->dist_param[2] < idf_mean_gap_ns(tg))
		error_loc(f, &tg->loc[IDF_KW_dist],
			  "TG %u: 'dist fgn' SLOT %.0f ns holds less than one packet on average (the mean gap is %.0f ns): make it longer",
			  tg->id, tg->dist_param[2], idf_mean_gap_ns(tg));
#undef KNOWN
#undef GIVEN
#undef OWN
}

/* File order: by line, then column, then as found. */
static void sort_diags(struct idf_file *f)
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

int idf_validate(struct idf_file *f)
{
	size_t i;

	if (!f->ntgs && !f->nerrors)
		error_at(f, 0, 0, "no 'tgid': the file describes no traffic generator");
	for (i = 0; i < f->ntgs; i++)
		if (!(f->tgs[i].bad & (IDF_KW_BIT(IDF_KW_tgid))))
			validate_tg(f, &f->tgs[i]);
	sort_diags(f);
	return f->nerrors ? -1 : 0;
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

int idf_load(struct idf_file *f, const char *path)
{
	const char *why;
	FILE *in;
	int err;

	memset(f, 0, sizeof(*f));
	f->name = strdup(path);
	if (!f->name)
		return -ENOMEM;
	err = read_file(path, false, &f->text, &f->text_len, &why);
	if (err)
		return err;
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

void idf_free(struct idf_file *f)
{
	size_t i;

	for (i = 0; i < f->nincludes; i++) {
		free(f->includes[i].name);
		free(f->includes[i].text);
	}
	free(f->includes);
	free(f->tgs);
	free(f->id_slots);
	free(f->name);
	free(f->text);
	free(f->listen);
	free(f->out);
	for (i = 0; i < f->nctrls; i++)
		free(f->ctrls[i].data);
	free(f->ctrls);
	memset(f, 0, sizeof(*f));
}
