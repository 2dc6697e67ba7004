// SPDX-License-Identifier: GPL-2.0-or-later
/* The sender's side of TSP in `mtgctl run` (sender.h). */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>

#include "idf/idf.h"
#include "remote/sender.h"
#include "traffic/tg_json.h"
#include "util/jw.h"
#include "util/log.h"

/*
 * The receiver of a flow: an mtgctl recv's connection, one for all the
 * flows to it; an ITGRecv gets a connection a flow, as from ITGSend's
 * processes (it answers a close a second later, one close at a time
 * on a connection). s->rcvrs has room for a receiver a flow: the flows
 * keep pointers into it.
 */
static struct rsend_rcvr *rcvr_of(struct rsend *s, const struct idf_addr *a,
				  bool ditg)
{
	struct rsend_rcvr *n;
	size_t i;

	for (i = 0; i < s->nrcvrs && !ditg; i++)
		if (s->rcvrs[i].addr.family == a->family &&
		    s->rcvrs[i].addr.port == a->port &&
		    !s->rcvrs[i].ditg &&
		    !memcmp(s->rcvrs[i].addr.addr, a->addr, 16))
			return &s->rcvrs[i];
	n = &s->rcvrs[s->nrcvrs++];
	memset(n, 0, sizeof(*n));
	n->addr = *a;
	n->ditg = ditg;
	n->c.fd = -1;
	idf_endpoint_str(a, a->port, n->name, sizeof(n->name));
	return n;
}

int rsend_add(struct rsend *s, const struct idf_tg *tg, const struct tt *tt,
	      const struct idf_addr *dst, uint16_t src_port, double bps,
	      double pps)
{
	struct rsend_flow *n = realloc(s->flows, (s->nflows + 1) * sizeof(*n));

	if (!n)
		return -1;
	s->flows = n;
	n = &s->flows[s->nflows];
	memset(n, 0, sizeof(*n));
	n->tg = tg;
	n->tt = tt;
	n->dst = *dst;
	n->src_port = src_port;
	n->bps = bps;
	n->pps = pps;
	s->nflows++;
	return 0;
}

/* The flow request of f: its TG as `mtgctl check --json` shows it. */
static int flow_req(const struct rsend_flow *f, uint32_t run_id,
		    struct tsp_msg *m)
{
	struct tsp_flow_req *r = &m->u.req;
	size_t len = 0;
	struct jw j;
	FILE *mf;

	memset(m, 0, sizeof(*m));
	m->type = TSP_FLOW_REQ;
	m->flow_id = f->tg->id;
	r->run_id = run_id;
	r->l4 = TSP_L4_UDP;
	r->l3 = f->dst.family == AF_INET6 ? TSP_L3_IPV6 : TSP_L3_IPV4;
	r->port = f->dst.port;
	memcpy(r->addr, f->dst.addr, f->dst.family == AF_INET6 ? 16 : 4);
	r->src_port = f->src_port;
	r->bit_rate = (uint64_t)(f->bps + 0.5);
	r->pkt_rate_milli = (uint64_t)(f->pps * 1000 + 0.5);
	r->duration_ns = f->tg->duration;
	mf = open_memstream(&r->tg_json, &len);
	if (!mf)
		return -1;
	jw_init_compact(&j, mf);
	tg_json(&j, f->tg, f->tt, false);
	if (fclose(mf) || len > TSP_MAX_TG_JSON) {
		free(r->tg_json);
		r->tg_json = NULL;
		return -1;
	}
	/* the writer ends a top-level value with a newline: not JSON's */
	while (len && r->tg_json[len - 1] == '\n')
		r->tg_json[--len] = '\0';
	r->tg_json_len = (uint32_t)len;
	return 0;
}

