// SPDX-License-Identifier: GPL-2.0-or-later
/* A command's receiving side from start to end (listening.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "rx/listening.h"
#include "rx/summary.h"
#include "util/clock.h"
#include "util/log.h"

int listening_resolve(struct listening *ls, const struct idf_listen *l,
		      size_t n, const char *default_netns,
		      struct netns_cache *nc)
{
	size_t i;
	int err, failed = 0;

	ls->devs = calloc(n ? n : 1, sizeof(*ls->devs));
	if (!ls->devs) {
		pr_err("out of memory\n");
		return -ENOMEM;
	}
	ls->lost_names = calloc(n ? n : 1, sizeof(*ls->lost_names));
	if (!ls->lost_names) {
		pr_err("out of memory\n");
		return -ENOMEM;
	}
	ls->idle_ns = RX_IDLE_MIN_NS;
	for (i = 0; i < n; i++) {
		struct listen_dev *d = &ls->devs[ls->ndevs++];

		d->l = l[i];
		if (!d->l.netns[0])
			strcpy(d->l.netns, default_netns);
		snprintf(d->name, sizeof(d->name), "%s%s%s", d->l.dev,
			 d->l.netns[0] ? "@" : "", d->l.netns);
		err = netns_cache_get(nc, d->l.netns, &d->netns_fd);
		if (!err)
			err = iface_index(d->netns_fd, d->l.netns, d->l.dev,
					  &d->ifindex);
		if (err)
			failed = err;
	}
	return failed;
}

int listening_create(struct listening *ls, const char *path, bool force)
{
	int err = rec_create(&ls->rec, path, force);

	if (err)
		return err;
	ls->out = path;
	ls->recording = true;
	return 0;
}

void listening_commit(struct listening *ls)
{
	if (ls->recording)
		ls->out = rec_commit(&ls->rec);
}

static const char *listen_hint(int err)
{
	switch (err) {
	case EOPNOTSUPP:
		return ": this kernel has no netfilter ingress hook (CONFIG_NETFILTER_INGRESS)";
	case ENODEV:
		return ": the interface went away";
	case EPERM:
	case EACCES:
		return ": CAP_NET_ADMIN is needed in the interface's namespace";
	}
	return "";
}

int listening_attach(struct listening *ls, struct mtg_dev *d,
		     uint32_t run_id, bool pass, uint64_t t0)
{
	size_t i;
	int err;

	ls->rx.dev = d;
	ls->rx.rec = ls->recording ? &ls->rec : NULL;
	ls->rx.t0 = t0;
	ls->rx.events = stdout;
	err = mtg_dev_rx_set_run(d, run_id);
	if (err) {
		pr_err("%s: MTG_IOC_RX_SET_RUN failed: %s\n", d->path,
		       strerror(-err));
		return err;
	}
	for (i = 0; i < ls->ndevs; i++) {
		struct listen_dev *l = &ls->devs[i];

		err = mtg_dev_listen(d, l->netns_fd, l->ifindex, pass, &l->id);
		if (err) {
			pr_err("cannot listen on %s%s%s: %s%s\n", l->l.dev,
			       l->l.netns[0] ? " in namespace " : "",
			       l->l.netns, strerror(-err), listen_hint(-err));
			return err;
		}
	}
	return 0;
}

void listening_attach_none(struct listening *ls, uint64_t t0)
{
	ls->rx.rec = ls->recording ? &ls->rec : NULL;
	ls->rx.t0 = t0;
	ls->rx.events = stdout;
}

int listening_attach_xdp(struct listening *ls, uint32_t run_id, bool pass,
			 uint64_t records, uint64_t t0)
{
	ls->rx.rec = ls->recording ? &ls->rec : NULL;
	ls->rx.t0 = t0;
	ls->rx.events = stdout;
	return xdp_rx_open(&ls->xdp, ls->devs, ls->ndevs, run_id, pass,
			   records, receiver_sample, &ls->rx);
}

/* The counters as they are now: the module's, or the XDP receiver's. */
static void rx_stats_now(const struct listening *ls, struct mtg_rx_stats *st,
			 struct xdp_rx_passed *passed)
{
	memset(passed, 0, sizeof(*passed));
	if (ls->xdp)
		xdp_rx_stats(ls->xdp, st, passed);
	else if (ls->rx.dev)
		mtg_dev_rx_stats_shm(ls->rx.dev, st);
	else
		memset(st, 0, sizeof(*st));
}

