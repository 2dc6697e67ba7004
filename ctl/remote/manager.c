// SPDX-License-Identifier: GPL-2.0-or-later
/* The manager's side of TSP's jobs (manager.h). */
#include <arpa/inet.h>
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "remote/manager.h"
#include "util/clock.h"

const char *mhost_state_name(enum mhost_state s)
{
	static const char *const names[] = {
		"idle", "offered", "ready", "running", "ended", "failed",
	};

	return names[s];
}

static void fail(struct mhost *h, const char *fmt, const char *what)
{
	if (h->state == MH_RUNNING)
		h->was_running = true;
	h->state = MH_FAILED;
	snprintf(h->why, sizeof(h->why), fmt, what);
	tsp_conn_close(&h->c);
}

int mgr_init(struct mgr *m, const struct idf_file *f, uint32_t run_id,
	     char *why, size_t len)
{
	size_t i, k;

	memset(m, 0, sizeof(*m));
	m->run_id = run_id;
	if (!f->key) {
		snprintf(why, len, "no 'key FILE' in the globals: the key the daemons check (Documentation/tsp.rst, Key files)");
		return -1;
	}
	if (tsp_key_load(f->key, &m->key, why, len))
		return -1;
	m->hosts = calloc(f->nhosts ? f->nhosts : 1, sizeof(*m->hosts));
	if (!m->hosts) {
		snprintf(why, len, "out of memory");
		return -1;
	}
	for (i = 0; i < f->nhosts; i++) {
		struct mhost *h = &m->hosts[m->nhosts];
		struct idf_addr a = f->hosts[i].addr;

		for (k = 0; k < f->ntgs; k++)
			h->nrows += !strcmp(f->tgs[k].host, f->hosts[i].name);
		if (!h->nrows)
			continue;	/* no TG there: not contacted */
		h->rows = calloc(h->nrows, sizeof(*h->rows));
		if (!h->rows) {
			snprintf(why, len, "out of memory");
			return -1;
		}
		h->nrows = 0;
		for (k = 0; k < f->ntgs; k++)
			if (!strcmp(f->tgs[k].host, f->hosts[i].name))
				h->rows[h->nrows++].tgid = f->tgs[k].id;
		h->h = &f->hosts[i];
		h->run_id = run_id + (uint32_t)m->nhosts;
		if (h->run_id < run_id)		/* wrapped: 0 is no run */
			h->run_id++;
		if (!a.port)
			a.port = IDF_HOST_PORT;
		idf_endpoint_str(&a, a.port, h->addr, sizeof(h->addr));
		tsp_conn_init(&h->c, -1, TSP_FROM_SENDER, h->addr);
		m->nhosts++;
	}
	return 0;
}

void mgr_free(struct mgr *m)
{
	size_t i;

	for (i = 0; i < m->nhosts; i++) {
		tsp_conn_close(&m->hosts[i].c);
		free(m->hosts[i].rows);
		free(m->hosts[i].summary);
	}
	free(m->hosts);
	tsp_key_wipe(&m->key);
	memset(m, 0, sizeof(*m));
}

