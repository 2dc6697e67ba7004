// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * mtgctl replay: read the JSON lines `--json-stream` printed back into
 * views and show them in the dashboard, a frame at a time or at the
 * recorded pace. Keys that would act on a TG are reported, not carried
 * out: the same drawing and key handling as a live run, without the
 * module (the host tests drive it from a recorded run).
 */
#include <errno.h>
#include <jansson.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "screen/dash.h"

struct frame {
	struct dash_view v;
	char **events;
	size_t nevents;
	char **lost;		/* v.ifaces_lost */
};

struct feed {
	const char *path;
	struct frame *frames;
	size_t n;
};

static char *dup_str(json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));

	return s ? strdup(s) : NULL;
}

static uint64_t get_u64(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);

	return json_is_integer(v) && json_integer_value(v) > 0 ?
		(uint64_t)json_integer_value(v) : 0;
}

static double get_double(json_t *o, const char *key, bool *valid)
{
	json_t *v = json_object_get(o, key);

	if (valid)
		*valid = json_is_number(v);
	return json_is_number(v) ? json_number_value(v) : 0.0;
}

static void copy_str(char *dst, size_t size, json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));

	snprintf(dst, size, "%s", s ? s : "");
}

static int read_row(json_t *o, struct dash_row *r)
{
	json_t *late = json_object_get(o, "lateness_p99_ns");

	if (!json_is_object(o) || !json_is_integer(json_object_get(o, "id")))
		return -EINVAL;
	r->id = (uint32_t)get_u64(o, "id");
	r->run_id = (uint32_t)get_u64(o, "run_id");
	copy_str(r->model, sizeof(r->model), o, "model");
	copy_str(r->dst, sizeof(r->dst), o, "dst");
	copy_str(r->state, sizeof(r->state), o, "state");
	copy_str(r->gaps, sizeof(r->gaps), o, "gaps");
	r->has_tx = json_is_true(json_object_get(o, "tx"));
	r->has_rx = json_is_true(json_object_get(o, "rx"));
	r->req_pps = get_double(o, "requested_pps", NULL);
	r->req_bps = get_double(o, "requested_bps", NULL);
	r->rate_factor = get_double(o, "rate_factor", NULL);
	r->pps = get_double(o, "pps", NULL);
	r->bps = get_double(o, "bps", NULL);
	r->rx_pps = get_double(o, "rx_pps", NULL);
	r->rx_bps = get_double(o, "rx_bps", NULL);
	r->sent = get_u64(o, "sent");
	r->bytes = get_u64(o, "bytes");
	r->received = get_u64(o, "received");
	r->lost = get_u64(o, "lost");
	r->duplicates = get_u64(o, "duplicates");
	r->reordered = get_u64(o, "reordered");
	r->bit_errors = get_u64(o, "bit_errors");
	r->ber = get_double(o, "ber", &r->ber_valid);
	r->owd_ns = get_double(o, "owd_ns", &r->owd_valid);
	r->jitter_ns = get_double(o, "jitter_ns", NULL);	/* with owd */
	r->late_valid = json_is_integer(late);
	r->late_p99_ns = r->late_valid ? (uint64_t)json_integer_value(late) : 0;
	return 0;
}

/* One line into f; what is wrong with it into why. */
/* The interfaces gone (absent from streams of older mtgctls: none). */
static int read_lost(json_t *a, struct frame *f)
{
	size_t i, n = json_array_size(a);

	if (!n)
		return 0;
	f->lost = calloc(n, sizeof(*f->lost));
	if (!f->lost)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		const char *s = json_string_value(json_array_get(a, i));

		f->lost[i] = strdup(s ? s : "?");
		if (!f->lost[i])
			return -ENOMEM;
		f->v.nifaces_lost = i + 1;
	}
	f->v.ifaces_lost = (const char *const *)f->lost;
	return 0;
}

