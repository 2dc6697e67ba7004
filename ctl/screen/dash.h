/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The live view of a run or a listen: one snapshot of every counter
 * (struct dash_view), which the curses dashboard draws, --json-stream
 * prints as one JSON line per interval, and `mtgctl replay` reads back.
 * The drawing and the keys know nothing of the module: a key becomes a
 * struct dash_action that the caller carries out (or, replaying, only
 * reports). Documentation/mtgctl.rst describes the screen and the keys.
 */
#ifndef MTGCTL_DASH_H
#define MTGCTL_DASH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define DASH_FORMAT	"mtgctl-stream"
#define DASH_VERSION	1

#define DASH_EVENTS	256	/* event lines kept for the pane */
#define DASH_EVENT_LEN	160
#define DASH_REDRAW_NS	200000000ULL	/* at most 5 frames a second */
#define DASH_RATE_NS	1000000000ULL	/* rates over the last second */
#define DASH_KEYS_NS	20000000ULL	/* keys looked at 50 times a second */

struct dash_row {
	uint32_t id;
	uint32_t run_id;
	char model[24];
	char dst[56];
	char state[12];		/* waiting, running, suspended, done, killed, error */
	bool has_tx;		/* the sending side is ours (run) */
	bool has_rx;		/* something listens for it */
	double req_pps, req_bps;	/* the timetable's, times the rate factor */
	double pps, bps;	/* achieved: sent (run) or received (listen) */
	double rx_pps, rx_bps;	/* received */
	double rate_factor;	/* throughput changes from the keyboard */
	uint64_t sent, bytes;
	uint64_t received, lost, duplicates, reordered, bit_errors;
	char gaps[48];		/* the latest missing sequence numbers */
	bool ber_valid, owd_valid, late_valid;
	double ber;		/* as of the last nowb update */
	double owd_ns, jitter_ns;
	uint64_t late_p99_ns;
	/* the builder's, kept from one view to the next (not shown) */
	uint64_t tx_mark[3], rx_mark[3];	/* time, packets, bytes */
	uint64_t ber_errors_mark, ber_bits_mark;
};

struct dash_totals {
	uint64_t sent, bytes, received, lost, duplicates, reordered;
	uint64_t bit_errors, late_packets;
	double tx_pps, tx_bps, rx_pps, rx_bps;
};

struct dash_view {
	const char *command;	/* "run", "listen" */
	const char *file;	/* the IDF, or NULL */
	uint32_t run_id;	/* 0: every run */
	uint64_t time_ns;	/* CLOCK_TAI */
	uint64_t elapsed_ns;	/* since T0 (run) or the start (listen) */
	bool remaining_known;
	uint64_t remaining_ns;
	const char *phase;	/* starting, running, draining, ended */
	struct dash_totals totals;
	bool listening;
	uint64_t ring_fill, ring_size, ring_drops, ctrl_drops;
	uint64_t keep_drops;	/* payloads, wrong-bit lists lost (keep) */
	uint64_t rx_records, hdr_corrupt;
	const char *recording;	/* path, or NULL */
	uint64_t recorded;	/* records written or buffered */
	uint64_t recording_bytes;
	const char *const *ifaces_lost;	/* interfaces listened on that went
					 * away (DEV or DEV@NETNS)
					 */
	size_t nifaces_lost;
	struct dash_row *rows;
	size_t nrows;
};

/* Sum the rows into v->totals (late_packets is then the caller's). */
void dash_view_total(struct dash_view *v);

struct meter;
/* Packets and bits per second over the last second from two counts. */
void dash_rate(uint64_t now, uint64_t packets, uint64_t bytes,
	       uint64_t mark[3], double *pps, double *bps);
/*
 * The receiving side from a meter: lost counts against sent if sent >= 0,
 * else the gaps so far; the BER moves after nowb wrong bits (MTG).
 */
void dash_row_meter(struct dash_row *r, const struct meter *m, uint64_t now,
		    int64_t sent, uint64_t nowb);

/* Keys become actions for the caller. */
enum dash_act {
	DASH_NONE,
	DASH_QUIT,
	DASH_START,		/* the selected TG, now (started again if ended) */
	DASH_START_USER,	/* every TG that waits for the operator */
	DASH_KILL,
	DASH_SUSPEND,
	DASH_RESUME,
	DASH_RATE,		/* throughput times factor (of the timetable's) */
	DASH_NEXT_FRAME,	/* replay */
	DASH_PREV_FRAME,
	DASH_CTRLMSG,		/* send a control message from the TG */
};

