// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * mtgctl recv: the receiver daemon (ITGRecv's role, Documentation/tsp.rst).
 * Senders connect over TSP, prove they hold the key, and ask for flows;
 * each flow is checked against what this receiver consents to before
 * anything is opened for it. A run's flows are received by a module
 * session of their own and recorded to a file of their own; each closed
 * flow's result goes back to its sender. One thread: poll() over the
 * listening socket and every connection, the rings looked at in between.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cmd/recv.h"
#include "util/clock.h"
#include "util/signals.h"

static volatile sig_atomic_t stop_signal;

static void on_signal(int sig)
{
	stop_signal = sig;
}

void recv_say(struct daemon *d, const struct peer *p, const char *fmt, ...)
{
	va_list ap;

	if (p)
		fprintf(d->say, "%s: ", p->c.peer);
	va_start(ap, fmt);
	vfprintf(d->say, fmt, ap);
	va_end(ap);
	fputc('\n', d->say);
	fflush(d->say);
}

int recv_send(struct peer *p, const struct tsp_msg *m, char *why, size_t len)
{
	return tsp_conn_send(&p->c, m, TSP_SERVE_SEND_MS, why, len);
}

/* Every run of the peer ends (incomplete unless each flow was closed). */
static void end_runs(struct daemon *d, struct peer *p, const char *why)
{
	size_t i;

	for (i = 0; i < p->nruns; i++) {
		struct rrun *run = p->runs[i];
		bool done = rrun_all_closed(run);

		d->nflows -= run->nflows;
		rrun_end(&d->cfg, run, !done, p->c.peer, done ? NULL : why);
	}
	free(p->runs);
	p->runs = NULL;
	p->nruns = 0;
	p->nflows = 0;
}

static void drop_peer(struct daemon *d, size_t idx, const char *why)
{
	struct peer *p = d->peers[idx];

	if (why)
		recv_say(d, p, "%s", why);
	end_runs(d, p, why ? why : "the connection ended");
	tsp_opening_wipe(&p->op);
	tsp_conn_close(&p->c);
	free(p);
	d->peers[idx] = d->peers[--d->npeers];
}

static void take_connections(struct daemon *d)
{
	char name[TSP_PEER_NAME];
	struct peer *p;
	int fd;

	while ((fd = tsp_serve_accept(d->lfd, d->npeers, TSP_PEERS_MAX,
				      &d->refused_conns, d->say, name,
				      sizeof(name))) >= 0) {
		p = calloc(1, sizeof(*p));
		if (!p) {
			close(fd);
			continue;
		}
		tsp_conn_init(&p->c, fd, TSP_FROM_RECEIVER, name);
		tsp_opening_init(&p->op);
		d->peers[d->npeers++] = p;
	}
}

const struct rflow *ditg_port_taken(const struct daemon *d, uint16_t port)
{
	size_t i, j, k;

	for (i = 0; i < d->npeers; i++)
		for (j = 0; j < d->peers[i]->nruns; j++) {
			const struct rrun *run = d->peers[i]->runs[j];

			for (k = 0; k < run->nflows; k++)
				if (run->flows[k].how.ditg_port == port)
					return &run->flows[k];
		}
	return NULL;
}

void take_run(struct daemon *d, struct peer *p, struct rrun *run)
{
	size_t i;

	for (i = 0; i < p->nruns && p->runs[i] != run; i++)
		;
	if (i == p->nruns)
		return;
	p->runs[i] = p->runs[--p->nruns];
	d->nflows -= run->nflows;
	p->nflows -= run->nflows;
}

static struct rrun *find_run(struct peer *p, uint32_t run_id)
{
	size_t i;

	for (i = 0; i < p->nruns; i++)
		if (p->runs[i]->run_id == run_id)
			return p->runs[i];
	return NULL;
}

static struct rflow *find_flow(struct peer *p, uint32_t id,
			       struct rrun **run)
{
	struct rflow *f;
	size_t i;

	for (i = 0; i < p->nruns; i++) {
		f = rrun_flow(p->runs[i], id);
		if (f) {
			*run = p->runs[i];
			return f;
		}
	}
	return NULL;
}

/*
 * The flow is consented to and added: 0 with why the interface (and the
 * reflector's slot of a round trip), else the refusal's code.
 */
