// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * mtgctl: the mtg controller. `mtgctl COMMAND [OPTIONS] ARGS...`; every
 * command's options are declared in one table (DEFINE_OPTION), from which
 * both the parser and the help are made.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "idf/idf.h"
#include "uapi/mtg.h"
#include "util/opts.h"

static const struct check_opts check_defaults = { .json = false };

static const struct prog_option check_options[] = {
	DEFINE_OPTION("json", OPT_BOOL, struct check_opts, json,
		      .help = "print the resolved TGs and their timetables as JSON"),
	END_OPTIONS
};

static const struct info_opts info_defaults = { .json = false };

static const struct prog_option info_options[] = {
	DEFINE_OPTION("json", OPT_BOOL, struct info_opts, json,
		      .help = "print it as JSON"),
	END_OPTIONS
};

static const struct table_opts table_defaults = { .format = "csv" };

static const struct prog_option table_options[] = {
	DEFINE_OPTION("tg", OPT_COUNT, struct table_opts, tg,
		      .metavar = "N", .min = 1, .max = UINT32_MAX,
		      .help = "only TG N; default: every TG"),
	DEFINE_OPTION("count", OPT_COUNT, struct table_opts, count,
		      .metavar = "K", .min = 1, .max = UINT64_MAX,
		      .help = "K departures (a looping table repeats); default: one pass of the table"),
	DEFINE_OPTION("format", OPT_STRING, struct table_opts, format,
		      .metavar = "csv|bin",
		      .help = "CSV (default), or 24-byte little-endian records"),
	DEFINE_OPTION("category", OPT_BOOL, struct table_opts, category,
		      .help = "csv: a last column, each departure's category (dist behaviour)"),
	END_OPTIONS
};

#define RING_HELP "the receive ring's records, a power of two; default 65536"

#define LOG_HELP "send the records to the log server mtgctl logd there (default port 9001) as well as to the recording, if any"
#define LOG_UDP_HELP "the log's records over UDP (logd counts what is lost), not over TCP"
#define LOG_NAME_HELP "the host name logd files the log under (RUNID-NAME.mtgrec); default this host's"

#define KEEP_HELP "the keep ring's bytes (payloads, wrong bits' positions kept), a power of two from 65536 to 268435456"

/* run's defaults, itgsend's too */
#define RUN_DEFAULTS {				\
	.rx.ring = RX_RING_DEFAULT,		\
	.rx.device = MTG_DEVICE_PATH,		\
	.rx.keep_ring = KEEP_RING_RUN,		\
	.start_delay = 1000000000ULL,		\
	.drain = 1000000000ULL,			\
}

static const struct run_opts run_defaults = RUN_DEFAULTS;

/*
 * run's options, which itgsend takes too: S the options' structure, M the
 * path to its struct run_opts ("" or "run."), OUT -o's letter or 0.
 */
#define RUN_OPTIONS(S, M, OUT)					\
	DEFINE_OPTION("batch", OPT_BOOL, S, M rx.batch, \
		      .help = "plain progress lines, no dashboard (implied when stdin or stdout is not a terminal)"), \
	DEFINE_OPTION("json-stream", OPT_BOOL, S, M rx.json_stream, \
		      .help = "a JSON object a second on stdout (and one at the end); other lines go to stderr"), \
	DEFINE_OPTION("output", OPT_STRING, S, M rx.output, \
		      .short_name = OUT, .metavar = "RECORDING", \
		      .help = "record what comes back on the IDF's 'listen' interfaces there (overrides 'out')"), \
	DEFINE_OPTION("force", OPT_BOOL, S, M rx.force, \
		      .help = "replace an existing recording"), \
	DEFINE_OPTION("json", OPT_STRING, S, M rx.json, \
		      .metavar = "SUMMARY.json", \
		      .help = "write the run's summary there (atomically)"), \
	DEFINE_OPTION("start-delay", OPT_SECONDS, S, M start_delay, \
		      .metavar = "TIME", \
		      .help = "T0 is now plus TIME (seconds, or ns/us/ms/s); default 1"), \
	DEFINE_OPTION("drain", OPT_SECONDS, S, M drain, \
		      .metavar = "TIME", \
		      .help = "after the TGs end, wait TIME for the packets on their way (when listening, or sending to an ITGRecv); default 1"), \
	DEFINE_OPTION("ring", OPT_COUNT, S, M rx.ring, \
		      .metavar = "RECORDS", .help = RING_HELP, \
		      .min = MTG_RX_RECORDS_MIN, .max = MTG_RX_RECORDS_MAX, \
		      .pow2 = true), \
	DEFINE_OPTION("device", OPT_STRING, S, M rx.device, \
		      .metavar = "PATH", \
		      .help = "the module's device; default " MTG_DEVICE_PATH), \
	DEFINE_OPTION("commands", OPT_BOOL, S, M commands, \
		      .help = "take commands (ctrl, start, kill, ...) one a line on stdin; no dashboard"), \
	DEFINE_OPTION("keep-ring", OPT_COUNT, S, M rx.keep_ring, \
		      .metavar = "BYTES", \
		      .help = KEEP_HELP "; default 16777216, when a TG has 'keep'", \
		      .min = MTG_KEEP_BYTES_MIN, .max = MTG_KEEP_BYTES_MAX, \
		      .pow2 = true)

