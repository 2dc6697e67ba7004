/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * IDF: the experiment description mtgctl reads (Documentation/idf.rst).
 *
 * A file is a list of keyword groups (`keyword value...`), several per line
 * if wanted, `#` to the end of a line a comment. Groups before the first
 * `tgid` are the globals: defaults for every TG, and the settings of the
 * run as a whole (`listen`, `out`, `passthrough`), which only go there.
 * Each `tgid N` starts a TG.
 *
 * idf_parse() reads a file into struct idf_file, collecting every error it
 * finds (up to IDF_MAX_DIAGS) with file:line:column; idf_validate() checks
 * what only a whole TG can tell (a destination, a rate, lengths that fit
 * the headers). A file with errors is never run.
 */
#ifndef MTGCTL_IDF_H
#define MTGCTL_IDF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define IDF_MAX_DIAGS		20	/* errors reported before giving up */
#define IDF_DEVNAME_MAX		15	/* IFNAMSIZ - 1 */
#define IDF_NETNS_MAX		255	/* a file name under /run/netns */
#define IDF_PATH_MAX		1023	/* a trace or pcap file's path */
#define IDF_TEXT_MAX		(16 << 20)	/* bytes of an IDF file */
#define IDF_RANGE_MAX		(1u << 20)	/* TGs of one `tgid A-B` range */

/*
 * Frame lengths at L2 without FCS: Ethernet 14, IPv4 20 or IPv6 40, UDP 8,
 * then the MTG header (MTG_HDR_LEN), or D-ITG's (`header ditg`,
 * MTG_DITG_HDR_LEN). The largest is a 9000-byte jumbo frame with its
 * Ethernet and VLAN headers.
 */
#define IDF_L4_OVER_IPV4	(14 + 20 + 8)
#define IDF_L4_OVER_IPV6	(14 + 40 + 8)
#define IDF_MTG_HDR		88
#define IDF_DITG_HDR		16
#define IDF_LEN_MIN_IPV4	(IDF_L4_OVER_IPV4 + IDF_MTG_HDR)	/* 130 */
#define IDF_LEN_MIN_IPV6	(IDF_L4_OVER_IPV6 + IDF_MTG_HDR)	/* 150 */
#define IDF_LEN_MAX		9018

#define IDF_SRC_PORT_BASE	4000	/* default source port: 4000 + tgid */
#define IDF_CTRL_MAX		1024	/* bytes of a control message */
#define IDF_TSP_PORT		9000	/* rcvr's default: TSP's, ITGRecv's */
#define IDF_PROBE_SLOTS		4	/* mtg_hdr.tp_ns[]: a probe's slot */
#define IDF_RTT_SLOT		3	/* meter rtt's default reflector slot */
#define IDF_HOST_PORT		9998	/* host's default: ITGSend's daemon mode */
#define IDF_HOST_NAME_MAX	64	/* [A-Za-z0-9._-], not '.' first */

/*
 * The keywords, one list so the parser, the checks and the output agree:
 * K(name, its arguments' grammar, for the reader of this list).
 */
#define IDF_KEYWORDS(K)						\
	K(tgid,		"N")					\
	K(dist,		"MODEL [PARAMETERS]")			\
	K(pkts,		"fixed|variable MAX [MIN] | computed")	\
	K(inta,		"MIN [MAX]")				\
	K(thro,		"REQ [MIN]")				\
	K(time,		"relative START [DURATION] | absolute WHEN [DURATION] | user [DURATION] | poisson IDLE CALL") \
	K(count,	"N")					\
	K(patt,		"fixed|random|incremental N")		\
	K(seed,		"N")					\
	K(rng,		"mt19937|lehmer")			\
	K(samplers,	"1|2")					\
	K(table,	"loop|stream")				\
	K(jitt,		"MAX")					\
	K(cos,		"N")					\
	K(data,		"stream|bulk|interactive")		\
	K(nowb,		"N")					\
	K(qlen,		"N")					\
	K(rpol,		"PERCENT")				\
	K(include,	"FILE")					\
	K(addr,		"station ADDR:PORT | broadcast PORT | myself PORT")	\
	K(dev,		"NAME")					\
	K(netns,	"NAME")					\
	K(cpu,		"N")					\
	K(src,		"ADDR[:PORT]")				\
	K(dst,		"ADDR:PORT | ADDR (proto icmp)")	\
	K(tos,		"N")					\
	K(ttl,		"N")					\
	K(path,		"driver|qdisc")				\
	K(mode,		"plain|precise")			\
	K(late,		"catchup|skip")				\
	K(mac,		"XX:XX:XX:XX:XX:XX")			\
	K(threshold,	"DURATION")				\
	K(listen,	"DEV[@NETNS] [DEV[@NETNS]...]")		\
	K(out,		"FILE")					\
	K(passthrough,	"no|yes")				\
	K(ctrl,		"TIME DATA")				\
	K(keep,		"headers | payload [wrongbits] | wrongbits [payload]") \
	K(behaviour,	"NAME")					\
	K(category,	"NAME MEAN [dist ...] [pkts ...] [inta ...] [thro ...]") \
	K(next,		"FROM TO P [TO P...]")			\
	K(rcvr,		"[ditg] ADDR[:PORT]")			\
	K(key,		"FILE")					\
	K(probe,	"DEV[@NETNS] slot K [ingress|egress]")	\
	K(host,		"NAME ADDR[:PORT] (globals) | NAME (a TG)")	\
	K(meter,	"owd | rtt [slot K]")			\
	K(header,	"mtg|ditg")				\
	K(proto,	"udp|icmp")

