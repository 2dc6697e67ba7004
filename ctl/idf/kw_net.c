// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The keywords of where and how a TG's packets go (device, namespace,
 * addresses, DSCP, path, timing mode), and the settings of the whole run
 * (listen, out, passthrough).
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "idf/idf.h"
#include "idf/parser.h"

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

int parse_dev(struct parser *p, struct idf_tg *tg)
{
	const char *what = "an interface name (at most 15 bytes)";
	struct tok *t = need(p, what);

	return t ? arg_name(p, t, IDF_DEVNAME_MAX, "/:", tg->dev, what) : -1;
}

int parse_netns(struct parser *p, struct idf_tg *tg)
{
	const char *what = "a namespace name (a file in /run/netns)";
	struct tok *t = need(p, what);

	return t ? arg_name(p, t, IDF_NETNS_MAX, "/", tg->netns, what) : -1;
}

int parse_cpu(struct parser *p, struct idf_tg *tg)
{
	const char *what = "a CPU number";
	struct tok *t = need(p, what);
	uint64_t v;

	if (!t || arg_uint(p, t, 0, 65535, what, &v))
		return -1;
	tg->cpu = (uint32_t)v;
	return 0;
}

int parse_src(struct parser *p, struct idf_tg *tg)
{
	struct tok *t = need(p, "ADDR[:PORT]");

	return t ? arg_endpoint(p, t, false, &tg->src) : -1;
}

/*
 * dst ADDR:PORT, or ADDR alone for `proto icmp` (an echo has no port;
 * validation says so of a UDP TG's, which may give `proto` later on).
 */
int parse_dst(struct parser *p, struct idf_tg *tg)
{
	struct tok *t = need(p, "ADDR:PORT");

	if (!t)
		return -1;
	if (!idf_parse_endpoint(t->s, false, &tg->dst) && tg->dst.family)
		return 0;
	return arg_endpoint(p, t, true, &tg->dst);
}

/*
 * addr (MTG): station ADDR:PORT is dst; broadcast PORT, the IPv4 broadcast
 * address of dev; myself PORT, the TG's own source address (the network
 * under test brings the packets back; `mac` names its first hop).
 */
int parse_addr(struct parser *p, struct idf_tg *tg)
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

int parse_tos(struct parser *p, struct idf_tg *tg)
{
	struct tok *t = need(p, WHAT_BYTE);

	return t ? arg_byte(p, t, &tg->tos) : -1;
}

int parse_ttl(struct parser *p, struct idf_tg *tg)
{
	const char *what = "a number from 1 to 255";
	struct tok *t = need(p, what);
	uint64_t v;

	if (!t || arg_uint(p, t, 1, 255, what, &v))
		return -1;
	tg->ttl = (uint8_t)v;
	return 0;
}

int parse_cos(struct parser *p, struct idf_tg *tg)
{
	const char *what = "a class of service, the DSCP 0 .. 63";
	struct tok *t = need(p, what);
	uint64_t v;

	if (!t || arg_uint(p, t, 0, 63, what, &v))
		return -1;
	tg->tos = (uint8_t)(v << 2);
	return 0;
}

int parse_data(struct parser *p, struct idf_tg *tg)
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

int parse_path(struct parser *p, struct idf_tg *tg)
{
	int v;

	if (parse_choice(p, "driver", "qdisc", &v))
		return -1;
	tg->path = v ? IDF_PATH_QDISC : IDF_PATH_DRIVER;
	return 0;
}

int parse_mode(struct parser *p, struct idf_tg *tg)
{
	int v;

	if (parse_choice(p, "plain", "precise", &v))
		return -1;
	tg->mode = v ? IDF_MODE_PRECISE : IDF_MODE_PLAIN;
	return 0;
}

int parse_late(struct parser *p, struct idf_tg *tg)
{
	int v;

	if (parse_choice(p, "catchup", "skip", &v))
		return -1;
	tg->late = v ? IDF_LATE_SKIP : IDF_LATE_CATCHUP;
	return 0;
}

