// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * mtgctl itgsend: ITGSend's command line (D-ITG 2.8.1) into an IDF, one TG
 * per flow, run as `mtgctl run` runs an IDF file (or printed: --idf).
 *
 * The single-flow form takes a flow's options as its arguments; the script
 * form a file whose every line holds a flow's options, and after the file
 * the options ITGSend takes for every flow (parserMultiFlows()). Each
 * option means what ITGSend's flowParser() (src/ITGSend/ITGSend.cpp) and
 * its distributions (src/ITGSend/newran) make of it; an option the IDF has
 * nothing for is an error that names it, and nothing runs.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <netdb.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>

#include "cmd/cmd.h"
#include "cmd/itgsend.h"
#include "module/iface.h"
#include "util/text.h"

/* A preset sets gaps and sizes together: another IDT or PS option cannot
 * change one of them (ITGSend would, the last one given winning). */
static int check_preset(const struct flow *f)
{
	const struct tok *later;

	if ((f->idt == IDT_PRESET) == (f->ps == PS_PRESET))
		return 0;
	later = f->idt_tok > f->ps_tok ? f->idt_tok : f->ps_tok;
	flow_error(f, later, "'%s' after an application's preset: mtg's presets set the gaps and the sizes together",
		   shown(later));
	return -1;
}

/*
 * Lengths at L2 (the IDF's pkts) from the UDP payload ITGSend sends, of
 * which the header takes hdr bytes.
 */
static int check_sizes(const struct flow *f, unsigned int over, long hdr)
{
	long lo = f->ps_p[0], hi = f->ps == PS_UNIFORM ? f->ps_p[1] - 1 : lo;
	const struct tok *t = f->ps_tok;

	if (f->ps == PS_PRESET || f->ps == PS_LAW)
		return 0;	/* a law's payloads are clamped, as ITGSend's */
	if (lo < hdr) {
		flow_error(f, t ? t + 1 : NULL, "'%s %ld': %s header takes %ld bytes of the UDP payload, so the smallest payload is %ld%s",
			   t ? t->s : "-c", lo, hdr == MTG_HDR ? "mtg's" : "D-ITG's",
			   hdr, hdr, hdr == MTG_HDR ?
			   "; D-ITG's header, 16, with --itgrecv" : "");
		return -1;
	}
	if (hi + over > IDF_LEN_MAX) {
		flow_error(f, t ? t + (f->ps == PS_UNIFORM ? 2 : 1) : NULL,
			   "'%s %ld': mtg sends no IP fragments: the largest UDP payload is %u bytes over IPv%d (a %d-byte frame)",
			   t->s, f->ps == PS_UNIFORM ? hi + 1 : hi,
			   IDF_LEN_MAX - over, f->dst.family == AF_INET6 ? 6 : 4,
			   IDF_LEN_MAX);
		return -1;
	}
	return 0;
}

/* Whole ns of ms, at least 1 where a time above 0 was asked. */
static long long ns_of_ms(double ms)
{
	long long ns = llround(ms * 1e6);

	return ns ? ns : 1;
}

/*
 * The IDF of a rate of pps packets a second of mean frame mean: thro when
 * that is a whole bit/s (the IDF's tables then keep the exact rate), else
 * inta in whole ns.
 */
static void rate(FILE *out, double pps, double mean)
{
	double bps = mean * 8 * pps;

	if (bps >= 1 && bps < 1e15 && fabs(bps - round(bps)) < 1e-6)
		fprintf(out, "thro %.0f", bps);
	else
		fprintf(out, "inta %lldns", (long long)fmax(1, llround(1e9 / pps)));
}

#define COMMENT_COL	40

/* Pad what the line holds so far to the comment's column; the comment. */
static void note(FILE *out, long start, const char *fmt, ...)
{
	long at = ftell(out) - start;
	va_list ap;

	fprintf(out, "%*s# ", at < COMMENT_COL ? (int)(COMMENT_COL - at) : 1, "");
	va_start(ap, fmt);
	vfprintf(out, fmt, ap);
	va_end(ap);
	fputc('\n', out);
}

