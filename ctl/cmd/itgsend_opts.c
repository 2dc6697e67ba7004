// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * mtgctl itgsend: ITGSend's options into a struct flow, each as ITGSend's
 * flowParser() (src/ITGSend/ITGSend.cpp) reads it, checked where ITGSend
 * checks it and where mtg needs more; an option mtg has no IDF for is an
 * error saying why. One table of them (itg_opts).
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
#include "util/text.h"

/* file:line:col or the command line, then what; never the tok's bytes raw. */
void flow_error(const struct flow *f, const struct tok *t, const char *fmt,
		...)
{
	va_list ap;

	if (f->file)
		fprintf(stderr, "%s:%u:%u: error: flow %u: ", f->file, f->line,
			t ? t->col : 1, f->id);
	else
		fprintf(stderr, "mtgctl: itgsend: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* A word as messages quote it. */
const char *shown(const struct tok *t)
{
	static char buf[4][96];
	static unsigned int next;
	char *b = buf[next++ % 4];

	if (!t)
		return "end of line";
	text_escape(b, sizeof(buf[0]), t->s);
	return b;
}

static bool to_double(const char *s, double *v)
{
	char *end;

	errno = 0;
	*v = strtod(s, &end);
	return end != s && !*end && !errno && isfinite(*v);
}

static bool to_long(const char *s, int base, long *v)
{
	char *end;

	errno = 0;
	*v = strtol(s, &end, base);
	return end != s && !*end && !errno;
}

/* The value after option o, or an error naming what o expects. */
static const struct tok *value(const struct flow *f, const struct tok *o,
			       int k, const char *what)
{
	const struct tok *v = o + k;

	if (v < f->end)
		return v;
	flow_error(f, o, "'%s' expects %s, got end of %s", o->s, what,
		   f->file ? "line" : "arguments");
	return NULL;
}

/* A number above lo (or from lo, when from), written as ITGSend takes it. */
static int num(const struct flow *f, const struct tok *o, int k,
	       const char *what, double lo, bool from, double *v)
{
	const struct tok *t = value(f, o, k, what);

	if (!t)
		return -1;
	if (!to_double(t->s, v) || (from ? *v < lo : *v <= lo)) {
		flow_error(f, t, "'%s' expects %s, got '%s'", o->s, what,
			   shown(t));
		return -1;
	}
	return 0;
}

/* A whole number in lo .. hi (base 0: 0x.. too, as ITGSend's strtol). */
static int whole(const struct flow *f, const struct tok *o, int k,
		 const char *what, long lo, long hi, int base, long *v)
{
	const struct tok *t = value(f, o, k, what);

	if (!t)
		return -1;
	if (!to_long(t->s, base, v) || *v < lo || *v > hi) {
		flow_error(f, t, "'%s' expects %s, got '%s'", o->s, what,
			   shown(t));
		return -1;
	}
	return 0;
}

/* An address or host name, resolved as ITGSend's getaddrinfo() does. */
static int host(const struct flow *f, const struct tok *o, struct idf_addr *a)
{
	const struct tok *t = value(f, o, 1, "an address or a host name");
	struct addrinfo hint = { .ai_socktype = SOCK_DGRAM }, *res;
	int err;

	if (!t)
		return -1;
	err = getaddrinfo(t->s, NULL, &hint, &res);
	if (err) {
		flow_error(f, t, "'%s' expects an address or a host name, got '%s' (%s)",
			   o->s, shown(t), gai_strerror(err));
		return -1;
	}
	memset(a, 0, sizeof(*a));
	a->family = res->ai_family;
	if (a->family == AF_INET6)
		memcpy(a->addr, &((struct sockaddr_in6 *)res->ai_addr)->sin6_addr, 16);
	else
		memcpy(a->addr, &((struct sockaddr_in *)res->ai_addr)->sin_addr, 4);
	freeaddrinfo(res);
	return 0;
}

/* Each option's setter: o is the option, its values follow it. */
typedef int (*set_fn)(struct flow *f, const struct tok *o);

static int set_dst(struct flow *f, const struct tok *o)
{
	uint16_t port = f->dst.port;

	if (host(f, o, &f->dst))
		return -1;
	f->dst.port = port;
	f->dst_tok = o;
	return 0;
}

static int set_src(struct flow *f, const struct tok *o)
{
	uint16_t port = f->src.port;

	if (host(f, o, &f->src))
		return -1;
	f->src.port = port;
	f->src_tok = o;
	return 0;
}

static int port(const struct flow *f, const struct tok *o, uint16_t *p)
{
	long v;

	if (whole(f, o, 1, "a port, 1 .. 65535", 1, 65535, 10, &v))
		return -1;
	*p = (uint16_t)v;
	return 0;
}

static int set_rp(struct flow *f, const struct tok *o)
{
	return port(f, o, &f->dst.port);
}

static int set_sp(struct flow *f, const struct tok *o)
{
	return port(f, o, &f->src.port);
}

static int set_iface(struct flow *f, const struct tok *o)
{
	const struct tok *t = value(f, o, 1, "an interface");

	if (!t)
		return -1;
	if (!t->s[0] || strlen(t->s) > IDF_DEVNAME_MAX) {
		flow_error(f, t, "'%s' expects an interface name of 1 to %d bytes, got '%s'",
			   o->s, IDF_DEVNAME_MAX, shown(t));
		return -1;
	}
	strcpy(f->dev, t->s);
	return 0;
}

static int set_proto(struct flow *f, const struct tok *o)
{
	const struct tok *t = value(f, o, 1, "UDP, TCP, ICMP, SCTP or DCCP");

	if (!t)
		return -1;
	f->proto = NULL;
	if (!strcasecmp(t->s, "UDP"))
		return 0;
	/* mtg's own messages over a connection; the receiver is checked
	 * with the options (an ITGRecv does not read them)
	 */
	if (!strcasecmp(t->s, "TCP") || !strcasecmp(t->s, "DCCP")) {
		bool tcp = !strcasecmp(t->s, "TCP");

		f->proto = tcp ? "tcp" : "dccp";
		f->proto_itg = tcp ? "TCP" : "DCCP";
		f->proto_tok = t;
		return 0;
	}
	/* D-ITG's ICMP is logged one way by an ITGRecv; mtg's is not */
	if (!strcasecmp(t->s, "ICMP")) {
		flow_error(f, t, "'%s ICMP': D-ITG's echoes are logged by an ITGRecv, one way; mtg's are answered by the destination's kernel and measured as round trips: write an IDF with 'proto icmp' (Documentation/ditg.rst)",
			   o->s);
		return -1;
	}
	/* D-ITG's association and streams have no meaning in mtg's */
	if (!strcasecmp(t->s, "SCTP")) {
		flow_error(f, t, "'%s SCTP': D-ITG's SCTP takes an association and its streams, which mtg's SCTP TGs do not share (one association a TG): write an IDF with 'proto sctp' (Documentation/idf.rst)",
			   o->s);
		return -1;
	}
	flow_error(f, t, "'%s' expects UDP, TCP, ICMP, SCTP or DCCP, got '%s'",
		   o->s, shown(t));
	return -1;
}

/* An IDT option: k values, each checked, into the flow's model. */
static int idt(struct flow *f, const struct tok *o, enum idt kind, int k,
	       const char *what0, double lo0, bool from0,
	       const char *what1, double lo1, bool from1)
{
	double v[2] = { 0, 0 };

	if (num(f, o, 1, what0, lo0, from0, &v[0]) ||
	    (k > 1 && num(f, o, 2, what1, lo1, from1, &v[1])))
		return -1;
	f->idt = kind;
	f->idt_p[0] = v[0];
	f->idt_p[1] = v[1];
	f->idt_tok = o;
	return 0;
}

#define RATE	"a rate above 0 (packets/s)"
#define MS_POS	"a time above 0 (ms)"

static int set_C(struct flow *f, const struct tok *o)
{
	return idt(f, o, IDT_CONST, 1, RATE, 0, false, NULL, 0, false);
}

static int set_U(struct flow *f, const struct tok *o)
{
	if (idt(f, o, IDT_UNIFORM, 2, RATE, 0, false, RATE, 0, false))
		return -1;
	if (f->idt_p[1] <= f->idt_p[0]) {	/* ITGSend: max above min */
		flow_error(f, o + 2, "'%s MIN MAX': MAX must be above MIN, got '%s'",
			   o->s, shown(o + 2));
		return -1;
	}
	return 0;
}

static int set_E(struct flow *f, const struct tok *o)
{
	return idt(f, o, IDT_EXP, 1, RATE, 0, false, NULL, 0, false);
}

/* mtg's normal and cauchy take a median or mean of 0 or more */
static int set_N(struct flow *f, const struct tok *o)
{
	return idt(f, o, IDT_NORMAL, 2, "a mean of 0 or more (ms)", 0, true,
		   "a standard deviation above 0 (ms)", 0, false);
}

static int set_V(struct flow *f, const struct tok *o)
{
	return idt(f, o, IDT_PARETO, 2, "a shape above 0", 0, false,
		   "a scale above 0 (ms)", 0, false);
}

static int set_Y(struct flow *f, const struct tok *o)
{
	return idt(f, o, IDT_CAUCHY, 2, "a location of 0 or more (ms)", 0,
		   true, "a scale above 0 (ms)", 0, false);
}

static int set_G(struct flow *f, const struct tok *o)
{
	return idt(f, o, IDT_GAMMA, 2, "a shape above 0", 0, false,
		   "a scale above 0 (ms)", 0, false);
}

/* -W A B: newran's Weibull(scale, shape) takes A as the scale */
static int set_W(struct flow *f, const struct tok *o)
{
	return idt(f, o, IDT_WEIBULL, 2, "a number above 0 (ITGSend's scale, ms)",
		   0, false, "a number above 0 (ITGSend's shape)", 0, false);
}

#define SIZE	"a UDP payload in bytes, 1 or more"

static int set_c(struct flow *f, const struct tok *o)
{
	if (whole(f, o, 1, SIZE, 1, 65535, 10, &f->ps_p[0]))
		return -1;
	f->ps = PS_CONST;
	f->ps_tok = o;
	return 0;
}

static int set_u(struct flow *f, const struct tok *o)
{
	if (whole(f, o, 1, SIZE, 1, 65535, 10, &f->ps_p[0]) ||
	    whole(f, o, 2, SIZE, 1, 65535, 10, &f->ps_p[1]))
		return -1;
	if (f->ps_p[1] <= f->ps_p[0]) {
		flow_error(f, o + 2, "'%s MIN MAX': MAX must be above MIN, got '%s'",
			   o->s, shown(o + 2));
		return -1;
	}
	f->ps = PS_UNIFORM;
	f->ps_tok = o;
	return 0;
}

/*
 * ITGSend's size laws (flowParser()'s cases e n o v y g w): the payload
 * the law's draw as an int, as mtg's `pkts LAW` draws it; p0, p1 in the
 * IDF's order.
 */
static int size_law(struct flow *f, const struct tok *o,
		    enum idf_len_law law, double p0, double p1)
{
	f->ps = PS_LAW;
	f->ps_law = law;
	f->ps_law_p[0] = p0;
	f->ps_law_p[1] = p1;
	f->ps_tok = o;
	return 0;
}

#define MEAN_SIZE	"a mean payload in bytes, 1 or more"

/* -e MEAN: MEAN * Exponential(1); ITGSend takes atoi(MEAN) >= 1 */
static int set_e(struct flow *f, const struct tok *o)
{
	long m;

	if (whole(f, o, 1, MEAN_SIZE, 1, 65535, 10, &m))
		return -1;
	return size_law(f, o, IDF_LEN_EXPONENTIAL, (double)m, 0);
}

/* -n MEAN SD: SD * Normal + MEAN, both atoi() */
static int set_n(struct flow *f, const struct tok *o)
{
	long m, sd;

	if (whole(f, o, 1, "a mean payload in bytes, 0 or more", 0, 65535,
		  10, &m) ||
	    whole(f, o, 2, "a standard deviation in bytes, 1 or more", 1,
		  65535, 10, &sd))
		return -1;
	return size_law(f, o, IDF_LEN_NORMAL, (double)m, (double)sd);
}

/* -o MEAN: Poisson(atoi(MEAN)) */
static int set_o(struct flow *f, const struct tok *o)
{
	long m;

	if (whole(f, o, 1, MEAN_SIZE, 1, 65535, 10, &m))
		return -1;
	return size_law(f, o, IDF_LEN_POISSON, (double)m, 0);
}

/* SHAPE SCALE, both strtod() and above 0 */
static int shape_scale(struct flow *f, const struct tok *o,
		       enum idf_len_law law)
{
	double a, b;

	if (num(f, o, 1, "a shape above 0", 0, false, &a) ||
	    num(f, o, 2, "a scale above 0 (bytes)", 0, false, &b))
		return -1;
	return size_law(f, o, law, a, b);
}

/* -v SHAPE SCALE: SCALE * newran's Pareto(SHAPE), which is 1 or more */
static int set_v(struct flow *f, const struct tok *o)
{
	return shape_scale(f, o, IDF_LEN_PARETO);
}

/* -y MEDIAN SCALE: SCALE * Cauchy + MEDIAN, both atoi() */
static int set_y(struct flow *f, const struct tok *o)
{
	long m, s;

	if (whole(f, o, 1, "a median payload in bytes, 0 or more", 0, 65535,
		  10, &m) ||
	    whole(f, o, 2, "a scale in bytes, 1 or more", 1, 65535, 10, &s))
		return -1;
	return size_law(f, o, IDF_LEN_CAUCHY, (double)m, (double)s);
}

/* -g SHAPE SCALE: SCALE * newran's Gamma(SHAPE) */
static int set_g(struct flow *f, const struct tok *o)
{
	return shape_scale(f, o, IDF_LEN_GAMMA);
}

/* -w A B: newran's Weibull(scale A, shape B), as -W */
static int set_w(struct flow *f, const struct tok *o)
{
	double a, b;

	if (num(f, o, 1, "a number above 0 (ITGSend's scale, bytes)", 0,
		false, &a) ||
	    num(f, o, 2, "a number above 0 (ITGSend's shape)", 0, false, &b))
		return -1;
	return size_law(f, o, IDF_LEN_WEIBULL, b, a);
}

static int set_t(struct flow *f, const struct tok *o)
{
	long v;

	if (whole(f, o, 1, "a duration above 0 (ms)", 1, LONG_MAX, 10, &v))
		return -1;
	f->duration = (uint64_t)v;
	f->duration_given = true;
	return 0;
}

static int set_d(struct flow *f, const struct tok *o)
{
	long v;

	if (whole(f, o, 1, "a delay of 0 or more (ms)", 0, LONG_MAX, 10, &v))
		return -1;
	f->delay = (uint64_t)v;
	return 0;
}

static int set_z(struct flow *f, const struct tok *o)
{
	long v;

	if (whole(f, o, 1, "a number of packets above 0", 1, LONG_MAX, 10, &v))
		return -1;
	f->count = (uint64_t)v;
	return 0;
}

static int set_b(struct flow *f, const struct tok *o)
{
	long v;

	if (whole(f, o, 1, "a DS byte, 0 .. 255", 0, 255, 0, &v))
		return -1;
	f->tos = (int)v;
	return 0;
}

static int set_f(struct flow *f, const struct tok *o)
{
	long v;

	if (whole(f, o, 1, "a TTL, 0 .. 255", 0, 255, 0, &v))
		return -1;
	f->ttl = (int)v;	/* 0: not set, the OS's 64 */
	return 0;
}

static int set_m(struct flow *f, const struct tok *o)
{
	const struct tok *t = value(f, o, 1, "owdm or rttm");

	if (!t)
		return -1;
	f->rtt = !strcasecmp(t->s, "rttm");
	if (f->rtt || !strcasecmp(t->s, "owdm"))
		return 0;
	flow_error(f, t, "'%s' expects owdm or rttm, got '%s'", o->s,
		   shown(t));
	return -1;
}

/* -x [FILE]: a file name follows unless a '-' word does (ITGSend's rule) */
static int set_x(struct flow *f, const struct tok *o)
{
	f->rlog = o;
	return 0;
}

static int set_s(struct flow *f, const struct tok *o)
{
	double v;

	if (num(f, o, 1, "a seed between 0 and 1", 0, false, &v))
		return -1;
	if (v >= 1) {
		flow_error(f, o + 1, "'%s' expects a seed between 0 and 1, got '%s'",
			   o->s, shown(o + 1));
		return -1;
	}
	/* onto mtg's seeds, 1 .. 2^31 - 2 */
	f->seed = (uint32_t)fmax(1, fmin(2147483646.0, round(v * 2147483647.0)));
	return 0;
}

static int set_j(struct flow *f, const struct tok *o)
{
	long v;

	if (whole(f, o, 1, "0 or 1", 0, 1, 10, &v))
		return -1;
	if (!v) {
		flow_error(f, o + 1, "'%s 0' (each gap from the last late packet, lateness kept) is " ISSUE
			   ": mtg keeps the rate (-j 1, 'late catchup') or skips late slots ('late skip')",
			   o->s);
		return -1;
	}
	return 0;
}

static int set_poll(struct flow *f, const struct tok *o)
{
	(void)o;
	f->precise = true;
	return 0;
}

static int set_sda(struct flow *f, const struct tok *o)
{
	f->sig_tok = o;
	return host(f, o, &f->sig);
}

static int set_sdp(struct flow *f, const struct tok *o)
{
	f->sig_tok = o;
	return port(f, o, &f->sig_port);
}

#define LOGS	"mtg keeps no sender-side log of each packet: the module stamps each packet's send time into it, which the receiver records; the run's counts go to --json FILE"

/*
 * ITGSend's options (flowParser()'s switch): how many values each takes
 * (-1: one that may be left out) and its setter, or why mtg has none.
 */
static const struct itg_opt {
	const char *name;
	int nargs;
	set_fn set;
	const char *no;
} itg_opts[] = {
	{ "-a", 1, set_dst, NULL },
	{ "-rp", 1, set_rp, NULL },
	{ "-sa", 1, set_src, NULL },
	{ "-sp", 1, set_sp, NULL },
	{ "-i", 1, set_iface, NULL },
	{ "-T", 1, set_proto, NULL },
	{ "-C", 1, set_C, NULL },
	{ "-U", 2, set_U, NULL },
	{ "-E", 1, set_E, NULL },
	{ "-N", 2, set_N, NULL },
	{ "-V", 2, set_V, NULL },
	{ "-Y", 2, set_Y, NULL },
	{ "-G", 2, set_G, NULL },
	{ "-W", 2, set_W, NULL },
	{ "-O", 1, NULL, "ITGSend draws each gap as 1000/N ms with N Poisson of that mean (flowParser's case 'O'), a law no IDF model has; " ISSUE "; -E RATE gives a Poisson process" },
	{ "-B", 2, NULL, "bursty on/off periods are " ISSUE },
	{ "-Ft", 1, NULL, "gaps read from a file are " ISSUE "; an IDF's 'dist trace FILE' takes times and lengths" },
	{ "-c", 1, set_c, NULL },
	{ "-u", 2, set_u, NULL },
	{ "-e", 1, set_e, NULL },
	{ "-n", 2, set_n, NULL },
	{ "-o", 1, set_o, NULL },
	{ "-v", 2, set_v, NULL },
	{ "-y", 2, set_y, NULL },
	{ "-g", 2, set_g, NULL },
	{ "-w", 2, set_w, NULL },
	{ "-Fs", 1, NULL, "packet sizes read from a file are " ISSUE },
	{ "-Fp", 1, NULL, "mtg's payload is its header and a pattern the receiver checks (the IDF's 'patt'), not a file's bytes" },
	{ "-t", 1, set_t, NULL },
	{ "-d", 1, set_d, NULL },
	{ "-z", 1, set_z, NULL },
	{ "-k", 1, NULL, "a number of KBytes to send is " ISSUE "; -z gives a number of packets" },
	{ "-b", 1, set_b, NULL },
	{ "-f", 1, set_f, NULL },
	{ "-m", 1, set_m, NULL },
	{ "-x", -1, set_x, NULL },
	{ "-l", -1, NULL, LOGS },
	{ "-L", -1, NULL, "logging to ITGLog is " ISSUE },
	{ "-X", -1, NULL, "logging to ITGLog is " ISSUE },
	{ "-q", 1, NULL, "mtg keeps no sender-side log to buffer (see -l)" },
	{ "-s", 1, set_s, NULL },
	{ "-j", 1, set_j, NULL },
	{ "-poll", 0, set_poll, NULL },
	{ "-p", 1, NULL, "the payload's metadata is mtg's header, always whole; D-ITG's payload header is " ISSUE },
	{ "-H", 0, NULL, "NAT traversal (passive mode) is " ISSUE },
	{ "-D", 0, NULL, "TCP's Nagle algorithm: TCP is " ISSUE },
	{ "-Sda", 1, set_sda, NULL },
	{ "-Sdp", 1, set_sdp, NULL },
	{ "-Ssa", 1, NULL, "the signalling channel's source address is " ISSUE },
	{ "-Ssp", 1, NULL, "the signalling channel's source port is " ISSUE },
	{ "-Si", 1, NULL, "the signalling channel's interface is " ISSUE },
	{ "-sk", 1, NULL, "serial-line signals are not supported" },
	{ "-rk", 1, NULL, "serial-line signals are not supported" },
	{ "-Q", 0, NULL, "ITGSend's daemon mode (ITGManager) is " ISSUE },
	{ "-gui", 0, NULL, "ITGSend's GUI mode is not supported" },
	{ "-h", 0, NULL, "for mtgctl's help on it: mtgctl help itgsend" },
	{ NULL, 0, NULL, NULL }
};

static const struct itg_opt *find_opt(const char *s)
{
	const struct itg_opt *o;

	for (o = itg_opts; o->name; o++)
		if (!strcmp(o->name, s))
			return o;
	return NULL;
}

/* VoIP's own options, which take the rest of the flow (voIPParser()). */
static int voip(struct flow *f, const struct tok *o)
{
	static const char *const codecs[] = { "G.711.1", "G.711.2",
					      "G.729.2", "G.729.3", "G.723.1" };
	const char *codec = "G.711.1", *proto = "rtp";
	const struct tok *t;
	bool vad = false;
	size_t i;

	for (t = o + 1; t < f->end; t++) {
		if (!strcmp(t->s, "-x")) {
			if (!value(f, t, 1, "a codec: G.711.1, G.711.2, G.729.2, G.729.3 or G.723.1"))
				return -1;
			for (i = 0; i < 5 && strcmp(t[1].s, codecs[i]); i++)
				;
			if (i == 5) {
				flow_error(f, t + 1, "VoIP's '-x' expects a codec: G.711.1, G.711.2, G.729.2, G.729.3 or G.723.1, got '%s'",
					   shown(t + 1));
				return -1;
			}
			codec = codecs[i];
			t++;
		} else if (!strcmp(t->s, "-h")) {
			if (!value(f, t, 1, "RTP or CRTP"))
				return -1;
			if (strcmp(t[1].s, "RTP") && strcmp(t[1].s, "CRTP")) {
				flow_error(f, t + 1, "VoIP's '-h' expects RTP or CRTP, got '%s'",
					   shown(t + 1));
				return -1;
			}
			proto = strcmp(t[1].s, "RTP") ? "crtp" : "rtp";
			t++;
		} else if (!strncmp(t->s, "-VAD", 4)) {	/* as ITGSend reads it */
			vad = true;
		} else {
			flow_error(f, t, "'%s' after VoIP: VoIP takes the rest of the flow's options, -x CODEC, -h RTP|CRTP and -VAD (ITGSend's voIPParser())",
				   shown(t));
			return -1;
		}
	}
	snprintf(f->preset, sizeof(f->preset), "voip %s %s%s", codec, proto,
		 vad ? " vad" : "");
	return 0;
}

/* An application's preset (findL7Proto()'s names, any case); words used. */
static int preset(struct flow *f, const struct tok *t)
{
	static const struct { const char *itg, *idf; } presets[] = {
		{ "DNS", "dns" }, { "Quake3", "quake3" },
		{ "CSa", "csa" }, { "CSi", "csi" },
	};
	size_t i;

	f->idt = IDT_PRESET;
	f->ps = PS_PRESET;
	f->idt_tok = f->ps_tok = t;
	if (!strcasecmp(t->s, "VoIP"))
		return voip(f, t) ? -1 : (int)(f->end - t);
	for (i = 0; i < sizeof(presets) / sizeof(presets[0]); i++)
		if (!strcasecmp(t->s, presets[i].itg)) {
			strcpy(f->preset, presets[i].idf);
			return 1;
		}
	/* over TCP, as flowParser sets -T TCP for it */
	if (!strcasecmp(t->s, "Telnet")) {
		strcpy(f->preset, "telnet");
		f->proto = "tcp";
		f->proto_itg = "TCP";
		f->proto_tok = t;
		return 1;
	}
	if (!strcasecmp(t->s, "AoM"))
		flow_error(f, t, "'%s': ITGSend 2.8.1 has no AoM traffic (flowParser does not handle it)",
			   shown(t));
	else
		flow_error(f, t, "'%s' is neither an ITGSend option (they start with '-') nor an application (VoIP, Telnet, DNS, Quake3, CSa, CSi)",
			   shown(t));
	return -1;
}

/* The words of one flow into f; 0 or -1 (said). */
int parse_flow(struct flow *f, const struct tok *t, size_t n)
{
	const struct itg_opt *o;
	const struct tok *v;
	int used, k;

	f->end = t + n;
	f->dst.port = ITG_PORT;
	f->duration = ITG_DURATION;
	f->idt = IDT_CONST;
	f->idt_p[0] = ITG_RATE;
	f->ps = PS_CONST;
	f->ps_p[0] = ITG_SIZE;
	f->tos = f->ttl = -1;
	while (t < f->end) {
		if (t->s[0] != '-') {
			used = preset(f, t);
			if (used < 0)
				return -1;
			t += used;
			continue;
		}
		o = find_opt(t->s);
		if (!o) {
			flow_error(f, t, "'%s' is not an ITGSend option ('ITGSend -h' lists them)",
				   shown(t));
			return -1;
		}
		if (o->no) {
			flow_error(f, t, "'%s': %s", o->name, o->no);
			return -1;
		}
		if (f->file && (o->set == set_x)) {
			flow_error(f, t, "'%s' is not allowed in a script file (as in ITGSend): give it after the file's name",
				   o->name);
			return -1;
		}
		if (o->set(f, t))
			return -1;
		k = o->nargs;
		if (k < 0) {	/* an optional value: a word not starting with - */
			v = t + 1;
			k = v < f->end && v->s[0] != '-' ? 1 : 0;
		}
		t += 1 + k;
	}
	return 0;
}

/* The log options after a script file (parserMultiFlows()). */
int global_opts(const struct tok *t, int nargs, const struct tok **rlog)
{
	struct flow where = { .id = 0 };	/* messages: the command line */
	int i;

	for (i = 0; i < nargs; i++) {
		const struct itg_opt *o = find_opt(t[i].s);

		if (o && o->set == set_x) {
			*rlog = &t[i];
			if (i + 1 < nargs && t[i + 1].s[0] != '-')
				i++;	/* the receiver's log file: its own */
			continue;
		}
		if (o && o->no && (!strcmp(o->name, "-l") || !strcmp(o->name, "-L") ||
				   !strcmp(o->name, "-X") || !strcmp(o->name, "-q"))) {
			flow_error(&where, &t[i], "'%s': %s", o->name, o->no);
			return -1;
		}
		flow_error(&where, &t[i], "'%s' after a script file: ITGSend takes only -l, -L, -x, -X and -q there (each flow's options go on its line)",
			   shown(&t[i]));
		return -1;
	}
	return 0;
}