static const struct prog_option run_options[] = {
	RUN_OPTIONS(struct run_opts, , 'o'),
	DEFINE_OPTION("log", OPT_STRING, struct run_opts, rx.log,
		      .metavar = "ADDR[:PORT]", .help = LOG_HELP),
	DEFINE_OPTION("log-udp", OPT_BOOL, struct run_opts, rx.log_udp,
		      .help = LOG_UDP_HELP),
	DEFINE_OPTION("log-key", OPT_STRING, struct run_opts, rx.log_key,
		      .metavar = "FILE",
		      .help = "the key logd checks (needed with --log)"),
	DEFINE_OPTION("log-name", OPT_STRING, struct run_opts, rx.log_name,
		      .metavar = "NAME", .help = LOG_NAME_HELP),
	DEFINE_OPTION("host", OPT_STRING, struct run_opts, host,
		      .metavar = "NAME", .help = "run only the TGs of host NAME of a file whose TGs name hosts"),
	DEFINE_OPTION("run-id", OPT_COUNT, struct run_opts, run_id,
		      .metavar = "N", .min = 1, .max = UINT32_MAX, .help = "the run's id; default a random one"),
	DEFINE_OPTION("hold", OPT_BOOL, struct run_opts, hold,
		      .help = "when ready, print a 'hold' line and wait for 'start T0' (CLOCK_TAI ns) on stdin (mtgctl daemon's)"),
	END_OPTIONS
};

static const struct listen_opts listen_defaults = {
	.rx.ring = RX_RING_DEFAULT,
	.rx.device = MTG_DEVICE_PATH,
	.rx.keep_ring = KEEP_RING_LISTEN,
};

static const struct prog_option listen_options[] = {
	DEFINE_OPTION("batch", OPT_BOOL, struct listen_opts, rx.batch,
		      .help = "plain progress lines, no dashboard (implied when stdin or stdout is not a terminal)"),
	DEFINE_OPTION("json-stream", OPT_BOOL, struct listen_opts, rx.json_stream,
		      .help = "a JSON object a second on stdout (and one at the end); other lines go to stderr"),
	DEFINE_OPTION("output", OPT_STRING, struct listen_opts, rx.output,
		      .short_name = 'o', .metavar = "RECORDING",
		      .help = "record what is received there"),
	DEFINE_OPTION("force", OPT_BOOL, struct listen_opts, rx.force,
		      .help = "replace an existing recording"),
	DEFINE_OPTION("json", OPT_STRING, struct listen_opts, rx.json,
		      .metavar = "SUMMARY.json",
		      .help = "write a summary there (atomically)"),
	DEFINE_OPTION("run-id", OPT_COUNT, struct listen_opts, run_id,
		      .metavar = "N", .min = 1, .max = UINT32_MAX,
		      .help = "record this run only (others are passed on); default: every run"),
	DEFINE_OPTION("duration", OPT_SECONDS, struct listen_opts, duration,
		      .metavar = "TIME",
		      .help = "stop after TIME; default: at SIGINT or SIGTERM"),
	DEFINE_OPTION("passthrough", OPT_BOOL, struct listen_opts, passthrough,
		      .help = "let recorded packets go on to the stack"),
	DEFINE_OPTION("xdp", OPT_BOOL, struct listen_opts, xdp,
		      .help = "receive with the XDP receiver (ebpf/rx.bpf.c), not the module"),
	DEFINE_OPTION("accept", OPT_STRING, struct listen_opts, accept,
		      .metavar = "PROTO:ADDR:PORT[,...]",
		      .help = "take the messages of TGs over connections there too (PROTO tcp, sctp or dccp; no DEV needed)"),
	DEFINE_OPTION("ring", OPT_COUNT, struct listen_opts, rx.ring,
		      .metavar = "RECORDS", .help = RING_HELP,
		      .min = MTG_RX_RECORDS_MIN, .max = MTG_RX_RECORDS_MAX,
		      .pow2 = true),
	DEFINE_OPTION("device", OPT_STRING, struct listen_opts, rx.device,
		      .metavar = "PATH",
		      .help = "the module's device; default " MTG_DEVICE_PATH),
	DEFINE_OPTION("keep-ring", OPT_COUNT, struct listen_opts, rx.keep_ring,
		      .metavar = "BYTES",
		      .help = KEEP_HELP "; default 4194304",
		      .min = MTG_KEEP_BYTES_MIN, .max = MTG_KEEP_BYTES_MAX,
		      .pow2 = true),
	DEFINE_OPTION("log", OPT_STRING, struct listen_opts, rx.log,
		      .metavar = "ADDR[:PORT]", .help = LOG_HELP),
	DEFINE_OPTION("log-udp", OPT_BOOL, struct listen_opts, rx.log_udp,
		      .help = LOG_UDP_HELP),
	DEFINE_OPTION("log-key", OPT_STRING, struct listen_opts, rx.log_key,
		      .metavar = "FILE",
		      .help = "the key logd checks (needed with --log)"),
	DEFINE_OPTION("log-name", OPT_STRING, struct listen_opts, rx.log_name,
		      .metavar = "NAME", .help = LOG_NAME_HELP),
	END_OPTIONS
};