static uint16_t admit(struct daemon *d, struct peer *p,
		      const struct tsp_msg *m, char *why, size_t len)
{
	const struct tsp_flow_req *r = &m->u.req;
	struct rrun *run, *dummy, **n;
	char dev[IF_NAMESIZE], *json;
	struct rflow_how how;
	uint16_t code;
	int slot;

	if (find_flow(p, m->flow_id, &dummy)) {
		snprintf(why, len, "flow %u is in use on this connection",
			 m->flow_id);
		return TSP_REFUSE_FLOW_ID;
	}
	if (d->nflows >= d->consent.max_flows) {
		snprintf(why, len, "this receiver has its %llu flows",
			 (unsigned long long)d->consent.max_flows);
		return TSP_REFUSE_BUSY;
	}
	code = consent_check(&d->consent, r, dev, why, len);
	if (code)
		return code;
	if (rrun_tg_check(r, m->flow_id, &json, &how, why, len))
		return TSP_REFUSE_TG;
	slot = how.rtt_slot;
	code = TSP_REFUSE_TG;
	run = find_run(p, r->run_id);
	if (run && run->started) {
		snprintf(why, len, "run %u has started: no more flows join it",
			 r->run_id);
		goto err_free;
	}
	/* D-ITG's packets carry no run id: their port is theirs alone */
	if (how.ditg_port && ditg_port_taken(d, how.ditg_port)) {
		snprintf(why, len, "port %u takes another flow's D-ITG packets already",
			 how.ditg_port);
		code = TSP_REFUSE_PORT;
		goto err_free;
	}
	if (slot >= 0 && !d->consent.rtt) {
		snprintf(why, len, "round trips (meter rtt): this receiver sends nothing back (mtgctl recv --rtt)");
		code = TSP_REFUSE_PROTO;
		goto err_free;
	}
	/* the reflector is ready before the sender hears yes */
	if (slot >= 0) {
		code = rtt_reflect(&d->rtt, dev, slot, r->run_id,
				   m->flow_id, why, len);
		if (code)
			goto err_free;
	}
	code = TSP_REFUSE_BIND;
	if (!run) {
		n = realloc(p->runs, (p->nruns + 1) * sizeof(*n));
		if (n)
			p->runs = n;
		run = n ? rrun_new(&d->cfg, r->run_id, why, len) : NULL;
		if (!run) {
			if (!n)
				snprintf(why, len, "out of memory");
			goto err_forget;
		}
		p->runs[p->nruns++] = run;
	}
	if (rrun_add(run, m->flow_id, json, dev, &how)) {
		snprintf(why, len, "out of memory");
		goto err_forget;
	}
	d->nflows++;
	p->nflows++;
	if (slot >= 0)
		snprintf(why, len, "%s, reflected in slot %d", dev, slot);
	else
		snprintf(why, len, "%s", dev);
	return TSP_ACCEPTED;
err_forget:
	if (slot >= 0)
		rtt_forget(&d->rtt, dev, r->run_id, m->flow_id);
err_free:
	free(json);
	return code;
}

static int on_flow_req(struct daemon *d, struct peer *p,
		       const struct tsp_msg *m, char *why, size_t len)
{
	const struct tsp_flow_req *r = &m->u.req;
	struct tsp_msg out = { .type = TSP_FLOW_ACK, .flow_id = m->flow_id };
	char text[TSP_MAX_TEXT + 1], a[64];
	uint16_t code = admit(d, p, m, text, sizeof(text));

	consent_addr_str(r->l3 == TSP_L3_IPV6 ? AF_INET6 : AF_INET, r->addr,
			 a, sizeof(a));
	out.u.ack.code = code;
	out.u.ack.port = code ? 0 : r->port;
	if (code) {
		tsp_text_set(&out.u.ack.reason, text);
		recv_say(d, p, "run %u flow %u to %s:%u refused (%s): %s", r->run_id,
		    m->flow_id, a, r->port, tsp_refusal_name(code), text);
	} else {
		recv_say(d, p, "run %u flow %u to %s:%u on %s accepted, %llu bit/s",
		    r->run_id, m->flow_id, a, r->port, text,
		    (unsigned long long)r->bit_rate);
	}
	return recv_send(p, &out, why, len);
}

static int on_start(struct daemon *d, struct peer *p, const struct tsp_msg *m,
		    char *why, size_t len)
{
	struct rrun *run = find_run(p, m->u.start.run_id);
	char text[200];

	if (!run || run->started) {
		snprintf(text, sizeof(text), "run %u: %s", m->u.start.run_id,
			 run ? "started already" : "no flow of it was accepted");
		return tsp_refuse(&p->c, TSP_ERR_UNEXPECTED, TSP_START, text,
				  why, len);
	}
	if (rrun_start(&d->cfg, run, &m->u.start, p->c.peer, text,
		       sizeof(text))) {
		/* the sender stops the run's flows when it reads this */
		tsp_conn_error(&p->c, TSP_ERR_INTERNAL, TSP_START, text);
		take_run(d, p, run);
		rrun_end(&d->cfg, run, true, p->c.peer, text);
		return 0;
	}
	recv_say(d, p, "run %u: %zu flow%s start at %llu (CLOCK_TAI), recording %s",
	    run->run_id, run->nflows, run->nflows == 1 ? "" : "s",
	    (unsigned long long)run->t0, run->path);
	return 0;
}