/* D-ITG's request of f: its TSP_SEND_FLOW, as ITGSend sends one. */
static void send_flow(const struct rsend_flow *f, struct tsp_msg *m)
{
	struct tsp_send_flow *sf = &m->u.flow;

	memset(m, 0, sizeof(*m));
	m->type = TSP_SEND_FLOW;
	m->flow_id = f->tg->id;
	sf->l4 = TSP_L4_UDP;
	/* RTTM: ITGRecv sends each payload back to where it came from */
	sf->meter = f->tg->meter == IDF_METER_RTT ? TSP_METER_RTTM :
		TSP_METER_OWDM;
	sf->ds = f->tg->tos;
	sf->l3 = f->dst.family == AF_INET6 ? TSP_L3_IPV6 : TSP_L3_IPV4;
	memcpy(sf->serial, "noSerial", 8);
	sf->port = f->dst.port;
	memcpy(sf->addr, f->dst.addr, f->dst.family == AF_INET6 ? 16 : 4);
}

/* ITGRecv's answer to a flow request: 0 when it listens, else -1 said. */
static int ditg_answer(struct rsend_flow *f, const struct rsend_rcvr *c,
		       const struct tsp_msg *in)
{
	if (in->type == TSP_ACK_SEND_FLOW && in->flow_id == f->tg->id &&
	    in->port == f->dst.port) {
		f->acked = true;
		return 0;
	}
	if (in->type == TSP_ACK_SEND_FLOW && in->flow_id == f->tg->id)
		pr_err("TG %u: ITGRecv %s listens on port %u, not the TG's %u\n",
		       f->tg->id, c->name, in->port, f->dst.port);
	else if (in->type == TSP_ERR_MSG_2 && in->flow_id == f->tg->id)
		pr_err("TG %u: ITGRecv %s could not open the flow's socket (TSP_ERR_MSG_2: port %u taken there, or its address not that host's)\n",
		       f->tg->id, c->name, f->dst.port);
	else
		pr_err("TG %u: ITGRecv %s answered %s\n", f->tg->id, c->name,
		       tsp_type_name(in->type));
	return -1;
}

/* Request every flow of c, one after the other: 0, or -1 said why. */
static int request(struct rsend *s, struct rsend_rcvr *c, uint32_t run_id)
{
	struct tsp_msg m, in;
	char why[400];
	size_t i;
	int ret = 0;

	for (i = 0; i < s->nflows; i++) {
		struct rsend_flow *f = &s->flows[i];

		if (f->rcvr != c)
			continue;
		if (c->ditg) {
			send_flow(f, &m);
		} else if (flow_req(f, run_id, &m)) {
			pr_err("TG %u: its description does not fit a flow request\n",
			       f->tg->id);
			return -1;
		}
		if (tsp_conn_send(&c->c, &m, RSEND_TIMEOUT_MS, why, sizeof(why)) ||
		    tsp_conn_recv(&c->c, &in, RSEND_TIMEOUT_MS, why,
				  sizeof(why)) < 0) {
			tsp_msg_free(&m);
			pr_err("TG %u: receiver %s: %s\n", f->tg->id, c->name,
			       why);
			return -1;
		}
		tsp_msg_free(&m);
		if (c->ditg) {
			if (ditg_answer(f, c, &in))
				ret = -1;
		} else if (in.type == TSP_FLOW_ACK && in.flow_id == f->tg->id &&
		    in.u.ack.code == TSP_ACCEPTED) {
			f->acked = true;
		} else if (in.type == TSP_FLOW_ACK && in.flow_id == f->tg->id) {
			pr_err("TG %u: receiver %s refused the flow (%s): %s\n",
			       f->tg->id, c->name,
			       tsp_refusal_name(in.u.ack.code),
			       in.u.ack.reason.s);
			ret = -1;	/* every refusal said, then nothing */
		} else {
			pr_err("TG %u: receiver %s answered %s%s%s\n",
			       f->tg->id, c->name, tsp_type_name(in.type),
			       in.type == TSP_ERROR ? ": " : "",
			       in.type == TSP_ERROR ? in.u.error.text.s : "");
			tsp_msg_free(&in);
			return -1;
		}
		tsp_msg_free(&in);
	}
	return ret;
}

static bool same_endpoint(const struct rsend_rcvr *a,
			  const struct rsend_rcvr *b)
{
	return a->ditg == b->ditg && a->addr.family == b->addr.family &&
	       a->addr.port == b->addr.port &&
	       !memcmp(a->addr.addr, b->addr.addr, 16);
}