static int run_check(int nargs, char **args, const void *opts)
{
	(void)nargs;
	return cmd_check(args[0], opts);
}

static int run_run(int nargs, char **args, const void *opts)
{
	(void)nargs;
	return cmd_run(args[0], opts);
}

static int run_info(int nargs, char **args, const void *opts)
{
	(void)nargs;
	return cmd_info(args[0], opts);
}

static int run_table(int nargs, char **args, const void *opts)
{
	(void)nargs;
	return cmd_table(args[0], opts);
}

static const struct replay_opts replay_defaults = { .play = false };

static const struct prog_option replay_options[] = {
	DEFINE_OPTION("play", OPT_BOOL, struct replay_opts, play,
		      .help = "advance at the recorded pace (else: n next, b back)"),
	END_OPTIONS
};

static int run_replay(int nargs, char **args, const void *opts)
{
	const struct replay_opts *o = opts;

	(void)nargs;
	return cmd_replay(args[0], o->play);
}

static int run_listen(int nargs, char **args, const void *opts)
{
	return cmd_listen(nargs, args, opts);
}

static const struct probe_opts probe_defaults = { .slot = PROBE_SLOT_UNSET };

static const struct prog_option probe_options[] = {
	DEFINE_OPTION("slot", OPT_COUNT, struct probe_opts, slot,
		      .metavar = "K", .min = 0, .max = 3,
		      .help = "the header's test-point slot (tp_ns[K]) the probe writes"),
	DEFINE_OPTION("ingress", OPT_BOOL, struct probe_opts, ingress,
		      .help = "frames the interface receives (attach's default)"),
	DEFINE_OPTION("egress", OPT_BOOL, struct probe_opts, egress,
		      .help = "frames the interface sends"),
	DEFINE_OPTION("json", OPT_BOOL, struct probe_opts, json,
		      .help = "list: as JSON"),
	END_OPTIONS
};

static int run_probe(int nargs, char **args, const void *opts)
{
	return cmd_probe(nargs, args, opts);
}

/* port, max_rate, max_flows: 0 is recv's default (cmd/recv.c) */
static const struct recv_opts recv_defaults = {
	.out = ".",
	.ring = RX_RING_DEFAULT,
	.device = MTG_DEVICE_PATH,
};

