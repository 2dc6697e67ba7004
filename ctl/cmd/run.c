// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * mtgctl run: parse (nothing starts if the IDF has an error), build the
 * timetables, find the interfaces, create the recording, open a session
 * on /dev/mtg, write the tables into its shared memory, listen on the
 * IDF's `listen` interfaces, start every TG at T0 plus its relative start,
 * poll the receive rings and the TGs' counters until all have ended and
 * the drain time has passed (or a signal came), and report: progress
 * lines, a final table, the recording, the JSON summary.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "cmd/run.h"
#include "traffic/gap.h"

volatile sig_atomic_t stop_signal;
static volatile sig_atomic_t signals, user_start;

static void on_signal(int sig)
{
	stop_signal = sig;
	signals++;
}

static void on_user(int sig)
{
	(void)sig;
	user_start = 1;
}

/*
 * For `time absolute`: wall-clock times into CLOCK_TAI. The kernel keeps
 * them a whole number of seconds apart (TAI - UTC), so the difference of
 * two readings, a few ns apart, rounds to it exactly.
 */
static uint64_t tai_offset(void)
{
	struct timespec rt;
	uint64_t tai = now_tai(), real;
	int64_t diff, secs;

	clock_gettime(CLOCK_REALTIME, &rt);
	real = (uint64_t)rt.tv_sec * 1000000000ULL + (uint64_t)rt.tv_nsec;
	/* read second, real may be ahead by those ns: signed, then rounded */
	diff = (int64_t)(tai - real);
	secs = (diff >= 0 ? diff + 500000000 : diff - 500000000) / 1000000000;
	return (uint64_t)(secs * 1000000000);
}

const char *where(const struct run *r, const struct idf_tg *tg)
{
	static char buf[512];

	snprintf(buf, sizeof(buf), "%s:%u", r->file,
		 tg->loc[IDF_KW_tgid].line);
	return buf;
}

/* TGs without `cpu` go round the CPUs we may run on. */
static int assign_cpus(struct run *r)
{
	cpu_set_t set;
	uint32_t next = 0;
	size_t i;

	if (sched_getaffinity(0, sizeof(set), &set)) {
		pr_err("cannot read the CPUs this process may use: %s\n",
		       strerror(errno));
		return -errno;
	}
	for (i = 0; i < r->ntgs; i++) {
		struct run_tg *t = &r->tgs[i];

		if (idf_has(t->tg, IDF_KW_cpu)) {
			t->cpu = t->tg->cpu;
			continue;
		}
		while (!CPU_ISSET(next % CPU_SETSIZE, &set))
			next++;
		t->cpu = next % CPU_SETSIZE;
		next++;
	}
	return 0;
}

/* The timetable's mean rate and length, for the dashboard's "req" column. */
static void tg_requested(struct run_tg *t)
{
	struct gap mean = gap_asked(t->tg);
	double len = 0;
	size_t k;

	for (k = 0; k < t->tt.len; k++)
		len += t->tt.entries[k].len;
	if (t->tt.len)
		len /= (double)t->tt.len;
	/* Fixed rates exactly; drawn ones their model's mean; traces theirs. */
	if (t->tt.mean_num && t->tt.mean_den)
		t->req_pps = gap_pps((struct gap){ t->tt.mean_num,
						   t->tt.mean_den });
	else if (mean.num)
		t->req_pps = gap_pps(mean);
	else
		t->req_pps = t->tt.period_ns ? 1e9 * (double)t->tt.len /
			(double)t->tt.period_ns : 0;
	t->req_bps = 8.0 * len * t->req_pps;
	t->rate_factor = 1.0;
}

static int ctrl_by_time(const void *a, const void *b)
{
	const struct idf_ctrl *x = *(const struct idf_ctrl *const *)a;
	const struct idf_ctrl *y = *(const struct idf_ctrl *const *)b;

	if (x->at != y->at)
		return x->at < y->at ? -1 : 1;
	return x < y ? -1 : x > y;	/* as written */
}