static int on_closed(struct daemon *d, struct peer *p, const struct tsp_msg *m,
		     char *why, size_t len)
{
	struct tsp_msg res = { .type = TSP_RESULT, .flow_id = m->flow_id };
	struct tsp_msg ack = { .type = TSP_ACK_CLOSED_FLOW,
			       .flow_id = m->flow_id };
	struct rrun *run = NULL;
	struct rflow *f = find_flow(p, m->flow_id, &run);
	char text[64];

	if (!f || f->closed) {
		snprintf(text, sizeof(text), "flow %u is not open", m->flow_id);
		return tsp_refuse(&p->c, TSP_ERR_UNEXPECTED, TSP_CLOSED_FLOW,
				  text, why, len);
	}
	rrun_poll(run, now_tai());
	rrun_result(&d->cfg, run, f, false, &res.u.result);
	f->closed = true;
	if (recv_send(p, &res, why, len) || recv_send(p, &ack, why, len))
		return -1;
	if (rrun_all_closed(run)) {
		take_run(d, p, run);
		rrun_end(&d->cfg, run, false, p->c.peer, NULL);
	}
	return 0;
}

/* A clock exchange: when the request came, when the answer leaves. */
static int on_time(struct daemon *d, struct peer *p, const struct tsp_msg *m,
		   char *why, size_t len)
{
	struct tsp_msg out = { .type = TSP_TIME_RESP };

	out.u.time.t1 = m->u.time.t1;
	out.u.time.t2 = now_tai() + d->o->clock_shift;
	out.u.time.t3 = now_tai() + d->o->clock_shift;
	return recv_send(p, &out, why, len);
}

/* One message of a peer: 0 to go on, 1 when released, -1 (why) to drop. */
static int on_message(struct daemon *d, struct peer *p,
		      const struct tsp_msg *m, char *why, size_t len)
{
	struct tsp_msg out = { .type = TSP_ACK_RELEASE };

	if (p->op.state != TSP_OPEN_DONE && m->type == TSP_CONNECT &&
	    ditg_allowed(d, p))
		return ditg_open(d, p, why, len);
	if (p->op.state != TSP_OPEN_DONE)
		return tsp_opening_step(&p->c, &p->op, &d->key, m, why, len);
	if (p->ditg)
		return ditg_message(d, p, m, why, len);
	switch (m->type) {
	case TSP_TIME_REQ:
		return on_time(d, p, m, why, len);
	case TSP_FLOW_REQ:
		return on_flow_req(d, p, m, why, len);
	case TSP_START:
		return on_start(d, p, m, why, len);
	case TSP_CLOSED_FLOW:
		return on_closed(d, p, m, why, len);
	case TSP_RELEASE:
		end_runs(d, p, "released before its flows were closed");
		recv_send(p, &out, why, len);
		return 1;
	default:
		return tsp_refuse(&p->c, TSP_ERR_UNEXPECTED, m->type,
				  "not a message of an open session", why,
				  len);
	}
}

/* on_message, as tsp_serve_read() calls it */
static int on_msg(void *d, void *p, const struct tsp_msg *m, char *why,
		  size_t len)
{
	return on_message(d, p, m, why, len);
}

static int open_listener(struct daemon *d)
{
	char why[200];

	d->lfd = tsp_serve_socket(d->o->bind, (uint16_t)d->o->port,
				  SOCK_STREAM, why, sizeof(why));
	if (d->lfd < 0)
		pr_err("recv: %s\n", why);
	return d->lfd < 0 ? -1 : 0;
}

/* ADDR[,ADDR...] of option opt into c: 0, or -1 (said why). */
static int add_addrs(struct consent *c, const char *given, const char *opt)
{
	char why[200], *list, *tok, *save;
	int ret = 0;

	if (!given)
		return 0;
	list = strdup(given);
	if (!list)
		return -1;
	for (tok = strtok_r(list, ",", &save); tok && !ret;
	     tok = strtok_r(NULL, ",", &save)) {
		ret = consent_add_addr(c, tok, why, sizeof(why));
		if (ret)
			pr_err("recv: %s: %s\n", opt, why);
	}
	free(list);
	return ret;
}