static const struct prog_option recv_options[] = {
	DEFINE_OPTION("key", OPT_STRING, struct recv_opts, key,
		      .metavar = "FILE",
		      .help = "the key senders must prove they hold: 64 hexadecimal digits, mode 0600 (needed)"),
	DEFINE_OPTION("port", OPT_COUNT, struct recv_opts, port,
		      .metavar = "PORT", .min = 1, .max = 65535,
		      .help = "TSP's TCP port; default 9000, as ITGRecv"),
	DEFINE_OPTION("bind", OPT_STRING, struct recv_opts, bind,
		      .metavar = "ADDR",
		      .help = "take TSP on this address only; default: every address"),
	DEFINE_OPTION("addr", OPT_STRING, struct recv_opts, addr,
		      .metavar = "ADDR[,ADDR...]",
		      .help = "the addresses of this host a sender may send to; default: any of them"),
	DEFINE_OPTION("ports", OPT_STRING, struct recv_opts, ports,
		      .metavar = "LO-HI",
		      .help = "the UDP ports a sender may send to; default 1024-65535"),
	DEFINE_OPTION("max-rate", OPT_COUNT, struct recv_opts, max_rate,
		      .metavar = "BITS", .min = 1, .max = UINT64_MAX,
		      .help = "the largest rate of a flow, bit/s (k, M, G); default 1G"),
	DEFINE_OPTION("max-flows", OPT_COUNT, struct recv_opts, max_flows,
		      .metavar = "N", .min = 1, .max = 1000000,
		      .help = "flows at once, over every sender; default 1024"),
	DEFINE_OPTION("out", OPT_STRING, struct recv_opts, out,
		      .metavar = "DIR",
		      .help = "where each run's recording and summary go; default the current directory"),
	DEFINE_OPTION("duration", OPT_SECONDS, struct recv_opts, duration,
		      .metavar = "TIME",
		      .help = "stop after TIME; default: at SIGINT or SIGTERM"),
	DEFINE_OPTION("ring", OPT_COUNT, struct recv_opts, ring,
		      .metavar = "RECORDS", .help = RING_HELP,
		      .min = MTG_RX_RECORDS_MIN, .max = MTG_RX_RECORDS_MAX,
		      .pow2 = true),
	DEFINE_OPTION("device", OPT_STRING, struct recv_opts, device,
		      .metavar = "PATH",
		      .help = "the module's device; default " MTG_DEVICE_PATH),
	DEFINE_OPTION("clock-shift", OPT_SECONDS, struct recv_opts, clock_shift,
		      .metavar = "TIME",
		      .help = "act as if this host's clock were TIME ahead (TSP's time answers, every receive stamp): to test the offset estimate"),
	DEFINE_OPTION("log", OPT_STRING, struct recv_opts, log,
		      .metavar = "ADDR[:PORT]",
		      .help = "send each run's records to the log server mtgctl logd there (default port 9001, the key of --key) as well as to its recording"),
	DEFINE_OPTION("log-udp", OPT_BOOL, struct recv_opts, log_udp,
		      .help = LOG_UDP_HELP),
	DEFINE_OPTION("log-name", OPT_STRING, struct recv_opts, log_name,
		      .metavar = "NAME", .help = LOG_NAME_HELP),
	DEFINE_OPTION("allow-ditg", OPT_STRING, struct recv_opts, allow_ditg,
		      .metavar = "ADDR[,ADDR...]",
		      .help = "take D-ITG's signalling (an unmodified ITGSend, which proves no key) from these addresses; its UDP flows are held to --addr and --ports"),
	DEFINE_OPTION("rtt", OPT_BOOL, struct recv_opts, rtt,
		      .help = "send back the round-trip flows (meter rtt) that senders ask for, through the XDP reflector of the interface they arrive on"),
	END_OPTIONS
};

static int run_recv(int nargs, char **args, const void *opts)
{
	(void)nargs;
	(void)args;
	return cmd_recv(opts);
}

/* port, max_clients: 0 is logd's default (cmd/logd.c) */
static const struct logd_opts logd_defaults = { .out = NULL };

static const struct prog_option logd_options[] = {
	DEFINE_OPTION("key", OPT_STRING, struct logd_opts, key,
		      .metavar = "FILE",
		      .help = "the key clients must prove they hold: 64 hexadecimal digits, mode 0600 (needed)"),
	DEFINE_OPTION("port", OPT_COUNT, struct logd_opts, port,
		      .metavar = "PORT", .min = 1, .max = 65535,
		      .help = "the TCP port (and UDP, with --udp); default 9001, as ITGLog"),
	DEFINE_OPTION("bind", OPT_STRING, struct logd_opts, bind,
		      .metavar = "ADDR",
		      .help = "take logs on this address only; default: every address"),
	DEFINE_OPTION("out", OPT_STRING, struct logd_opts, out,
		      .metavar = "DIR",
		      .help = "where each log is written, RUNID-HOST.mtgrec (needed)"),
	DEFINE_OPTION("udp", OPT_BOOL, struct logd_opts, udp,
		      .help = "take logs over UDP too (their losses counted)"),
	DEFINE_OPTION("max-clients", OPT_COUNT, struct logd_opts, max_clients,
		      .metavar = "N", .min = 1, .max = 65536,
		      .help = "connections at once; default 256"),
	DEFINE_OPTION("duration", OPT_SECONDS, struct logd_opts, duration,
		      .metavar = "TIME",
		      .help = "stop after TIME; default: at SIGINT or SIGTERM"),
	END_OPTIONS
};