/* Each TG's `ctrl` messages, in the order they fall due. */
static int ctrl_prepare(struct run *r)
{
	size_t i;

	for (i = 0; i < r->f.nctrls; i++)
		r->tgs[r->f.ctrls[i].tg].nctrl++;
	for (i = 0; i < r->ntgs; i++) {
		struct run_tg *t = &r->tgs[i];

		if (!t->nctrl)
			continue;
		t->ctrl = calloc(t->nctrl, sizeof(*t->ctrl));
		if (!t->ctrl) {
			pr_err("out of memory\n");
			return -ENOMEM;
		}
		t->nctrl = 0;
	}
	for (i = 0; i < r->f.nctrls; i++) {
		struct run_tg *t = &r->tgs[r->f.ctrls[i].tg];

		t->ctrl[t->nctrl++] = &r->f.ctrls[i];
	}
	for (i = 0; i < r->ntgs; i++)
		if (r->tgs[i].nctrl)
			qsort(r->tgs[i].ctrl, r->tgs[i].nctrl,
			      sizeof(*r->tgs[i].ctrl), ctrl_by_time);
	return 0;
}

/* Some TG sent a control message. */
static bool sent_ctrl(const struct run *r)
{
	size_t i;

	for (i = 0; i < r->ntgs; i++)
		if (r->tgs[i].st.ctrl_sent)
			return true;
	return false;
}

/* Some TG asks its receivers to keep payloads or wrong bits' positions. */
static bool keeps_any(const struct run *r)
{
	size_t i;

	for (i = 0; i < r->ntgs; i++)
		if (r->tgs[i].tg->keep)
			return true;
	return false;
}

/*
 * Where the run listens: the IDF's `listen` interfaces, and the one of
 * each `meter rtt` TG, where its frames come back from the reflector.
 * *out malloc'd; 0, or -ENOMEM.
 */
static int listen_where(const struct run *r, struct idf_listen **out,
			size_t *n)
{
	size_t i, k;

	*n = r->f.nlisten;
	*out = calloc(r->f.nlisten + r->ntgs + 1, sizeof(**out));
	if (!*out) {
		pr_err("out of memory\n");
		return -ENOMEM;
	}
	memcpy(*out, r->f.listen, r->f.nlisten * sizeof(**out));
	for (i = 0; i < r->ntgs; i++) {
		const struct idf_tg *tg = r->tgs[i].tg;
		const char *netns = tg->netns[0] ? tg->netns :
			r->f.globals.netns;

		if (tg->meter != IDF_METER_RTT)
			continue;
		for (k = 0; k < *n; k++)
			if (!strcmp((*out)[k].dev, tg->dev) &&
			    !strcmp((*out)[k].netns[0] ? (*out)[k].netns :
				    r->f.globals.netns, netns))
				break;
		if (k < *n)
			continue;
		snprintf((*out)[k].dev, sizeof((*out)[k].dev), "%s", tg->dev);
		snprintf((*out)[k].netns, sizeof((*out)[k].netns), "%s", netns);
		(*out)[k].loc = tg->loc[IDF_KW_meter];
		(*n)++;
	}
	return 0;
}

/*
 * A `header ditg` TG's packets recorded when they come back: to its
 * destination port through `listen` (MTG's loop-back), or, sent back by
 * the far end (meter rtt), to its source port.
 */
static int listen_ditg(struct run *r, const struct run_tg *t)
{
	bool rtt = t->tg->meter == IDF_METER_RTT;
	uint16_t port = rtt ? idf_src_port(t->tg) : t->dst.port;
	int err = mtg_dev_rx_ditg(&r->dev, port, r->run_id, true);

	if (err == -EEXIST)
		pr_err("TG %u: another 'header ditg' TG of the run has its packets come back to port %u: the receive path tells D-ITG's packets apart by their port\n",
		       t->tg->id, port);
	else if (err)
		pr_err("TG %u: D-ITG's packets to port %u cannot be recorded: %s\n",
		       t->tg->id, port, strerror(-err));
	return err;
}