int listening_begin(struct listening *ls, const struct rec_meta *mi)
{
	size_t len;
	char *meta;
	int err;

	if (!ls->recording && !ls->log_cfg.to)
		return 0;
	meta = rec_meta_json(mi, &len);
	if (!meta) {
		pr_err("out of memory\n");
		return -ENOMEM;
	}
	err = ls->recording ? rec_begin(&ls->rec, meta, len) : 0;
	if (!err && ls->log_cfg.to) {
		err = logc_open(&ls->log, &ls->log_cfg, mi->run_id, meta, len) ?
			-EIO : 0;
		ls->rx.log = ls->log;
	}
	free(meta);
	return err;
}

/* The recording's first write error, reported once: the run must end. */
static void write_failure(struct listening *ls)
{
	if (ls->recording && ls->rec.error && !ls->write_failed) {
		ls->write_failed = true;
		pr_err("cannot write the recording %s: %s: stopping the run\n",
		       ls->out, strerror(-ls->rec.error));
	}
}

/*
 * The session counts the interfaces that went away (its status page, no
 * system call to read): when the count moves, find which, and say so.
 */
static void check_lost(struct listening *ls)
{
	struct mtg_iface_info info;
	struct mtg_stats st;
	uint64_t now;
	size_t i;

	if (!ls->rx.dev || mtg_dev_status(ls->rx.dev, &st) ||
	    st.ifaces_lost == ls->module_lost)
		return;
	ls->module_lost = st.ifaces_lost;
	/* Read now, after the count: later than any record of the device. */
	now = now_tai();
	for (i = 0; i < ls->ndevs; i++) {
		struct listen_dev *d = &ls->devs[i];

		if (d->lost || mtg_dev_iface_info(ls->rx.dev, d->id, &info) ||
		    info.state != MTG_IFACE_STATE_LOST)
			continue;
		d->lost = true;
		d->lost_ns = now;
		ls->lost_names[ls->nlost++] = d->name;
		if (ls->rx.events) {
			event_prefix(ls->rx.events, ls->rx.t0, now);
			fprintf(ls->rx.events, "receive interface %s went away: nothing more is received on it\n",
				d->name);
			fflush(ls->rx.events);
		}
	}
	if (ls->recording && !ls->rec.error)
		rec_ifaces_lost(&ls->rec, (uint32_t)ls->nlost);
}

int64_t listening_poll(struct listening *ls, uint64_t now)
{
	int64_t got = ls->xdp ? xdp_rx_poll(ls->xdp) :
		ls->rx.dev ? receiver_poll(&ls->rx) : 0;
	int64_t conns = conn_rx_poll(ls->conns, &ls->rx);

	got = got < 0 ? got : conns < 0 ? conns : got + conns;

	if (got == -ENOMEM) {
		pr_err("out of memory for the flows' counters\n");
		return got;
	}
	if (got < 0) {
		pr_err("%s: the receive ring's counts make no sense: %s\n",
		       ls->xdp ? "the XDP receiver" : ls->rx.dev ? ls->rx.dev->path : "--accept",
		       strerror((int)-got));
		return got;
	}
	check_lost(ls);
	if (now >= ls->next_flush) {
		if (ls->recording && !ls->rec.error)
			rec_flush(&ls->rec);
		logc_flush(ls->log);
		ls->next_flush = now + LISTEN_FLUSH_NS;
	}
	write_failure(ls);
	return got;
}

void listening_sync(struct listening *ls, uint64_t now)
{
	if (!ls->recording || ls->rec.error)
		return;
	rec_flush(&ls->rec);
	ls->next_flush = now + LISTEN_FLUSH_NS;
	write_failure(ls);
}

bool listening_all_lost(const struct listening *ls)
{
	return ls->ndevs && ls->nlost == ls->ndevs;
}

void listening_wait(struct listening *ls, int64_t got)
{
	struct timespec ts;

	if (got > 0) {
		ls->idle_ns = RX_IDLE_MIN_NS;
		return;
	}
	ts.tv_sec = 0;
	ts.tv_nsec = (long)ls->idle_ns;
	nanosleep(&ts, NULL);
	if (ls->idle_ns < RX_IDLE_MAX_NS)
		ls->idle_ns *= 2;
}