static int run_logd(int nargs, char **args, const void *opts)
{
	(void)nargs;
	(void)args;
	return cmd_logd(opts);
}

static const struct reflect_opts reflect_defaults = { .slot = PROBE_SLOT_UNSET };

static const struct prog_option reflect_options[] = {
	DEFINE_OPTION("slot", OPT_COUNT, struct reflect_opts, slot,
		      .metavar = "K", .min = 0, .max = 3,
		      .help = "the header's test-point slot (tp_ns[K]) the reflection time goes to"),
	DEFINE_OPTION("flows", OPT_STRING, struct reflect_opts, flows,
		      .metavar = "RUN:TG[,RUN:TG...]",
		      .help = "attach: send back only these flows (run and TG ids); agree, forget: add or remove them"),
	DEFINE_OPTION("json", OPT_BOOL, struct reflect_opts, json,
		      .help = "list: as JSON"),
	END_OPTIONS
};

static int run_reflect(int nargs, char **args, const void *opts)
{
	return cmd_reflect(nargs, args, opts);
}

static const struct show_opts show_defaults = { .json = false };

static const struct prog_option show_options[] = {
	DEFINE_OPTION("json", OPT_BOOL, struct show_opts, json,
		      .help = "one JSON array: the sessions (each with its TGs), or the TGs"),
	DEFINE_OPTION("ids", OPT_BOOL, struct show_opts, ids,
		      .help = "print the family's names and numbers mtgctl uses, then exit (no module needed)"),
	END_OPTIONS
};

static int run_show(int nargs, char **args, const void *opts)
{
	return cmd_show(nargs, args, opts);
}

static const struct monitor_opts monitor_defaults = { .json = false };

static const struct prog_option monitor_options[] = {
	DEFINE_OPTION("json", OPT_BOOL, struct monitor_opts, json,
		      .help = "a JSON object per notification, one a line"),
	END_OPTIONS
};

static int run_monitor(int nargs, char **args, const void *opts)
{
	(void)nargs;
	(void)args;
	return cmd_monitor(opts);
}

static const struct itgsend_opts itgsend_defaults = { .run = RUN_DEFAULTS };

/* -o is ITGSend's (packet sizes): --output only. */
static const struct prog_option itgsend_options[] = {
	DEFINE_OPTION("idf", OPT_BOOL, struct itgsend_opts, idf,
		      .help = "print the IDF the options make and exit (no module needed)"),
	DEFINE_OPTION("dev", OPT_STRING, struct itgsend_opts, dev,
		      .metavar = "IFACE",
		      .help = "the interface every flow leaves through where it has no -i; default: the route to its -a"),
	DEFINE_OPTION("key", OPT_STRING, struct itgsend_opts, key,
		      .metavar = "FILE",
		      .help = "TSP's key: each flow is agreed with the mtgctl recv at its -Sda (default -a), -Sdp (default 9000)"),
	DEFINE_OPTION("itgrecv", OPT_BOOL, struct itgsend_opts, itgrecv,
		      .help = "the receivers are unmodified ITGRecvs: each flow carries D-ITG's header and is set up with the ITGRecv at its -Sda, -Sdp over D-ITG's signalling"),
	RUN_OPTIONS(struct itgsend_opts, run., 0),
	END_OPTIONS
};

static int run_itgsend(int nargs, char **args, const void *opts)
{
	return cmd_itgsend(nargs, args, opts);
}

static const struct daemon_opts daemon_defaults;	/* port 0: 9998 */

static const struct prog_option daemon_options[] = {
	DEFINE_OPTION("key", OPT_STRING, struct daemon_opts, key,
		      .metavar = "FILE", .help = "the key a manager must prove it holds (64 hex digits, mode 0600)"),
	DEFINE_OPTION("port", OPT_COUNT, struct daemon_opts, port,
		      .metavar = "PORT", .min = 1, .max = 65535, .help = "TSP's TCP port; default 9998"),
	DEFINE_OPTION("bind", OPT_STRING, struct daemon_opts, bind,
		      .metavar = "ADDR", .help = "listen on ADDR only; default every address"),
	DEFINE_OPTION("allow", OPT_STRING, struct daemon_opts, allow,
		      .metavar = "ADDR[,ADDR...]", .help = "take managers from these addresses only; default any"),
	DEFINE_OPTION("device", OPT_STRING, struct daemon_opts, device,
		      .metavar = "PATH", .help = "the module's device for the runs; default " MTG_DEVICE_PATH),
	DEFINE_OPTION("duration", OPT_SECONDS, struct daemon_opts, duration,
		      .metavar = "TIME", .help = "stop after TIME; default: at SIGINT/SIGTERM"),
	END_OPTIONS
};