static const char *idt_name(enum idt k)
{
	static const char *const names[] = {
		[IDT_EXP] = "exponential", [IDT_NORMAL] = "normal",
		[IDT_PARETO] = "pareto", [IDT_CAUCHY] = "cauchy",
		[IDT_GAMMA] = "gamma", [IDT_WEIBULL] = "weibull",
	};

	return names[k];
}

/* The flow's TG, each line saying which option it comes from. */
static void write_tg(FILE *out, const struct flow *f, const char *dev_from,
		     const struct itgsend_opts *o)
{
	char a[INET6_ADDRSTRLEN + 8], ep[INET6_ADDRSTRLEN + 16];
	unsigned int over = f->dst.family == AF_INET6 ? L2_UDP_V6 : L2_UDP_V4;
	double mean = 0;
	bool no_limit;
	long s;

	s = ftell(out);
	fprintf(out, "tgid %u", f->id);
	if (f->file)
		note(out, s, "flow %u: %s line %u", f->id, f->file, f->line);
	else
		note(out, s, "the flow of the command line");
	s = ftell(out);
	fprintf(out, "    dev %s", f->dev);
	note(out, s, "%s", dev_from);
	s = ftell(out);
	idf_endpoint_str(&f->dst, f->dst.port, ep, sizeof(ep));
	fprintf(out, "    dst %s", ep);
	note(out, s, "-a%s, -rp%s", f->dst_tok ? "" : " " ITG_DEST " (default)",
	     f->dst.port == ITG_PORT ? " 8999 (default)" : "");
	if (f->src.family || f->src.port) {
		s = ftell(out);
		if (f->src.family)
			idf_endpoint_str(&f->src, f->src.port, ep, sizeof(ep));
		if (!f->src.port) {
			idf_addr_str(&f->src, a, sizeof(a));
			fprintf(out, "    src %s", a);
		} else {
			fprintf(out, "    src %s", f->src.family ? ep : "");
			if (!f->src.family)
				fprintf(out, ":%u", f->src.port);
		}
		note(out, s, "%s%s%s", f->src.family ? "-sa" : "",
		     f->src.family && f->src.port ? ", " : "",
		     f->src.port ? "-sp" : "");
	}
	s = ftell(out);
	if (f->ps == PS_CONST) {
		mean = (double)(f->ps_p[0] + over);
		fprintf(out, "    pkts %ld", f->ps_p[0] + over);
		note(out, s, "-c %ld%s: that UDP payload + %u bytes of Ethernet, IP and UDP headers",
		     f->ps_p[0], f->ps_tok ? "" : " (default)", over);
	} else if (f->ps == PS_UNIFORM) {
		/* ITGSend: (int)(MIN + (MAX - MIN) U), so MIN .. MAX - 1 */
		mean = (double)(f->ps_p[0] + f->ps_p[1] - 1) / 2 + over;
		fprintf(out, "    pkts variable %ld %ld", f->ps_p[1] - 1 + over,
			f->ps_p[0] + over);
		note(out, s, "-u %ld %ld: payloads %ld .. %ld, + %u bytes of headers",
		     f->ps_p[0], f->ps_p[1], f->ps_p[0], f->ps_p[1] - 1, over);
	} else if (f->ps == PS_LAW) {
		unsigned int i;

		/* rate() then gives the gaps as inta: -C counts packets */
		fprintf(out, "    pkts %s", idf_len_law_name(f->ps_law));
		for (i = 0; i < idf_len_law_nparams(f->ps_law); i++)
			fprintf(out, " %.17g", f->ps_law_p[i]);
		fprintf(out, " plus %u", over);
		/* ITGSend's options of a law take as many values */
		note(out, s, "%s %s%s%s: payloads as ITGSend draws them, + %u bytes of headers, clamped to %d .. %u (ITGSend's: its header .. 64000)",
		     f->ps_tok->s, f->ps_tok[1].s, i > 1 ? " " : "",
		     i > 1 ? f->ps_tok[2].s : "", over,
		     o->itgrecv ? DITG_HDR : MTG_HDR, IDF_LEN_LAW_MAX - over);
	}
	s = ftell(out);
	switch (f->idt) {
	case IDT_PRESET:
		fprintf(out, "    dist %s", f->preset);
		note(out, s, "%s", f->idt_tok->s);
		break;
	case IDT_CONST:
		fprintf(out, "    dist fixed ");
		rate(out, f->idt_p[0], mean);
		note(out, s, "-C %g%s: packets/s", f->idt_p[0],
		     f->idt_tok ? "" : " (default)");
		break;
	case IDT_UNIFORM:
		/* gaps 1000/MAX + (1000/MIN - 1000/MAX) U ms */
		fprintf(out, "    dist uniform inta %lldns %lldns",
			ns_of_ms(1000 / f->idt_p[1]), ns_of_ms(1000 / f->idt_p[0]));
		note(out, s, "-U %g %g: gaps uniform, 1000/MAX .. 1000/MIN ms",
		     f->idt_p[0], f->idt_p[1]);
		break;
	case IDT_EXP:
		fprintf(out, "    dist exponential ");
		rate(out, f->idt_p[0], mean);
		note(out, s, "-E %g: mean packets/s", f->idt_p[0]);
		break;
	case IDT_WEIBULL:
		fprintf(out, "    dist weibull %.17g %lldns", f->idt_p[1],
			ns_of_ms(f->idt_p[0]));
		note(out, s, "-W %g %g: newran's Weibull(scale, shape)",
		     f->idt_p[0], f->idt_p[1]);
		break;
	case IDT_NORMAL:
	case IDT_CAUCHY:
		fprintf(out, "    dist %s %lldns %lldns", idt_name(f->idt),
			llround(f->idt_p[0] * 1e6), ns_of_ms(f->idt_p[1]));
		note(out, s, "%s %g %g (ms)", f->idt_tok->s, f->idt_p[0],
		     f->idt_p[1]);
		break;
	case IDT_PARETO:
	case IDT_GAMMA:
		fprintf(out, "    dist %s %.17g %lldns", idt_name(f->idt),
			f->idt_p[0], ns_of_ms(f->idt_p[1]));
		note(out, s, "%s %g %g: shape, scale (ms)", f->idt_tok->s,
		     f->idt_p[0], f->idt_p[1]);
		break;
	}
	/* flowSender(): -z with the default -t sends until the count */
	no_limit = f->count && f->duration == ITG_DURATION;
	s = ftell(out);
	if (no_limit)
		fprintf(out, "    time relative %llums",
			(unsigned long long)f->delay);
	else
		fprintf(out, "    time relative %llums %llums",
			(unsigned long long)f->delay,
			(unsigned long long)f->duration);
	note(out, s, "-d %llu%s, -t %llu%s", (unsigned long long)f->delay,
	     f->delay ? "" : " (default)", (unsigned long long)f->duration,
	     no_limit ? ": with -z, ITGSend's default -t is no limit" :
	     f->duration_given ? "" : " (default)");
	if (f->count) {
		s = ftell(out);
		fprintf(out, "    count %llu", (unsigned long long)f->count);
		note(out, s, "-z");
	}
	if (f->tos >= 0) {
		s = ftell(out);
		fprintf(out, "    tos 0x%02x", (unsigned int)f->tos);
		note(out, s, "-b");
	}
	if (f->ttl > 0) {
		s = ftell(out);
		fprintf(out, "    ttl %d", f->ttl);
		note(out, s, "-f");
	}
	if (f->proto) {
		s = ftell(out);
		fprintf(out, "    proto %s", f->proto);
		note(out, s, "-T %s: mtg's messages; mtgctl listen --accept %s:ADDR:PORT there records them",
		     f->proto_itg, f->proto);
	}
	if (f->precise) {
		s = ftell(out);
		fprintf(out, "    mode precise");
		note(out, s, "-poll");
	}
	if (f->rtt) {
		s = ftell(out);
		fprintf(out, "    meter rtt");
		note(out, s, o->itgrecv ?
		     "-m rttm: the ITGRecv sends each payload back as it came; this host records it" :
		     "-m rttm: the receiver sends each packet back (mtgctl recv --rtt, or mtgctl reflect), stamped in slot 3; this host records it");
	}
	if (f->seed) {
		s = ftell(out);
		fprintf(out, "    seed %u", f->seed);
		note(out, s, "-s, times 2^31 - 1");
	}
	if (o->key || o->itgrecv) {
		s = ftell(out);
		idf_endpoint_str(f->sig.family ? &f->sig : &f->dst,
				 f->sig_port ? f->sig_port : ITG_SIG_PORT, ep,
				 sizeof(ep));
		fprintf(out, "    rcvr %s%s", o->itgrecv ? "ditg " : "", ep);
		if (o->itgrecv)
			note(out, s, "-Sda, -Sdp; --itgrecv: set up with that ITGRecv, as ITGSend does");
		else
			note(out, s, "-Sda, -Sdp; --key: its mtgctl recv agrees%s",
			     f->rlog ? " and records it (-x)" : "");
	}
	if (o->itgrecv) {
		s = ftell(out);
		fprintf(out, "    header ditg");
		note(out, s, "--itgrecv: D-ITG's header, which ITGRecv reads");
	}
}