static int read_frame(json_t *o, struct frame *f, const char **why)
{
	struct dash_view *v = &f->v;
	json_t *t = json_object_get(o, "totals");
	json_t *rx = json_object_get(o, "rx");
	json_t *tgs = json_object_get(o, "tgs");
	json_t *ev = json_object_get(o, "events");
	const char *format = json_string_value(json_object_get(o, "format"));
	size_t i;

	if (!format || strcmp(format, DASH_FORMAT)) {
		*why = "not a line of 'mtgctl run --json-stream' (format is not \"" DASH_FORMAT "\")";
		return -EINVAL;
	}
	if (get_u64(o, "version") != DASH_VERSION) {
		*why = "a version of the stream this mtgctl does not read";
		return -EINVAL;
	}
	if (!json_is_object(t) || !json_is_array(tgs) || !json_is_array(ev)) {
		*why = "'totals', 'tgs' or 'events' missing";
		return -EINVAL;
	}
	v->command = dup_str(o, "command");
	v->file = dup_str(o, "file");
	v->phase = dup_str(o, "phase");
	v->run_id = (uint32_t)get_u64(o, "run_id");
	v->time_ns = get_u64(o, "time_ns");
	v->elapsed_ns = get_u64(o, "elapsed_ns");
	v->remaining_known = json_is_integer(json_object_get(o, "remaining_ns"));
	v->remaining_ns = get_u64(o, "remaining_ns");
	v->totals.sent = get_u64(t, "sent");
	v->totals.bytes = get_u64(t, "bytes");
	v->totals.received = get_u64(t, "received");
	v->totals.lost = get_u64(t, "lost");
	v->totals.duplicates = get_u64(t, "duplicates");
	v->totals.reordered = get_u64(t, "reordered");
	v->totals.bit_errors = get_u64(t, "bit_errors");
	v->totals.late_packets = get_u64(t, "late_packets");
	v->totals.tx_pps = get_double(t, "tx_pps", NULL);
	v->totals.tx_bps = get_double(t, "tx_bps", NULL);
	v->totals.rx_pps = get_double(t, "rx_pps", NULL);
	v->totals.rx_bps = get_double(t, "rx_bps", NULL);
	v->listening = json_is_object(rx);
	if (v->listening) {
		v->ring_fill = get_u64(rx, "ring_fill");
		v->ring_size = get_u64(rx, "ring_size");
		v->ring_drops = get_u64(rx, "ring_drops");
		v->ctrl_drops = get_u64(rx, "ctrl_drops");
		v->keep_drops = get_u64(rx, "keep_drops");
		v->rx_records = get_u64(rx, "records");
		v->hdr_corrupt = get_u64(rx, "hdr_corrupt");
		v->recording = dup_str(rx, "recording");
		v->recorded = get_u64(rx, "recorded");
		v->recording_bytes = get_u64(rx, "recording_bytes");
		if (read_lost(json_object_get(rx, "ifaces_lost"), f)) {
			*why = "out of memory";
			return -ENOMEM;
		}
	}
	v->nrows = json_array_size(tgs);
	v->rows = calloc(v->nrows ? v->nrows : 1, sizeof(*v->rows));
	f->nevents = json_array_size(ev);
	f->events = calloc(f->nevents ? f->nevents : 1, sizeof(char *));
	if (!v->rows || !f->events) {
		*why = "out of memory";
		return -ENOMEM;
	}
	for (i = 0; i < v->nrows; i++)
		if (read_row(json_array_get(tgs, i), &v->rows[i])) {
			*why = "a TG without an 'id'";
			return -EINVAL;
		}
	for (i = 0; i < f->nevents; i++) {
		const char *s = json_string_value(json_array_get(ev, i));

		f->events[i] = strdup(s ? s : "");
	}
	return 0;
}

static void free_feed(struct feed *feed)
{
	size_t i, k;

	for (i = 0; i < feed->n; i++) {
		struct frame *f = &feed->frames[i];

		free((char *)f->v.command);
		free((char *)f->v.file);
		free((char *)f->v.phase);
		free((char *)f->v.recording);
		free(f->v.rows);
		for (k = 0; k < f->nevents; k++)
			free(f->events[k]);
		free(f->events);
		for (k = 0; k < f->v.nifaces_lost; k++)
			free(f->lost[k]);
		free(f->lost);
	}
	free(feed->frames);
}

