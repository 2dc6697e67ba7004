// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * mtgctl recv's D-ITG senders (Documentation/tsp.rst, "D-ITG's senders"):
 * an unmodified ITGSend at an address of --allow-ditg is answered in
 * D-ITG's own signalling, which has no authentication. Its flows are
 * checked against what this receiver consents to (addresses and ports;
 * D-ITG states no rate) and each is a run of its own: a module session
 * that records D-ITG's packets to the flow's port (MTG_IOC_RX_DITG), a
 * recording, ended a second after ITGSend closes the flow, as ITGRecv
 * waits. ITGSend hears of a refusal as D-ITG's "the data socket failed".
 * A round-trip flow (-m rttm), where --rtt consents, is sent back by the
 * XDP reflector as ITGRecv sends each datagram back, and not recorded.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>

#include "cmd/recv.h"
#include "util/clock.h"
#include "util/jw.h"

/* ITGRecv closes a flow a second after ITGSend says it ended. */
#define DITG_DRAIN_NS	1000000000ULL

/* The address of "192.0.2.1:9000" or "[2001:db8::1]:9000": 0, or -1. */
static int peer_addr(const char *peer, struct consent_addr *a)
{
	char s[INET6_ADDRSTRLEN + 8], *end;

	snprintf(s, sizeof(s), "%s", peer[0] == '[' ? peer + 1 : peer);
	end = strrchr(s, peer[0] == '[' ? ']' : ':');
	if (!end)
		return -1;
	*end = '\0';
	a->family = peer[0] == '[' ? AF_INET6 : AF_INET;
	return inet_pton(a->family, s, a->addr) == 1 ? 0 : -1;
}

bool ditg_allowed(const struct daemon *d, const struct peer *p)
{
	const struct consent *c = &d->ditg_from;
	struct consent_addr a;
	size_t i;

	if (peer_addr(p->c.peer, &a))
		return false;
	for (i = 0; i < c->naddrs; i++)
		if (c->addrs[i].family == a.family &&
		    !memcmp(c->addrs[i].addr, a.addr,
			    a.family == AF_INET ? 4 : 16))
			return true;
	return false;
}

int ditg_open(struct daemon *d, struct peer *p, char *why, size_t len)
{
	struct tsp_msg out = { .type = TSP_ACK_CONNECT };

	p->ditg = p->c.ditg = true;
	p->op.state = TSP_OPEN_DONE;
	recv_say(d, p, "a D-ITG sender, let in by --allow-ditg: no key, no authentication; its flows are held to --addr and --ports (D-ITG states no rate)");
	return recv_send(p, &out, why, len);
}

/* A run id no packet has: random, not 0. */
static uint32_t new_run_id(void)
{
	uint32_t id = 0;

	while (!id)
		if (getrandom(&id, sizeof(id), 0) != sizeof(id))
			id = (uint32_t)now_tai() | 1;
	return id;
}

/* The flow as its recording's metadata has it (a TG's JSON). */
static char *flow_json(const struct tsp_msg *m, int family)
{
	const struct tsp_send_flow *f = &m->u.flow;
	char a[INET6_ADDRSTRLEN], *out = NULL;
	size_t size = 0;
	struct jw j;
	FILE *mf;

	consent_addr_str(family, f->addr, a, sizeof(a));
	mf = open_memstream(&out, &size);
	if (!mf)
		return NULL;
	jw_init_compact(&j, mf);
	jw_obj_begin(&j);
	jw_ku64(&j, "id", m->flow_id);
	jw_kstr(&j, "header", "ditg");
	jw_key(&j, "dst");
	jw_obj_begin(&j);
	jw_kstr(&j, "addr", a);
	jw_ku64(&j, "port", f->port);
	jw_obj_end(&j);
	jw_key(&j, "ditg");
	jw_obj_begin(&j);
	jw_ku64(&j, "l7_proto", f->l7);
	jw_ku64(&j, "ds_byte", f->ds);
	jw_obj_end(&j);
	jw_obj_end(&j);
	if (fclose(mf)) {
		free(out);
		return NULL;
	}
	return out;
}