/*
 * An ITGRecv (2.8.1) keeps each signalling connection of its life in a
 * fixed array of MAX_NUM_THREAD (400) slots that it never reuses: the
 * 401st overruns its stack (it dies). Each flow here is a connection.
 */
static int ditg_within_limit(const struct rsend *s)
{
	size_t i, j, n;
	int ret = 0;

	for (i = 0; i < s->nrcvrs; i++) {
		if (!s->rcvrs[i].ditg)
			continue;
		for (j = 0; j < i && !same_endpoint(&s->rcvrs[i],
						    &s->rcvrs[j]); j++)
			;
		if (j < i)
			continue;	/* counted with its first */
		for (n = 0, j = i; j < s->nrcvrs; j++)
			n += same_endpoint(&s->rcvrs[i], &s->rcvrs[j]);
		if (n > RSEND_DITG_CONNS) {
			pr_err("%zu flows to the ITGRecv at %s: an ITGRecv takes at most %d signalling connections in its life (its fixed table of MAX_NUM_THREAD; the next overruns its stack) and each flow has one; split the flows among ITGRecvs (ITGRecv -Sp PORT, rcvr ditg ADDR:PORT), and start an ITGRecv again after %d flows in all\n",
			       n, s->rcvrs[i].name, RSEND_DITG_CONNS,
			       RSEND_DITG_CONNS);
			ret = -1;
		}
	}
	return ret;
}

/* A connection a receiver, and some to spare: raise the soft limit. */
static void enough_files(size_t nrcvrs)
{
	struct rlimit rl;
	rlim_t want = nrcvrs + 256;

	if (getrlimit(RLIMIT_NOFILE, &rl) || rl.rlim_cur >= want)
		return;
	rl.rlim_cur = rl.rlim_max == RLIM_INFINITY || rl.rlim_max > want ?
		      want : rl.rlim_max;
	setrlimit(RLIMIT_NOFILE, &rl);	/* short: a connection says EMFILE */
}

int rsend_agree(struct rsend *s, const char *key_path, uint32_t run_id)
{
	bool keyed = false;
	size_t i, j, unasked;
	char why[400];
	int ret = 0;

	s->rcvrs = calloc(s->nflows, sizeof(*s->rcvrs));
	if (!s->rcvrs) {
		pr_err("out of memory\n");
		return -1;
	}
	for (i = 0; i < s->nflows; i++)
		keyed |= !s->flows[i].tg->rcvr_ditg;
	/* D-ITG's signalling has no key */
	if (keyed && tsp_key_load(key_path, &s->key, why, sizeof(why))) {
		pr_err("%s\n", why);
		return -1;
	}
	for (i = 0; i < s->nflows; i++) {
		struct idf_addr a = s->flows[i].tg->rcvr;

		if (!a.port)
			a.port = IDF_TSP_PORT;
		s->flows[i].rcvr = rcvr_of(s, &a, s->flows[i].tg->rcvr_ditg);
	}
	if (ditg_within_limit(s)) {
		rsend_abort(s);
		return -1;
	}
	enough_files(s->nrcvrs);
	/* every receiver asked, so that every refusal is said at once */
	for (i = 0; i < s->nrcvrs; i++) {
		struct rsend_rcvr *c = &s->rcvrs[i];

		/* an ITGRecv that could not be reached is not tried again */
		for (j = 0; j < i && !(s->rcvrs[j].failed &&
				       same_endpoint(c, &s->rcvrs[j])); j++)
			;
		if (j < i) {
			c->failed = true;
			continue;
		}
		if (c->ditg ? tsp_dial_ditg(&c->c, c->addr.family, c->addr.addr,
					    c->addr.port, RSEND_TIMEOUT_MS, why,
					    sizeof(why)) :
		    tsp_dial(&c->c, c->addr.family, c->addr.addr, c->addr.port,
			     &s->key, RSEND_TIMEOUT_MS, why, sizeof(why))) {
			for (unasked = 0, j = i + 1; j < s->nrcvrs; j++)
				unasked += same_endpoint(c, &s->rcvrs[j]);
			if (unasked)
				pr_err("%s (and %zu more flows to it, not tried)\n",
				       why, unasked);
			else
				pr_err("%s\n", why);
			c->failed = true;
			ret = -1;
			continue;
		}
		c->up = true;
		/* D-ITG has no time exchange (nor a T0 to tell) */
		if (!c->ditg && tsp_clock_estimate(&c->c, TSP_CLOCK_SAMPLES,
				       RSEND_TIMEOUT_MS, &c->setup, why,
				       sizeof(why))) {
			pr_err("receiver %s: no clock estimate: %s\n", c->name,
			       why);
			ret = -1;
			continue;
		}
		if (request(s, c, run_id))
			ret = -1;
	}
	if (ret)
		rsend_abort(s);
	return ret;
}

