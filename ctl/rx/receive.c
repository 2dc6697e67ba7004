// SPDX-License-Identifier: GPL-2.0-or-later
/* The receiving side: rings, meters, recording, events (receive.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/timex.h>
#include <sys/utsname.h>

#include "module/iface.h"
#include "module/module.h"
#include "rx/receive.h"
#include "rx/summary.h"
#include "screen/dash.h"
#include "traffic/tg_json.h"
#include "uapi/linux/mtg_netlink.h"
#include "util/jw.h"
#include "util/log.h"

void event_prefix(FILE *f, uint64_t t0, uint64_t t)
{
	uint64_t dt = t > t0 ? t - t0 : 0;

	fprintf(f, "%4llu.%01llus event: ",
		(unsigned long long)(dt / 1000000000ULL),
		(unsigned long long)(dt / 100000000ULL % 10));
}

static void event_time(const struct receiver *x, uint64_t t)
{
	event_prefix(x->events, x->t0, t);
}

static void print_tg_events(FILE *f, uint32_t events)
{
	static const struct {
		uint32_t bit;
		const char *name;
	} names[] = {
		{ MTG_TG_EVENT_ERROR, "error" },
		{ MTG_TG_EVENT_LATE, "late" },
		{ MTG_TG_EVENT_UNDERRUN, "underrun" },
		{ MTG_TG_EVENT_FINISHED, "finished" },
	};
	const char *sep = "";
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (events & names[i].bit) {
			fprintf(f, "%s%s", sep, names[i].name);
			sep = ", ";
		}
	}
}

/* A control message received: into the recording's extra entries. */
static void ctrl_record(struct receiver *x, const struct mtg_ctrl_rec *c)
{
	struct rec_extra e = {
		.type = REC_EXTRA_CTRL,
		.record = REC_EXTRA_NO_RECORD,
		.rx_ns = c->time_ns,
		.seq = c->seq,
		.tx_ns = c->tx_ns,
		.run_id = c->run_id,
		.tg_id = c->tg_id,
		.iface = c->iface,
		.rx_flags = c->flags,
		.count = c->len,
		.data_len = c->len,
	};

	x->ctrl_msgs++;
	if (x->rec)
		rec_add_extra(x->rec, &e, c->data);
}

static void ctrl_event(const struct receiver *x, const struct mtg_ctrl_rec *c)
{
	const char *error;
	char text[80];

	if (!x->events)
		return;
	event_time(x, c->time_ns);
	switch (c->type) {
	case MTG_CTRL_MSG:
		idf_data_str(c->data, c->len, text, sizeof(text));
		fprintf(x->events, "control message from tg %u (run %u), seq %llu, %u bytes %s\n",
			c->tg_id, c->run_id, (unsigned long long)c->seq,
			c->len, text);
		break;
	case MTG_CTRL_TG_EVENT:
		error = mtg_tg_error_name(c->error);
		fprintf(x->events, "tg %u: ", c->tg_id);
		print_tg_events(x->events, c->events);
		fprintf(x->events, " (%s%s%s)\n", mtg_tg_state_name(c->state),
			error ? " " : "", error ? error : "");
		break;
	case MTG_CTRL_RX_DROPS:
		fprintf(x->events, "the receive ring is full: %llu packets dropped so far\n",
			(unsigned long long)c->count);
		break;
	default:
		fprintf(x->events, "control record of unknown type %u\n",
			c->type);
	}
}

static int take_record(struct receiver *x, const struct mtg_rx_rec *r)
{
	struct meter *m;
	bool oom;

	x->records++;
	if (x->rec)
		rec_add(x->rec, r);
	if (r->flags & MTG_RX_F_HDR_CORRUPT) {
		x->hdr_corrupt++;
		return 0;
	}
	m = meter_find(&x->meters, r->run_id, r->tg_id, x->any_flow, &oom);
	if (!m) {
		if (oom)
			return -ENOMEM;
		x->unknown++;
		return 0;
	}
	return meter_add(m, r);
}