/* Everything that needs neither the module nor time: tables, interfaces. */
static int prepare(struct run *r)
{
	struct idf_listen *where = NULL;
	size_t i, nwhere = 0;
	char err[256];
	int ret, failed = 0;

	r->tgs = calloc(r->f.ntgs, sizeof(*r->tgs));
	if (!r->tgs) {
		pr_err("out of memory\n");
		return -ENOMEM;
	}
	for (i = 0; i < r->f.ntgs; i++) {
		struct run_tg *t = &r->tgs[r->ntgs++];

		t->tg = &r->f.tgs[i];
		t->netns_fd = -1;
		if (tt_build(t->tg, &t->tt, err, sizeof(err))) {
			idf_print_tg_error(&r->f, t->tg, err, stderr);
			return -EINVAL;
		}
		tg_requested(t);
		t->table_offset = r->table_bytes;
		r->table_bytes += (t->tt.len * sizeof(struct mtg_tt_entry) +
				   TABLE_ALIGN - 1) & ~(uint64_t)(TABLE_ALIGN - 1);
		if (t->tt.stream) {
			t->ring_offset = r->table_bytes;
			r->table_bytes += sizeof(struct mtg_tt_ring);
		}

		ret = netns_cache_get(&r->ns, t->tg->netns, &t->netns_fd);
		if (ret) {
			failed = ret;
			continue;
		}
		ret = iface_resolve(t->netns_fd, t->tg->netns, t->tg,
				    &t->ifindex, &t->src, &t->dst);
		if (ret)
			failed = ret;
	}
	ret = listen_where(r, &where, &nwhere);
	if (!ret)
		ret = listening_resolve(&r->ls, where, nwhere,
					r->f.globals.netns, &r->ns);
	free(where);
	if (ret)
		failed = ret;
	if (failed)
		return failed;
	failed = ctrl_prepare(r);
	return failed ? failed : assign_cpus(r);
}

/* Where event lines go: the dashboard's pane, the stream, or lines. */
FILE *events_out(const struct run *r)
{
	return r->dash_on || r->o->rx.json_stream ? r->ev.stream : r->say;
}

/*
 * A TG failed: if its device went with its namespace (deleted while the
 * run held nothing of it but the device), say that.
 */
static void tg_failed(struct run *r, struct run_tg *t, uint64_t now)
{
	FILE *f = events_out(r);

	if (t->st.error != MTG_TG_ERROR_DEV_GONE || !t->tg->netns[0] ||
	    !netns_cache_deleted(&r->ns, t->tg->netns))
		return;
	t->netns_deleted = true;
	event_prefix(f, r->t0, now);
	fprintf(f, "tg %u: failed: its namespace %s was deleted\n",
		t->tg->id, t->tg->netns);
	fflush(f);
}

/*
 * Read every TG's counters; 1 when all have ended (a TG waiting for the
 * operator has not), 0, or -errno.
 */
static int poll_all(struct run *r)
{
	bool all = true;
	size_t i;
	int err;

	for (i = 0; i < r->ntgs; i++) {
		struct run_tg *t = &r->tgs[i];
		uint32_t was = t->st.state;

		if (!t->started) {	/* waits for the operator */
			all = false;
			continue;
		}
		err = mtg_dev_tg_stats(&r->dev, t->tg->id, &t->st);
		if (err) {
			pr_err("cannot read the counters of TG %u: %s\n",
			       t->tg->id, strerror(-err));
			return err;
		}
		if (was != MTG_TG_STATE_FAILED && t->st.state == MTG_TG_STATE_FAILED)
			tg_failed(r, t, now_tai());
		if (!mtg_tg_ended(t->st.state))
			all = false;
	}
	return all;
}

/* Wait before the loop's next turn: up to max_ns, less if a `ctrl` is due,
 * and with --commands, until a line comes. */
static void idle(const struct run *r, uint64_t now, uint64_t max_ns)
{
	struct pollfd p = { .fd = r->cmds.fd, .events = POLLIN };
	uint64_t due = ctrl_next_due(r), ns = max_ns;
	struct timespec ts;

	if (due > now && due - now < ns)
		ns = due - now;
	else if (due <= now)
		ns = 0;
	if (r->dash_on || r->cmds.fd >= 0) {
		if (r->dash_on)
			p.fd = STDIN_FILENO;	/* a key */
		poll(&p, 1, (int)((ns + 999999) / 1000000));
		return;
	}
	ts.tv_sec = (time_t)(ns / 1000000000ULL);
	ts.tv_nsec = (long)(ns % 1000000000ULL);
	nanosleep(&ts, NULL);
}

/* The dashboard's turn in the loop: keys, then a frame at a bounded rate. */
static void dash_turn(struct run *r, uint64_t now, uint64_t *next_draw)
{
	struct dash_action a;
	bool redraw;

	if (!dash_due(&r->dash, now, *next_draw))
		return;
	a = dash_keys(&r->dash, &r->ev, &redraw);
	if (a.act != DASH_NONE) {
		carry_out(r, &a);
		redraw = true;
	}
	if (now >= *next_draw || redraw) {
		if (!build_view(r, now, false))
			dash_draw(&r->dash, &r->view, &r->ev);
		*next_draw = now + DASH_REDRAW_NS;
	}
}

