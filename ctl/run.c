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

#include "cmdline.h"
#include "dash.h"
#include "idf.h"
#include "iface.h"
#include "module.h"
#include "mtgctl.h"
#include "receive.h"
#include "summary.h"
#include "tables.h"

#define POLL_NS		100000000ULL	/* counters read every 100 ms */
#define PROGRESS_NS	1000000000ULL	/* a progress line a second */
#define PROGRESS_TGS	4		/* more TGs: one aggregate line */
#define TABLE_ALIGN	64		/* each TG's table on a cache line */

struct run_tg {
	struct idf_tg *tg;
	struct tt tt;
	uint64_t table_offset;		/* bytes into the tables region */
	uint64_t ring_offset;		/* stream: its struct mtg_tt_ring */
	uint64_t produced;		/* stream: entries written */
	int netns_fd;			/* -1: our namespace; valid only while
					 * it starts (namespaces are released)
					 */
	uint32_t ifindex;
	uint32_t cpu;
	struct idf_addr src;		/* resolved */
	struct idf_addr dst;		/* resolved (`addr`) */
	struct mtg_tg_start start;	/* as sent; dst_mac as the module used */
	struct mtg_tg_stats st;		/* the last counters read */
	struct meter *m;		/* what came back; NULL: not listening */
	bool started;
	bool netns_deleted;		/* its namespace went away under us */
	double req_pps, req_bps;	/* the timetable's means */
	double rate_factor;		/* throughput changed from the keyboard */
	uint64_t begin;			/* its start (`time`), CLOCK_TAI */
	unsigned int starts;		/* started (again from the keyboard) */
	uint64_t stream_base;		/* stream: the entry at the ring's 0 */
	const struct idf_ctrl **ctrl;	/* its `ctrl` messages, by time */
	size_t nctrl, ctrl_next;	/* how many; the next one due */
	uint64_t ctrl_unsent;		/* of them: refused, or never due */
};

struct run {
	const struct run_opts *o;
	const char *file;
	struct idf_file f;
	struct run_tg *tgs;
	size_t ntgs;
	struct netns_cache ns;
	bool ns_released;		/* the T0 TGs started: a namespace is
					 * opened only to start a TG in it
					 */
	struct mtg_dev dev;
	struct listening ls;
	bool listening;			/* the IDF names interfaces */
	uint32_t run_id;
	uint64_t t0;			/* CLOCK_TAI ns */
	uint64_t tai_offset;		/* CLOCK_TAI - CLOCK_REALTIME, ns */
	uint64_t end;
	uint64_t table_bytes;
	FILE *say;			/* human lines: stdout, or stderr when
					 * stdout carries --json-stream */
	bool dash_on;			/* the curses dashboard */
	struct dash dash;
	struct dash_events ev;		/* dashboard and stream */
	struct dash_view view;
	uint64_t ev_since;		/* events already streamed */
	unsigned int quits;		/* 'q' pressed */
	const char *phase;
	struct cmd_input cmds;		/* --commands: standard input */
};

/* `time user` TGs wait for the operator's SIGUSR1, at least this long ahead. */
#define USER_LEAD_NS	100000000ULL

static volatile sig_atomic_t stop_signal, signals, user_start;

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