/*
 * t asks for the receiver's part, which needs its signalling (f NULL:
 * after a script); -x, which names the log ITGRecv writes, mtg's only.
 */
static int need_rcvr(const struct flow *f, const struct tok *t,
		     const struct itgsend_opts *o)
{
	struct flow cmdline = { .id = 0 };

	if (o->key || (o->itgrecv && strcmp(t->s, "-x")))
		return 0;
	if (o->itgrecv)
		flow_error(f && f->file ? f : &cmdline, t,
			   "'-x' with --itgrecv: D-ITG's message naming ITGRecv's log is not sent; start ITGRecv with -l, or use mtg's receiver (--key)");
	else
		flow_error(f && f->file ? f : &cmdline, t,
			   "'%s' needs the receiver's signalling: give --key FILE, the key of the mtgctl recv there, which agrees to each flow over TSP and records it; or --itgrecv for an unmodified ITGRecv",
			   t->s);
	return -1;
}

/* What only the whole flow tells; the interface it leaves through. */
static int finish_flow(struct flow *f, const struct itgsend_opts *opts,
		       char *dev_from, size_t size)
{
	char a[INET6_ADDRSTRLEN];
	int err;

	if (!f->dst.family) {
		f->dst.family = AF_INET;
		inet_pton(AF_INET, ITG_DEST, f->dst.addr);
	}
	if (f->src.family && f->src.family != f->dst.family) {
		flow_error(f, f->src_tok + 1, "'-sa' is IPv%d but the destination (-a) is IPv%d",
			   f->src.family == AF_INET6 ? 6 : 4,
			   f->dst.family == AF_INET6 ? 6 : 4);
		return -1;
	}
	if (check_preset(f) ||
	    check_sizes(f, f->dst.family == AF_INET6 ? L2_UDP_V6 : L2_UDP_V4,
			opts->itgrecv ? DITG_HDR : MTG_HDR))
		return -1;
	if ((f->rlog && need_rcvr(f, f->rlog, opts)) ||
	    (f->sig_tok && need_rcvr(f, f->sig_tok, opts)))
		return -1;
	if (f->proto && (opts->key || opts->itgrecv)) {
		flow_error(f, f->proto_tok, opts->itgrecv ?
			   "'%s' (over %s) with --itgrecv: an ITGRecv reads D-ITG's payloads over %s, which mtg does not send yet; mtg's own messages go to a 'mtgctl listen --accept' at the destination (no --itgrecv)" :
			   "'%s' (over %s) with --key: no mtgctl recv agrees flows over %s yet; mtg's messages go to a 'mtgctl listen --accept' at the destination (no --key)",
			   shown(f->proto_tok), f->proto_itg, f->proto_itg);
		return -1;
	}
	idf_addr_str(&f->dst, a, sizeof(a));
	if (f->dev[0]) {
		snprintf(dev_from, size, "-i");
		return 0;
	}
	if (opts->dev) {
		snprintf(f->dev, sizeof(f->dev), "%s", opts->dev);
		snprintf(dev_from, size, "--dev");
		return 0;
	}
	err = route_dev(&f->dst, f->dev);
	if (err) {
		flow_error(f, f->dst_tok, "no route to %s in this namespace (%s): give -i IFACE or --dev IFACE",
			   a, strerror(-err));
		return -1;
	}
	snprintf(dev_from, size, "the route to %s (ip route get)", a);
	return 0;
}