enum idf_kw {
#define IDF_KW_ENUM(name, args) IDF_KW_##name,
	IDF_KEYWORDS(IDF_KW_ENUM)
#undef IDF_KW_ENUM
	IDF_KW_COUNT
};

/* A keyword's bit in struct idf_tg's set, bad and own. */
#define IDF_KW_BIT(kw)		(1ULL << (kw))
_Static_assert(IDF_KW_COUNT <= 64, "keywords must fit the 64-bit masks");

/* The models of the gaps between departures (Documentation/idf.rst). */
enum idf_dist {
	IDF_DIST_FIXED,
	IDF_DIST_UNIFORM,	/* MTG's "random" */
	IDF_DIST_EXPONENTIAL,	/* MTG's "poisson" */
	IDF_DIST_MMPP,		/* 2-state Markov-modulated Poisson */
	IDF_DIST_VOICE,		/* talkspurts and silences */
	IDF_DIST_FGN,		/* fractional Gaussian noise */
	IDF_DIST_PARETO,	/* D-ITG's */
	IDF_DIST_CAUCHY,
	IDF_DIST_NORMAL,
	IDF_DIST_GAMMA,
	IDF_DIST_WEIBULL,
	IDF_DIST_LOGNORMAL,
	IDF_DIST_TRACE,		/* (time, length) pairs from a file */
	IDF_DIST_PCAP,		/* the timing of a pcap file */
	IDF_DIST_BEHAVIOUR,	/* categories of actions, a Markov chain */
	IDF_DIST_VOIP,		/* D-ITG's presets: gaps and lengths */
	IDF_DIST_TELNET,
	IDF_DIST_DNS,
	IDF_DIST_QUAKE3,
	IDF_DIST_CSA,
	IDF_DIST_CSI,
	IDF_DIST_COUNT
};
#define IDF_DIST_PARAMS		3	/* most parameters a model takes */

