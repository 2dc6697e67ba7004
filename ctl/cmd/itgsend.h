/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * mtgctl itgsend's parts: itgsend_opts.c reads ITGSend's options into a
 * struct flow (as ITGSend's flowParser() does); itgsend.c checks each
 * flow as a whole, writes its TG and runs or prints the IDF.
 */
#ifndef MTGCTL_ITGSEND_H
#define MTGCTL_ITGSEND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "idf/idf.h"

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
#define MTG_HDR		IDF_MTG_HDR	/* 88 */
#define DITG_HDR	IDF_DITG_HDR	/* 16, --itgrecv */

#define ISSUE		"not supported yet (issue 20)"
#define MAX_TOKS	200		/* ITGSend's argv[200] of a flow */

/* An argument, or a word of a script line and its column. */
struct tok {
	const char *s;
	unsigned int col;
};

enum idt { IDT_CONST, IDT_UNIFORM, IDT_EXP, IDT_NORMAL, IDT_PARETO,
	   IDT_CAUCHY, IDT_GAMMA, IDT_WEIBULL, IDT_PRESET };
enum ps { PS_CONST, PS_UNIFORM, PS_LAW, PS_PRESET };

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
	enum idf_len_law ps_law;	/* PS_LAW: the IDF's `pkts LAW` */
	double ps_law_p[2];		/* its parameters, in the IDF's order */
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
	bool rtt;			/* -m rttm: round trips */
	const char *proto;		/* -T TCP, DCCP: the IDF's; NULL: UDP */
	const char *proto_itg;		/* as ITGSend names it: "TCP" */
	const struct tok *proto_tok;	/* what set it */
	uint32_t seed;			/* 0: mtg's default */
	const struct tok *rlog;		/* -x: the receiver logs */
	struct idf_addr sig;		/* -Sda, family 0: the -a host */
	uint16_t sig_port;		/* -Sdp; 0: ITG_SIG_PORT */
	const struct tok *sig_tok;
};

/* file:line:col (or the command line), "flow N: ", then what. */
void flow_error(const struct flow *f, const struct tok *t, const char *fmt,
		...) __attribute__((format(printf, 3, 4)));
/* A word as messages quote it (escaped; four at a time). */
const char *shown(const struct tok *t);
/* The n words of one flow into f, ITGSend's defaults first; 0 or -1. */
int parse_flow(struct flow *f, const struct tok *t, size_t n);
/*
 * The n arguments after a script file: ITGSend's global options, of which
 * mtg takes -x (*rlog: it, or NULL); 0 or -1 (said).
 */
int global_opts(const struct tok *t, int nargs, const struct tok **rlog);

#endif /* MTGCTL_ITGSEND_H */