/* Connect, authenticate, offer the part and send the file's text. */
static void offer(struct mgr *m, struct mhost *h, const struct idf_file *f,
		  const char *name)
{
	struct tsp_msg o = { .type = TSP_JOB_OFFER };
	struct idf_addr a = h->h->addr;
	char why[TSP_MAX_TEXT + 160];
	size_t off;

	if (tsp_dial(&h->c, a.family, a.addr, a.port ? a.port : IDF_HOST_PORT,
		     &m->key, MGR_DIAL_MS, why, sizeof(why))) {
		fail(h, "%s", why);
		return;
	}
	o.u.offer.run_id = h->run_id;
	o.u.offer.idf_len = (uint32_t)f->text_len;
	o.u.offer.host_len = (uint16_t)strlen(h->h->name);
	memcpy(o.u.offer.host, h->h->name, o.u.offer.host_len + 1);
	tsp_text_set(&o.u.offer.file, name);
	if (tsp_conn_send(&h->c, &o, MGR_SEND_MS, why, sizeof(why))) {
		fail(h, "%s", why);
		return;
	}
	for (off = 0; off < f->text_len; off += TSP_JOB_CHUNK) {
		struct tsp_msg d = { .type = TSP_JOB_DATA };

		d.u.jdata.kind = TSP_JOB_IDF;
		d.u.jdata.offset = (uint32_t)off;
		d.u.jdata.len = (uint16_t)(f->text_len - off < TSP_JOB_CHUNK ?
					   f->text_len - off : TSP_JOB_CHUNK);
		d.u.jdata.bytes = (uint8_t *)f->text + off;
		if (tsp_conn_send(&h->c, &d, MGR_SEND_MS, why, sizeof(why))) {
			fail(h, "%s", why);
			return;
		}
	}
	h->state = MH_OFFERED;
}

/* What the daemon said where something else was due. */
static void unexpected(struct mhost *h, const struct tsp_msg *msg)
{
	char w[TSP_MAX_TEXT + 64];

	if (msg->type == TSP_ERROR)
		snprintf(w, sizeof(w), "%s: %s",
			 tsp_error_name(msg->u.error.code), msg->u.error.text.s);
	else
		snprintf(w, sizeof(w), "its daemon sent %s, out of order",
			 tsp_type_name(msg->type));
	fail(h, "%s", w);
}

static void take_progress(struct mhost *h, const struct tsp_job_progress *p)
{
	size_t i, k;

	h->elapsed_ns = p->elapsed_ns;
	for (i = 0; i < p->count; i++)
		for (k = 0; k < h->nrows; k++)
			if (h->rows[k].tgid == p->rows[i].tgid)
				h->rows[k].row = p->rows[i];
}

static void take_summary(struct mhost *h, const struct tsp_job_data *d)
{
	char *n;

	if (d->offset != h->sum_got ||
	    (uint64_t)d->offset + d->len > TSP_JOB_SUMMARY_MAX) {
		fail(h, "%s", "its summary's pieces came out of order");
		return;
	}
	n = realloc(h->summary, (size_t)h->sum_got + d->len + 1);
	if (!n) {
		fail(h, "%s", "out of memory for its summary");
		return;
	}
	h->summary = n;
	memcpy(h->summary + h->sum_got, d->bytes, d->len);
	h->sum_got += d->len;
	h->summary[h->sum_got] = '\0';
}

/* One message of a host's daemon. */
static void on_message(struct mhost *h, const struct tsp_msg *msg)
{
	if (h->state == MH_OFFERED && msg->type == TSP_JOB_READY &&
	    msg->u.ready.run_id == h->run_id) {
		h->state = MH_READY;
		h->tgs = msg->u.ready.tgs;
	} else if (h->state == MH_RUNNING && msg->type == TSP_JOB_PROGRESS &&
		   msg->u.prog.run_id == h->run_id) {
		take_progress(h, &msg->u.prog);
	} else if (h->state == MH_RUNNING && msg->type == TSP_JOB_DATA) {
		take_summary(h, &msg->u.jdata);
	} else if ((h->state == MH_RUNNING || h->state == MH_READY ||
		    h->state == MH_OFFERED) && msg->type == TSP_JOB_END &&
		   msg->u.jend.run_id == h->run_id) {
		h->status = msg->u.jend.status;
		h->killed = msg->u.jend.flags & TSP_JOB_KILLED;
		snprintf(h->why, sizeof(h->why), "%s", msg->u.jend.why.s);
		if (msg->u.jend.summary_len != h->sum_got)
			snprintf(h->why, sizeof(h->why), "its summary: %u bytes said, %u came",
				 msg->u.jend.summary_len, h->sum_got);
		h->state = MH_ENDED;
		tsp_conn_close(&h->c);
	} else {
		unexpected(h, msg);
	}
}