/* The keep ring's entries into the recording's extra entries. */
static int take_kept(struct receiver *x)
{
	struct mtg_keep_reader *k = &x->dev->keep;
	const uint8_t *data;
	struct mtg_keep_rec e;
	int ret;

	while ((ret = mtg_keep_next(k, &e, &data)) > 0) {
		struct rec_extra ex = {
			.flags = e.flags & MTG_KEEP_F_CUT ? REC_EXTRA_F_CUT : 0,
			.record = e.record,
			.rx_ns = e.rx_ns,
			.seq = e.seq,
			.run_id = e.run_id,
			.tg_id = e.tg_id,
			.count = e.count,
			.data_len = e.data_len,
		};

		if (e.type == MTG_KEEP_PAYLOAD) {
			ex.type = REC_EXTRA_PAYLOAD;
			x->payloads++;
		} else if (e.type == MTG_KEEP_BITS) {
			ex.type = REC_EXTRA_WRONG_BITS;
			x->bit_lists++;
		} else {
			continue;	/* of a later module: not ours to read */
		}
		if (x->rec)
			rec_add_extra(x->rec, &ex, data);
	}
	mtg_keep_release(k);
	return ret;
}

int64_t receiver_poll(struct receiver *x)
{
	struct mtg_dev *d = x->dev;
	struct mtg_rx_rec rec;
	struct mtg_ctrl_rec ctrl;
	int64_t n, i, total = 0;
	int err;

	n = mtg_ring_ready(&d->ctrl);
	if (n < 0)
		return n;
	for (i = 0; i < n; i++) {
		/* Copied once: the slot is the kernel's again after release. */
		memcpy(&ctrl, mtg_ring_record(&d->ctrl, (uint64_t)i),
		       sizeof(ctrl));
		/* the copy is checked: its length says what data is its */
		if (ctrl.len > sizeof(ctrl.data))
			ctrl.len = sizeof(ctrl.data);
		if (ctrl.type == MTG_CTRL_MSG)
			ctrl_record(x, &ctrl);
		ctrl_event(x, &ctrl);
	}
	mtg_ring_release(&d->ctrl, (uint64_t)n);
	if (n && x->events)
		fflush(x->events);

	/* In batches, so that the kernel gets room back while we work. */
	while ((n = mtg_ring_ready(&d->data)) > 0) {
		if (n > 4096)
			n = 4096;
		for (i = 0; i < n; i++) {
			memcpy(&rec, mtg_ring_record(&d->data, (uint64_t)i),
			       sizeof(rec));
			err = take_record(x, &rec);
			if (err)
				return err;
		}
		mtg_ring_release(&d->data, (uint64_t)n);
		total += n;
	}
	if (n < 0)
		return n;
	/* After the records: each entry is there before its record. */
	err = take_kept(x);
	return err < 0 ? err : total;
}

/* A record's fields, as numpy's dtype description has them. */
static void record_dtype(struct jw *j)
{
	size_t i;

	jw_key(j, "record");
	jw_obj_begin(j);
	jw_ku64(j, "bytes", sizeof(struct mtg_rx_rec));
	jw_key(j, "dtype");
	jw_arr_begin(j);
	for (i = 0; i < REC_NFIELDS; i++) {
		jw_arr_begin(j);
		jw_str(j, rec_fields[i].name);
		jw_str(j, rec_fields[i].type);
		if (rec_fields[i].count) {
			jw_arr_begin(j);
			jw_u64(j, rec_fields[i].count);
			jw_arr_end(j);
		}
		jw_arr_end(j);
	}
	jw_arr_end(j);
	jw_key(j, "flags");
	jw_obj_begin(j);
	jw_ku64(j, "stamp_mask", MTG_RX_F_STAMP);
	jw_ku64(j, "stamp_hook", MTG_RX_STAMP_HOOK);
	jw_ku64(j, "stamp_sw", MTG_RX_STAMP_SW);
	jw_ku64(j, "stamp_hw", MTG_RX_STAMP_HW);
	jw_ku64(j, "ipv6", MTG_RX_F_IPV6);
	jw_ku64(j, "hdr_corrupt", MTG_RX_F_HDR_CORRUPT);
	jw_ku64(j, "csum_bad", MTG_RX_F_CSUM_BAD);
	jw_ku64(j, "kept", MTG_RX_F_KEPT);
	jw_ku64(j, "keep_lost", MTG_RX_F_KEEP_LOST);
	jw_obj_end(j);
	jw_obj_end(j);
}

