// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * mtgctl manage's dashboard (manage.h): run's curses dashboard
 * (screen/dash.c) over the hosts' progress, a row per TG, its model
 * column "HOST:MODEL" (the host's first 12 characters). The daemons'
 * TGs are not steered from here: every key but those that move, sort
 * and show help does nothing, and q drops every part, as SIGINT does.
 * What is written to stderr meanwhile (a host lost) goes to the event
 * pane.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/manage.h"
#include "util/clock.h"

int mview_open(struct mview *v, const struct mgr *m, const struct idf_file *f,
	       const char *file)
{
	size_t i, k, n = 0;

	memset(v, 0, sizeof(*v));
	for (i = 0; i < m->nhosts; i++)
		n += m->hosts[i].nrows;
	v->view.rows = calloc(n ? n : 1, sizeof(*v->view.rows));
	if (!v->view.rows || dash_events_open(&v->ev)) {
		free(v->view.rows);
		v->view.rows = NULL;
		return -ENOMEM;
	}
	v->view.command = "manage";
	v->view.file = file;
	v->view.run_id = m->run_id;
	for (i = 0; i < m->nhosts; i++) {
		const struct mhost *h = &m->hosts[i];

		for (k = 0; k < h->nrows; k++) {
			struct dash_row *r = &v->view.rows[v->view.nrows++];
			const struct idf_tg *tg = NULL;
			size_t t;

			for (t = 0; t < f->ntgs && !tg; t++)
				if (f->tgs[t].id == h->rows[k].tgid)
					tg = &f->tgs[t];
			r->id = h->rows[k].tgid;
			r->run_id = h->run_id;
			r->has_tx = true;
			r->rate_factor = 1.0;
			snprintf(r->model, sizeof(r->model), "%.12s:%s",
				 h->h->name, idf_dist_name(tg->dist));
			idf_endpoint_str(&tg->dst, tg->dst.port, r->dst,
					 sizeof(r->dst));
		}
	}
	if (dash_open(&v->dash)) {
		dash_events_close(&v->ev);
		free(v->view.rows);
		v->view.rows = NULL;
		return -ENOTTY;
	}
	v->on = true;
	return 0;
}

/* The rows as the hosts last said them. */
static void build(struct mview *v, const struct mgr *m, uint64_t t0,
		  const char *phase)
{
	uint64_t now = now_tai();
	size_t i, k, at = 0;

	v->view.time_ns = now;
	v->view.elapsed_ns = now > t0 ? now - t0 : 0;
	v->view.phase = phase;
	for (i = 0; i < m->nhosts; i++) {
		const struct mhost *h = &m->hosts[i];

		for (k = 0; k < h->nrows; k++) {
			const struct tsp_job_row *p = &h->rows[k].row;
			struct dash_row *r = &v->view.rows[at++];

			snprintf(r->state, sizeof(r->state), "%s",
				 h->state == MH_FAILED ? "lost" : p->tgid ?
				 tsp_job_state_name(p->state) : "waiting");
			r->sent = p->sent;
			r->bytes = p->bytes;
			r->late_valid = p->tgid && p->late_p99_ns != UINT64_MAX;
			r->late_p99_ns = p->late_p99_ns;
			dash_rate(now, r->sent, r->bytes, r->tx_mark, &r->pps,
				  &r->bps);
		}
	}
	dash_view_total(&v->view);
}

bool mview_turn(struct mview *v, const struct mgr *m, uint64_t t0,
		const char *phase)
{
	uint64_t now = now_tai();
	struct dash_action a;
	bool redraw;

	if (!v->on || !dash_due(&v->dash, now, v->next_draw))
		return false;
	a = dash_keys(&v->dash, &v->ev, &redraw);
	if (a.act == DASH_QUIT)
		return true;
	if (now >= v->next_draw || redraw) {
		build(v, m, t0, phase);
		dash_draw(&v->dash, &v->view, &v->ev);
		v->next_draw = now + DASH_REDRAW_NS;
	}
	return false;
}

void mview_close(struct mview *v)
{
	if (v->on)
		dash_close(&v->dash);
	v->on = false;
	dash_events_close(&v->ev);
	free(v->view.rows);
	v->view.rows = NULL;
}
