// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * mtgctl listen: a receive-only session, for the host at the far end of
 * the network under test. Listen on the interfaces given, and take the
 * connections --accept says (rx/conns.h), record every MTG packet and
 * message that arrives (of one run, or of all), meter each flow, until
 * SIGINT, SIGTERM or --duration; then report and write the summary.
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "module/iface.h"
#include "module/module.h"
#include "rx/conns.h"
#include "rx/listening.h"
#include "rx/summary.h"
#include "screen/dash.h"
#include "util/clock.h"

#define PROGRESS_NS	1000000000ULL	/* a progress line a second */

static volatile sig_atomic_t stop_signal;

/* How the listener shows itself: lines, a dashboard, or a JSON stream. */
struct show {
	FILE *say;		/* human lines */
	bool dash_on;
	bool stream;
	struct dash dash;
	struct dash_events ev;
	struct dash_view view;
	size_t cap;		/* rows allocated */
	uint64_t since;		/* events streamed */
	unsigned int quits;
};

static void on_signal(int sig)
{
	stop_signal = sig;
}

static void elapsed(FILE *f, uint64_t t0, uint64_t now)
{
	uint64_t dt = now > t0 ? now - t0 : 0;

	fprintf(f, "%4llu.%01llus ", (unsigned long long)(dt / 1000000000ULL),
	       (unsigned long long)(dt / 100000000ULL % 10));
}

/* A line per flow met, then the receiving side's lines. */
static void report(const struct listening *ls, FILE *f)
{
	const struct meter_set *ms = &ls->rx.meters;
	size_t i;

	for (i = 0; i < ms->n; i++) {
		fprintf(f, "run %u tg %u: ", ms->all[i]->run_id,
			ms->all[i]->tg_id);
		meter_print(f, ms->all[i], -1);
		fprintf(f, "\n");
	}
	listening_report(ls, f);
}

/* A row per flow met: rows keep their place as flows are added. */
static int build_view(struct show *sh, const struct listening *ls,
		      uint32_t run_id, uint64_t start, uint64_t now,
		      const char *phase)
{
	const struct meter_set *ms = &ls->rx.meters;
	struct dash_view *v = &sh->view;
	size_t i;

	if (ms->n > sh->cap) {
		size_t cap = ms->n * 2;
		struct dash_row *rows = realloc(v->rows, cap * sizeof(*rows));

		if (!rows)
			return -ENOMEM;
		memset(rows + sh->cap, 0, (cap - sh->cap) * sizeof(*rows));
		v->rows = rows;
		sh->cap = cap;
	}
	v->nrows = ms->n;
	v->command = "listen";
	v->run_id = run_id;
	v->time_ns = now;
	v->elapsed_ns = now > start ? now - start : 0;
	v->phase = phase;
	for (i = 0; i < ms->n; i++) {
		const struct meter *m = ms->all[i];
		struct dash_row *row = &v->rows[i];

		row->id = m->tg_id;
		row->run_id = m->run_id;
		snprintf(row->model, sizeof(row->model), "-");
		snprintf(row->dst, sizeof(row->dst), "run:%u", m->run_id);
		/* Receiving only: a flow is live while its packets come. */
		snprintf(row->state, sizeof(row->state), "%s",
			 m->last_rx_ns + 2 * DASH_RATE_NS >= now ? "receiving" :
			 "quiet");
		dash_row_meter(row, m, now, -1, 0);
		row->pps = row->rx_pps;
		row->bps = row->rx_bps;
	}
	dash_view_total(v);
	dash_view_listening(v, ls);
	return 0;
}

/* The dashboard's turn: keys (select, sort, quit), a bounded frame rate. */
static void dash_turn(struct show *sh, struct listening *ls, uint32_t run_id,
		      uint64_t start, uint64_t now, uint64_t *next_draw)
{
	struct dash_action a;
	bool redraw;

	if (!dash_due(&sh->dash, now, *next_draw))
		return;
	a = dash_keys(&sh->dash, &sh->ev, &redraw);
	if (a.act == DASH_QUIT)
		sh->quits++;
	else if (a.act == DASH_START_USER)
		dash_event(&sh->ev, "listening only: no TG of ours to start");
	if (now >= *next_draw || redraw || a.act != DASH_NONE) {
		if (!build_view(sh, ls, run_id, start, now, "listening"))
			dash_draw(&sh->dash, &sh->view, &sh->ev);
		*next_draw = now + DASH_REDRAW_NS;
	}
}