static int run_daemon(int nargs, char **args, const void *opts)
{
	(void)nargs;
	(void)args;
	return cmd_daemon(opts);
}

static const struct manage_opts manage_defaults = { .start_delay = 1000000000ULL };

static const struct prog_option manage_options[] = {
	DEFINE_OPTION("batch", OPT_BOOL, struct manage_opts, batch, .help = "progress lines, no dashboard"),
	DEFINE_OPTION("json-stream", OPT_BOOL, struct manage_opts, json_stream,
		      .help = "a JSON object a second on stdout, each TG with its host; other lines go to stderr"),
	DEFINE_OPTION("json", OPT_STRING, struct manage_opts, json,
		      .metavar = "SUMMARY.json", .help = "write every host's summary merged there (atomically)"),
	DEFINE_OPTION("start-delay", OPT_SECONDS, struct manage_opts, start_delay,
		      .metavar = "TIME", .help = "T0 is TIME after every host is ready; default 1"),
	END_OPTIONS
};

static int run_manage(int nargs, char **args, const void *opts)
{
	(void)nargs;
	return cmd_manage(args[0], opts);
}

static const struct command commands[] = {
	{ "check", "FILE.idf [--json]",
	  "Parse and validate FILE (no module needed); print its TGs as resolved.",
	  check_options, &check_defaults, sizeof(struct check_opts), "FILE",
	  1, 1, run_check },
	{ "run", "FILE.idf [--batch | --json-stream] [-o RECORDING [--force]] [--json SUMMARY.json] [--start-delay TIME] [--drain TIME] [--ring RECORDS] [--keep-ring BYTES] [--device PATH] [--commands] [--log ADDR[:PORT] --log-key FILE [--log-udp] [--log-name NAME]] [--host NAME] [--run-id N] [--hold]",
	  "Run the TGs of FILE on mtg.ko until they end or SIGINT/SIGTERM; record\n        what comes back on the interfaces FILE's 'listen' names. On a\n        terminal, a live dashboard shows and controls every TG.",
	  run_options, &run_defaults, sizeof(struct run_opts), "FILE", 1, 1,
	  run_run },
	{ "listen", "[DEV[@NETNS]...] [--accept PROTO:ADDR:PORT[,...]] [--batch | --json-stream] [-o RECORDING [--force]] [--json SUMMARY.json] [--run-id N] [--duration TIME] [--passthrough] [--xdp] [--ring RECORDS] [--keep-ring BYTES] [--device PATH] [--log ADDR[:PORT] --log-key FILE [--log-udp] [--log-name NAME]]",
	  "Receive only: record the MTG packets arriving on the interfaces DEV\n        (in namespace NETNS), and the messages of the connections --accept\n        takes, until SIGINT/SIGTERM or --duration.",
	  listen_options, &listen_defaults, sizeof(struct listen_opts), "DEV",
	  0, -1, run_listen },
	{ "table", "FILE.idf [--tg N] [--count K] [--format csv|bin] [--category]",
	  "Print the timetables of FILE (departure, gap, length) without sending.",
	  table_options, &table_defaults, sizeof(struct table_opts), "FILE",
	  1, 1, run_table },
	{ "info", "RECORDING [--json]",
	  "Check a recording and show what it holds, per flow.",
	  info_options, &info_defaults, sizeof(struct info_opts), "FILE", 1, 1,
	  run_info },
	{ "replay", "STREAM.jsonl [--play]",
	  "Show what 'run --json-stream' or 'listen --json-stream' printed in the\n        dashboard, frame by frame (keys are shown, not carried out).",
	  replay_options, &replay_defaults, sizeof(struct replay_opts), "FILE",
	  1, 1, run_replay },
	{ "probe", "attach|detach|list DEV[@NETNS] [--slot K] [--ingress | --egress] [--json]",
	  "Test-point probes (eBPF): attach one that stamps the MTG frames passing\n        DEV into slot K of their header, detach it, list them with their\n        counters (Documentation/ebpf.rst).",
	  probe_options, &probe_defaults, sizeof(struct probe_opts), "ACTION",
	  1, -1, run_probe },
	{ "reflect", "attach|detach|list|agree|forget DEV[@NETNS] [--slot K] [--flows RUN:TG[,RUN:TG...]] [--json]",
	  "XDP reflector (eBPF): send the MTG frames arriving on DEV back where\n        they came from (or only the flows --flows names, which agree and\n        forget change), the reflection time in slot K of their header;\n        detach it, list them with their counters (Documentation/ebpf.rst).",
	  reflect_options, &reflect_defaults, sizeof(struct reflect_opts),
	  "ACTION", 1, -1, run_reflect },
	{ "recv", "--key FILE [--port PORT] [--bind ADDR] [--addr ADDR[,ADDR...]] [--ports LO-HI] [--max-rate BITS] [--max-flows N] [--out DIR] [--duration TIME] [--ring RECORDS] [--device PATH] [--clock-shift TIME] [--log ADDR[:PORT] [--log-udp] [--log-name NAME]] [--rtt] [--allow-ditg ADDR[,ADDR...]]",
	  "The receiver daemon: take flows that senders holding the key ask for\n        over TSP, within what --addr, --ports and --max-rate allow; record\n        each run in DIR and report each flow back (Documentation/tsp.rst).",
	  recv_options, &recv_defaults, sizeof(struct recv_opts), "",
	  0, 0, run_recv },
	{ "show", "[session [ID] | tg [SESSION[:TG]]] [--json] [--ids]",
	  "Show the module's sessions in this network namespace with their TGs,\n        counters and lateness histograms (or one session, or TGs alone:\n        every one, a session's, one), from its netlink family.",
	  show_options, &show_defaults, sizeof(struct show_opts), "OBJECT",
	  0, -1, run_show },
	{ "monitor", "[--json]",
	  "Print the module's netlink events (sessions opened and ended,\n        interfaces lost, TG events) one a line until SIGINT/SIGTERM.",
	  monitor_options, &monitor_defaults, sizeof(struct monitor_opts), "",
	  0, 0, run_monitor },
	{ "logd", "--key FILE --out DIR [--port PORT] [--bind ADDR] [--udp] [--max-clients N] [--duration TIME]",
	  "The log server: take the records that listen, run and recv send with\n        --log from clients holding the key, over TCP or UDP (--udp, losses\n        counted), into DIR/RUNID-HOST.mtgrec (Documentation/tsp.rst).",
	  logd_options, &logd_defaults, sizeof(struct logd_opts), "",
	  0, 0, run_logd },
	{ "itgsend", "[ITGSEND-OPTIONS... | SCRIPT [-x [FILE]]] [--idf] [--dev IFACE] [--key FILE | --itgrecv] [--batch | --json-stream] [--output RECORDING [--force]] [--json SUMMARY.json] [--start-delay TIME] [--drain TIME] [--ring RECORDS] [--keep-ring BYTES] [--device PATH] [--commands]",
	  "ITGSend's command line (D-ITG 2.8.1: -a, -rp, -C, -c, -t, ...) or\n        script file, a TG per flow, run as 'run' runs an IDF (--idf: print\n        it). mtgctl's own options are long ones (Documentation/mtgctl.rst).",
	  itgsend_options, &itgsend_defaults, sizeof(struct itgsend_opts), "",
	  0, 0, run_itgsend },
	{ "daemon", "--key FILE [--port PORT] [--bind ADDR] [--allow ADDR[,ADDR...]] [--device PATH] [--duration TIME]",
	  "A sending host's daemon: run the TGs of its host that a manager holding\n        the key sends (mtgctl manage), with progress and summary back.",
	  daemon_options, &daemon_defaults, sizeof(struct daemon_opts), "",
	  0, 0, run_daemon },
	{ "manage", "FILE.idf [--batch | --json-stream] [--json SUMMARY.json] [--start-delay TIME]",
	  "Run each TG of FILE on its host's mtgctl daemon ('host', 'key'), all\n        from one T0; show their progress and merge their summaries.",
	  manage_options, &manage_defaults, sizeof(struct manage_opts), "FILE",
	  1, 1, run_manage },
	{ NULL, NULL, NULL, NULL, NULL, 0, NULL, 0, 0, NULL }
};