/*
 * What this receiver takes of D-ITG's flows: 0, or why not (text) with
 * dev set for one it takes.
 */
static int ditg_check(struct daemon *d, struct peer *p,
		      const struct tsp_msg *m, char dev[IF_NAMESIZE],
		      char *text, size_t len)
{
	const struct tsp_send_flow *f = &m->u.flow;
	struct tsp_flow_req r = { .l4 = f->l4, .l3 = f->l3, .port = f->port };
	size_t i, k;

	for (i = 0; i < p->nruns; i++)
		for (k = 0; k < p->runs[i]->nflows; k++)
			if (p->runs[i]->flows[k].id == m->flow_id) {
				snprintf(text, len, "flow %u is in use on this connection",
					 m->flow_id);
				return -1;
			}
	if (d->nflows >= d->consent.max_flows) {
		snprintf(text, len, "this receiver has its %llu flows",
			 (unsigned long long)d->consent.max_flows);
		return -1;
	}
	if (ditg_port_taken(d, f->port)) {
		snprintf(text, len, "port %u takes another flow's D-ITG packets already",
			 f->port);
		return -1;
	}
	if (m->passive) {
		snprintf(text, len, "D-ITG's passive mode (-H) is not taken");
		return -1;
	}
	if (f->meter == TSP_METER_RTTM && !d->consent.rtt) {
		snprintf(text, len, "D-ITG's round trips (-m rttm): this receiver sends nothing back (mtgctl recv --rtt)");
		return -1;
	}
	if (f->meter != TSP_METER_OWDM && f->meter != TSP_METER_RTTM) {
		snprintf(text, len, "meter %u: D-ITG's are owdm (1) and rttm (2)",
			 f->meter);
		return -1;
	}
	if (f->pl_type) {
		snprintf(text, len, "payload type %u: only D-ITG's standard payload (-p 0, its default) carries a send time",
			 f->pl_type);
		return -1;
	}
	memcpy(r.addr, f->addr, f->l3 == TSP_L3_IPV6 ? 16 : 4);
	/* protocol (UDP only), address, port; no rate is stated */
	return consent_check(&d->consent, &r, dev, text, len) ? -1 : 0;
}

/* A run for the flow, listening: NULL with text. */
static struct rrun *ditg_run(struct daemon *d, struct peer *p,
			     const struct tsp_msg *m, const char *dev,
			     char *text, size_t len)
{
	int family = m->u.flow.l3 == TSP_L3_IPV6 ? AF_INET6 : AF_INET;
	struct tsp_start st = { .run_id = new_run_id(), .start_ns = now_tai() };
	struct rflow_how how = {
		.rtt_slot = -1, .ditg_port = m->u.flow.port,
		.ditg_rtt = m->u.flow.meter == TSP_METER_RTTM,
	};
	struct rrun *run, **n;
	char *json;

	/* the reflector is ready before ITGSend hears yes */
	if (how.ditg_rtt && rtt_reflect(&d->rtt, dev, -1, REFLECT_DITG_RUN,
					how.ditg_port, text, len))
		return NULL;
	json = flow_json(m, family);
	n = realloc(p->runs, (p->nruns + 1) * sizeof(*n));
	if (n)
		p->runs = n;
	run = json && n ? rrun_new(&d->cfg, st.run_id, text, len) : NULL;
	if (!run) {
		if (!json || !n)
			snprintf(text, len, "out of memory");
		free(json);
		if (how.ditg_rtt)
			rtt_forget(&d->rtt, dev, REFLECT_DITG_RUN,
				   how.ditg_port);
		return NULL;
	}
	if (rrun_add(run, m->flow_id, json, dev, &how)) {
		free(json);
		snprintf(text, len, "out of memory");
		rrun_end(&d->cfg, run, true, p->c.peer, text);
		return NULL;
	}
	/* D-ITG's data follows the acknowledgement: the run starts now */
	if (rrun_start(&d->cfg, run, &st, p->c.peer, text, len)) {
		rrun_end(&d->cfg, run, true, p->c.peer, text);
		return NULL;
	}
	p->runs[p->nruns++] = run;
	d->nflows++;
	p->nflows++;
	return run;
}