/*
 * Poll until every TG has ended and, when listening or sending to an
 * ITGRecv, the drain time has passed; a signal kills the TGs (and is
 * drained like an end), a second
 * one stops at once, as does a recording that cannot be written.
 */
static int watch(struct run *r)
{
	uint64_t next = r->t0 + PROGRESS_NS, next_stats = 0, drain_end = 0;
	uint64_t next_draw = 0;
	uint64_t now;
	bool killed = false, ended = false;
	int64_t got = 0;
	int ret;

	for (;;) {
		now = now_tai();
		refill(r);
		if (r->listening) {
			got = listening_poll(&r->ls, now);
			if (got < 0) {
				kill_all(r);
				poll_all(r);	/* the counters at the end */
				return (int)got;
			}
		}
		if (user_start && !killed) {
			user_start = 0;
			ret = start_all(r, true);
			if (ret < 0)
				return ret;
			fprintf(r->dash_on ? r->ev.stream : r->say,
				"SIGUSR1: the TGs waiting for the operator started\n");
			fflush(r->dash_on ? r->ev.stream : r->say);
		}
		if (r->cmds.fd >= 0)
			take_commands(r);
		if ((stop_signal || r->quits || r->ls.write_failed) && !killed) {
			kill_all(r);
			killed = true;
			next_stats = 0;
		}
		r->phase = now < r->t0 ? "starting" : ended ? "draining" :
			killed ? "stopping" : "running";
		if (!killed)
			ctrl_due(r, now);
		if (now >= next_stats) {
			remote_watch(r);
			ret = poll_all(r);
			if (ret < 0)
				return ret;
			/* a TG started again from the keyboard: not ended */
			if (!ret && ended && !killed)
				ended = false;
			if (ret && !ended && !ctrl_pending(r)) {
				ended = true;
				if ((r->listening && !r->ls.write_failed) ||
				    rsend_ditg_open(&r->remote))
					drain_end = now + r->o->drain;
			}
			next_stats = now + POLL_NS;
		}
		/* What is left in the ring, listening_end() takes. */
		if (ended && (now >= drain_end || signals + r->quits > 1 ||
			      r->ls.write_failed))
			return 0;
		if (r->dash_on)
			dash_turn(r, now, &next_draw);
		if (now >= next) {
			/* What a line counts as recorded is on the disk. */
			if (r->listening && !r->dash_on)
				listening_sync(&r->ls, now);
			if (r->o->rx.json_stream) {
				ret = build_view(r, now, false);
				if (ret)
					return ret;
				dash_view_json(stdout, &r->view, "interval",
					       &r->ev, &r->ev_since);
			} else if (!r->dash_on) {
				progress(r, now);
			}
			while (next <= now)
				next += PROGRESS_NS;
		}
		if (r->listening)
			listening_wait(&r->ls, got);
		else
			idle(r, now, POLL_NS);
	}
}

/* 0 if every TG finished cleanly and nothing was lost, else EXIT_COUNTED. */
static int outcome(const struct run *r)
{
	size_t i;

	if (r->listening && listening_lost_any(&r->ls))
		return EXIT_COUNTED;
	if (r->remote_lost)
		return EXIT_COUNTED;
	/* an ITGRecv sends none back: its flow closed as it should is whole */
	for (i = 0; i < r->remote.nflows; i++)
		if (!r->remote.flows[i].have_result &&
		    !(r->remote.flows[i].rcvr->ditg &&
		      r->remote.flows[i].closed))
			return EXIT_COUNTED;
	for (i = 0; i < r->ntgs; i++) {
		const struct mtg_tg_stats *st = &r->tgs[i].st;

		if (st->state != MTG_TG_STATE_FINISHED || st->tx_errors ||
		    st->bad_entries || st->underruns || r->tgs[i].ctrl_unsent)
			return EXIT_COUNTED;
	}
	return EXIT_OK;
}

static uint32_t new_run_id(void)
{
	uint32_t id = 0;

	while (!id)
		if (getrandom(&id, sizeof(id), 0) != sizeof(id))
			id = (uint32_t)now_tai() ^ (uint32_t)getpid();
	return id;
}