static const struct command *find_command(const char *name)
{
	const struct command *c;

	for (c = commands; c->name; c++)
		if (!strcmp(c->name, name))
			return c;
	return NULL;
}

static void usage(FILE *out)
{
	const struct command *c;

	fprintf(out,
		"Usage: mtgctl COMMAND [OPTIONS] ARGS...\n"
		"       mtgctl { help [COMMAND] | --version }\n"
		"\n"
		"COMMAND := { check | table | run | listen | info | replay | probe | reflect | recv | show | monitor | logd | itgsend | daemon | manage }\n");
	for (c = commands; c->name; c++)
		fprintf(out, "  mtgctl %s %s\n        %s\n", c->name, c->args,
			c->doc);
	fprintf(out,
		"\n"
		"FILE.idf is an experiment description (Documentation/idf.rst).\n"
		"'mtgctl help COMMAND' lists a command's options.\n"
		"\n"
		"Exit status: 0 valid / every TG finished cleanly; 1 bad input or\n"
		"could not run; 2 ran, but errors were counted or a TG failed;\n"
		"128+N interrupted by signal N (130 SIGINT, 143 SIGTERM).\n"
		"\n"
		"Examples:\n"
		"  mtgctl check examples/demo.idf\n"
		"  mtgctl check examples/demo.idf --json | jq '.tgs[0].table.len'\n"
		"  mtgctl table examples/demo.idf --count 10\n"
		"  sudo mtgctl run examples/demo.idf\n"
		"  sudo mtgctl run examples/demo.idf --batch --json demo.json\n"
		"  sudo mtgctl run examples/demo.idf --batch -o demo.rec --json demo.json\n"
		"  sudo mtgctl listen eth1 -o received.rec --duration 60\n"
		"  mtgctl info demo.rec\n"
		"  sudo mtgctl run examples/demo.idf --json-stream > demo.jsonl\n"
		"  mtgctl replay demo.jsonl\n"
		"  sudo mtgctl probe attach veth1@router --slot 0\n"
		"  sudo mtgctl probe list --json\n"
		"  sudo mtgctl reflect attach veth1@far --slot 3\n"
		"  sudo mtgctl recv --key tsp.key --out /var/lib/mtg\n"
		"  mtgctl show\n"
		"  mtgctl show tg 3:1 --json | jq '.[0].sent'\n"
		"  mtgctl monitor\n"
		"  mtgctl logd --key tsp.key --out /var/log/mtg --udp\n"
		"  mtgctl itgsend -a 10.0.0.2 -rp 9001 -C 100 -c 512 -t 5000 --idf\n"
		"  sudo mtgctl itgsend flows.txt --batch --json flows.json\n"
		"  mtgctl manage examples/managed.idf --json managed.json\n");
}