#define DASH_PROMPT_MAX	1024	/* bytes typed: a control message's */

struct dash_action {
	enum dash_act act;
	uint32_t tg_id;
	double factor;		/* DASH_RATE: the new factor */
	const uint8_t *data;	/* DASH_CTRLMSG: the message */
	size_t len;		/* its bytes */
};

enum dash_sort {
	DASH_SORT_ID,
	DASH_SORT_RATE,
	DASH_SORT_LOST,
	DASH_SORT_LATENESS,
	DASH_SORT_STATE,
	DASH_SORTS,
};

struct dash_event {
	uint64_t seq;		/* counts every event line ever added */
	char text[DASH_EVENT_LEN];
};

/* The event lines: the pane shows the latest, the stream each new one. */
struct dash_events {
	struct dash_event ring[DASH_EVENTS];
	uint64_t count;
	char partial[DASH_EVENT_LEN];	/* a line not yet ended */
	size_t partial_len;
	FILE *stream;		/* writes to it become event lines */
};

int dash_events_open(struct dash_events *e);
void dash_events_close(struct dash_events *e);
void dash_event(struct dash_events *e, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* The screen and what the operator chose on it. */
struct dash {
	bool active;		/* curses is on */
	bool replay;		/* keys are reported, not carried out */
	enum dash_sort sort;
	bool reverse;
	uint32_t selected;	/* TG id; follows the TG when rows move */
	bool have_selected;
	size_t top;		/* first row shown */
	bool help;		/* the whole key list instead of the events */
	uint64_t next_keys;	/* the loop's clock: the next look at the keys */
	const struct dash_view *last;	/* what was drawn last */
	size_t *order;		/* rows in display order */
	size_t order_cap;
	uint64_t frame, frames;	/* replay: showing frame of frames */
	bool prompt;		/* typing a control message ('c') */
	uint32_t prompt_tg;	/* for this TG */
	size_t prompt_len;
	char prompt_text[DASH_PROMPT_MAX + 1];
};

/*
 * Curses on (the terminal is restored at exit, on SIGINT/SIGTERM/SIGHUP
 * through the caller's loop, and on fatal signals); stderr is captured
 * into events while it is on and replayed to the terminal afterwards.
 */
int dash_open(struct dash *d);
void dash_close(struct dash *d);
/* Draw v (the last frame is kept for keys and resize). */
void dash_draw(struct dash *d, const struct dash_view *v,
	       struct dash_events *ev);
/*
 * Whether a loop that comes by up to 50,000 times a second (the receive
 * loop) should read the keys now: DASH_KEYS_NS apart, or a frame is due.
 */
bool dash_due(struct dash *d, uint64_t now, uint64_t next_draw);
/*
 * Move what the program wrote to stderr into the events, read the keys
 * waiting (none: returns at once): DASH_NONE or the first action;
 * *redraw says the screen should be drawn again.
 */
struct dash_action dash_keys(struct dash *d, struct dash_events *ev,
			     bool *redraw);
/* Wait for a key or timeout_ms, whichever comes first. */
void dash_wait(int timeout_ms);

struct listening;
/* The receiving side's part of the live view (rings, recording, interfaces). */
void dash_view_listening(struct dash_view *v, const struct listening *ls);

/* One JSON line (format DASH_FORMAT) of v and the events after *since. */
void dash_view_json(FILE *f, const struct dash_view *v, const char *type,
		    const struct dash_events *ev, uint64_t *since);

/* Human numbers: 1.23k, 45.6M; into buf. */
const char *dash_si(char *buf, size_t size, double v);
/* A time in ns as a human one: 850ns, 12.5us, 1.2ms, 2.00s; into buf. */
const char *dash_time(char *buf, size_t size, double ns);

/* Inside the screen part: what dash.c and keys.c share. */
/* Put v's rows in the dashboard's order (d->order); 0, or -ENOMEM. */
int dash_order_rows(struct dash *d, const struct dash_view *v);
/* The selected row's position in the order; the first when none. */
size_t dash_selected_pos(struct dash *d, const struct dash_view *v);
/* What was written to stderr under curses, into the event pane (ev). */
void dash_pump_stderr(struct dash_events *ev);

#endif /* MTGCTL_DASH_H */