static void cleanup(struct run *r)
{
	size_t i;

	probes_detach(r);	/* a run that failed before its end: none left */
	free(r->probes);
	mtg_dev_close(&r->dev);
	for (i = 0; i < r->ntgs; i++) {
		tt_free(&r->tgs[i].tt);
		free(r->tgs[i].ctrl);
	}
	listening_free(&r->ls);
	rsend_free(&r->remote);
	netns_cache_close(&r->ns);
	free(r->view.rows);
	dash_events_close(&r->ev);
	free(r->tgs);
	idf_free(&r->f);
}

/* Listen: the rings' run filter, the interfaces, a meter per TG, the
 * recording's header. */
static int listen_all(struct run *r)
{
	const struct idf_tg **tgs;
	const struct tt **tts;
	struct rec_meta mi = {
		.command = "run",
		.run_id = r->run_id,
		.start_ns = r->t0,
		.ring_records = r->o->rx.ring,
		.passthrough = r->f.passthrough,
		.devs = r->ls.devs,
		.ndevs = r->ls.ndevs,
		.idf = &r->f,
		.ntgs = r->ntgs,
	};
	size_t i;
	bool oom;
	int err;

	err = listening_attach(&r->ls, &r->dev, r->run_id, r->f.passthrough,
			       r->t0);
	if (err)
		return err;
	/* The dashboard shows them in its pane, the stream in its lines. */
	r->ls.rx.events = r->dash_on || r->o->rx.json_stream ? r->ev.stream :
		r->say;
	for (i = 0; i < r->ntgs; i++) {
		bool rtt = r->tgs[i].tg->meter == IDF_METER_RTT;

		/*
		 * What comes back: every TG's with `listen` (MTG's loop-back);
		 * else the run listens for its round trips only, and a one-way
		 * TG is measured where it arrives, not lost here.
		 */
		if (!rtt && !r->f.nlisten)
			continue;
		/* the receive path takes datagrams, not a connection's bytes */
		if (idf_proto_connected(r->tgs[i].tg->proto))
			continue;
		r->tgs[i].m = meter_find(&r->ls.rx.meters, r->run_id,
					 r->tgs[i].tg->id, true, &oom);
		if (!r->tgs[i].m) {
			pr_err("out of memory\n");
			return -ENOMEM;
		}
		r->tgs[i].m->round_trip = rtt;
		/* D-ITG's packets have no magic: they are known by their port */
		err = r->tgs[i].tg->header == IDF_HEADER_DITG ?
			listen_ditg(r, &r->tgs[i]) : 0;
		if (err)
			return err;
	}
	tgs = calloc(r->ntgs, sizeof(*tgs));
	tts = calloc(r->ntgs, sizeof(*tts));
	if (!tgs || !tts) {
		err = -ENOMEM;
		pr_err("out of memory\n");
	} else {
		for (i = 0; i < r->ntgs; i++) {
			tgs[i] = r->tgs[i].tg;
			tts[i] = &r->tgs[i].tt;
		}
		mi.tgs = tgs;
		mi.tts = tts;
		r->ls.log_cfg = (struct logc_cfg){
			.to = r->o->rx.log, .udp = r->o->rx.log_udp,
			.key = r->o->rx.log_key, .name = r->o->rx.log_name,
		};
		err = listening_begin(&r->ls, &mi);
	}
	free(tgs);
	free(tts);
	return err;
}