enum idf_pkts {
	IDF_PKTS_FIXED,
	IDF_PKTS_VARIABLE,	/* uniform on len_min .. len_max */
	IDF_PKTS_COMPUTED,
	IDF_PKTS_LAW,		/* drawn from len_law, clamped to len_min .. len_max */
};
/* The laws `pkts` draws lengths from: the gap models' laws and Poisson's. */
enum idf_len_law {
	IDF_LEN_EXPONENTIAL,
	IDF_LEN_POISSON,
	IDF_LEN_NORMAL,
	IDF_LEN_CAUCHY,
	IDF_LEN_PARETO,
	IDF_LEN_GAMMA,
	IDF_LEN_WEIBULL,
	IDF_LEN_LOGNORMAL,
	IDF_LEN_LAWS
};
/* A law's lengths are clamped to this by default (a standard Ethernet frame). */
#define IDF_LEN_LAW_MAX		1514
enum idf_fgn { IDF_FGN_EXACT, IDF_FGN_RMD };
enum idf_table { IDF_TABLE_LOOP, IDF_TABLE_STREAM };
enum idf_time {
	IDF_TIME_RELATIVE,
	IDF_TIME_POISSON,
	IDF_TIME_ABSOLUTE,
	IDF_TIME_USER,		/* started by the operator */
};
enum idf_data { IDF_DATA_STREAM, IDF_DATA_BULK, IDF_DATA_INTERACTIVE };
/* MTG's address types: dst as given, dev's IPv4 broadcast, our own address */
enum idf_addr_kind { IDF_ADDR_STATION, IDF_ADDR_BROADCAST, IDF_ADDR_MYSELF };
enum idf_patt { IDF_PATT_FIXED, IDF_PATT_RANDOM, IDF_PATT_INCR };
enum idf_path { IDF_PATH_DRIVER, IDF_PATH_QDISC };
enum idf_mode { IDF_MODE_PLAIN, IDF_MODE_PRECISE };
enum idf_late { IDF_LATE_CATCHUP, IDF_LATE_SKIP };
/* What the TG measures: one way, or round trips through a reflector. */
enum idf_meter { IDF_METER_OWD, IDF_METER_RTT };
/* The header its packets carry: MTG's, or D-ITG's standard one. */
enum idf_header { IDF_HEADER_MTG, IDF_HEADER_DITG };
/* What carries them: UDP datagrams, or ICMP echo requests (`proto`). */
enum idf_proto {
	IDF_PROTO_UDP, IDF_PROTO_ICMP,
	/* over a connection the module opens: a message per slot */
	IDF_PROTO_TCP, IDF_PROTO_SCTP, IDF_PROTO_DCCP,
};
/* What receivers keep of a TG's packets besides the header (`keep`). */
#define IDF_KEEP_PAYLOAD	(1U << 0)
#define IDF_KEEP_BITS		(1U << 1)

/* Where something was written: 1-based line and byte column, in which file. */
struct idf_loc {
	unsigned int line;
	unsigned int col;
	unsigned int src;	/* 0: the file itself; i: includes[i - 1] */
};

#define IDF_INCLUDE_DEPTH	8	/* files included from included files */

/* A file `include` read, kept for the recording. */
struct idf_source {
	char *name;		/* as resolved: relative to the includer */
	char *text;
	size_t text_len;
};

struct idf_addr {
	int family;		/* AF_INET or AF_INET6; 0: no address given */
	uint8_t addr[16];	/* network order; IPv4 in the first 4 bytes */
	uint16_t port;		/* 0: none given */
};

struct idf_behaviour;

/* One TG as written, globals applied. Units in the comments. */
struct idf_tg {
	uint32_t id;
	uint32_t range_lo;	/* made by `tgid LO-HI`; 0: written alone */
	uint32_t range_hi;
	uint64_t set;		/* 1 << IDF_KW_*: given here or in the globals */
	uint64_t bad;		/* 1 << IDF_KW_*: given with an error */
	uint64_t own;		/* 1 << IDF_KW_*: given in the TG's section */
	struct idf_loc loc[IDF_KW_COUNT];	/* where each was given */