static uint64_t now_tai(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_TAI, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
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

static const char *where(const struct run *r, const struct idf_tg *tg)
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
	double len = 0, mean = idf_mean_gap_ns(t->tg);
	size_t k;

	for (k = 0; k < t->tt.len; k++)
		len += t->tt.entries[k].len;
	if (t->tt.len)
		len /= (double)t->tt.len;
	/* Fixed rates exactly; drawn ones their model's mean; traces theirs. */
	if (t->tt.mean_num && t->tt.mean_den)
		t->req_pps = 1e9 * (double)t->tt.mean_den /
			(double)t->tt.mean_num;
	else if (mean > 0)
		t->req_pps = 1e9 / mean;
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

/* Some TG asks its receivers to keep payloads or wrong bits' positions. */
static bool keeps_any(const struct run *r)
{
	size_t i;

	for (i = 0; i < r->ntgs; i++)
		if (r->tgs[i].tg->keep)
			return true;
	return false;
}

/* Everything that needs neither the module nor time: tables, interfaces. */
static int prepare(struct run *r)
{
	char err[256];
	size_t i;
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
	ret = listening_resolve(&r->ls, r->f.listen, r->f.nlisten,
				r->f.globals.netns, &r->ns);
	if (ret)
		failed = ret;
	if (failed)
		return failed;
	failed = ctrl_prepare(r);
	return failed ? failed : assign_cpus(r);
}

static void fill_start(const struct run *r, struct run_tg *t)
{
	const struct idf_tg *tg = t->tg;
	struct mtg_tg_start *s = &t->start;
	uint64_t begin;
	size_t alen = tg->dst.family == AF_INET6 ? 16 : 4;

	memset(s, 0, sizeof(*s));
	s->tg_id = tg->id;
	s->run_id = r->run_id;
	if (tg->dst.family == AF_INET6)
		s->flags |= MTG_TG_FLAGS_IPV6;
	if (tg->late == IDF_LATE_SKIP)
		s->flags |= MTG_TG_FLAGS_LATE_SKIP;
	if (tg->path == IDF_PATH_QDISC)
		s->flags |= MTG_TG_FLAGS_QDISC;
	if (tg->mode == IDF_MODE_PRECISE)
		s->flags |= MTG_TG_FLAGS_PRECISE;
	if (idf_has(tg, IDF_KW_mac)) {
		s->flags |= MTG_TG_FLAGS_DST_MAC;
		memcpy(s->dst_mac, tg->mac, 6);
	}
	if (tg->keep & IDF_KEEP_PAYLOAD)
		s->flags |= MTG_TG_FLAGS_KEEP_PAYLOAD;
	if (tg->keep & IDF_KEEP_BITS)
		s->flags |= MTG_TG_FLAGS_KEEP_BITS;
	s->netns_fd = t->netns_fd < 0 ? MTG_NETNS_CURRENT :
		(uint32_t)t->netns_fd;
	s->ifindex = t->ifindex;
	s->cpu = t->cpu;
	memcpy(s->src_addr, t->src.addr, alen);
	memcpy(s->dst_addr, t->dst.addr, alen);
	if (tg->addr == IDF_ADDR_BROADCAST && !idf_has(tg, IDF_KW_mac)) {
		s->flags |= MTG_TG_FLAGS_DST_MAC;
		memset(s->dst_mac, 0xff, sizeof(s->dst_mac));
	}
	s->src_port = idf_src_port(tg);
	s->dst_port = tg->dst.port;
	s->tos = tg->tos;
	s->ttl = tg->ttl;
	switch (tg->patt) {
	case IDF_PATT_FIXED:
		s->patt_kind = MTG_PATT_FIXED;
		break;
	case IDF_PATT_RANDOM:
		s->patt_kind = MTG_PATT_RANDOM;
		s->patt_seed = idf_patt_seed(tg);
		break;
	case IDF_PATT_INCR:
		s->patt_kind = MTG_PATT_INCR;
		break;
	}
	s->patt_value = tg->patt_value;
	s->table_len = (uint32_t)t->tt.len;
	s->table_offset = t->table_offset;
	if (t->tt.stream) {
		s->flags |= MTG_TG_FLAGS_STREAM;
		s->ring_offset = t->ring_offset;
	}
	/* a duration counts from the TG's start, before any idle or jitter */
	if (tg->time == IDF_TIME_ABSOLUTE)
		begin = tg->start_abs + r->tai_offset;
	else if (tg->time == IDF_TIME_USER)
		begin = now_tai() + USER_LEAD_NS;
	else
		begin = r->t0 + tg->start;
	s->start_ns = begin + t->tt.first_ns;
	s->stop_count = tg->count;
	s->stop_ns = tg->duration ? begin + tg->duration : 0;
	s->late_threshold_ns = tg->threshold;
	idf_nut(tg, s->nut);
}

static struct mtg_tt_ring *ring_of(const struct run *r,
				   const struct run_tg *t)
{
	return (struct mtg_tt_ring *)((char *)r->dev.tables + t->ring_offset);
}

/* The tables as built; a stream's first table_len entries are produced. */
static void write_tables(struct run *r)
{
	size_t i;

	for (i = 0; i < r->ntgs; i++) {
		struct run_tg *t = &r->tgs[i];

		memcpy((char *)r->dev.tables + t->table_offset, t->tt.entries,
		       t->tt.len * sizeof(struct mtg_tt_entry));
		if (t->tt.stream) {
			t->produced = t->tt.len;
			__atomic_store_n(&ring_of(r, t)->producer, t->produced,
					 __ATOMIC_RELEASE);
		}
	}
}

/*
 * Streams: draw the entries the module has consumed since the last look
 * into the slots they free, then publish them (the entries before the
 * producer count). A quarter of the table at a time, so that a slow rate
 * is not refilled an entry at a time.
 */
static void refill(struct run *r)
{
	size_t i;

	for (i = 0; i < r->ntgs; i++) {
		struct run_tg *t = &r->tgs[i];
		struct mtg_tt_entry *table;
		uint64_t consumer, room, k;

		if (!t->tt.stream || !t->started || mtg_tg_ended(t->st.state))
			continue;
		consumer = __atomic_load_n(&ring_of(r, t)->consumer,
					   __ATOMIC_ACQUIRE);
		if (consumer > t->produced)
			continue;	/* never from a sound module */
		room = t->tt.len - (t->produced - consumer);
		if (room < t->tt.len / 4)
			continue;
		table = (struct mtg_tt_entry *)((char *)r->dev.tables +
						t->table_offset);
		for (k = t->produced; k < t->produced + room; k++)
			tt_entry(&t->tt, t->stream_base + k,
				 &table[k % t->tt.len]);
		t->produced += room;
		__atomic_store_n(&ring_of(r, t)->producer, t->produced,
				 __ATOMIC_RELEASE);
	}
}

static void kill_all(struct run *r)
{
	size_t i;
	int err;

	for (i = 0; i < r->ntgs; i++) {
		struct run_tg *t = &r->tgs[i];

		if (!t->started || mtg_tg_ended(t->st.state))
			continue;
		err = mtg_dev_tg_kill(&r->dev, t->tg->id);
		if (err && err != -ENOENT)
			pr_err("cannot kill TG %u: %s\n", t->tg->id,
			       strerror(-err));
	}
}

/* Start one TG, its namespace open; says why not. */
static int start_tg_now(struct run *r, struct run_tg *t)
{
	const char *hint;
	int err;

	fill_start(r, t);
	if (t->tg->time == IDF_TIME_ABSOLUTE &&
	    t->start.start_ns <= now_tai()) {
		pr_err("TG %u (%s): its start time has passed\n",
		       t->tg->id, where(r, t->tg));
		return -ETIME;
	}
	/*
	 * The module's timers count signed nanoseconds (to 2262); a
	 * relative start below T0 wrapped round.
	 */
	if ((t->tg->time == IDF_TIME_RELATIVE &&
	     t->start.start_ns < r->t0) || t->start.start_ns > INT64_MAX ||
	    t->start.stop_ns > INT64_MAX ||
	    (t->tg->duration && t->start.stop_ns < t->start.start_ns)) {
		pr_err("TG %u (%s): its start or end is beyond 2262 (time overflows)\n",
		       t->tg->id, where(r, t->tg));
		return -EOVERFLOW;
	}
	err = mtg_dev_tg_start(&r->dev, &t->start);
	if (err) {
		hint = mtg_tg_start_hint(-err);
		pr_err("cannot start TG %u (%s): %s%s%s\n", t->tg->id,
		       where(r, t->tg), strerror(-err),
		       hint ? ": " : "", hint ? hint : "");
		return err;
	}
	t->started = true;
	t->starts++;
	t->st.state = MTG_TG_STATE_RUNNING;
	/* `ctrl` times count from its first start */
	if (!t->begin)
		t->begin = t->start.start_ns - t->tt.first_ns;
	return 0;
}

/*
 * A stream started again: the module's TG reads the ring from count 0,
 * so the table is filled anew there with the stream's next entries (the
 * stream goes on; it does not repeat).
 */
static void stream_restart(struct run *r, struct run_tg *t)
{
	struct mtg_tt_entry *table = (struct mtg_tt_entry *)
		((char *)r->dev.tables + t->table_offset);
	uint64_t k;

	t->stream_base += t->produced;
	for (k = 0; k < t->tt.len; k++)
		tt_entry(&t->tt, t->stream_base + k, &table[k]);
	t->produced = t->tt.len;
	__atomic_store_n(&ring_of(r, t)->producer, t->produced,
			 __ATOMIC_RELEASE);
}

/*
 * The module has TG t's new throughput, num/den of its timetable's: the
 * recording says so (from now on), so that what it holds is judged
 * against the rate it was sent at.
 */
static void rate_record(struct run *r, const struct run_tg *t, uint32_t num,
			uint32_t den, uint16_t by)
{
	if (r->ls.recording)
		rec_add_rate(&r->ls.rec, r->run_id, t->tg->id, now_tai(), num,
			     den, by);	/* a failure is counted, extras_lost */
}

/*
 * Start a TG that ended (or was stopped for it) again now, its namespace
 * open: the module's MTG_TG_FLAGS_RESTART, which goes on with its sequence
 * numbers and counters; from the start of its table, its count and
 * duration anew. Says why not.
 */
static int restart_tg_now(struct run *r, struct run_tg *t)
{
	struct mtg_tg_start *s = &t->start;
	uint64_t begin = now_tai() + USER_LEAD_NS;
	const char *hint;
	int err;

	fill_start(r, t);
	s->flags |= MTG_TG_FLAGS_RESTART;
	s->start_ns = begin + t->tt.first_ns;
	s->stop_ns = t->tg->duration ? begin + t->tg->duration : 0;
	if (t->tt.stream)
		stream_restart(r, t);
	err = mtg_dev_tg_start(&r->dev, s);
	if (err) {
		hint = mtg_tg_start_hint(-err);
		pr_err("cannot start TG %u (%s) again: %s%s%s\n", t->tg->id,
		       where(r, t->tg), strerror(-err), hint ? ": " : "",
		       hint ? hint : "");
		return err;
	}
	t->starts++;
	t->st.state = MTG_TG_STATE_RUNNING;
	if (t->rate_factor != 1.0)
		rate_record(r, t, 1, 1, REC_RATE_BY_RESTART);
	t->rate_factor = 1.0;
	return 0;
}

/*
 * The TG's namespace for its start: opened again once the namespaces were
 * released, and only if it is still the one the run began with.
 */
static int tg_netns(struct run *r, struct run_tg *t)
{
	int err = netns_cache_get(&r->ns, t->tg->netns, &t->netns_fd);

	if (!err || !r->ns_released)
		return err;	/* prepare() opened it, or said why not */
	if (err == -ENOENT || err == -ESTALE) {
		t->netns_deleted = true;
		pr_err("cannot start TG %u (%s): its namespace %s was deleted since the run began%s\n",
		       t->tg->id, where(r, t->tg), t->tg->netns,
		       err == -ESTALE ? " (the name is another namespace's now)" : "");
	} else {
		pr_err("cannot start TG %u (%s): cannot open its namespace %s: %s\n",
		       t->tg->id, where(r, t->tg), t->tg->netns,
		       strerror(-err));
	}
	return err;
}

/* Let the namespaces go once the module holds what it needs. */
static void release_netns(struct run *r)
{
	netns_cache_release(&r->ns);
	r->ns_released = true;
}

/* start(r, t) with the TG's namespace open (tg_netns), then let go. */
static int in_tg_netns(struct run *r, struct run_tg *t,
		       int (*start)(struct run *r, struct run_tg *t))
{
	int err = tg_netns(r, t);

	if (err)
		return err;
	err = start(r, t);
	if (r->ns_released)
		netns_cache_release(&r->ns);
	return err;
}

/* Start one TG; says why not. */
static int start_tg(struct run *r, struct run_tg *t)
{
	return in_tg_netns(r, t, start_tg_now);
}

/* Start one TG that ended again (restart_tg_now); says why not. */
static int restart_tg(struct run *r, struct run_tg *t)
{
	return in_tg_netns(r, t, restart_tg_now);
}

/*
 * Start the TGs (with user, only those that wait for the operator, else
 * every other one); on an error, kill the ones started.
 */
static int start_all(struct run *r, bool user)
{
	size_t i;
	int err;

	for (i = 0; i < r->ntgs; i++) {
		struct run_tg *t = &r->tgs[i];

		if ((t->tg->time == IDF_TIME_USER) != user || t->started)
			continue;
		err = start_tg(r, t);
		if (err) {
			kill_all(r);
			return err;
		}
	}
	return 0;
}

/* `time user` TGs: say how the operator starts them. */
static void announce_waiting(const struct run *r)
{
	size_t i, n = 0;

	FILE *f = r->dash_on ? r->ev.stream : r->say;

	for (i = 0; i < r->ntgs; i++)
		if (!r->tgs[i].started) {
			fprintf(f, "TG %u (%s) waits for the operator\n",
				r->tgs[i].tg->id, where(r, r->tgs[i].tg));
			n++;
		}
	if (n && r->dash_on)
		fprintf(f, "start them with 's' (the selected) or 'u' (all), or 'kill -USR1 %d'\n",
			(int)getpid());
	else if (n)
		fprintf(f, "start them with 'kill -USR1 %d'\n", (int)getpid());
	fflush(f);
}

/* Where event lines go: the dashboard's pane, the stream, or lines. */
static FILE *events_out(const struct run *r)
{
	return r->dash_on || r->o->json_stream ? r->ev.stream : r->say;
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

static void progress(const struct run *r, uint64_t now)
{
	unsigned long long elapsed = now > r->t0 ? now - r->t0 : 0;
	unsigned long long sent = 0, errors = 0, received = 0, gaps = 0;
	unsigned long long counts[MTG_TG_STATE_FAILED + 1] = { 0 };
	size_t i;

	printf("%4llu.%01llus", elapsed / 1000000000ULL,
	       elapsed / 100000000ULL % 10);
	if (r->ntgs <= PROGRESS_TGS) {
		for (i = 0; i < r->ntgs; i++) {
			const struct mtg_tg_stats *st = &r->tgs[i].st;
			const struct meter *m = r->tgs[i].m;

			printf("%s tg %u: %llu sent, %llu tx_errors, %s",
			       i ? " |" : "", r->tgs[i].tg->id, st->sent,
			       st->tx_errors,
			       mtg_tg_state_name(st->state));
			/* While packets are in flight: the gaps so far. */
			if (m)
				printf(", %llu received, %llu lost",
				       (unsigned long long)m->received,
				       (unsigned long long)meter_lost(m, -1));
		}
		printf("\n");
	} else {
		for (i = 0; i < r->ntgs; i++) {
			const struct mtg_tg_stats *st = &r->tgs[i].st;
			const struct meter *m = r->tgs[i].m;

			sent += st->sent;
			errors += st->tx_errors;
			if (st->state <= MTG_TG_STATE_FAILED)
				counts[st->state]++;
			if (m) {
				received += m->received;
				gaps += meter_lost(m, -1);
			}
		}
		printf(" %zu TGs: %llu running, %llu finished, %llu killed, %llu failed; %llu sent, %llu tx_errors",
		       r->ntgs, counts[MTG_TG_STATE_RUNNING] + counts[MTG_TG_STATE_SUSPENDED],
		       counts[MTG_TG_STATE_FINISHED], counts[MTG_TG_STATE_KILLED],
		       counts[MTG_TG_STATE_FAILED], sent, errors);
		if (r->listening)
			printf(", %llu received, %llu lost", received, gaps);
		printf("\n");
	}
	if (r->listening) {
		printf("%4llu.%01llus ", elapsed / 1000000000ULL,
		       elapsed / 100000000ULL % 10);
		listening_progress(&r->ls, stdout);
		printf("\n");
	}
	fflush(stdout);
}

static const char *row_state(const struct run_tg *t, uint64_t now)
{
	if (!t->started)
		return "waiting";
	switch (t->st.state) {
	case MTG_TG_STATE_RUNNING:
		return now < t->start.start_ns ? "waiting" : "running";
	case MTG_TG_STATE_SUSPENDED:
		return "suspended";
	case MTG_TG_STATE_FINISHED:
		return "done";
	case MTG_TG_STATE_KILLED:
		return "killed";
	default:
		return "error";
	}
}

static void row_dst(const struct run_tg *t, char *buf, size_t size)
{
	char a[INET6_ADDRSTRLEN] = "?";
	int family = t->dst.family ? t->dst.family : t->tg->dst.family;

	inet_ntop(family, t->dst.addr, a, sizeof(a));
	snprintf(buf, size, family == AF_INET6 ? "[%s]:%u" : "%s:%u", a,
		 t->tg->dst.port);
}

/*
 * The live view: every TG's row, the totals, the receiving side. final:
 * everything has been received that will be, so lost counts against sent
 * (as the summary does); before, only the gaps so far.
 */
static int build_view(struct run *r, uint64_t now, bool final)
{
	struct dash_view *v = &r->view;
	uint64_t late = 0, last_end = 0;
	bool known = true;
	size_t i;

	if (!v->rows) {
		v->rows = calloc(r->ntgs ? r->ntgs : 1, sizeof(*v->rows));
		if (!v->rows)
			return -ENOMEM;
		v->nrows = r->ntgs;
	}
	v->command = "run";
	v->file = r->file;
	v->run_id = r->run_id;
	v->time_ns = now;
	v->elapsed_ns = now > r->t0 ? now - r->t0 : 0;
	v->phase = r->phase;
	for (i = 0; i < r->ntgs; i++) {
		struct run_tg *t = &r->tgs[i];
		struct dash_row *row = &v->rows[i];
		struct hist_summary l;

		row->id = t->tg->id;
		row->run_id = r->run_id;
		snprintf(row->model, sizeof(row->model), "%s",
			 idf_dist_name(t->tg->dist));
		row_dst(t, row->dst, sizeof(row->dst));
		snprintf(row->state, sizeof(row->state), "%s",
			 row_state(t, now));
		row->has_tx = true;
		row->rate_factor = t->rate_factor;
		row->req_pps = t->req_pps * t->rate_factor;
		row->req_bps = t->req_bps * t->rate_factor;
		row->sent = t->st.sent;
		row->bytes = t->st.bytes;
		dash_rate(now, t->st.sent, t->st.bytes, row->tx_mark, &row->pps,
			  &row->bps);
		if (t->m)
			dash_row_meter(row, t->m, now,
				       final ? (int64_t)t->st.sent : -1,
				       t->tg->nowb);
		lateness_from_stats(&t->st, &l);
		row->late_valid = l.valid;
		row->late_p99_ns = l.p99;
		late += t->st.late_packets;
		/* Time left: known while every live TG has an end time. */
		if (t->started && mtg_tg_ended(t->st.state))
			continue;
		if (!t->started || !t->start.stop_ns)
			known = false;
		else if (t->start.stop_ns > last_end)
			last_end = t->start.stop_ns;
	}
	dash_view_total(v);
	v->totals.late_packets = late;
	v->remaining_known = known;
	v->remaining_ns = known && last_end > now ? last_end - now : 0;
	if (r->listening)
		listening_view(&r->ls, v);
	return 0;
}

static struct run_tg *tg_by_id(struct run *r, uint32_t id)
{
	size_t i;

	for (i = 0; i < r->ntgs; i++)
		if (r->tgs[i].tg->id == id)
			return &r->tgs[i];
	return NULL;
}

static const char *ctrl_hint(int err)
{
	switch (err) {
	case ESRCH:
		return ": the TG was killed or failed";
	case ENOENT:
		return ": it has not started";
	case EMSGSIZE:
		return ": the frame would not fit the interface's MTU";
	}
	return "";
}

/* Send one control message now, say what came of it. 0 or -errno. */
static int ctrl_send(struct run *r, struct run_tg *t, const uint8_t *data,
		     size_t len, const char *what)
{
	FILE *f = events_out(r);
	char text[64];
	int err;

	err = mtg_dev_tg_ctrlmsg(&r->dev, t->tg->id, data, len);
	idf_data_str(data, len, text, sizeof(text));
	if (err)
		fprintf(f, "TG %u: control message %s (%s) not sent: %s%s\n",
			t->tg->id, text, what, strerror(-err), ctrl_hint(-err));
	else
		fprintf(f, "TG %u: control message %s sent (%s, %zu bytes)\n",
			t->tg->id, text, what, len);
	fflush(f);
	return err;
}

/* The IDF's `ctrl` messages that are due: sent, or counted as not. */
static void ctrl_due(struct run *r, uint64_t now)
{
	char what[IDF_PATH_MAX + 32];
	size_t i;

	for (i = 0; i < r->ntgs; i++) {
		struct run_tg *t = &r->tgs[i];

		while (t->started && t->ctrl_next < t->nctrl &&
		       t->begin + t->ctrl[t->ctrl_next]->at <= now) {
			const struct idf_ctrl *c = t->ctrl[t->ctrl_next++];

			snprintf(what, sizeof(what), "%s:%u",
				 idf_source_name(&r->f, c->loc.src),
				 c->loc.line);
			if (ctrl_send(r, t, c->data, c->len, what))
				t->ctrl_unsent++;
		}
	}
}

/* When the next `ctrl` message is due; UINT64_MAX: none. */
static uint64_t ctrl_next_due(const struct run *r)
{
	uint64_t due = UINT64_MAX;
	size_t i;

	for (i = 0; i < r->ntgs; i++) {
		const struct run_tg *t = &r->tgs[i];

		if (t->started && t->ctrl_next < t->nctrl &&
		    t->begin + t->ctrl[t->ctrl_next]->at < due)
			due = t->begin + t->ctrl[t->ctrl_next]->at;
	}
	return due;
}

/* A TG that ended but can still send a `ctrl` message keeps the run on. */
static bool ctrl_pending(const struct run *r)
{
	size_t i;

	for (i = 0; i < r->ntgs; i++) {
		const struct run_tg *t = &r->tgs[i];

		if (t->started && t->ctrl_next < t->nctrl &&
		    t->st.state != MTG_TG_STATE_KILLED && t->st.state != MTG_TG_STATE_FAILED)
			return true;
	}
	return false;
}

/* The end: the messages never sent (their TG was killed first). */
static void ctrl_end(struct run *r)
{
	size_t i;

	for (i = 0; i < r->ntgs; i++) {
		struct run_tg *t = &r->tgs[i];
		size_t left = t->nctrl - t->ctrl_next;

		if (!left)
			continue;
		fprintf(r->say, "TG %u: %zu control message%s not sent: the TG %s first\n",
			t->tg->id, left, left == 1 ? "" : "s",
			t->started ? "ended" : "never started");
		t->ctrl_unsent += left;
		t->ctrl_next = t->nctrl;
	}
}

/*
 * 's' and the `start` command: the TG goes now, whatever it was doing
 * (Documentation/mtgctl.rst, "The dashboard"). Waiting for the operator:
 * it starts. Waiting for its start time: it is stopped before it sent
 * anything and starts now. Suspended: it resumes. Ended (finished,
 * killed, failed): it starts again, its sequence numbers going on.
 */
static void start_now(struct run *r, struct run_tg *t, FILE *f)
{
	uint64_t now = now_tai();
	int err;

	if (stop_signal || r->quits) {
		fprintf(f, "TG %u: not started: the run is ending\n", t->tg->id);
		return;
	}
	if (!t->started) {
		if (!start_tg(r, t))	/* else it said why */
			fprintf(f, "TG %u started\n", t->tg->id);
		return;
	}
	switch (t->st.state) {
	case MTG_TG_STATE_SUSPENDED:
		err = mtg_dev_tg_resume(&r->dev, t->tg->id);
		if (err)
			fprintf(f, "TG %u: resume refused: %s\n", t->tg->id,
				strerror(-err));
		else
			fprintf(f, "TG %u resumed\n", t->tg->id);
		return;
	case MTG_TG_STATE_RUNNING:
		if (now >= t->start.start_ns || t->st.next_seq) {
			fprintf(f, "TG %u is running already\n", t->tg->id);
			return;
		}
		/* Its start time has not come: stopped, it goes at once. */
		err = mtg_dev_tg_kill(&r->dev, t->tg->id);
		if (err) {
			fprintf(f, "TG %u: kill refused: %s\n", t->tg->id,
				strerror(-err));
			return;
		}
		t->begin = 0;
		if (!restart_tg(r, t)) {
			t->starts--;	/* it had not started sending */
			t->begin = t->start.start_ns - t->tt.first_ns;
			fprintf(f, "TG %u started now, before its start time\n",
				t->tg->id);
		} else {
			t->st.state = MTG_TG_STATE_KILLED;
		}
		return;
	default:
		if (!restart_tg(r, t))
			fprintf(f, "TG %u started again: sequence numbers go on from %llu\n",
				t->tg->id, (unsigned long long)t->st.next_seq);
		return;
	}
}

/* What a key asked for; what came of it goes to the event pane. */
static void carry_out(struct run *r, const struct dash_action *a)
{
	struct run_tg *t = tg_by_id(r, a->tg_id);
	FILE *f = events_out(r);
	const char *name = NULL, *done = NULL;
	uint32_t num, den;
	int err = 0;

	if (a->act == DASH_QUIT) {
		r->quits++;
		fprintf(f, "quit: every TG killed, finishing%s\n",
			r->listening ? " the recording" : "");
	} else if (a->act == DASH_START_USER) {
		fprintf(f, start_all(r, true) ?
			"the TGs waiting for the operator could not start\n" :
			"the TGs waiting for the operator started\n");
	}
	if (!t)
		goto out;
	switch (a->act) {
	case DASH_START:
		start_now(r, t, f);
		break;
	case DASH_KILL:
		name = "kill";
		done = "killed";
		err = mtg_dev_tg_kill(&r->dev, t->tg->id);
		break;
	case DASH_SUSPEND:
		name = "suspend";
		done = "suspended";
		err = mtg_dev_tg_suspend(&r->dev, t->tg->id);
		break;
	case DASH_RESUME:
		name = "resume";
		done = "resumed";
		err = mtg_dev_tg_resume(&r->dev, t->tg->id);
		break;
	case DASH_CTRLMSG:
		ctrl_send(r, t, a->data, a->len,
			  r->dash_on ? "from the keyboard" : "command");
		break;
	case DASH_RATE:
		name = "throughput change";
		/* factors are powers of two: exact as a fraction */
		num = a->factor >= 1 ? (uint32_t)a->factor : 1;
		den = a->factor >= 1 ? 1 : (uint32_t)(1.0 / a->factor);
		err = mtg_dev_tg_set_rate(&r->dev, t->tg->id, num, den);
		if (!err) {
			rate_record(r, t, num, den, r->dash_on ?
				    REC_RATE_BY_KEY : REC_RATE_BY_COMMAND);
			t->rate_factor = a->factor;
			fprintf(f, "TG %u: throughput x%g of the requested\n",
				t->tg->id, a->factor);
		}
		break;
	default:
		break;
	}
	if (err)
		fprintf(f, "TG %u: %s refused: %s%s\n", t->tg->id, name,
			strerror(-err), t->started ? "" : " (it has not started)");
	else if (done)
		fprintf(f, "TG %u %s\n", t->tg->id, done);
out:
	fflush(f);
}

/* --commands: the lines waiting on standard input, carried out as keys. */
static void take_commands(struct run *r)
{
	struct dash_action a;
	char why[160];
	FILE *f = events_out(r);

	while (cmd_input_next(&r->cmds, &a, why, sizeof(why)) > 0) {
		if (why[0])
			fprintf(f, "commands:%u: %s\n", r->cmds.line, why);
		else if (a.act != DASH_NONE && a.act != DASH_QUIT &&
			 !tg_by_id(r, a.tg_id))
			fprintf(f, "commands:%u: no TG %u in %s\n", r->cmds.line,
				a.tg_id, r->file);
		else if (a.act != DASH_NONE)
			carry_out(r, &a);
		fflush(f);
	}
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
 * Poll until every TG has ended and, when listening, the drain time has
 * passed; a signal kills the TGs (and is drained like an end), a second
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
			ret = poll_all(r);
			if (ret < 0)
				return ret;
			/* a TG started again from the keyboard: not ended */
			if (!ret && ended && !killed)
				ended = false;
			if (ret && !ended && !ctrl_pending(r)) {
				ended = true;
				if (r->listening && !r->ls.write_failed)
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
			if (r->o->json_stream) {
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

static void report(const struct run *r, FILE *f)
{
	struct hist_summary l;
	size_t i;

	for (i = 0; i < r->ntgs; i++) {
		const struct mtg_tg_stats *st = &r->tgs[i].st;
		const struct meter *m = r->tgs[i].m;
		const char *error = mtg_tg_error_name(st->error);

		lateness_from_stats(st, &l);
		fprintf(f, "tg %u: %s%s%s, %llu sent (%llu bytes), %llu tx_errors",
			r->tgs[i].tg->id,
			mtg_tg_state_name(st->state), error ? " " : "",
			error ? error : "", st->sent, st->bytes, st->tx_errors);
		if (st->bad_entries || st->underruns || st->skipped_late)
			fprintf(f, ", %llu bad_entries, %llu underruns, %llu skipped_late",
				st->bad_entries, st->underruns,
				st->skipped_late);
		if (l.valid)
			fprintf(f, ", lateness p50 %llu p99 %llu max %llu ns",
				(unsigned long long)l.p50,
				(unsigned long long)l.p99,
				(unsigned long long)l.max);
		if (st->ctrl_sent || r->tgs[i].ctrl_unsent)
			fprintf(f, ", %llu control messages sent, %llu not",
				st->ctrl_sent,
				(unsigned long long)r->tgs[i].ctrl_unsent);
		if (m) {
			fprintf(f, "; ");
			meter_print(f, m, (int64_t)st->sent);
		}
		if (r->tgs[i].netns_deleted)
			fprintf(f, "; its namespace %s was deleted",
				r->tgs[i].tg->netns);
		fprintf(f, "\n");
	}
	if (r->listening)
		listening_report(&r->ls, f);
}

static int write_summary(const struct run *r)
{
	struct summary_tg *tgs = calloc(r->ntgs, sizeof(*tgs));
	struct summary_rx rx;
	struct summary s = {
		.command = "run",
		.file = r->file,
		.run_id = r->run_id,
		.start_ns = r->t0,
		.end_ns = r->end,
		.interrupted = stop_signal != 0 || r->quits,
		.tgs = tgs,
		.ntgs = r->ntgs,
		.rx = r->listening ? &rx : NULL,
	};
	size_t i;
	int err;

	if (!tgs)
		return -ENOMEM;
	if (r->listening)
		listening_summary(&r->ls, &rx);
	for (i = 0; i < r->ntgs; i++) {
		const struct run_tg *t = &r->tgs[i];

		tgs[i].id = t->tg->id;
		tgs[i].run_id = r->run_id;
		tgs[i].st = &t->st;
		tgs[i].m = t->m;
		tgs[i].dev = t->tg->dev;
		tgs[i].netns = t->tg->netns[0] ? t->tg->netns : NULL;
		tgs[i].mode = idf_mode_name(t->tg->mode);
		tgs[i].path = idf_path_name(t->tg->path);
		tgs[i].dst_mac = t->start.dst_mac;
		tgs[i].ctrl_unsent = t->ctrl_unsent;
		tgs[i].starts = t->starts;
		tgs[i].netns_deleted = t->netns_deleted;
	}
	err = summary_write(r->o->json, &s);
	free(tgs);
	return err;
}

/* 0 if every TG finished cleanly and nothing was lost, else EXIT_COUNTED. */
static int outcome(const struct run *r)
{
	size_t i;

	if (r->listening && listening_lost_any(&r->ls))
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

	mtg_dev_close(&r->dev);
	for (i = 0; i < r->ntgs; i++) {
		tt_free(&r->tgs[i].tt);
		free(r->tgs[i].ctrl);
	}
	listening_free(&r->ls);
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
		.ring_records = r->o->ring,
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
	r->ls.rx.events = r->dash_on || r->o->json_stream ? r->ev.stream :
		r->say;
	for (i = 0; i < r->ntgs; i++) {
		r->tgs[i].m = meter_find(&r->ls.rx.meters, r->run_id,
					 r->tgs[i].tg->id, true, &oom);
		if (!r->tgs[i].m) {
			pr_err("out of memory\n");
			return -ENOMEM;
		}
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
		err = listening_begin(&r->ls, &mi);
	}
	free(tgs);
	free(tts);
	return err;
}

int cmd_run(const char *file, const struct run_opts *o)
{
	struct sigaction sa = { .sa_handler = on_signal };
	struct run r = { .o = o, .file = file, .dev = { .fd = -1 } };
	const char *out;
	int ret, rc = EXIT_ERROR;

	/* Keys need a terminal too. */
	r.dash_on = !o->batch && !o->json_stream && !o->commands &&
		isatty(STDOUT_FILENO) && isatty(STDIN_FILENO);
	cmd_input_open(&r.cmds, o->commands ? STDIN_FILENO : -1);
	r.say = o->json_stream ? stderr : stdout;
	r.phase = "starting";
	if (dash_events_open(&r.ev)) {
		pr_err("out of memory\n");
		return EXIT_ERROR;
	}
	ret = idf_load(&r.f, file);
	if (ret && ret != -EINVAL) {
		pr_err("cannot read %s: %s\n", file, strerror(-ret));
		goto out;
	}
	idf_print_diags(&r.f, stderr);
	if (ret) {
		fprintf(stderr, "%s: nothing started\n", file);
		goto out;
	}
	if (prepare(&r)) {
		fprintf(stderr, "%s: nothing started\n", file);
		goto out;
	}
	r.listening = r.ls.ndevs > 0;
	out = o->output ? o->output : r.f.out;
	if (out && !r.listening) {
		pr_err("%s: nothing to record in %s: name the interfaces to listen on with 'listen DEV' (Documentation/idf.rst)\n",
		       file, out);
		goto out;
	}
	if (out && listening_create(&r.ls, out, o->force))
		goto out;
	if (mtg_dev_open(&r.dev, o->device))
		goto err_abandon;
	if (mtg_dev_alloc(&r.dev, r.table_bytes, r.listening ? o->ring : 0,
			  r.listening && keeps_any(&r) ? o->keep_ring : 0))
		goto err_abandon;
	write_tables(&r);

	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sa.sa_handler = on_user;
	sigaction(SIGUSR1, &sa, NULL);

	r.run_id = new_run_id();
	r.t0 = now_tai() + o->start_delay;
	r.tai_offset = tai_offset();
	if (r.listening && listen_all(&r))
		goto err_abandon;
	fprintf(r.say, "run_id %u: %zu TG%s from %s, T0 %llu (CLOCK_TAI), in %llu ms\n",
		r.run_id, r.ntgs, r.ntgs == 1 ? "" : "s", file,
		(unsigned long long)r.t0,
		(unsigned long long)o->start_delay / 1000000);
	fflush(r.say);
	if (start_all(&r, false))
		goto err_abandon;
	release_netns(&r);	/* `ip netns del` really deletes one now */
	listening_commit(&r.ls);
	if (r.dash_on && dash_open(&r.dash))
		r.dash_on = false;	/* it said why; plain lines instead */
	if (!r.dash_on)
		r.ls.rx.events = o->json_stream ? r.ev.stream : r.say;
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
	r.phase = "ended";
	if (o->json_stream && !build_view(&r, r.end, true))
		dash_view_json(stdout, &r.view, "end", &r.ev, &r.ev_since);
	report(&r, r.say);
	rc = ret ? EXIT_ERROR : outcome(&r);
	if (o->json) {
		ret = write_summary(&r);
		if (ret) {
			pr_err("cannot write the summary %s: %s\n", o->json,
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
	/* Nothing ran: no recording is left behind. */
	listening_abandon(&r.ls);
out:
	cleanup(&r);
	return rc;
}
