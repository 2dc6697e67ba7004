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
#include "module/iface.h"
#include "util/text.h"

/* ITGSend's defaults: src/common/ITG.h, src/ITGSend/traffic.cpp */
#define ITG_DEST	"127.0.0.1"	/* DEFAULT_DEST_IP: -a */
#define ITG_PORT	8999		/* DEFAULT_PORT: -rp */
#define ITG_SIG_PORT	9000		/* DEFAULT_PORT_SIGNALING: -Sdp */
#define ITG_RATE	1000		/* DefaultPktPerSec: -C */
#define ITG_SIZE	512		/* DefaultPktSize: -c */
#define ITG_DURATION	10000		/* DefaultDuration, ms: -t */

/* What a frame adds to -c's UDP payload: Ethernet, IP, UDP. */
#define L2_UDP_V4	(14 + 20 + 8)
#define L2_UDP_V6	(14 + 40 + 8)
#define MTG_HDR		(IDF_LEN_MIN_IPV4 - L2_UDP_V4)	/* 88 */

#define ISSUE		"not supported yet (issue 20)"
#define MAX_TOKS	200		/* ITGSend's argv[200] of a flow */

/* An argument, or a word of a script line and its column. */
struct tok {
	const char *s;
	unsigned int col;
};

enum idt { IDT_CONST, IDT_UNIFORM, IDT_EXP, IDT_NORMAL, IDT_PARETO,
	   IDT_CAUCHY, IDT_GAMMA, IDT_WEIBULL, IDT_PRESET };
enum ps { PS_CONST, PS_UNIFORM, PS_PRESET };

struct flow {
	unsigned int id;		/* ITGSend's flow id: 1, 2, ... */
	const char *file;		/* the script; NULL: the command line */
	unsigned int line;
	const struct tok *end;		/* past the flow's last word */

	enum idt idt;
	double idt_p[2];		/* as written: packets/s or ms */
	const struct tok *idt_tok;	/* what set it; NULL: ITGSend's default */
	enum ps ps;
	long ps_p[2];			/* bytes of UDP payload */
	const struct tok *ps_tok;
	char preset[48];		/* an application's `dist ...` */

	struct idf_addr dst, src;	/* port 0: not given */
	const struct tok *dst_tok, *src_tok;
	char dev[IDF_DEVNAME_MAX + 1];	/* -i */
	uint64_t duration;		/* ms */
	bool duration_given;
	uint64_t delay;			/* ms */
	uint64_t count;			/* -z; 0: none */
	int tos, ttl;			/* -1: not given (-f 0: the OS's) */
	bool precise;			/* -poll */
	uint32_t seed;			/* 0: mtg's default */
	const struct tok *rlog;		/* -x: the receiver logs */
	struct idf_addr sig;		/* -Sda, family 0: the -a host */
	uint16_t sig_port;		/* -Sdp; 0: ITG_SIG_PORT */
	const struct tok *sig_tok;
};

/* file:line:col or the command line, then what; never the tok's bytes raw. */
static void flow_error(const struct flow *f, const struct tok *t,
		       const char *fmt, ...)
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
static const char *shown(const struct tok *t)
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
	static const char *const others[] = { "TCP", "ICMP", "SCTP", "DCCP" };
	const struct tok *t = value(f, o, 1, "UDP, TCP, ICMP, SCTP or DCCP");
	size_t i;

	if (!t)
		return -1;
	if (!strcasecmp(t->s, "UDP"))
		return 0;
	for (i = 0; i < sizeof(others) / sizeof(others[0]); i++)
		if (!strcasecmp(t->s, others[i])) {
			flow_error(f, t, "'%s %s': mtg sends UDP only; %s is " ISSUE,
				   o->s, others[i], others[i]);
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
	if (!strcasecmp(t->s, "owdm"))
		return 0;
	if (!strcasecmp(t->s, "rttm"))
		flow_error(f, t, "'%s rttm': the round-trip meter is " ISSUE
			   "; mtg measures one-way delay (-m owdm)", o->s);
	else
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

#define SIZES	"packet sizes from that distribution are " ISSUE \
	": mtg draws sizes constant (-c) or uniform (-u)"
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
	{ "-e", 1, NULL, SIZES },
	{ "-n", 2, NULL, SIZES },
	{ "-o", 1, NULL, SIZES },
	{ "-v", 2, NULL, SIZES },
	{ "-y", 2, NULL, SIZES },
	{ "-g", 2, NULL, SIZES },
	{ "-w", 2, NULL, SIZES },
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
	if (!strcasecmp(t->s, "Telnet"))
		flow_error(f, t, "'%s': ITGSend sends its Telnet over TCP (flowParser sets -T TCP); TCP is " ISSUE,
			   shown(t));
	else if (!strcasecmp(t->s, "AoM"))
		flow_error(f, t, "'%s': ITGSend 2.8.1 has no AoM traffic (flowParser does not handle it)",
			   shown(t));
	else
		flow_error(f, t, "'%s' is neither an ITGSend option (they start with '-') nor an application (VoIP, Telnet, DNS, Quake3, CSa, CSi)",
			   shown(t));
	return -1;
}