	enum idf_dist dist;
	/*
	 * The model's parameters in the order `dist` takes them: times in
	 * nanoseconds, other numbers as written.
	 */
	double dist_param[IDF_DIST_PARAMS];
	enum idf_fgn fgn_method;
	/* dist behaviour NAME: the behaviour (idf_file.behs) */
	const struct idf_behaviour *beh;
	/* trace, pcap: the file, relative paths taken from the IDF's directory */
	char dist_file[IDF_PATH_MAX + 1];
	enum idf_pkts pkts;
	uint32_t len_max;	/* pkts: bytes at L2 without FCS */
	uint32_t len_min;	/* a law's: 0 until the smallest frame is known */
	enum idf_len_law len_law;	/* pkts LAW: the law, its parameters */
	double len_param[2];		/* in bytes where they are lengths */
	uint32_t len_plus;		/* bytes added to each draw (`plus`) */
	bool len_within;		/* len_min .. len_max given (`within`) */
	uint64_t inta_min;	/* nanoseconds */
	uint64_t inta_max;	/* nanoseconds */
	uint64_t thro_req;	/* bit/s */
	uint64_t thro_min;	/* bit/s; 0: not given */
	enum idf_time time;
	uint64_t start;		/* nanoseconds after the run's T0 */
	uint64_t start_abs;	/* time absolute: CLOCK_REALTIME ns */
	uint64_t duration;	/* nanoseconds; 0: no limit */
	uint64_t call_idle;	/* time poisson: mean idle time between calls, ns */
	uint64_t call_len;	/* time poisson: mean call duration, ns */
	uint64_t jitter;	/* jitt: each departure later by U(0, jitter) ns */
	enum idf_data data;	/* valid if set has IDF_KW_data */
	uint64_t nowb;		/* wrong bits between BER updates; 0: each */
	uint64_t qlen;		/* packets the network under test may queue */
	uint32_t rpol;		/* percent of thro MIN .. REQ to request */
	uint64_t count;		/* packets; 0: no limit */
	enum idf_patt patt;
	uint8_t patt_value;
	uint32_t seed;		/* 1 .. 2^31 - 2 */
	int rng;		/* enum rng_kind */
	int samplers;		/* 1, 2, if set has IDF_KW_samplers */
	int table;		/* enum idf_table, if set has IDF_KW_table */
	char dev[IDF_DEVNAME_MAX + 1];
	char netns[IDF_NETNS_MAX + 1];	/* "": the caller's namespace */
	uint32_t cpu;		/* valid if set has IDF_KW_cpu */
	struct idf_addr src;
	struct idf_addr dst;	/* station; broadcast, myself: port and family */
	enum idf_addr_kind addr;
	uint8_t tos;
	uint8_t ttl;
	enum idf_path path;
	enum idf_mode mode;
	enum idf_late late;
	uint8_t mac[6];		/* valid if set has IDF_KW_mac */
	uint64_t threshold;	/* nanoseconds; 0: none */
	unsigned int keep;	/* IDF_KEEP_*: what receivers keep */
	struct idf_addr rcvr;	/* the remote receiver (TSP); valid if set
				 * has IDF_KW_rcvr, port 0: TSP's default */
	bool rcvr_ditg;		/* rcvr ditg: an unmodified ITGRecv, D-ITG's
				 * signalling, no key */
	char host[IDF_HOST_NAME_MAX + 1];	/* `host NAME`: where the TG
						 * runs (mtgctl manage); "" */
	enum idf_meter meter;
	unsigned int rtt_slot;	/* meter rtt: mtg_hdr.tp_ns[] the reflector
				 * stamps */
	enum idf_header header;
	enum idf_proto proto;
};

/* A host whose `mtgctl daemon` runs TGs (`host NAME ADDR[:PORT]`). */
struct idf_host {
	char name[IDF_HOST_NAME_MAX + 1];
	struct idf_addr addr;	/* port 0: IDF_HOST_PORT */
	struct idf_loc loc;	/* its name */
};

/* An interface the run records what it receives on (`listen`). */
struct idf_listen {
	char dev[IDF_DEVNAME_MAX + 1];
	char netns[IDF_NETNS_MAX + 1];	/* "": the caller's namespace */
	struct idf_loc loc;
};

/* A test-point probe the run attaches (`probe`), as written. */
struct idf_probe {
	char dev[IDF_DEVNAME_MAX + 1];
	char netns[IDF_NETNS_MAX + 1];	/* "": the global `netns`, or ours */
	unsigned int slot;		/* mtg_hdr.tp_ns[slot] */
	bool egress;			/* else ingress, the default */
	struct idf_loc loc;
};

/* A control message a TG sends (`ctrl`), as written. */
struct idf_ctrl {
	size_t tg;		/* index in idf_file.tgs */
	uint64_t at;		/* nanoseconds after the TG's start */
	uint8_t *data;
	size_t len;		/* bytes, at most IDF_CTRL_MAX */
	struct idf_loc loc;
};

#define IDF_DIAG_RANGES		8	/* runs of tgids a diagnostic lists */

struct idf_diag {
	struct idf_loc loc;	/* line 0: about the whole file */
	bool warning;
	char msg[400];		/* file content in it escaped (text.h) */
	/*
	 * A check of a whole TG: the message without "TG N", and the TGs it
	 * was found in. The same message at the same place (a global) is
	 * one diagnostic naming every TG it is about.
	 */
	char body[320];
	size_t ntgs;		/* 0: not about TGs */
	unsigned int nranges;
	struct { uint32_t lo, hi; } tgs[IDF_DIAG_RANGES];	/* tgids */
};

/*
 * A behaviour (`behaviour NAME`, then its `category` and `next` lines):
 * categories of actions, each with its own model of the gaps and lengths,
 * a mean time in it (exponential) and the chances of the next category.
 */
#define IDF_BEH_CATS		16	/* categories of a behaviour */
#define IDF_BEH_NAME_MAX	31

struct idf_category {
	char name[IDF_BEH_NAME_MAX + 1];
	uint64_t mean;		/* ns: mean time in the category */
	struct idf_tg model;	/* dist, pkts, inta, thro as on its line */
	struct idf_loc loc;	/* its name on the `category` line */
};