/* The interfaces that went away, after prefix; nothing if none did. */
static void print_lost(const struct listening *ls, FILE *out,
		       const char *prefix)
{
	size_t i;

	for (i = 0; i < ls->nlost; i++)
		fprintf(out, "%s%s", i ? ", " : prefix, ls->lost_names[i]);
}

void listening_progress(const struct listening *ls, FILE *out)
{
	struct xdp_rx_passed passed;
	struct mtg_rx_stats st;

	rx_stats_now(ls, &st, &passed);
	fprintf(out, "rx: %llu records, %llu header-corrupt, %llu ring drops",
		(unsigned long long)ls->rx.records,
		(unsigned long long)ls->rx.hdr_corrupt,
		(unsigned long long)st.ring_drops);
	if (st.keep_drops)
		fprintf(out, ", %llu keep drops",
			(unsigned long long)st.keep_drops);
	print_lost(ls, out, ", interfaces gone: ");
	if (ls->recording)
		fprintf(out, "; %s: %llu records", ls->out,
			(unsigned long long)(ls->rec.written +
					     ls->rec.len / sizeof(struct mtg_rx_rec)));
}

int listening_end(struct listening *ls, uint64_t end_ns)
{
	int err;

	/*
	 * Everything the module counted is in the ring before the count
	 * moves: take what is there after reading the counters, so that what
	 * was written and what was not add up to them.
	 */
	if (ls->rx.dev) {
		receiver_poll(&ls->rx);
		if (mtg_dev_rx_stats(ls->rx.dev, &ls->st))
			mtg_dev_rx_stats_shm(ls->rx.dev, &ls->st);
		receiver_poll(&ls->rx);
		check_lost(ls);
	}
	if (ls->xdp) {
		xdp_rx_poll(ls->xdp);
		xdp_rx_stats(ls->xdp, &ls->st, &ls->passed);
		xdp_rx_poll(ls->xdp);
	}
	conn_rx_poll(ls->conns, &ls->rx);
	if (ls->log)
		logc_close(ls->log, ls->st.ring_drops, end_ns);
	if (!ls->recording)
		return 0;
	rec_extra_drops(&ls->rec, ls->st.ctrl_drops, ls->st.keep_drops);
	err = rec_finish(&ls->rec, ls->st.ring_drops, end_ns);
	ls->recording = false;
	if (err && !ls->write_failed)
		pr_err("cannot write the recording %s: %s\n", ls->out,
		       strerror(-err));
	if (err)
		ls->write_failed = true;
	return err;
}

void listening_report(const struct listening *ls, FILE *out)
{
	size_t i;

	fprintf(out, "rx: %llu records (%llu header-corrupt, %llu of no TG of the run), %llu ring drops, %llu of other runs passed on",
		(unsigned long long)ls->rx.records,
		(unsigned long long)ls->rx.hdr_corrupt,
		(unsigned long long)ls->rx.unknown,
		(unsigned long long)ls->st.ring_drops,
		(unsigned long long)ls->st.foreign);
	if (ls->st.ctrl_drops)
		fprintf(out, ", %llu control records lost%s",
			(unsigned long long)ls->st.ctrl_drops,
			ls->ctrl_events_only ?
			" (TG events only, no control message was sent: the TGs' states are read from their counters)" :
			"");
	if (ls->rx.payloads || ls->rx.bit_lists || ls->st.keep_drops)
		fprintf(out, "; kept %llu payloads and %llu wrong-bit lists, %llu lost (keep ring full)",
			(unsigned long long)ls->rx.payloads,
			(unsigned long long)ls->rx.bit_lists,
			(unsigned long long)ls->st.keep_drops);
	fprintf(out, "\n");
	if (ls->xdp)
		fprintf(out, "rx (xdp): %llu frames not MTG and %llu that could not be parsed passed on; payloads not compared with their pattern\n",
			(unsigned long long)ls->passed.not_mtg,
			(unsigned long long)ls->passed.unparsed);
	if (ls->conns) {
		struct conn_stats c;

		conn_rx_stats(ls->conns, &c);
		fprintf(out, "rx (connections): %llu accepted, %llu ended by their senders, %llu cut inside a message, %llu ended by an error; %llu messages not MTG, %llu of other runs\n",
			(unsigned long long)c.accepted,
			(unsigned long long)c.ended,
			(unsigned long long)c.cut,
			(unsigned long long)c.errors,
			(unsigned long long)c.not_mtg,
			(unsigned long long)c.other_runs);
	}
	if (ls->out)
		fprintf(out, "recording %s: %llu records written, %llu not written\n",
			ls->out, (unsigned long long)ls->rec.written,
			(unsigned long long)ls->rec.not_written);
	if (ls->out && (ls->rec.xentries || ls->rec.xlost))
		fprintf(out, "recording %s: %llu extra entries (%llu control messages) written, %llu not written\n",
			ls->out,
			(unsigned long long)(ls->rec.extras ?
					     ls->rec.xentries : 0),
			(unsigned long long)ls->rx.ctrl_msgs,
			(unsigned long long)ls->rec.xlost);
	if (ls->log)
		logc_report(ls->log, out);
	for (i = 0; i < ls->ndevs; i++) {
		const struct listen_dev *d = &ls->devs[i];
		uint64_t dt = d->lost_ns > ls->rx.t0 ? d->lost_ns - ls->rx.t0 : 0;

		if (d->lost)
			fprintf(out, "rx: interface %s went away at %llu.%01llus: nothing was received on it after that\n",
				d->name,
				(unsigned long long)(dt / 1000000000ULL),
				(unsigned long long)(dt / 100000000ULL % 10));
	}
}