int main(int argc, char **argv)
{
	const struct command *c;
	union {
		struct check_opts check;
		struct run_opts run;
		struct listen_opts listen;
		struct info_opts info;
		struct table_opts table;
		struct replay_opts replay;
		struct probe_opts probe;
		struct recv_opts recv;
		struct reflect_opts reflect;
		struct show_opts show;
		struct monitor_opts monitor;
		struct logd_opts logd;
		struct itgsend_opts itgsend;
		struct daemon_opts daemon;
		struct manage_opts manage;
	} opts;
	int first;

	if (argc < 2) {
		usage(stderr);
		return EXIT_ERROR;
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "version")) {
		printf("mtgctl %s (mtg ABI %u.%u)\n", MTGCTL_VERSION,
		       MTG_ABI_MAJOR, MTG_ABI_MINOR);
		return EXIT_OK;
	}
	if (!strcmp(argv[1], "help") || !strcmp(argv[1], "--help") ||
	    !strcmp(argv[1], "-h")) {
		if (argc > 2) {
			c = find_command(argv[2]);
			if (!c) {
				pr_err("no command '%s' (commands: check, table, run, listen, info, replay, probe, reflect, recv, show, monitor, logd, itgsend, daemon, manage)\n",
				       argv[2]);
				return EXIT_ERROR;
			}
			opts_command_help(stdout, c);
		} else {
			usage(stdout);
		}
		return EXIT_OK;
	}
	c = find_command(argv[1]);
	if (!c) {
		pr_err("unknown command '%s' (see 'mtgctl help')\n", argv[1]);
		return EXIT_ERROR;
	}
	/* its single-dash words are ITGSend's */
	if (c->run == run_itgsend)
		return opts_run_foreign(c, argc - 1, argv + 1, &opts);
	if (opts_parse(c, argc - 1, argv + 1, &opts, &first))
		return EXIT_ERROR;
	return c->run(argc - 1 - first, argv + 1 + first, &opts);
}