struct idf_behaviour {
	char name[IDF_BEH_NAME_MAX + 1];
	struct idf_loc loc;	/* its name on the `behaviour` line */
	bool builtin;		/* mtgctl's own (`mmorpg`) */
	bool bad;		/* a `next` line of it had an error (reported) */
	unsigned int ncat;
	struct idf_category cat[IDF_BEH_CATS];
	double next[IDF_BEH_CATS][IDF_BEH_CATS];	/* [from][to] */
	struct idf_loc next_loc[IDF_BEH_CATS];	/* a row's `next`; line 0: none */
	/* worked out by idf_validate(): the shares of the categories */
	double visits[IDF_BEH_CATS];	/* of the changes (the chain's) */
	double share[IDF_BEH_CATS];	/* of the time */
	bool valid;
};

struct idf_file {
	char *name;		/* as given on the command line */
	char *text;		/* the whole file, as read */
	size_t text_len;
	struct idf_source *includes;	/* the files `include` read, in order */
	size_t nincludes;
	unsigned int cur_src;	/* the file being read (struct idf_loc.src) */
	unsigned int depth;	/* of includes being read */
	bool no_include;	/* refuse `include` (the parser's fuzz target) */
	uint32_t range_max;	/* TGs a range may make; 0: IDF_RANGE_MAX */
	uint32_t expanding;	/* the TG a range is making; errors name it */
	struct idf_tg globals;
	struct idf_listen *listen;	/* `listen`, in the order given */
	size_t nlisten;
	char *out;		/* `out`: the recording's path, or NULL */
	char *key;		/* `key`: the TSP key file, or NULL */
	struct idf_probe *probes;	/* `probe`, in the order given */
	size_t nprobes;
	bool passthrough;	/* `passthrough yes` */
	struct idf_ctrl *ctrls;	/* `ctrl`, in the order given */
	size_t nctrls;
	struct idf_behaviour **behs;	/* `behaviour`, in the order given */
	size_t nbehs;
	struct idf_host *hosts;	/* `host NAME ADDR`, in the order given */
	size_t nhosts;
	struct idf_tg *tgs;
	size_t ntgs;
	size_t cap;
	size_t *id_slots;	/* tgid -> index + 1, open addressing; 0: free */
	size_t id_nslots;	/* a power of two, at least twice the TGs */
	struct idf_diag diags[IDF_MAX_DIAGS];
	size_t ndiags;		/* stored in diags */
	size_t nerrors;		/* counted, stored or not */
	size_t nwarnings;
};

/*
 * Read, parse and validate; 0 if the file holds no error, -EINVAL if it
 * does (see diags), another -errno if it cannot be read.
 */
int idf_load(struct idf_file *f, const char *path);
/* The same, of text made by a program (itgsend); name names it in errors. */
int idf_load_text(struct idf_file *f, const char *name, const char *text);
int idf_parse(struct idf_file *f, FILE *in);
int idf_validate(struct idf_file *f);
void idf_free(struct idf_file *f);

/*
 * path opened for reading if it is a regular file (`include`, trace and
 * pcap files): a FIFO would block, a device never end. NULL with *why
 * saying what it is instead, or why it did not open.
 */
FILE *idf_fopen_regular(const char *path, const char **why);

/* The name of the file a struct idf_loc.src names. */
const char *idf_source_name(const struct idf_file *f, unsigned int src);

/* Print the diagnostics as `file:line:col: error: message`. */
void idf_print_diags(const struct idf_file *f, FILE *out);

/*
 * A TG's error found once the file was valid (its timetable: a trace or
 * pcap file), as `file:line:col: error: TG N: msg` at its `dist`.
 */
void idf_print_tg_error(const struct idf_file *f, const struct idf_tg *tg,
			const char *msg, FILE *out);

static inline bool idf_has(const struct idf_tg *tg, enum idf_kw kw)
{
	return tg->set & (IDF_KW_BIT(kw));
}

/* Are the TG's lengths drawn (`pkts variable`, `pkts LAW`)? */
static inline bool idf_len_drawn(const struct idf_tg *tg)
{
	return tg->pkts == IDF_PKTS_VARIABLE || tg->pkts == IDF_PKTS_LAW;
}