/* Cut a line into words (ITGSend's strtok on blanks), with their columns. */
static size_t words(char *line, struct tok *t, size_t max, size_t *over)
{
	char *c = line, *start;
	size_t n = 0;

	*over = 0;
	for (;;) {
		while (*c == ' ' || *c == '\t' || *c == '\r' || *c == '\n')
			c++;
		if (!*c)
			return n;
		start = c;
		while (*c && *c != ' ' && *c != '\t' && *c != '\r' && *c != '\n')
			c++;
		if (*c)
			*c++ = '\0';
		if (n == max) {
			*over = (size_t)(start - line) + 1;
			return n;
		}
		t[n].s = start;
		t[n].col = (unsigned int)(start - line) + 1;
		n++;
	}
}

struct translation {
	struct flow *flows;
	size_t n;
	char **lines;		/* the script's lines, the words point in */
	size_t nlines;
	struct tok *toks;	/* every word, flow after flow */
	struct tok *global;	/* the arguments after a script file */
	const struct tok *rlog;	/* -x among them */
};

static void translation_free(struct translation *x)
{
	size_t i;

	for (i = 0; i < x->nlines; i++)
		free(x->lines[i]);
	free(x->flows);
	free(x->lines);
	free(x->toks);
	free(x->global);
}

/* The script form: a flow a line, blank lines skipped. */
static int read_script(struct translation *x, const char *file)
{
	size_t cap = 0, ntoks = 0, nw, over;
	unsigned int lineno = 0;
	char *line = NULL;
	const char *why;
	struct flow *fl;
	struct tok *t;
	ssize_t got;
	FILE *in;
	int bad = 0;

	in = idf_fopen_regular(file, &why);
	if (!in) {
		pr_err("itgsend: cannot read the script file %s: %s\n", file, why);
		return -1;
	}
	while ((got = getline(&line, &cap, in)) >= 0) {
		void *m1 = realloc(x->lines, (x->nlines + 1) * sizeof(*x->lines));
		void *m2 = m1 ? realloc(x->flows, (x->n + 1) * sizeof(*x->flows)) : NULL;
		void *m3 = m2 ? realloc(x->toks, (ntoks + MAX_TOKS) * sizeof(*x->toks)) : NULL;

		if (m1)
			x->lines = m1;
		if (m2)
			x->flows = m2;
		if (m3)
			x->toks = m3;
		if (!m3 || !(x->lines[x->nlines] = strdup(line))) {
			pr_err("out of memory\n");
			bad = -1;
			break;
		}
		lineno++;
		fl = &x->flows[x->n];
		memset(fl, 0, sizeof(*fl));
		fl->id = (unsigned int)x->n + 1;
		fl->file = file;
		fl->line = lineno;
		if (memchr(line, '\0', (size_t)got)) {
			flow_error(fl, NULL, "a NUL byte in the line");
			bad = -1;
			continue;
		}
		t = x->toks + ntoks;
		nw = words(x->lines[x->nlines++], t, MAX_TOKS, &over);
		if (!nw)
			continue;	/* blank: ITGSend would send a default flow */
		if (over) {
			struct tok at = { "", (unsigned int)over };

			flow_error(fl, &at, "more than %d words on a line (ITGSend's most)",
				   MAX_TOKS);
			bad = -1;
			continue;
		}
		x->n++;
		ntoks += nw;
		if (parse_flow(fl, t, nw))
			bad = -1;
	}
	free(line);
	fclose(in);
	if (!x->n && !bad) {
		pr_err("itgsend: %s holds no flow (a line of ITGSend options each)\n",
		       file);
		return -1;
	}
	return bad;
}