static int read_feed(struct feed *feed)
{
	FILE *in = fopen(feed->path, "r");
	char *line = NULL;
	size_t cap = 0, lineno = 0;
	ssize_t len;
	int err = 0;

	if (!in) {
		pr_err("cannot read %s: %s\n", feed->path, strerror(errno));
		return -errno;
	}
	while ((len = getline(&line, &cap, in)) >= 0) {
		json_error_t jerr;
		const char *why = NULL;
		struct frame *fr;
		json_t *o;

		lineno++;
		if (len <= 1)
			continue;
		o = json_loads(line, 0, &jerr);
		if (!o) {
			pr_err("%s:%zu:%d: %s\n", feed->path, lineno,
			       jerr.column, jerr.text);
			err = -EINVAL;
			break;
		}
		fr = realloc(feed->frames, (feed->n + 1) * sizeof(*fr));
		if (!fr) {
			json_decref(o);
			err = -ENOMEM;
			pr_err("out of memory\n");
			break;
		}
		feed->frames = fr;
		memset(&fr[feed->n], 0, sizeof(*fr));
		err = read_frame(o, &fr[feed->n++], &why);
		json_decref(o);
		if (err) {
			pr_err("%s:%zu: %s\n", feed->path, lineno, why);
			break;
		}
	}
	free(line);
	fclose(in);
	if (!err && !feed->n) {
		pr_err("%s: no line of 'mtgctl run --json-stream' in it\n",
		       feed->path);
		err = -EINVAL;
	}
	return err;
}

/* The pane holds what had happened by frame k. */
static void events_until(const struct feed *feed, struct dash_events *ev,
			 size_t k)
{
	size_t i, e;

	ev->count = 0;
	for (i = 0; i <= k; i++)
		for (e = 0; e < feed->frames[i].nevents; e++)
			dash_event(ev, "%s", feed->frames[i].events[e]);
}

static const char *act_name(enum dash_act act)
{
	switch (act) {
	case DASH_START:
		return "start";
	case DASH_KILL:
		return "kill";
	case DASH_SUSPEND:
		return "suspend";
	case DASH_RESUME:
		return "resume";
	case DASH_CTRLMSG:
		return "send a control message from";
	default:
		return "?";
	}
}

static volatile sig_atomic_t stop_signal;

static void on_signal(int sig)
{
	stop_signal = sig;
}

static uint64_t now_mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

int cmd_replay(const char *file, bool play)
{
	struct feed feed = { .path = file };
	struct dash d = { .replay = true };
	struct sigaction sa = { .sa_handler = on_signal };
	struct dash_events ev;
	uint64_t shown_at;
	size_t k = 0;
	bool redraw = true, quit = false;

	if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) {
		pr_err("replay shows the dashboard: it needs a terminal (read %s with jq instead)\n",
		       file);
		return EXIT_ERROR;
	}
	if (read_feed(&feed)) {
		free_feed(&feed);
		return EXIT_ERROR;
	}
	if (dash_events_open(&ev) || dash_open(&d)) {
		dash_events_close(&ev);
		free_feed(&feed);
		return EXIT_ERROR;
	}
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	d.frames = feed.n;
	events_until(&feed, &ev, 0);
	dash_draw(&d, &feed.frames[0].v, &ev);
	shown_at = now_mono();
	while (!quit && !stop_signal) {
		struct dash_action a = dash_keys(&d, &ev, &redraw);
		bool moved = false;

		switch (a.act) {
		case DASH_QUIT:
			quit = true;
			continue;
		case DASH_NEXT_FRAME:
			moved = k + 1 < feed.n;
			k += moved;
			break;
		case DASH_PREV_FRAME:
			moved = k > 0;
			k -= moved;
			break;
		case DASH_START_USER:
			dash_event(&ev, "replay: would start every TG waiting for the operator");
			break;
		case DASH_RATE:
			dash_event(&ev, "replay: would set TG %u's throughput to x%g of the requested",
				   a.tg_id, a.factor);
			break;
		case DASH_NONE:
			break;
		default:
			dash_event(&ev, "replay: would %s TG %u",
				   act_name(a.act), a.tg_id);
			break;
		}
		if (play && k + 1 < feed.n &&
		    now_mono() - shown_at >= feed.frames[k + 1].v.time_ns -
		    feed.frames[k].v.time_ns) {
			k++;
			moved = true;
		}
		if (moved) {
			events_until(&feed, &ev, k);
			shown_at = now_mono();
		}
		if (redraw || moved || a.act != DASH_NONE) {
			d.frame = k;
			dash_draw(&d, &feed.frames[k].v, &ev);
		}
		dash_wait(100);
	}
	dash_close(&d);
	dash_events_close(&ev);
	free_feed(&feed);
	return stop_signal ? EXIT_SIGNAL + stop_signal : EXIT_OK;
}