/* Receive until a signal, 'q' or the end of the duration. */
static int watch(struct show *sh, struct listening *ls, uint32_t run_id,
		 uint64_t start, uint64_t duration)
{
	uint64_t next = start + PROGRESS_NS, next_draw = 0, now;
	int64_t got;
	int err;

	for (;;) {
		now = now_tai();
		got = listening_poll(ls, now);
		if (got < 0)
			return (int)got;
		if (stop_signal || sh->quits || ls->write_failed ||
		    (duration && now - start >= duration))
			return 0;
		if (listening_all_lost(ls)) {
			FILE *f = ls->rx.events ? ls->rx.events : sh->say;

			fprintf(f, "every interface listened on went away: nothing more can arrive, listening ends\n");
			fflush(f);
			return 0;
		}
		if (sh->dash_on)
			dash_turn(sh, ls, run_id, start, now, &next_draw);
		if (now >= next) {
			/* What a line counts as recorded is on the disk. */
			if (!sh->dash_on)
				listening_sync(ls, now);
			if (sh->stream) {
				err = build_view(sh, ls, run_id, start, now,
						 "listening");
				if (err)
					return err;
				dash_view_json(stdout, &sh->view, "interval",
					       &sh->ev, &sh->since);
			} else if (!sh->dash_on) {
				elapsed(sh->say, start, now);
				listening_progress(ls, sh->say);
				fprintf(sh->say, "\n");
				fflush(sh->say);
			}
			while (next <= now)
				next += PROGRESS_NS;
		}
		listening_wait(ls, got);
	}
}

/* --accept's list into specs: their number, or -1 with what is wrong said. */
static int accept_specs(const char *list, struct conn_spec *specs)
{
	char *copy = strdup(list), *one, *save = NULL;
	const char *why;
	int n = 0;

	if (!copy) {
		pr_err("out of memory\n");
		return -1;
	}
	for (one = strtok_r(copy, ",", &save); one;
	     one = strtok_r(NULL, ",", &save)) {
		if (n == CONN_SPECS_MAX) {
			pr_err("listen --accept: at most %d places\n",
			       CONN_SPECS_MAX);
			n = -1;
			break;
		}
		why = conn_spec_parse(one, &specs[n]);
		if (why) {
			pr_err("listen --accept: '%s': %s\n", one, why);
			n = -1;
			break;
		}
		n++;
	}
	free(copy);
	if (n == 0)
		pr_err("listen --accept: no PROTO:ADDR:PORT given\n");
	return n ? n : -1;
}