/* Is args the script form: a first word that is neither option nor preset? */
static bool script_form(int nargs, char **args)
{
	static const char *const l7[] = { "Telnet", "VoIP", "DNS", "AoM",
					  "CSa", "CSi", "Quake3" };
	size_t i;

	if (!nargs || args[0][0] == '-')
		return false;
	for (i = 0; i < sizeof(l7) / sizeof(l7[0]); i++)
		if (!strcasecmp(args[0], l7[i]))
			return false;
	return true;
}

/* Every flow, checked; the IDF text into *text. */
static int translate(int nargs, char **args, const struct itgsend_opts *o,
		     struct translation *x, char **text, const char **name)
{
	char dev_from[IDF_NETNS_MAX + 64];
	size_t size, i;
	struct tok *t;
	FILE *out;
	int bad = 0;

	if (script_form(nargs, args)) {
		*name = args[0];
		t = calloc((size_t)nargs, sizeof(*t));
		if (!t)
			return -ENOMEM;
		x->global = t;
		for (i = 1; i < (size_t)nargs; i++)
			t[i - 1] = (struct tok){ args[i], (unsigned int)i };
		if (global_opts(t, nargs - 1, &x->rlog))
			return -1;
		if (x->rlog && need_rcvr(NULL, x->rlog, o))
			return -1;
		if (read_script(x, args[0]))
			return -1;
		/* -x after the file: every flow's receiver logs */
		for (i = 0; x->rlog && i < x->n; i++)
			x->flows[i].rlog = x->rlog;
	} else {
		*name = "itgsend";
		x->flows = calloc(1, sizeof(*x->flows));
		x->toks = calloc((size_t)nargs + 1, sizeof(*x->toks));
		if (!x->flows || !x->toks)
			return -ENOMEM;
		for (i = 0; i < (size_t)nargs; i++)
			x->toks[i] = (struct tok){ args[i], (unsigned int)i + 1 };
		x->n = 1;
		x->flows[0].id = 1;
		if (parse_flow(&x->flows[0], x->toks, (size_t)nargs))
			return -1;
	}
	out = open_memstream(text, &size);
	if (!out)
		return -ENOMEM;
	fprintf(out, "# mtgctl itgsend: ITGSend's options (D-ITG 2.8.1) as TGs, one a flow;\n# (default): ITGSend's\n");
	if (o->key)
		fprintf(out, "key %s\n", o->key);
	for (i = 0; i < x->n; i++) {
		if (finish_flow(&x->flows[i], o, dev_from, sizeof(dev_from))) {
			bad = -1;
			continue;
		}
		fputc('\n', out);
		write_tg(out, &x->flows[i], dev_from, o);
	}
	if (fclose(out))
		return -ENOMEM;
	return bad;
}

int cmd_itgsend(int nargs, char **args, const struct itgsend_opts *o)
{
	struct translation x = { 0 };
	struct idf_file f;
	const char *name = "itgsend";
	char *text = NULL;
	int ret, rc = EXIT_ERROR;

	if (o->key && o->itgrecv) {
		pr_err("itgsend: --key (mtg's receivers) or --itgrecv (D-ITG's), not both\n");
		return EXIT_ERROR;
	}
	ret = translate(nargs, args, o, &x, &text, &name);
	if (ret) {
		if (ret != -1)
			pr_err("itgsend: %s\n", strerror(-ret));
		fprintf(stderr, "%s: nothing started\n", name);
		goto out;
	}
	if (!o->idf) {
		rc = cmd_run_text("itgsend", text, &o->run);
		goto out;
	}
	/* Checked as run would check it: what is printed runs. */
	ret = idf_load_text(&f, "itgsend", text);
	if (ret) {
		idf_print_diags(&f, stderr);
		fprintf(stderr, "%s: the IDF itgsend made (above) is refused:\n%s",
			name, text);
	} else {
		fputs(text, stdout);
		rc = EXIT_OK;
	}
	idf_free(&f);
out:
	free(text);
	translation_free(&x);
	return rc;
}