void rsend_start(struct rsend *s, uint32_t run_id, uint64_t t0)
{
	struct tsp_msg m = { .type = TSP_START };
	size_t i;

	m.u.start.run_id = run_id;
	m.u.start.start_ns = t0;
	for (i = 0; i < s->nrcvrs; i++) {
		struct rsend_rcvr *c = &s->rcvrs[i];

		m.u.start.offset_ns = c->setup.offset_ns;
		m.u.start.uncertainty_ns = c->setup.uncertainty_ns;

		if (c->up && !c->ditg && tsp_conn_send(&c->c, &m, RSEND_TIMEOUT_MS, c->why,
					   sizeof(c->why))) {
			c->up = false;
			c->lost = true;
		}
	}
}

/*
 * The next message of c that asks something of the run: ITGRecv's
 * keep-alive (after 100 s of silence) is answered here. As
 * tsp_conn_next(); a keep-alive that cannot be answered: -1, why set.
 */
static int next_msg(struct rsend_rcvr *c, struct tsp_msg *m)
{
	struct tsp_msg ack = { .type = TSP_ACK_DISCOVERY };
	int r;

	for (;;) {
		r = tsp_conn_next(&c->c, m, c->why, sizeof(c->why));
		if (r <= 0 || !c->ditg || m->type != TSP_DISCOVERY)
			return r;
		tsp_msg_free(m);
		if (tsp_conn_send(&c->c, &ack, RSEND_TIMEOUT_MS, c->why,
				  sizeof(c->why)))
			return -1;
	}
}

size_t rsend_poll(struct rsend *s)
{
	struct tsp_msg m;
	size_t i, lost = 0;
	ssize_t k;
	int r;

	for (i = 0; i < s->nrcvrs; i++) {
		struct rsend_rcvr *c = &s->rcvrs[i];

		if (!c->up)
			continue;
		k = tsp_conn_fill(&c->c);
		if (k < 0 && k != -EAGAIN)
			snprintf(c->why, sizeof(c->why), "connection lost: %s",
				 strerror((int)-k));
		else if ((r = next_msg(c, &m)) == 0)
			continue;
		else if (r > 0 && m.type == TSP_ERROR)
			snprintf(c->why, sizeof(c->why), "it said %s: %s",
				 tsp_error_name(m.u.error.code),
				 m.u.error.text.s);
		else if (r > 0)
			snprintf(c->why, sizeof(c->why), "it sent %s in the run",
				 tsp_type_name(m.type));
		if (k >= 0 && r > 0)
			tsp_msg_free(&m);
		c->up = false;
		c->lost = true;
		lost++;
	}
	return lost;
}

/*
 * Close c's flows, one after the other, each answered by its result
 * (sent: the close went already, rsend_finish's for ITGRecvs).
 */