/* Names of the values, as the IDF writes them. */
const char *idf_dist_name(enum idf_dist d);
const char *idf_patt_name(enum idf_patt p);
const char *idf_pkts_name(enum idf_pkts k);
/* pkts LAW: the law's name, its parameters' number and names */
const char *idf_len_law_name(enum idf_len_law l);
unsigned int idf_len_law_nparams(enum idf_len_law l);
const char *idf_len_law_param(enum idf_len_law l, unsigned int i);
const char *idf_data_name(enum idf_data d);
/* The DSCP `data` gives when neither `tos` nor `cos` does (RFC 4594). */
uint8_t idf_data_dscp(enum idf_data d);
/*
 * The header's six bytes for the network under test (MTG's qlen and
 * rpol): qlen, 16 bits, then rpol's request in kbit/s, 32 bits, both
 * big-endian and saturating.
 */
void idf_nut(const struct idf_tg *tg, uint8_t nut[6]);
/* rpol: thro MIN + rpol % of (REQ - MIN), bit/s */
uint64_t idf_rpol_request(const struct idf_tg *tg);
const char *idf_path_name(enum idf_path p);
const char *idf_mode_name(enum idf_mode m);
const char *idf_late_name(enum idf_late l);
const char *idf_meter_name(enum idf_meter m);
const char *idf_header_name(enum idf_header h);
bool idf_proto_connected(enum idf_proto p);
const char *idf_proto_name(enum idf_proto p);

/* The model's parameters: how many, the name of the i-th (upper case). */
unsigned int idf_dist_nparams(enum idf_dist d);
const char *idf_dist_param(enum idf_dist d, unsigned int i, bool *is_time);
/* The model sets the gaps by its own parameters (D-ITG's), not by a rate. */
bool idf_dist_sets_gaps(enum idf_dist d);
/* ... and the lengths too (trace, D-ITG's presets): no `pkts` needed. */
bool idf_dist_sets_lengths(enum idf_dist d);

/* D-ITG's VoIP codecs (`dist voip CODEC [rtp|crtp] [vad]`). */
struct idf_codec {
	const char *name;
	double frame_bytes, frames_per_pkt, pkts_per_s;
};
extern const struct idf_codec idf_codecs[];
#define IDF_CODECS	5
const char *idf_rng_name(int rng);

/* The TG's seed: `seed`, else derived from the tgid. */
uint32_t idf_seed(const struct idf_tg *tg);

/* The samplers version the TG's tables are drawn with (traffic/draw.h). */
int idf_samplers(const struct idf_tg *tg);
/* The payload's xorshift seed: the first value of the TG's Lehmer stream. */
uint32_t idf_patt_seed(const struct idf_tg *tg);
/* Source port: the one given, else IDF_SRC_PORT_BASE + tgid mod 61536. */
uint16_t idf_src_port(const struct idf_tg *tg);
/* Bytes before the TG's header: Ethernet, IPv4 or IPv6, UDP. */
uint32_t idf_l4_over(const struct idf_tg *tg);
/* The TG's smallest frame: those and its header (MTG's or D-ITG's). */
uint32_t idf_min_len(const struct idf_tg *tg);

/* "1.2.3.4" or "2001:db8::1" into buf. */
void idf_addr_str(const struct idf_addr *a, char *buf, size_t size);
/* ADDR:PORT, [ADDR]:PORT for IPv6, "(from dev):PORT" without an address */
void idf_endpoint_str(const struct idf_addr *a, uint16_t port, char *buf,
		      size_t size);

/*
 * DEV[@NETNS], as `listen` and `mtgctl listen` take it, into l; NULL, or
 * what is wrong.
 */
const char *idf_parse_listen(const char *s, struct idf_listen *l);
/*
 * ADDR[:PORT] (ADDR:PORT if need_port; IPv6 in brackets) into a, as the
 * IDF's endpoints and `--log` take it: NULL, or what is wrong ("" when
 * there is nothing more to say than that it is not one).
 */
const char *idf_parse_endpoint(const char *s, bool need_port,
			       struct idf_addr *a);

/* The host named name, or NULL. */
const struct idf_host *idf_host_find(const struct idf_file *f,
				     const char *name);
/* Some TG names a host (`host NAME`): the file is mtgctl manage's. */
bool idf_has_hosts(const struct idf_file *f);
/*
 * Keep only the TGs of host name (and their `ctrl`s): what that host's
 * daemon runs. 0, or -ENOENT if no host has that name.
 */
int idf_keep_host(struct idf_file *f, const char *name);

#endif /* MTGCTL_IDF_H */