/* The host and its clock, as the kernel tells them now. */
static void host_and_clock(struct jw *j)
{
	struct timex tx = { .modes = 0 };
	struct utsname u;
	int state;

	jw_key(j, "host");
	jw_obj_begin(j);
	if (!uname(&u)) {
		jw_kstr(j, "name", u.nodename);
		jw_kstr(j, "kernel", u.release);
		jw_kstr(j, "kernel_version", u.version);
		jw_kstr(j, "machine", u.machine);
	}
	jw_obj_end(j);

	state = adjtimex(&tx);
	jw_key(j, "clock");
	jw_obj_begin(j);
	jw_kstr(j, "id", "CLOCK_TAI");
	if (state >= 0) {
		/* STA_UNSYNC: nothing disciplines the clock (no NTP/PTP). */
		jw_kbool(j, "synchronised",
			 state != TIME_ERROR && !(tx.status & STA_UNSYNC));
		jw_ku64(j, "tai_offset_s", (uint64_t)tx.tai);
		jw_ku64(j, "maxerror_us", (uint64_t)tx.maxerror);
		jw_ku64(j, "esterror_us", (uint64_t)tx.esterror);
	}
	jw_obj_end(j);
}

char *rec_meta_json(const struct rec_meta *mi, size_t *len)
{
	struct jw j;
	char *buf = NULL;
	FILE *f;
	size_t i;

	f = open_memstream(&buf, len);
	if (!f)
		return NULL;
	jw_init(&j, f);
	jw_obj_begin(&j);
	jw_kstr(&j, "format", "mtg-recording");
	jw_ku64(&j, "version", REC_VERSION);
	jw_kstr(&j, "command", mi->command);
	jw_kstr(&j, "mtgctl", MTGCTL_VERSION);
	jw_key(&j, "abi");
	jw_obj_begin(&j);
	jw_ku64(&j, "major", MTG_ABI_MAJOR);
	jw_ku64(&j, "minor", MTG_ABI_MINOR);
	jw_obj_end(&j);
	if (mi->run_id)
		jw_ku64(&j, "run_id", mi->run_id);
	else
		jw_knull(&j, "run_id");
	jw_ku64(&j, "start_ns", mi->start_ns);
	host_and_clock(&j);
	record_dtype(&j);
	jw_ku64(&j, "ring_records", mi->ring_records);
	jw_kbool(&j, "passthrough", mi->passthrough);
	jw_key(&j, "interfaces");
	jw_arr_begin(&j);
	for (i = 0; i < mi->ndevs; i++) {
		const struct listen_dev *d = &mi->devs[i];

		jw_obj_begin(&j);
		jw_ku64(&j, "id", d->id);
		jw_kstr(&j, "dev", d->l.dev);
		jw_kstr(&j, "netns", d->l.netns[0] ? d->l.netns : NULL);
		jw_ku64(&j, "ifindex", d->ifindex);
		jw_obj_end(&j);
	}
	jw_arr_end(&j);
	jw_key(&j, "idf");
	if (mi->idf) {
		jw_obj_begin(&j);
		jw_kstr(&j, "file", mi->idf->name);
		jw_kstr(&j, "text", mi->idf->text ? mi->idf->text : "");
		jw_key(&j, "includes");
		jw_arr_begin(&j);
		for (i = 0; i < mi->idf->nincludes; i++) {
			jw_obj_begin(&j);
			jw_kstr(&j, "file", mi->idf->includes[i].name);
			jw_kstr(&j, "text", mi->idf->includes[i].text);
			jw_obj_end(&j);
		}
		jw_arr_end(&j);
		jw_obj_end(&j);
	} else {
		jw_null(&j);
	}
	jw_key(&j, "tgs");
	jw_arr_begin(&j);
	for (i = 0; i < mi->ntgs; i++)
		tg_json(&j, mi->tgs[i], mi->tts[i], false);
	jw_arr_end(&j);
	jw_obj_end(&j);
	if (fclose(f)) {
		free(buf);
		return NULL;
	}
	return buf;
}

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

