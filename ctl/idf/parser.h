/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Inside the IDF parser: what its files (parse.c and the keywords, their
 * arguments, units, diagnostics, validation) share. Only idf/ includes it;
 * everyone else has idf.h.
 */
#ifndef MTGCTL_IDF_PARSER_H
#define MTGCTL_IDF_PARSER_H

#include <stdbool.h>
#include <stdint.h>

#include "idf/idf.h"

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
	/* while a `tgid LO-HI` range's lines are read for each TG in it */
	uint32_t range_lo, range_hi;
	unsigned int range_line;	/* the range's `tgid` line; 0: none */
	/* the behaviour being defined; the category whose line is read */
	struct idf_behaviour *beh;
	struct idf_category *cat;
	uint64_t cat_own;	/* keywords given on the category's line */
};

typedef int (*kw_parse_fn)(struct parser *p, struct idf_tg *tg);

/* The keywords' parsers (kw_gen.c, kw_net.c), in parse.c's table. */
#define IDF_KW_PROTO(name, args) \
	int parse_##name(struct parser *p, struct idf_tg *tg);
IDF_KEYWORDS(IDF_KW_PROTO)
#undef IDF_KW_PROTO

#define WHAT_LEN	"a length in bytes"
#define WHY_LEN_MAX \
	"a 9000-byte jumbo MTU + Ethernet 14 + VLAN 4; the interface's MTU + 14 may allow less"
#define WHAT_INTA	"a time (ms, or a unit: ns, us, ms, s)"
#define WHAT_TIME	"a time (s, or a unit: ns, us, ms, s)"
#define WHAT_THRO	"a throughput in bit/s (suffixes k, M, G)"
#define WHAT_BYTE	"a number from 0 to 255"

#define WHAT_DIST \
	"a model (fixed, uniform, exponential, mmpp, voice, fgn, pareto, cauchy, normal, gamma, weibull, lognormal, trace, pcap, behaviour) or a D-ITG preset (voip, telnet, dns, quake3, csa, csi)"

#define WHAT_DATA \
	"the message: \"TEXT\" (escapes \\n \\t \\xHH ...), hex:HEX or a word"

#define WHAT_TGID	"a TG number from 1 to 4294967295"

/* What a model's parameter is, and the values it takes. */
enum param_kind {
	P_TIME,			/* a time, 0 or more */
	P_TIME_POS,		/* a time above 0 */
	P_POS,			/* a number above 0 */
	P_RATIO,		/* a number, 1 or more */
	P_HURST,		/* a number between 0 and 1 */
	P_BYTES,		/* a number of bytes, 0 or more */
	P_BYTES_POS,		/* a number of bytes above 0 */
};

/*
 * The models `dist` takes, by enum idf_dist (names.c): the name, MTG's
 * name for it, the parameters (the first nreq required) and the defaults
 * of the others.
 */
struct model {
	const char *name;
	const char *alias;
	const char *args;
	unsigned int nreq, nparam;
	const char *pname[IDF_DIST_PARAMS];
	enum param_kind kind[IDF_DIST_PARAMS];
	double dflt[IDF_DIST_PARAMS];
};
extern const struct model models[IDF_DIST_COUNT];
extern const struct model len_laws[IDF_LEN_LAWS];

/* The TG being read, or the globals before the first tgid. */
static inline struct idf_tg *current(struct parser *p)
{
	return p->cur < 0 ? &p->f->globals : &p->f->tgs[p->cur];
}

/* Tokens (token.c). */
int kw_lookup(const char *s);
bool is_keyword(const char *s);
const char *closest_keyword(const char *s);
const char *kw(const struct parser *p);
struct tok *need(struct parser *p, const char *what);
struct tok *maybe(struct parser *p);
int expected(struct parser *p, const struct tok *t, const char *what,
	     const char *why);

/* Lines (parse.c). */
int tokenize(struct parser *p, char *line);
int parse_line(struct parser *p);

/*
 * A `tgid LO-HI` range and the templates in its lines (range.c): parse.c
 * keeps the range's lines as written, then has them read once per TG.
 */
struct range {
	uint32_t lo, hi;
	bool bad;		/* reported: its lines are not read */
	char **lines;		/* as written */
	unsigned int *line_no;
	size_t n, cap;
};
bool range_starts(struct parser *p, struct range *r);
int range_add_line(struct range *r, const char *line, unsigned int line_no);
int range_read(struct parser *p, struct range *r);
void range_free(struct range *r);
int no_templates(struct parser *p);
void given_in_error(struct parser *p, int k);

/* Text of mtgctl's own (a built-in behaviour), read as globals (parse.c). */
int parse_text(struct parser *up, const char *text);

/* Behaviours (behaviour.c). */
int category_group(struct parser *p, int k, const struct tok *t);
int dist_behaviour(struct parser *p, struct idf_tg *tg);
void validate_behaviours(struct idf_file *f);
void validate_behaviour_tg(struct idf_file *f, struct idf_tg *tg);

/* Hosts (hosts.c): a TG without a host where others have one. */
void validate_hosts(struct idf_file *f);

/* Diagnostics (diag.c). */
__attribute__((format(printf, 4, 5)))
void error_at(struct idf_file *f, unsigned int line, unsigned int col,
	      const char *fmt, ...);
__attribute__((format(printf, 3, 4)))
void error_loc(struct idf_file *f, const struct idf_loc *loc,
	       const char *fmt, ...);
__attribute__((format(printf, 3, 4)))
void warn_loc(struct idf_file *f, const struct idf_loc *loc,
	      const char *fmt, ...);
void sort_diags(struct idf_file *f);

/* Numbers (units.c). */
int parse_uint(const char *s, uint64_t max, uint64_t *out);
const char *negative(const char *s);

/* A keyword's arguments (args.c); each reports its error, -1. */
int arg_uint(struct parser *p, const struct tok *t, uint64_t min,
	     uint64_t max, const char *what, uint64_t *v);
int arg_time(struct parser *p, const struct tok *t, int bare_exp,
	     const char *what, uint64_t *ns);
int arg_len(struct parser *p, const struct tok *t, uint32_t *len);
int arg_thro(struct parser *p, const struct tok *t, uint64_t *v);
int arg_byte(struct parser *p, const struct tok *t, uint8_t *b);
int arg_endpoint(struct parser *p, const struct tok *t, bool need_port,
		 struct idf_addr *a);
int arg_name(struct parser *p, const struct tok *t, size_t max,
	     const char *reject, char *out, const char *what);
int parse_choice(struct parser *p, const char *a, const char *b, int *out);
int model_lookup(const char *s);
void param_desc(const struct model *m, unsigned int i, char *desc,
		size_t size);
int arg_param(struct parser *p, const struct tok *t, const struct model *m,
	      unsigned int i, double *v);
int dist_path(struct parser *p, const struct tok *t, char *out);

#endif /* MTGCTL_IDF_PARSER_H */