static int ditg_flow(struct daemon *d, struct peer *p,
		     const struct tsp_msg *m, char *why, size_t len)
{
	struct tsp_msg out = { .type = TSP_ACK_SEND_FLOW,
			       .flow_id = m->flow_id };
	char dev[IF_NAMESIZE], text[TSP_MAX_TEXT + 1], a[INET6_ADDRSTRLEN];
	const struct tsp_send_flow *f = &m->u.flow;
	struct rrun *run = NULL;

	consent_addr_str(f->l3 == TSP_L3_IPV6 ? AF_INET6 : AF_INET, f->addr,
			 a, sizeof(a));
	if (!ditg_check(d, p, m, dev, text, sizeof(text)))
		run = ditg_run(d, p, m, dev, text, sizeof(text));
	if (!run) {
		/* all D-ITG can say: the data socket failed */
		recv_say(d, p, "D-ITG flow %u to %s:%u refused: %s", m->flow_id, a,
		    f->port, text);
		out.type = TSP_ERR_MSG_2;
		return recv_send(p, &out, why, len);
	}
	if (f->meter == TSP_METER_RTTM)
		recv_say(d, p, "D-ITG flow %u to %s:%u on %s accepted as run %u: round trips (-m rttm), each datagram sent back by the reflector on %s, not recorded",
		    m->flow_id, a, f->port, dev, run->run_id, dev);
	else
		recv_say(d, p, "D-ITG flow %u to %s:%u on %s accepted as run %u, recording %s",
		    m->flow_id, a, f->port, dev, run->run_id, run->path);
	out.port = f->port;
	return recv_send(p, &out, why, len);
}

static struct rrun *run_of(struct peer *p, uint32_t flow_id)
{
	size_t i;

	for (i = 0; i < p->nruns; i++)
		if (rrun_flow(p->runs[i], flow_id))
			return p->runs[i];
	return NULL;
}

int ditg_message(struct daemon *d, struct peer *p, const struct tsp_msg *m,
		 char *why, size_t len)
{
	struct tsp_msg out = { .type = TSP_ACK_RELEASE };
	struct rrun *run;

	switch (m->type) {
	case TSP_SEND_FLOW:
		return ditg_flow(d, p, m, why, len);
	case TSP_CLOSED_FLOW:
		run = run_of(p, m->flow_id);
		if (!run || run->flows[0].closed) {
			snprintf(why, len, "D-ITG sender closed flow %u, which is not open",
				 m->flow_id);
			return -1;
		}
		/* packets still on their way: ended and answered in a second */
		run->flows[0].closed = true;
		run->close_by = now_tai() + DITG_DRAIN_NS;
		return 0;
	case TSP_RELEASE:
		recv_send(p, &out, why, len);
		return 1;
	case TSP_ACK_DISCOVERY:
		return 0;
	default:
		/* D-ITG has no error message to say it */
		snprintf(why, len, "D-ITG sender sent %s: not taken",
			 tsp_type_name(m->type));
		return -1;
	}
}

int ditg_due(struct daemon *d, struct peer *p, uint64_t now, char *why,
	     size_t len)
{
	struct tsp_msg out = { .type = TSP_ACK_CLOSED_FLOW };
	struct rrun *run;
	size_t i;

	for (i = p->nruns; i-- > 0;) {
		run = p->runs[i];
		if (!run->close_by || now < run->close_by)
			continue;
		out.flow_id = run->flows[0].id;
		rrun_poll(run, now);
		take_run(d, p, run);
		rrun_end(&d->cfg, run, false, p->c.peer, NULL);
		if (recv_send(p, &out, why, len))
			return -1;
	}
	return 0;
}