int listening_begin(struct listening *ls, const struct rec_meta *mi)
{
	size_t len;
	char *meta;
	int err;

	if (!ls->recording)
		return 0;
	meta = rec_meta_json(mi, &len);
	if (!meta) {
		pr_err("out of memory\n");
		return -ENOMEM;
	}
	err = rec_begin(&ls->rec, meta, len);
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
	struct timespec ts;
	uint64_t now;
	size_t i;

	if (mtg_dev_status(ls->rx.dev, &st) || st.ifaces_lost == ls->module_lost)
		return;
	ls->module_lost = st.ifaces_lost;
	/* Read now, after the count: later than any record of the device. */
	clock_gettime(CLOCK_TAI, &ts);
	now = (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
	for (i = 0; i < ls->ndevs; i++) {
		struct listen_dev *d = &ls->devs[i];

		if (d->lost || mtg_dev_iface_info(ls->rx.dev, d->id, &info) ||
		    info.state != MTG_IFACE_STATE_LOST)
			continue;
		d->lost = true;
		d->lost_ns = now;
		ls->lost_names[ls->nlost++] = d->name;
		if (ls->rx.events) {
			event_time(&ls->rx, now);
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
	int64_t got = receiver_poll(&ls->rx);

	if (got == -ENOMEM) {
		pr_err("out of memory for the flows' counters\n");
		return got;
	}
	if (got < 0) {
		pr_err("%s: the receive ring's counts make no sense: %s\n",
		       ls->rx.dev->path, strerror((int)-got));
		return got;
	}
	check_lost(ls);
	if (ls->recording && !ls->rec.error && now >= ls->next_flush) {
		rec_flush(&ls->rec);
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

/* The module's counters from the shared copy: each whole, no system call. */
static void shm_rx_stats(const struct mtg_dev *d, struct mtg_rx_stats *st)
{
	const uint64_t *src = (const uint64_t *)((const uint8_t *)d->rx +
						 d->rx_off.stats);
	uint64_t v[sizeof(*st) / sizeof(uint64_t)];
	size_t i;

	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		v[i] = __atomic_load_n(&src[i], __ATOMIC_RELAXED);
	memcpy(st, v, sizeof(*st));
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
	struct mtg_rx_stats st;

	shm_rx_stats(ls->rx.dev, &st);
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

void listening_view(const struct listening *ls, struct dash_view *v)
{
	struct mtg_rx_stats st;
	int64_t fill;

	shm_rx_stats(ls->rx.dev, &st);
	fill = mtg_ring_ready(&ls->rx.dev->data);
	v->listening = true;
	v->ring_fill = fill > 0 ? (uint64_t)fill : 0;
	v->ring_size = ls->rx.dev->data.nr;
	v->ring_drops = st.ring_drops;
	v->ctrl_drops = st.ctrl_drops;
	v->keep_drops = st.keep_drops;
	v->rx_records = ls->rx.records;
	v->hdr_corrupt = ls->rx.hdr_corrupt;
	v->recording = ls->out;
	v->recorded = ls->rec.written + ls->rec.len / sizeof(struct mtg_rx_rec);
	v->recording_bytes = ls->recording || ls->out ? ls->rec.header_bytes +
		v->recorded * sizeof(struct mtg_rx_rec) : 0;
	v->ifaces_lost = ls->lost_names;
	v->nifaces_lost = ls->nlost;
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
			shm_rx_stats(ls->rx.dev, &ls->st);
		receiver_poll(&ls->rx);
		check_lost(ls);
	}
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
		fprintf(out, ", %llu control records lost",
			(unsigned long long)ls->st.ctrl_drops);
	if (ls->rx.payloads || ls->rx.bit_lists || ls->st.keep_drops)
		fprintf(out, "; kept %llu payloads and %llu wrong-bit lists, %llu lost (keep ring full)",
			(unsigned long long)ls->rx.payloads,
			(unsigned long long)ls->rx.bit_lists,
			(unsigned long long)ls->st.keep_drops);
	fprintf(out, "\n");
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
}

bool listening_lost_any(const struct listening *ls)
{
	return ls->st.ring_drops || ls->st.ctrl_drops || ls->st.bad_consumer ||
	       ls->st.keep_drops || ls->nlost;
}

void listening_abandon(struct listening *ls)
{
	if (ls->recording)
		rec_abandon(&ls->rec);
	ls->recording = false;
	ls->out = NULL;
}

void listening_free(struct listening *ls)
{
	meter_set_free(&ls->rx.meters);
	free(ls->lost_names);
	ls->lost_names = NULL;
	ls->nlost = 0;
	free(ls->devs);
	ls->devs = NULL;
	ls->ndevs = 0;
}