int parse_mac(struct parser *p, struct idf_tg *tg)
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

int parse_threshold(struct parser *p, struct idf_tg *tg)
{
	struct tok *t = need(p, WHAT_INTA);

	return t ? arg_time(p, t, 6, WHAT_INTA, &tg->threshold) : -1;
}

/* DEV or DEV@NETNS (listen, probe) in t into *l; 0, or -1 (reported). */
static int arg_where(struct parser *p, struct tok *t, struct idf_listen *l)
{
	const char *why = idf_parse_listen(t->s, l);

	return why ? expected(p, t, "DEV or DEV@NETNS", why) : 0;
}

/* The first DEV[@NETNS] of a setting of the whole run; NULL if none
 * (reported). */
static struct tok *global_where(struct parser *p)
{
	return global_only(p) ? NULL : need(p, "DEV or DEV@NETNS");
}

int parse_listen(struct parser *p, struct idf_tg *tg)
{
	struct idf_file *f = p->f;
	struct idf_listen l, *n;
	struct tok *t;
	size_t i;

	(void)tg;
	t = global_where(p);
	if (!t)
		return -1;
	for (; t; t = p->pos < p->ntok && !is_keyword(p->toks[p->pos].s) ?
			&p->toks[p->pos++] : NULL) {
		if (arg_where(p, t, &l))
			return -1;
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

/* A file name for the whole run (out, key) into *dst. */
static int global_file(struct parser *p, const char *what, char **dst)
{
	struct tok *t;

	if (global_only(p))
		return -1;
	t = need(p, what);
	if (!t)
		return -1;
	free(*dst);
	*dst = strdup(t->s);
	return *dst ? 0 : -1;
}

int parse_out(struct parser *p, struct idf_tg *tg)
{
	(void)tg;
	return global_file(p, "a file name", &p->f->out);
}

/*
 * rcvr [ditg] ADDR[:PORT]: the receiver this TG's flow is agreed with
 * (TSP): an `mtgctl recv`, or with `ditg` an unmodified ITGRecv
 */
int parse_rcvr(struct parser *p, struct idf_tg *tg)
{
	const char *what = "ADDR[:PORT] of an `mtgctl recv`, or 'ditg' and an ITGRecv's (IPv6 in brackets: [2001:db8::1]:9000)";
	struct tok *t = need(p, what);

	tg->rcvr_ditg = t && !strcmp(t->s, "ditg");
	if (tg->rcvr_ditg)
		t = need(p, "ADDR[:PORT] of an ITGRecv");
	if (!t || arg_endpoint(p, t, false, &tg->rcvr))
		return -1;
	if (!tg->rcvr.family)
		return expected(p, t, what, "no address");
	return 0;
}

/*
 * meter owd | rtt [slot K]: one-way delays measured where the flow
 * arrives, or round trips: a reflector sends each frame back stamped in
 * slot K, and the run records it on the TG's own interface.
 */
int parse_meter(struct parser *p, struct idf_tg *tg)
{
	const char *what = "a slot, 0 to 3";
	struct tok *t;
	uint64_t slot;
	int v;

	if (parse_choice(p, "owd", "rtt", &v))
		return -1;
	tg->meter = v ? IDF_METER_RTT : IDF_METER_OWD;
	tg->rtt_slot = IDF_RTT_SLOT;
	if (p->pos >= p->ntok || is_keyword(p->toks[p->pos].s))
		return 0;
	t = &p->toks[p->pos++];
	if (strcmp(t->s, "slot"))
		return expected(p, t, "'slot K'",
				"the test-point slot the reflector stamps; 3 when not given");
	if (!v)
		return expected(p, t, "nothing after 'owd'",
				"a slot is the reflector's, for 'meter rtt'");
	t = need(p, what);
	if (!t || arg_uint(p, t, 0, IDF_PROBE_SLOTS - 1, what, &slot))
		return -1;
	tg->rtt_slot = (unsigned int)slot;
	return 0;
}

/* header mtg|ditg: the MTG header, or D-ITG's (an unmodified ITGRecv) */
int parse_header(struct parser *p, struct idf_tg *tg)
{
	int v;

	if (parse_choice(p, "mtg", "ditg", &v))
		return -1;
	tg->header = v ? IDF_HEADER_DITG : IDF_HEADER_MTG;
	return 0;
}

/*
 * proto udp|icmp|tcp|sctp|dccp: UDP datagrams, ICMP echo requests (round
 * trips), or messages over a connection
 */
int parse_proto(struct parser *p, struct idf_tg *tg)
{
	const char *what = "'udp', 'icmp', 'tcp', 'sctp' or 'dccp'";
	struct tok *t = need(p, what);
	int v;

	if (!t)
		return -1;
	for (v = IDF_PROTO_UDP; v <= IDF_PROTO_DCCP; v++)
		if (!strcmp(t->s, idf_proto_name(v))) {
			tg->proto = v;
			return 0;
		}
	return expected(p, t, what, NULL);
}

int parse_key(struct parser *p, struct idf_tg *tg)
{
	(void)tg;
	return global_file(p, "a key file (Documentation/tsp.rst)", &p->f->key);
}

/*
 * probe DEV[@NETNS] slot K [ingress|egress]: a test-point probe the run
 * attaches before T0 and detaches when it ends (Documentation/ebpf.rst).
 */
int parse_probe(struct parser *p, struct idf_tg *tg)
{
	struct idf_file *f = p->f;
	struct idf_probe pr = { 0 }, *n;
	struct idf_listen l;
	struct tok *t;
	uint64_t slot;
	size_t i;

	(void)tg;
	t = global_where(p);
	if (!t || arg_where(p, t, &l))
		return -1;
	memcpy(pr.dev, l.dev, sizeof(pr.dev));
	memcpy(pr.netns, l.netns, sizeof(pr.netns));
	pr.loc.line = p->line;
	pr.loc.col = t->col;
	pr.loc.src = f->cur_src;
	t = need(p, "'slot K'");
	if (!t)
		return -1;
	if (strcmp(t->s, "slot"))
		return expected(p, t, "'slot K'",
				"the header's test-point slot the probe writes");
	t = need(p, "a slot, 0 to 3");
	if (!t || arg_uint(p, t, 0, IDF_PROBE_SLOTS - 1, "a slot, 0 to 3", &slot))
		return -1;
	pr.slot = (unsigned int)slot;
	if (p->pos < p->ntok && !is_keyword(p->toks[p->pos].s)) {
		t = &p->toks[p->pos++];
		if (strcmp(t->s, "ingress") && strcmp(t->s, "egress"))
			return expected(p, t, "'ingress' or 'egress'",
					"the direction the probe stamps; ingress when not given");
		pr.egress = !strcmp(t->s, "egress");
	}
	for (i = 0; i < f->nprobes; i++) {
		n = &f->probes[i];
		if (!strcmp(n->dev, pr.dev) && !strcmp(n->netns, pr.netns) &&
		    n->egress == pr.egress) {
			error_at(f, p->line, pr.loc.col,
				 "'probe' on %s%s%s %s twice (first at line %u): one probe a direction of an interface",
				 pr.dev, pr.netns[0] ? "@" : "", pr.netns,
				 pr.egress ? "egress" : "ingress",
				 n->loc.line);
			return -1;
		}
	}
	n = realloc(f->probes, (f->nprobes + 1) * sizeof(*n));
	if (!n) {
		error_at(f, p->line, pr.loc.col, "out of memory");
		return -1;
	}
	f->probes = n;
	f->probes[f->nprobes++] = pr;
	return 0;
}

int parse_passthrough(struct parser *p, struct idf_tg *tg)
{
	int v;

	(void)tg;
	if (global_only(p) || parse_choice(p, "no", "yes", &v))
		return -1;
	p->f->passthrough = v;
	return 0;
}