static void close_flows(struct rsend *s, struct rsend_rcvr *c, bool sent)
{
	struct tsp_msg m = { .type = TSP_CLOSED_FLOW }, in;
	char why[400];
	size_t i;

	for (i = 0; i < s->nflows && c->up; i++) {
		struct rsend_flow *f = &s->flows[i];

		if (f->rcvr != c || !f->acked)
			continue;
		m.flow_id = f->tg->id;
		if (!sent && tsp_conn_send(&c->c, &m, RSEND_TIMEOUT_MS, why,
					   sizeof(why)))
			goto lost;
		for (;;) {
			if (tsp_conn_recv(&c->c, &in, RSEND_TIMEOUT_MS, why,
					  sizeof(why)) < 0)
				goto lost;
			if (in.type == TSP_RESULT && in.flow_id == m.flow_id) {
				f->res = in.u.result;
				f->have_result = true;
			} else if (in.type == TSP_ACK_CLOSED_FLOW &&
				   in.flow_id == m.flow_id) {
				f->closed = true;
				tsp_msg_free(&in);
				break;
			} else if (c->ditg && in.type == TSP_DISCOVERY) {
				struct tsp_msg ack = {
					.type = TSP_ACK_DISCOVERY };

				if (tsp_conn_send(&c->c, &ack, RSEND_TIMEOUT_MS,
						  why, sizeof(why)))
					goto lost;
			} else {
				snprintf(why, sizeof(why), "it sent %s to a close",
					 tsp_type_name(in.type));
				tsp_msg_free(&in);
				goto lost;
			}
			tsp_msg_free(&in);
		}
	}
	return;
lost:
	snprintf(c->why, sizeof(c->why), "%s", why);
	c->up = false;
	c->lost = true;
}

static void release(struct rsend_rcvr *c)
{
	struct tsp_msg m = { .type = TSP_RELEASE }, in;
	char why[400];

	if (c->up && !tsp_conn_send(&c->c, &m, RSEND_TIMEOUT_MS, why,
				    sizeof(why)) &&
	    tsp_conn_recv(&c->c, &in, RSEND_TIMEOUT_MS, why, sizeof(why)) > 0)
		tsp_msg_free(&in);
	c->up = false;
	tsp_conn_close(&c->c);
}

bool rsend_ditg_open(const struct rsend *s)
{
	size_t i;

	for (i = 0; i < s->nflows; i++)
		if (s->flows[i].rcvr && s->flows[i].rcvr->ditg &&
		    s->flows[i].rcvr->up && s->flows[i].acked)
			return true;
	return false;
}

void rsend_finish(struct rsend *s)
{
	struct tsp_msg m = { .type = TSP_CLOSED_FLOW };
	size_t i;

	/* ITGRecvs wait a second before each answer: all closed at once */
	for (i = 0; i < s->nflows; i++) {
		struct rsend_rcvr *c = s->flows[i].rcvr;

		m.flow_id = s->flows[i].tg->id;
		if (c && c->ditg && c->up && s->flows[i].acked &&
		    tsp_conn_send(&c->c, &m, RSEND_TIMEOUT_MS, c->why,
				  sizeof(c->why))) {
			c->up = false;
			c->lost = true;
		}
	}
	for (i = 0; i < s->nrcvrs; i++) {
		struct rsend_rcvr *c = &s->rcvrs[i];
		char why[400];

		/* the second estimate says how far the clocks drifted apart */
		if (c->up && !c->ditg && tsp_clock_estimate(&c->c, TSP_CLOCK_SAMPLES,
						RSEND_TIMEOUT_MS, &c->teardown,
						why, sizeof(why)))
			pr_warn("receiver %s: no clock estimate at the end: %s\n",
				c->name, why);
		close_flows(s, c, c->ditg);
		release(c);
	}
	for (i = 0; i < s->nflows; i++) {
		struct rsend_flow *f = &s->flows[i];

		if (f->have_result || !f->rcvr)
			continue;
		if (f->rcvr->ditg && f->closed)
			snprintf(f->why, sizeof(f->why),
				 "ITGRecv %s sends no figures back (D-ITG's signalling): its log has them",
				 f->rcvr->name);
		else
			snprintf(f->why, sizeof(f->why), "receiver %s: %s",
				 f->rcvr->name, f->rcvr->why[0] ?
				 f->rcvr->why : "no result");
	}
}

void rsend_abort(struct rsend *s)
{
	size_t i;

	for (i = 0; i < s->nrcvrs; i++)
		release(&s->rcvrs[i]);
}

void rsend_free(struct rsend *s)
{
	size_t i;

	for (i = 0; i < s->nrcvrs; i++)
		tsp_conn_close(&s->rcvrs[i].c);
	free(s->rcvrs);
	free(s->flows);
	tsp_key_wipe(&s->key);
	memset(s, 0, sizeof(*s));
}