/* The options into the daemon: 0, or -1 (said why). */
static int configure(struct daemon *d)
{
	const struct recv_opts *o = d->o;
	char why[200];
	struct stat st;

	consent_init(&d->consent);
	consent_init(&d->ditg_from);
	if (!o->key) {
		pr_err("recv: --key FILE is needed: the key senders must prove they hold (Documentation/tsp.rst, Key files)\n");
		return -1;
	}
	if (tsp_key_load(o->key, &d->key, why, sizeof(why))) {
		pr_err("recv: %s\n", why);
		return -1;
	}
	if (add_addrs(&d->consent, o->addr, "--addr"))
		return -1;
	if (add_addrs(&d->ditg_from, o->allow_ditg, "--allow-ditg"))
		return -1;
	if (o->ports && consent_set_ports(&d->consent, o->ports, why,
					  sizeof(why))) {
		pr_err("recv: --ports: %s\n", why);
		return -1;
	}
	d->consent.max_bps = o->max_rate;
	d->consent.max_flows = o->max_flows;
	d->consent.rtt = o->rtt;
	if (stat(o->out, &st) || !S_ISDIR(st.st_mode)) {
		pr_err("recv: --out %s: %s\n", o->out, errno && !S_ISDIR(st.st_mode) ?
		       strerror(errno) : "not a directory");
		return -1;
	}
	d->cfg = (struct rrun_cfg){
		.dir = o->out, .device = o->device, .ring = o->ring,
		.key_path = o->key, .say = d->say,
		.clock_shift_ns = o->clock_shift,
		.log = { .to = o->log, .udp = o->log_udp, .key = o->key,
			 .name = o->log_name },
		.rtt = &d->rtt,
	};
	return 0;
}

static void loop(struct daemon *d)
{
	struct pollfd pfd[TSP_PEERS_MAX + 1];
	uint64_t end = d->o->duration ? now_tai() + d->o->duration : 0;
	char why[TSP_MAX_TEXT + 200];
	size_t i, j, started, npolled;

	while (!stop_signal && (!end || now_tai() < end)) {
		pfd[0] = (struct pollfd){ .fd = d->lfd, .events = POLLIN };
		started = 0;
		for (i = 0; i < d->npeers; i++) {
			pfd[i + 1] = (struct pollfd){ .fd = d->peers[i]->c.fd,
						      .events = POLLIN };
			for (j = 0; j < d->peers[i]->nruns; j++)
				started += d->peers[i]->runs[j]->started;
		}
		/* the rings are looked at every millisecond while runs go */
		npolled = d->npeers;
		poll(pfd, npolled + 1, started ? 1 : 100);
		for (i = d->npeers; i-- > 0;) {
			struct peer *p = d->peers[i];

			if (i < npolled && pfd[i + 1].fd == p->c.fd &&
			    pfd[i + 1].revents &&
			    tsp_serve_read(&p->c, on_msg, d, p, why,
					   sizeof(why))) {
				drop_peer(d, i, why[0] ? why : NULL);
				continue;
			}
			if (tsp_opening_expired(&p->c, &p->op, now_mono_ms(),
						why, sizeof(why))) {
				drop_peer(d, i, why);
				continue;
			}
			for (j = 0; j < p->nruns; j++)
				rrun_poll(p->runs[j], now_tai());
			if (p->ditg && ditg_due(d, p, now_tai(), why,
						sizeof(why))) {
				drop_peer(d, i, why);
				continue;
			}
		}
		/* after the closed ones: a flood that ended keeps no one out */
		if (pfd[0].revents & POLLIN)
			take_connections(d);
	}
}

int cmd_recv(const struct recv_opts *given)
{
	struct recv_opts opts = *given, *o = &opts;
	struct daemon d = { .o = o, .lfd = -1, .say = stdout };
	int rc = EXIT_ERROR;

	/* what was not given: TSP's and the consent's defaults */
	if (!o->port)
		o->port = TSP_PORT_DEFAULT;
	if (!o->max_rate)
		o->max_rate = CONSENT_MAX_BPS;
	if (!o->max_flows)
		o->max_flows = CONSENT_MAX_FLOWS;

	if (configure(&d) || open_listener(&d))
		goto out;
	stop_signals(on_signal);
	recv_say(&d, NULL, "receiving TSP on port %llu%s%s, key %s, recordings in %s%s%s%s",
	    (unsigned long long)o->port, o->bind ? " of " : "",
	    o->bind ? o->bind : "", o->key, o->out,
	    o->rtt ? ", round trips reflected" : "",
	    o->allow_ditg ? ", D-ITG senders from " : "",
	    o->allow_ditg ? o->allow_ditg : "");
	loop(&d);
	while (d.npeers)
		drop_peer(&d, d.npeers - 1, "the receiver stops");
	recv_say(&d, NULL, "stopped%s%s", stop_signal ? " by signal " : "",
	    stop_signal ? strsignal(stop_signal) : "");
	rc = EXIT_OK;
out:
	if (d.lfd >= 0)
		close(d.lfd);
	rtt_free(&d.rtt);
	tsp_key_wipe(&d.key);
	consent_free(&d.consent);
	consent_free(&d.ditg_from);
	return rc;
}