/* file's IDF, or text (named file) when not NULL: `mtgctl itgsend`'s. */
static int run_idf(const char *file, const char *text, const struct run_opts *o)
{
	struct sigaction sa = { .sa_handler = on_signal };
	struct run r = { .o = o, .file = file, .dev = { .fd = -1 } };
	const char *out;
	int ret, rc = EXIT_ERROR;

	/* Keys need a terminal too. */
	r.dash_on = !o->rx.batch && !o->rx.json_stream && !o->commands &&
		!o->hold &&
		isatty(STDOUT_FILENO) && isatty(STDIN_FILENO);
	cmd_input_open(&r.cmds, o->commands ? STDIN_FILENO : -1);
	r.say = o->rx.json_stream ? stderr : stdout;
	r.phase = "starting";
	if (dash_events_open(&r.ev)) {
		pr_err("out of memory\n");
		return EXIT_ERROR;
	}
	ret = text ? idf_load_text(&r.f, file, text) : idf_load(&r.f, file);
	if (ret && ret != -EINVAL) {
		pr_err("cannot read %s: %s\n", file, strerror(-ret));
		goto out;
	}
	idf_print_diags(&r.f, stderr);
	if (ret || run_hosts(&r)) {
		fprintf(stderr, "%s: nothing started\n", file);
		goto out;
	}
	if (prepare(&r)) {
		fprintf(stderr, "%s: nothing started\n", file);
		goto out;
	}
	/* Every remote receiver agrees before anything is opened or sent. */
	r.run_id = o->run_id ? (uint32_t)o->run_id : new_run_id();
	if (remote_agree(&r)) {
		fprintf(stderr, "%s: nothing started\n", file);
		goto out;
	}
	r.listening = r.ls.ndevs > 0;
	out = o->rx.output ? o->rx.output : r.f.out;
	if (out && !r.listening) {
		pr_err("%s: nothing to record in %s: name the interfaces to listen on with 'listen DEV' (Documentation/idf.rst)\n",
		       file, out);
		goto out;
	}
	if (out && listening_create(&r.ls, out, o->rx.force))
		goto out;
	if (mtg_dev_open(&r.dev, o->rx.device))
		goto err_abandon;
	if (mtg_dev_alloc(&r.dev, r.table_bytes, r.listening ? o->rx.ring : 0,
			  r.listening && keeps_any(&r) ? o->rx.keep_ring : 0))
		goto err_abandon;
	write_tables(&r);
	if (probes_attach(&r))
		goto err_abandon;

	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sa.sa_handler = on_user;
	sigaction(SIGUSR1, &sa, NULL);

	r.t0 = now_tai() + o->start_delay;
	if (o->hold && hold_start(&r))
		goto err_abandon;
	r.tai_offset = tai_offset();
	if (r.listening && listen_all(&r))
		goto err_abandon;
	fprintf(r.say, "run_id %u: %zu TG%s from %s, T0 %llu (CLOCK_TAI), in %llu ms\n",
		r.run_id, r.ntgs, r.ntgs == 1 ? "" : "s", file,
		(unsigned long long)r.t0,
		(unsigned long long)o->start_delay / 1000000);
	fflush(r.say);
	rsend_start(&r.remote, r.run_id, r.t0);
	if (start_all(&r, false))
		goto err_abandon;
	release_netns(&r);	/* `ip netns del` really deletes one now */
	listening_commit(&r.ls);
	if (r.dash_on && dash_open(&r.dash))
		r.dash_on = false;	/* it said why; plain lines instead */
	if (!r.dash_on)
		r.ls.rx.events = o->rx.json_stream ? r.ev.stream : r.say;
	announce_waiting(&r);
	ret = watch(&r);
	r.end = now_tai();
	ctrl_end(&r);
	if (r.dash_on) {
		dash_close(&r.dash);	/* its messages reach the terminal now */
		r.dash_on = false;
		r.ls.rx.events = r.say;
	}
	if (r.listening && listening_end(&r.ls, r.end))
		ret = -EIO;
	/* the run's TGs sent every control message it could receive */
	r.ls.ctrl_events_only = !sent_ctrl(&r);
	probes_detach(&r);
	rsend_finish(&r.remote);
	r.phase = "ended";
	if (o->rx.json_stream && !build_view(&r, r.end, true))
		dash_view_json(stdout, &r.view, "end", &r.ev, &r.ev_since);
	report(&r, r.say);
	probes_report(&r, r.say);
	remote_report(&r, r.say);
	rc = ret ? EXIT_ERROR : outcome(&r);
	if (o->rx.json) {
		ret = write_summary(&r);
		if (ret) {
			pr_err("cannot write the summary %s: %s\n", o->rx.json,
			       strerror(-ret));
			rc = EXIT_ERROR;
		}
	}
	if (stop_signal) {
		fprintf(r.say, "interrupted by %s: every TG killed\n",
			stop_signal == SIGINT ? "SIGINT" :
			stop_signal == SIGTERM ? "SIGTERM" : "SIGHUP");
		rc = EXIT_SIGNAL + stop_signal;
	} else if (r.quits) {
		fprintf(r.say, "quit from the dashboard: every TG killed\n");
	}
	goto out;

err_abandon:
	/* Nothing ran: no recording is left behind, no receiver waits. */
	listening_abandon(&r.ls);
	rsend_abort(&r.remote);
out:
	cleanup(&r);
	return rc;
}

int cmd_run(const char *file, const struct run_opts *o)
{
	return run_idf(file, NULL, o);
}

int cmd_run_text(const char *name, const char *text, const struct run_opts *o)
{
	return run_idf(name, text, o);
}
