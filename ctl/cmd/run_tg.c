// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * mtgctl run: the TGs in the module: their start requests, the tables in
 * shared memory and the streams refilled behind the module, starts (at T0,
 * at SIGUSR1, again from the keyboard), namespaces, kills (run.h).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <string.h>

#include "cmd/run.h"

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
	if (tg->header == IDF_HEADER_DITG)
		s->flags |= MTG_TG_FLAGS_DITG;
	if (tg->proto == IDF_PROTO_ICMP)
		s->flags |= MTG_TG_FLAGS_ICMP;
	else if (tg->proto == IDF_PROTO_TCP)
		s->flags |= MTG_TG_FLAGS_TCP;
	else if (tg->proto == IDF_PROTO_SCTP)
		s->flags |= MTG_TG_FLAGS_SCTP;
	else if (tg->proto == IDF_PROTO_DCCP)
		s->flags |= MTG_TG_FLAGS_DCCP;
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
	/* a connection's port is the kernel's choice unless one is given:
	 * a run again would find the last one's in TIME_WAIT
	 */
	s->src_port = idf_proto_connected(tg->proto) && !tg->src.port ? 0 :
		idf_src_port(tg);
	/* an echo's identifier is the source port; it has no other */
	s->dst_port = tg->proto == IDF_PROTO_ICMP ? 0 : tg->dst.port;
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
void write_tables(struct run *r)
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
void refill(struct run *r)
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

void kill_all(struct run *r)
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
void rate_record(struct run *r, const struct run_tg *t, uint32_t num,
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
void release_netns(struct run *r)
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
int start_tg(struct run *r, struct run_tg *t)
{
	return in_tg_netns(r, t, start_tg_now);
}

/* Start one TG that ended again (restart_tg_now); says why not. */
int restart_tg(struct run *r, struct run_tg *t)
{
	return in_tg_netns(r, t, restart_tg_now);
}

/*
 * Start the TGs (with user, only those that wait for the operator, else
 * every other one); on an error, kill the ones started.
 */
int start_all(struct run *r, bool user)
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
void announce_waiting(const struct run *r)
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
