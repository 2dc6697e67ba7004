/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * mtgctl's commands: their options and entry points, one file a command
 * in cmd/. Only the commands and main (mtgctl.c) include this; the
 * libraries say things through util/log.h.
 */
#ifndef MTGCTL_CMD_H
#define MTGCTL_CMD_H

#include <stdbool.h>
#include <stdint.h>

#include "util/log.h"

struct check_opts {
	bool json;		/* JSON on stdout */
};

#define RX_RING_DEFAULT	65536	/* receive ring records */
#define KEEP_RING_RUN	(16U << 20)	/* keep ring bytes, when a TG keeps */
#define KEEP_RING_LISTEN (4U << 20)	/* keep ring bytes of listen */

/* What run and listen share: the receive side and how it is shown. */
struct rx_opts {
	bool batch;		/* plain progress lines, no dashboard */
	bool json_stream;	/* a JSON line a second on stdout */
	const char *output;	/* recording file, or NULL (run: the IDF's `out`) */
	bool force;		/* replace an existing recording */
	const char *json;	/* summary file, or NULL */
	uint64_t ring;		/* receive ring records */
	const char *device;	/* the module's device file */
	uint64_t keep_ring;	/* keep ring bytes (run: if a TG keeps) */
	const char *log;	/* logd's ADDR[:PORT] (--log), or NULL */
	bool log_udp;		/* the log's records over UDP */
	const char *log_key;	/* the key file logd checks */
	const char *log_name;	/* the host the log is filed under */
};

struct run_opts {
	struct rx_opts rx;
	uint64_t start_delay;	/* ns from now to the run's T0 */
	uint64_t drain;		/* ns of receiving after the TGs ended */
	bool commands;		/* take commands on standard input */
	const char *host;	/* only the TGs of this host (`host`) */
	uint64_t run_id;	/* 0: a random one */
	bool hold;		/* ready, then T0 from stdin (mtgctl daemon) */
};

struct listen_opts {
	struct rx_opts rx;
	uint64_t run_id;	/* 0: every run */
	uint64_t duration;	/* ns; 0: until a signal */
	bool passthrough;
	bool xdp;		/* the XDP receiver, not the module */
	const char *accept;	/* PROTO:ADDR:PORT[,...]; NULL: none */
};

struct info_opts {
	bool json;
};

struct replay_opts {
	bool play;		/* advance at the recorded pace */
};

struct table_opts {
	uint64_t tg;		/* 0: every TG */
	uint64_t count;		/* departures; 0: one pass of the table */
	const char *format;	/* "csv" or "bin" */
	bool category;		/* csv: a column of each departure's category */
};

#define PROBE_SLOT_UNSET	UINT64_MAX	/* --slot not given */

struct probe_opts {
	uint64_t slot;		/* PROBE_SLOT_UNSET: any (attach: needed) */
	bool ingress;
	bool egress;
	bool json;		/* list: as JSON */
};

struct recv_opts {
	const char *key;	/* the key file senders must prove */
	uint64_t port;		/* TSP's TCP port; 0: TSP_PORT_DEFAULT */
	const char *bind;	/* the address to listen on; NULL: any */
	const char *addr;	/* ADDR[,ADDR...] a sender may target; NULL: any
				 * of this host's */
	const char *ports;	/* LO-HI a sender may target */
	uint64_t max_rate;	/* bit/s, a flow's largest; 0: the default */
	uint64_t max_flows;	/* at once, over every sender; 0: the default */
	const char *out;	/* the directory of the recordings */
	uint64_t duration;	/* ns; 0: until a signal */
	uint64_t ring;		/* receive ring records, per run */
	const char *device;	/* the module's device file */
	uint64_t clock_shift;	/* ns this host's clock acts ahead (tests) */
	const char *log;	/* logd's ADDR[:PORT]: each run logged there */
	bool log_udp;
	const char *log_name;
	bool rtt;		/* reflect the round trips senders ask for */
	const char *allow_ditg;	/* ADDR[,ADDR...] of D-ITG senders let in */
};

struct logd_opts {
	const char *key;	/* the key file clients must prove */
	uint64_t port;		/* TCP (and UDP) port; 0: 9001, ITGLog's */
	const char *bind;	/* the address to listen on; NULL: any */
	const char *out;	/* the directory of the logs */
	bool udp;		/* take UDP logs too */
	uint64_t max_clients;	/* connections at once; 0: 256 */
	uint64_t duration;	/* ns; 0: until a signal */
};

struct reflect_opts {
	uint64_t slot;		/* PROBE_SLOT_UNSET: not given (attach: needed) */
	bool json;		/* list: as JSON */
	const char *flows;	/* RUN:TG[,...]: attach (agreed only), agree, forget */
};

struct show_opts {
	bool json;		/* one JSON array on stdout */
	bool ids;		/* print the family's names and numbers used */
};

struct monitor_opts {
	bool json;		/* a JSON object per notification */
};

/* itgsend: ITGSend's command line into TGs, run as `run` runs them. */
struct itgsend_opts {
	struct run_opts run;
	bool idf;		/* print the IDF and exit: no module */
	const char *dev;	/* the TGs' interface; NULL: -i, else the route */
	const char *key;	/* TSP's key: each flow asks its receiver */
	bool itgrecv;		/* the receivers are unmodified ITGRecvs */
};

#define DAEMON_PORT_DEFAULT	9998	/* ITGSend's daemon mode's */

/* daemon: a sending host's, run by mtgctl manage */
struct daemon_opts {
	const char *key;	/* the key file managers must prove */
	uint64_t port;		/* TCP port; 0: DAEMON_PORT_DEFAULT */
	const char *bind;	/* the address to listen on; NULL: any */
	const char *allow;	/* ADDR[,ADDR...] managers may come from */
	const char *device;	/* the module's device file, for the runs */
	uint64_t duration;	/* ns; 0: until a signal */
};

/* manage: a file's TGs run on their hosts' daemons */
struct manage_opts {
	bool batch;		/* plain progress lines */
	bool json_stream;	/* a JSON object a second on stdout */
	const char *json;	/* the merged summary, or NULL */
	uint64_t start_delay;	/* ns from every host ready to T0 */
};

int cmd_check(const char *file, const struct check_opts *o);
int cmd_info(const char *file, const struct info_opts *o);
int cmd_table(const char *file, const struct table_opts *o);
int cmd_run(const char *file, const struct run_opts *o);
/* Run IDF text made by a program, named name in messages (itgsend). */
int cmd_run_text(const char *name, const char *text, const struct run_opts *o);
int cmd_listen(int ndevs, char **devs, const struct listen_opts *o);
int cmd_replay(const char *file, bool play);
int cmd_recv(const struct recv_opts *o);
int cmd_logd(const struct logd_opts *o);
int cmd_probe(int nargs, char **args, const struct probe_opts *o);
int cmd_reflect(int nargs, char **args, const struct reflect_opts *o);
int cmd_show(int nargs, char **args, const struct show_opts *o);
int cmd_monitor(const struct monitor_opts *o);
int cmd_itgsend(int nargs, char **args, const struct itgsend_opts *o);
int cmd_daemon(const struct daemon_opts *o);
int cmd_manage(const char *file, const struct manage_opts *o);

#endif /* MTGCTL_CMD_H */