int cmd_listen(int ndevs, char **devs, const struct listen_opts *o)
{
	struct conn_spec specs[CONN_SPECS_MAX];
	int nspecs = 0;
	struct sigaction sa = { .sa_handler = on_signal };
	struct idf_listen *want = calloc((size_t)ndevs, sizeof(*want));
	struct mtg_dev dev = { .fd = -1 };
	struct netns_cache ns = { 0 };
	struct listening ls = { 0 };
	struct show sh = { 0 };
	struct rec_meta mi = {
		.command = "listen",
		.run_id = (uint32_t)o->run_id,
		.ring_records = o->rx.ring,
		.passthrough = o->passthrough,
	};
	uint64_t start, end;
	const char *why;
	int i, ret, rc = EXIT_ERROR;

	if (!want) {
		pr_err("out of memory\n");
		return EXIT_ERROR;
	}
	sh.dash_on = !o->rx.batch && !o->rx.json_stream && isatty(STDOUT_FILENO) &&
		isatty(STDIN_FILENO);
	sh.stream = o->rx.json_stream;
	sh.say = o->rx.json_stream ? stderr : stdout;
	if (dash_events_open(&sh.ev)) {
		pr_err("out of memory\n");
		goto out;
	}
	if (o->accept) {
		nspecs = accept_specs(o->accept, specs);
		if (nspecs < 0)
			goto out;
	}
	if (!ndevs && !nspecs) {
		pr_err("listen: nothing to listen on: give interfaces (DEV[@NETNS]...), or connections to accept (--accept PROTO:ADDR:PORT)\n");
		goto out;
	}
	if (!ndevs && o->xdp) {
		pr_err("listen --xdp: the XDP receiver needs interfaces (DEV[@NETNS]...)\n");
		goto out;
	}
	for (i = 0; i < ndevs; i++) {
		why = idf_parse_listen(devs[i], &want[i]);
		if (why) {
			pr_err("listen: '%s' is not DEV or DEV@NETNS: expected %s\n",
			       devs[i], why);
			goto out;
		}
	}
	if (listening_resolve(&ls, want, (size_t)ndevs, "", &ns))
		goto out;
	if (o->rx.output && listening_create(&ls, o->rx.output, o->rx.force))
		goto out;
	if (ndevs && !o->xdp && (mtg_dev_open(&dev, o->rx.device) ||
				 mtg_dev_alloc(&dev, 0, o->rx.ring,
					       o->rx.keep_ring)))
		goto err_abandon;
	if (nspecs && conn_rx_open(&ls.conns, specs, (size_t)nspecs,
				   (uint32_t)o->run_id))
		goto err_abandon;

	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);

	start = now_tai();
	if (!ndevs)	/* connections only: no module, no ring */
		listening_attach_none(&ls, start);
	else if (o->xdp ? listening_attach_xdp(&ls, (uint32_t)o->run_id,
					       o->passthrough, o->rx.ring,
					       start) :
		 listening_attach(&ls, &dev, (uint32_t)o->run_id,
				  o->passthrough, start))
		goto err_abandon;
	if (o->xdp)
		mi.xdp_stamp = xdp_rx_stamp(ls.xdp);
	/* The module holds the interfaces: `ip netns del` really deletes. */
	netns_cache_release(&ns);
	mi.start_ns = start;
	mi.devs = ls.devs;
	mi.ndevs = ls.ndevs;
	ls.rx.any_flow = true;
	ls.log_cfg = (struct logc_cfg){
		.to = o->rx.log, .udp = o->rx.log_udp, .key = o->rx.log_key,
		.name = o->rx.log_name,
	};
	if (listening_begin(&ls, &mi))
		goto err_abandon;
	listening_commit(&ls);
	fprintf(sh.say, "listening on %d interface%s%s", ndevs,
		ndevs == 1 ? "" : "s", o->xdp ? " with XDP" : "");
	for (i = 0; i < nspecs; i++)
		fprintf(sh.say, "%s%s", i ? ", " : " and accepting on ",
			specs[i].text);
	fprintf(sh.say, " for %s", o->run_id ? "run " : "every run");
	if (o->run_id)
		fprintf(sh.say, "%llu", (unsigned long long)o->run_id);
	if (ls.out)
		fprintf(sh.say, ", recording %s", ls.out);
	fprintf(sh.say, ", from %llu (CLOCK_TAI)\n", (unsigned long long)start);
	fflush(sh.say);

	if (sh.dash_on && dash_open(&sh.dash))
		sh.dash_on = false;	/* it said why; plain lines instead */
	ls.rx.events = sh.dash_on || sh.stream ? sh.ev.stream : sh.say;
	ret = watch(&sh, &ls, (uint32_t)o->run_id, start, o->duration);
	end = now_tai();
	if (sh.dash_on) {
		dash_close(&sh.dash);
		ls.rx.events = sh.say;
	}
	if (listening_end(&ls, end))
		ret = -EIO;
	if (sh.stream && !build_view(&sh, &ls, (uint32_t)o->run_id, start, end,
				     "ended"))
		dash_view_json(stdout, &sh.view, "end", &sh.ev, &sh.since);
	report(&ls, sh.say);
	rc = ret ? EXIT_ERROR : listening_lost_any(&ls) ? EXIT_COUNTED :
		EXIT_OK;
	if (o->rx.json) {
		ret = listening_summary_write(&ls, o->rx.json, "listen",
					      (uint32_t)o->run_id, start, end,
					      false);
		if (ret) {
			pr_err("cannot write the summary %s: %s\n", o->rx.json,
			       strerror(-ret));
			rc = EXIT_ERROR;
		}
	}
	goto out;

err_abandon:
	listening_abandon(&ls);
out:
	mtg_dev_close(&dev);
	listening_free(&ls);
	netns_cache_close(&ns);
	free(sh.view.rows);
	dash_events_close(&sh.ev);
	free(want);
	return rc;
}