void listening_summary(const struct listening *ls, struct summary_rx *out)
{
	memset(out, 0, sizeof(*out));
	out->st = ls->st;
	out->hdr_corrupt = ls->rx.hdr_corrupt;
	out->unknown = ls->rx.unknown;
	out->recording = ls->out;
	out->written = ls->rec.written;
	out->not_written = ls->rec.not_written;
	out->extras = ls->rec.extras ? ls->rec.xentries : 0;
	out->extras_lost = ls->rec.xlost;
	out->devs = ls->devs;
	out->ndevs = ls->ndevs;
	out->xdp = ls->xdp != NULL;
	out->not_mtg = ls->passed.not_mtg;
	out->unparsed = ls->passed.unparsed;
	out->conns = ls->conns != NULL;
	conn_rx_stats(ls->conns, &out->conn);
	out->log = ls->log;
}

int listening_summary_write(const struct listening *ls, const char *path,
			    const char *command, uint32_t run_id,
			    uint64_t start, uint64_t end, bool interrupted)
{
	const struct meter_set *ms = &ls->rx.meters;
	struct summary_tg *tgs = calloc(ms->n ? ms->n : 1, sizeof(*tgs));
	struct summary_rx rx;
	struct summary s = {
		.command = command,
		.run_id = run_id,
		.start_ns = start,
		.end_ns = end,
		.interrupted = interrupted,
		.tgs = tgs,
		.ntgs = ms->n,
		.rx = &rx,
	};
	size_t i;
	int err;

	if (!tgs)
		return -ENOMEM;
	listening_summary(ls, &rx);
	for (i = 0; i < ms->n; i++) {
		tgs[i].id = ms->all[i]->tg_id;
		tgs[i].run_id = ms->all[i]->run_id;
		tgs[i].m = ms->all[i];
	}
	err = summary_write(path, &s);
	free(tgs);
	return err;
}

bool listening_lost_any(const struct listening *ls)
{
	return ls->st.ring_drops ||
	       (ls->st.ctrl_drops && !ls->ctrl_events_only) ||
	       ls->st.bad_consumer ||
	       ls->st.keep_drops || ls->nlost ||
	       (ls->log && logc_lost_any(ls->log));
}

void listening_abandon(struct listening *ls)
{
	if (ls->recording)
		rec_abandon(&ls->rec);
	ls->recording = false;
	ls->out = NULL;
	logc_free(ls->log);	/* logd finishes it marked incomplete */
	ls->log = NULL;
	ls->rx.log = NULL;
}

void listening_free(struct listening *ls)
{
	logc_free(ls->log);
	ls->log = NULL;
	ls->rx.log = NULL;
	xdp_rx_close(ls->xdp);	/* detaches */
	ls->xdp = NULL;
	conn_rx_close(ls->conns);
	ls->conns = NULL;
	meter_set_free(&ls->rx.meters);
	free(ls->lost_names);
	ls->lost_names = NULL;
	ls->nlost = 0;
	free(ls->devs);
	ls->devs = NULL;
	ls->ndevs = 0;
}