/* The words of one flow into f; 0 or -1 (said). */
static int parse_flow(struct flow *f, const struct tok *t, size_t n)
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

/* Lengths at L2 (the IDF's pkts) from the UDP payload ITGSend sends. */
static int check_sizes(const struct flow *f, unsigned int over)
{
	long lo = f->ps_p[0], hi = f->ps == PS_UNIFORM ? f->ps_p[1] - 1 : lo;
	const struct tok *t = f->ps_tok;

	if (f->ps == PS_PRESET)
		return 0;
	if (lo < MTG_HDR) {
		flow_error(f, t ? t + 1 : NULL, "'%s %ld': mtg's header takes %d bytes of the UDP payload, so the smallest payload is %d; D-ITG's smaller header is " ISSUE,
			   t ? t->s : "-c", lo, MTG_HDR, MTG_HDR);
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

/* The flow's TG; over: the bytes a frame adds to the UDP payload. */
static void write_tg(FILE *out, const struct flow *f, const char *dev_from,
		     const char *key)
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
	if (f->precise) {
		s = ftell(out);
		fprintf(out, "    mode precise");
		note(out, s, "-poll");
	}
	if (f->seed) {
		s = ftell(out);
		fprintf(out, "    seed %u", f->seed);
		note(out, s, "-s, times 2^31 - 1");
	}
	if (key) {
		s = ftell(out);
		idf_endpoint_str(f->sig.family ? &f->sig : &f->dst,
				 f->sig_port ? f->sig_port : ITG_SIG_PORT, ep,
				 sizeof(ep));
		fprintf(out, "    rcvr %s", ep);
		note(out, s, "-Sda, -Sdp; --key: its mtgctl recv agrees%s",
		     f->rlog ? " and records it (-x)" : "");
	}
}

/* t asks for the receiver's part, which needs TSP (f NULL: after a script). */
static void need_key(const struct flow *f, const struct tok *t)
{
	struct flow cmdline = { .id = 0 };

	flow_error(f && f->file ? f : &cmdline, t,
		   "'%s' needs the receiver's signalling: mtg's receiver, mtgctl recv, agrees to each flow over TSP and records it; give --key FILE, the key it holds (ITGRecv as the receiver is " ISSUE ")",
		   t->s);
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
	    check_sizes(f, f->dst.family == AF_INET6 ? L2_UDP_V6 : L2_UDP_V4))
		return -1;
	if (!opts->key && (f->rlog || f->sig_tok)) {
		need_key(f, f->sig_tok ? f->sig_tok : f->rlog);
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

/* The log options after a script file (parserMultiFlows()). */
static int global_opts(struct translation *x, int nargs, struct tok *t)
{
	struct flow where = { .id = 0 };	/* messages: the command line */
	int i;

	for (i = 0; i < nargs; i++) {
		const struct itg_opt *o = find_opt(t[i].s);

		if (o && o->set == set_x) {
			x->rlog = &t[i];
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
		if (global_opts(x, nargs - 1, t))
			return -1;
		if (x->rlog && !o->key) {
			need_key(NULL, x->rlog);
			return -1;
		}
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
		write_tg(out, &x->flows[i], dev_from, o->key);
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
