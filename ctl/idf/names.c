// SPDX-License-Identifier: GPL-2.0-or-later
/* The IDF's names: models, codecs, the words of enum values (idf.h). */
#include <arpa/inet.h>
#include <sys/socket.h>

#include "idf/idf.h"
#include "idf/parser.h"
#include "traffic/rng.h"

/* MTG's and D-ITG's models, by enum idf_dist (struct model: parser.h). */
const struct model models[IDF_DIST_COUNT] = {
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
	/* the NAME is parsed by parse_dist() */
	[IDF_DIST_BEHAVIOUR] = { "behaviour", NULL, "NAME", 0, 0 },
	/* D-ITG's presets; voip's words are parsed by parse_dist() */
	[IDF_DIST_VOIP] = { "voip", NULL, "CODEC [rtp|crtp] [vad]", 0, 0 },
	[IDF_DIST_TELNET] = { "telnet", NULL, "", 0, 0 },
	[IDF_DIST_DNS] = { "dns", NULL, "", 0, 0 },
	[IDF_DIST_QUAKE3] = { "quake3", NULL, "", 0, 0 },
	[IDF_DIST_CSA] = { "csa", NULL, "", 0, 0 },
	[IDF_DIST_CSI] = { "csi", NULL, "", 0, 0 },
};

/*
 * The laws of `pkts LAW`, by enum idf_len_law: the gap models' laws with
 * their parameters in bytes, and Poisson's (D-ITG's -o), a law of counts.
 */
const struct model len_laws[IDF_LEN_LAWS] = {
	[IDF_LEN_EXPONENTIAL] = { "exponential", NULL, "MEAN", 1, 1,
		{ "MEAN" }, { P_BYTES_POS } },
	[IDF_LEN_POISSON] = { "poisson", NULL, "MEAN", 1, 1,
		{ "MEAN" }, { P_BYTES_POS } },
	[IDF_LEN_NORMAL] = { "normal", NULL, "MEAN SD", 2, 2,
		{ "MEAN", "SD" }, { P_BYTES, P_BYTES_POS } },
	[IDF_LEN_CAUCHY] = { "cauchy", NULL, "MEDIAN SCALE", 2, 2,
		{ "MEDIAN", "SCALE" }, { P_BYTES, P_BYTES_POS } },
	[IDF_LEN_PARETO] = { "pareto", NULL, "SHAPE SCALE", 2, 2,
		{ "SHAPE", "SCALE" }, { P_POS, P_BYTES_POS } },
	[IDF_LEN_GAMMA] = { "gamma", NULL, "SHAPE SCALE", 2, 2,
		{ "SHAPE", "SCALE" }, { P_POS, P_BYTES_POS } },
	[IDF_LEN_WEIBULL] = { "weibull", NULL, "SHAPE SCALE", 2, 2,
		{ "SHAPE", "SCALE" }, { P_POS, P_BYTES_POS } },
	[IDF_LEN_LOGNORMAL] = { "lognormal", NULL, "MEDIAN SIGMA", 2, 2,
		{ "MEDIAN", "SIGMA" }, { P_BYTES_POS, P_POS } },
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
		[IDF_PKTS_LAW] = "law",
	};

	return k <= IDF_PKTS_LAW ? names[k] : "?";
}

const char *idf_len_law_name(enum idf_len_law l)
{
	return l < IDF_LEN_LAWS ? len_laws[l].name : "?";
}

unsigned int idf_len_law_nparams(enum idf_len_law l)
{
	return l < IDF_LEN_LAWS ? len_laws[l].nparam : 0;
}

const char *idf_len_law_param(enum idf_len_law l, unsigned int i)
{
	return l < IDF_LEN_LAWS && i < len_laws[l].nparam ?
		len_laws[l].pname[i] : NULL;
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
	return d == IDF_DIST_TRACE || d == IDF_DIST_BEHAVIOUR ||
		d >= IDF_DIST_VOIP;
}

const char *idf_rng_name(int rng)
{
	return rng_name(rng);
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

const char *idf_meter_name(enum idf_meter m)
{
	return m == IDF_METER_RTT ? "rtt" : "owd";
}

const char *idf_header_name(enum idf_header h)
{
	return h == IDF_HEADER_DITG ? "ditg" : "mtg";
}

const char *idf_proto_name(enum idf_proto p)
{
	static const char *const names[] = {
		[IDF_PROTO_UDP] = "udp", [IDF_PROTO_ICMP] = "icmp",
		[IDF_PROTO_TCP] = "tcp", [IDF_PROTO_SCTP] = "sctp",
		[IDF_PROTO_DCCP] = "dccp",
	};

	return names[p];
}

bool idf_proto_connected(enum idf_proto p)
{
	return p == IDF_PROTO_TCP || p == IDF_PROTO_SCTP ||
		p == IDF_PROTO_DCCP;
}

void idf_addr_str(const struct idf_addr *a, char *buf, size_t size)
{
	if (!a->family || !inet_ntop(a->family, a->addr, buf, size))
		snprintf(buf, size, "-");
}

void idf_endpoint_str(const struct idf_addr *a, uint16_t port, char *buf,
		      size_t size)
{
	char addr[64];

	idf_addr_str(a, addr, sizeof(addr));
	if (!a->family)
		snprintf(buf, size, "(from dev):%u", port);
	else if (a->family == AF_INET6)
		snprintf(buf, size, "[%s]:%u", addr, port);
	else
		snprintf(buf, size, "%s:%u", addr, port);
}