/* What each host's daemon sent, waiting up to ms for the first of it. */
static void poll_hosts(struct mgr *m, int ms)
{
	struct pollfd *p = calloc(m->nhosts, sizeof(*p));
	char why[TSP_MAX_TEXT + 160];
	struct tsp_msg msg;
	size_t i;
	ssize_t k;
	int r;

	if (!p)
		return;
	for (i = 0; i < m->nhosts; i++)
		p[i] = (struct pollfd){ .fd = m->hosts[i].c.fd, .events = POLLIN };
	poll(p, m->nhosts, ms);
	for (i = 0; i < m->nhosts; i++) {
		struct mhost *h = &m->hosts[i];

		if (h->c.fd < 0 || !p[i].revents)
			continue;
		k = tsp_conn_fill(&h->c);
		if (k < 0 && k != -EAGAIN) {
			fail(h, "connection lost: %s", strerror((int)-k));
			continue;
		}
		while (h->c.fd >= 0 &&
		       (r = tsp_conn_next(&h->c, &msg, why, sizeof(why)))) {
			if (r < 0) {
				fail(h, "%s", why);
				break;
			}
			on_message(h, &msg);
			tsp_msg_free(&msg);
		}
	}
	free(p);
}

bool mgr_prepare(struct mgr *m, const struct idf_file *f, const char *name,
		 const volatile sig_atomic_t *stop)
{
	uint64_t by = now_mono_ms() + MGR_READY_MS;
	bool waiting = true, all = true;
	size_t i;

	for (i = 0; i < m->nhosts && !*stop; i++)
		offer(m, &m->hosts[i], f, name);
	while (waiting && !*stop && now_mono_ms() < by) {
		poll_hosts(m, 100);
		for (i = 0, waiting = false; i < m->nhosts; i++)
			waiting |= m->hosts[i].state == MH_OFFERED;
	}
	for (i = 0; i < m->nhosts; i++) {
		struct mhost *h = &m->hosts[i];

		if (h->state == MH_OFFERED && !*stop)
			fail(h, "%s", "not ready in 120 s");
		all &= h->state == MH_READY;
	}
	return all;
}

void mgr_drop(struct mgr *m, const char *why)
{
	struct tsp_msg d = { .type = TSP_JOB_DROP };
	char w[TSP_MAX_TEXT + 160];
	size_t i;

	tsp_text_set(&d.u.drop.why, why);
	for (i = 0; i < m->nhosts; i++) {
		struct mhost *h = &m->hosts[i];

		d.u.drop.run_id = h->run_id;
		if (h->c.fd < 0 || h->state == MH_FAILED ||
		    h->state == MH_ENDED)
			continue;
		tsp_conn_send(&h->c, &d, MGR_SEND_MS, w, sizeof(w));
		if (h->state != MH_RUNNING)
			tsp_conn_close(&h->c);	/* nothing ran: nothing to wait for */
	}
}

int mgr_start(struct mgr *m, uint64_t t0)
{
	struct tsp_msg s = { .type = TSP_JOB_START };
	char why[TSP_MAX_TEXT + 160];
	int ret = 0;
	size_t i;

	s.u.jstart.start_ns = t0;
	for (i = 0; i < m->nhosts; i++) {
		struct mhost *h = &m->hosts[i];

		s.u.jstart.run_id = h->run_id;
		if (tsp_conn_send(&h->c, &s, MGR_SEND_MS, why, sizeof(why))) {
			fail(h, "%s", why);
			ret = -1;
			continue;
		}
		h->state = MH_RUNNING;
	}
	return ret;
}

void mgr_poll(struct mgr *m, int ms)
{
	poll_hosts(m, ms);
}

bool mgr_done(const struct mgr *m)
{
	size_t i;

	for (i = 0; i < m->nhosts; i++)
		if (m->hosts[i].state != MH_ENDED &&
		    m->hosts[i].state != MH_FAILED)
			return false;
	return true;
}
