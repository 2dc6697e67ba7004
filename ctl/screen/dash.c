// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The dashboard (dash.h): curses drawing, keys, the event pane, the
 * terminal's life cycle, and the JSON line of a view.
 */
#include <curses.h>
#include <errno.h>
#include <fcntl.h>
#include <locale.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rx/meter.h"
#include "screen/dash.h"
#include "util/jw.h"
#include "util/log.h"

#define RATE_FACTOR_MAX	65536.0	/* MTG_IOC_TG_SET_RATE's num and den */
#define STDERR_KEEP	65536	/* bytes of stderr replayed after curses */

/* ---- event lines ------------------------------------------------------ */

static void event_line(struct dash_events *e, const char *s, size_t n)
{
	struct dash_event *ev = &e->ring[e->count % DASH_EVENTS];

	if (n >= sizeof(ev->text))
		n = sizeof(ev->text) - 1;
	memcpy(ev->text, s, n);
	ev->text[n] = '\0';
	ev->seq = e->count++;
}

static ssize_t events_write(void *cookie, const char *buf, size_t size)
{
	struct dash_events *e = cookie;
	size_t i;

	for (i = 0; i < size; i++) {
		if (buf[i] == '\n') {
			event_line(e, e->partial, e->partial_len);
			e->partial_len = 0;
		} else if (e->partial_len < sizeof(e->partial) - 1) {
			e->partial[e->partial_len++] = buf[i];
		}
	}
	return (ssize_t)size;
}

int dash_events_open(struct dash_events *e)
{
	cookie_io_functions_t io = { .write = events_write };

	memset(e, 0, sizeof(*e));
	e->stream = fopencookie(e, "w", io);
	if (!e->stream)
		return -errno;
	setvbuf(e->stream, NULL, _IOLBF, 0);
	return 0;
}

void dash_events_close(struct dash_events *e)
{
	if (e->stream)
		fclose(e->stream);
	e->stream = NULL;
}

void dash_event(struct dash_events *e, const char *fmt, ...)
{
	char buf[DASH_EVENT_LEN];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	event_line(e, buf, strlen(buf));
}

/* ---- the terminal ----------------------------------------------------- */

/* For atexit and fatal signals: one dashboard at a time. */
static struct dash *open_dash;
static SCREEN *screen;
static int saved_stderr = -1, stderr_pipe = -1;
static char *stderr_kept;
static size_t stderr_kept_len;

static void pump_stderr(struct dash_events *ev)
{
	char buf[1024];
	ssize_t n;

	if (stderr_pipe < 0)
		return;
	while ((n = read(stderr_pipe, buf, sizeof(buf))) > 0) {
		size_t k = (size_t)n;

		if (stderr_kept && stderr_kept_len + k <= STDERR_KEEP) {
			memcpy(stderr_kept + stderr_kept_len, buf, k);
			stderr_kept_len += k;
		}
		if (ev && ev->stream) {
			fwrite(buf, 1, k, ev->stream);
			fflush(ev->stream);
		}
	}
}

static void restore_stderr(void)
{
	if (saved_stderr < 0)
		return;
	pump_stderr(NULL);
	dup2(saved_stderr, STDERR_FILENO);
	close(saved_stderr);
	close(stderr_pipe);
	saved_stderr = stderr_pipe = -1;
	/* What was said while curses had the screen, now that it is readable. */
	if (stderr_kept_len && write(STDERR_FILENO, stderr_kept,
				     stderr_kept_len) < 0)
		stderr_kept_len = 0;
	free(stderr_kept);
	stderr_kept = NULL;
	stderr_kept_len = 0;
}

static void capture_stderr(void)
{
	int fds[2];

	if (pipe2(fds, O_CLOEXEC) < 0)
		return;		/* then messages land on the screen */
	fcntl(fds[0], F_SETFL, O_NONBLOCK);
	/* A writer never blocks the run: a full pipe drops the message. */
	fcntl(fds[1], F_SETFL, O_NONBLOCK);
	fflush(stderr);
	saved_stderr = fcntl(STDERR_FILENO, F_DUPFD_CLOEXEC, 3);
	if (saved_stderr < 0 || dup2(fds[1], STDERR_FILENO) < 0) {
		close(fds[0]);
		close(fds[1]);
		if (saved_stderr >= 0)
			close(saved_stderr);
		saved_stderr = -1;
		return;
	}
	close(fds[1]);
	stderr_pipe = fds[0];
	stderr_kept = malloc(STDERR_KEEP);
}

static void on_fatal(int sig)
{
	/* Not async-signal-safe, but the process dies next either way. */
	if (open_dash && open_dash->active)
		endwin();
	if (saved_stderr >= 0)
		dup2(saved_stderr, STDERR_FILENO);
	signal(sig, SIG_DFL);
	raise(sig);
}

static void at_exit(void)
{
	if (open_dash)
		dash_close(open_dash);
}

int dash_open(struct dash *d)
{
	static const int fatal[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT,
				     SIGQUIT };
	static bool registered;
	struct sigaction sa = { .sa_handler = on_fatal };
	size_t i;

	if (open_dash)
		return -EBUSY;
	setlocale(LC_CTYPE, "");	/* line drawing in UTF-8 terminals */
	capture_stderr();
	screen = newterm(NULL, stdout, stdin);
	if (!screen) {
		restore_stderr();
		pr_err("cannot set up the terminal (TERM=%s): use --batch\n",
		       getenv("TERM") ? getenv("TERM") : "");
		return -ENOTTY;
	}
	d->active = true;
	open_dash = d;
	if (!registered) {
		atexit(at_exit);
		registered = true;
	}
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_RESETHAND;
	for (i = 0; i < sizeof(fatal) / sizeof(fatal[0]); i++)
		sigaction(fatal[i], &sa, NULL);
	cbreak();
	noecho();
	nonl();
	keypad(stdscr, TRUE);
	nodelay(stdscr, TRUE);
	curs_set(0);
	if (has_colors()) {
		start_color();
		use_default_colors();
		init_pair(1, COLOR_RED, -1);
		init_pair(2, COLOR_GREEN, -1);
		init_pair(3, COLOR_YELLOW, -1);
	}
	return 0;
}

void dash_close(struct dash *d)
{
	if (d->active) {
		endwin();
		d->active = false;
	}
	if (open_dash == d) {
		delscreen(screen);
		screen = NULL;
		open_dash = NULL;
	}
	restore_stderr();
	free(d->order);
	d->order = NULL;
	d->order_cap = 0;
}

void dash_wait(int timeout_ms)
{
	struct pollfd p = { .fd = STDIN_FILENO, .events = POLLIN };

	poll(&p, 1, timeout_ms);
}

/* ---- numbers ---------------------------------------------------------- */

const char *dash_si(char *buf, size_t size, double v)
{
	static const char units[] = " kMGTP";
	size_t u = 0;

	if (!isfinite(v)) {
		snprintf(buf, size, "-");
		return buf;
	}
	while (fabs(v) >= 999.5 && u < sizeof(units) - 2) {
		v /= 1000.0;
		u++;
	}
	if (u == 0 && v == floor(v))
		snprintf(buf, size, "%.0f", v);
	else
		snprintf(buf, size, v >= 99.95 ? "%.0f%c" : v >= 9.995 ?
			 "%.1f%c" : "%.2f%c", v, units[u]);
	if (u == 0 && v != floor(v))
		buf[strlen(buf) - 1] = '\0';	/* no unit letter */
	return buf;
}

static const char *dash_time(char *buf, size_t size, double ns)
{
	if (ns < 1e3)
		snprintf(buf, size, "%.0fns", ns);
	else if (ns < 1e6)
		snprintf(buf, size, "%.1fus", ns / 1e3);
	else if (ns < 1e9)
		snprintf(buf, size, "%.1fms", ns / 1e6);
	else
		snprintf(buf, size, "%.2fs", ns / 1e9);
	return buf;
}

void dash_view_total(struct dash_view *v)
{
	struct dash_totals *t = &v->totals;
	size_t i;

	memset(t, 0, sizeof(*t));
	for (i = 0; i < v->nrows; i++) {
		const struct dash_row *r = &v->rows[i];

		t->sent += r->sent;
		t->bytes += r->bytes;
		t->received += r->received;
		t->lost += r->lost;
		t->duplicates += r->duplicates;
		t->reordered += r->reordered;
		t->bit_errors += r->bit_errors;
		if (r->has_tx) {
			t->tx_pps += r->pps;
			t->tx_bps += r->bps;
		}
		t->rx_pps += r->rx_pps;
		t->rx_bps += r->rx_bps;
	}
}

void dash_rate(uint64_t now, uint64_t packets, uint64_t bytes,
	       uint64_t mark[3], double *pps, double *bps)
{
	double dt;

	if (!mark[0] || packets < mark[1]) {
		mark[0] = now;
		mark[1] = packets;
		mark[2] = bytes;
		return;
	}
	if (now < mark[0] + DASH_RATE_NS)
		return;
	dt = (double)(now - mark[0]) / 1e9;
	*pps = (double)(packets - mark[1]) / dt;
	*bps = 8.0 * (double)(bytes - mark[2]) / dt;
	mark[0] = now;
	mark[1] = packets;
	mark[2] = bytes;
}

void dash_row_meter(struct dash_row *r, const struct meter *m, uint64_t now,
		    int64_t sent, uint64_t nowb)
{
	uint64_t errors, bits;

	r->has_rx = true;
	dash_rate(now, m->received, m->bytes, r->rx_mark, &r->rx_pps,
		  &r->rx_bps);
	r->received = m->received;
	r->lost = meter_lost(m, sent);
	r->duplicates = m->duplicates;
	r->reordered = m->reordered;
	r->bit_errors = m->bit_errors;
	meter_gaps(m, r->gaps, sizeof(r->gaps));
	r->owd_valid = m->owd_count > 0;
	r->owd_ns = r->owd_valid ? (double)m->owd_sum / (double)m->owd_count : 0;
	r->jitter_ns = m->jitter_ns;
	/* MTG: the BER shown moves once nowb more wrong bits came in. */
	errors = m->bit_errors - r->ber_errors_mark;
	bits = m->bits - r->ber_bits_mark;
	if (!nowb || !r->ber_valid) {
		r->ber_valid = m->bits > 0;
		r->ber = r->ber_valid ? (double)m->bit_errors / (double)m->bits : 0;
	}
	if (nowb && errors >= nowb && bits) {
		r->ber = (double)errors / (double)bits;
		r->ber_errors_mark = m->bit_errors;
		r->ber_bits_mark = m->bits;
	}
}

/* ---- the table's columns ---------------------------------------------- */

struct column {
	const char *head;
	int width;
	int priority;		/* lower stays longer on a narrow screen */
	bool left;		/* left-aligned text */
	void (*fmt)(char *buf, size_t size, const struct dash_row *r);
};

#define FMT(name) static void fmt_##name(char *b, size_t n,		\
					  const struct dash_row *r)

FMT(id) { snprintf(b, n, "%u", r->id); }
FMT(model) { snprintf(b, n, "%s", r->model); }
FMT(dst) { snprintf(b, n, "%s", r->dst); }
FMT(state) { snprintf(b, n, "%s", r->state); }
FMT(req) { r->has_tx ? (void)dash_si(b, n, r->req_pps) : (void)snprintf(b, n, "-"); }
FMT(reqbps) { r->has_tx ? (void)dash_si(b, n, r->req_bps) : (void)snprintf(b, n, "-"); }
FMT(pps) { dash_si(b, n, r->pps); }
FMT(bps) { dash_si(b, n, r->bps); }
FMT(sent) { r->has_tx ? (void)dash_si(b, n, (double)r->sent) : (void)snprintf(b, n, "-"); }
FMT(rcvd) { r->has_rx ? (void)dash_si(b, n, (double)r->received) : (void)snprintf(b, n, "-"); }
FMT(lost) { r->has_rx ? (void)dash_si(b, n, (double)r->lost) : (void)snprintf(b, n, "-"); }
FMT(dup) { r->has_rx ? (void)dash_si(b, n, (double)r->duplicates) : (void)snprintf(b, n, "-"); }
FMT(reord) { r->has_rx ? (void)dash_si(b, n, (double)r->reordered) : (void)snprintf(b, n, "-"); }
FMT(gaps) { snprintf(b, n, "%s", r->has_rx && r->gaps[0] ? r->gaps : "-"); }
FMT(ber)
{
	if (r->ber_valid)
		snprintf(b, n, "%.1e", r->ber);
	else
		snprintf(b, n, "-");
}
FMT(owd) { r->owd_valid ? (void)dash_time(b, n, r->owd_ns) : (void)snprintf(b, n, "-"); }
FMT(jit) { r->owd_valid ? (void)dash_time(b, n, r->jitter_ns) : (void)snprintf(b, n, "-"); }
FMT(late) { r->late_valid ? (void)dash_time(b, n, (double)r->late_p99_ns) : (void)snprintf(b, n, "-"); }

static const struct column columns[] = {
	{ "TG", 6, 0, false, fmt_id },
	{ "model", 11, 14, true, fmt_model },
	{ "destination", 22, 13, true, fmt_dst },
	{ "state", 9, 1, true, fmt_state },
	{ "req/s", 7, 6, false, fmt_req },
	{ "reqb/s", 7, 16, false, fmt_reqbps },
	{ "pkt/s", 7, 2, false, fmt_pps },
	{ "b/s", 7, 8, false, fmt_bps },
	{ "sent", 7, 3, false, fmt_sent },
	{ "rcvd", 7, 4, false, fmt_rcvd },
	{ "lost", 6, 5, false, fmt_lost },
	{ "gaps", 17, 15, true, fmt_gaps },
	{ "dup", 5, 11, false, fmt_dup },
	{ "reord", 6, 12, false, fmt_reord },
	{ "BER", 8, 10, false, fmt_ber },
	{ "owd", 8, 7, false, fmt_owd },
	{ "jitter", 8, 9, false, fmt_jit },
	{ "late99", 8, 7, false, fmt_late },
};

#define NCOLUMNS (sizeof(columns) / sizeof(columns[0]))

/* The columns that fit in width, by priority, shown in their order. */
static size_t pick_columns(int width, const struct column **out)
{
	bool on[NCOLUMNS] = { false };
	int used = 0, p;
	size_t i, n = 0;

	for (p = 0; p <= 16; p++)
		for (i = 0; i < NCOLUMNS; i++)
			if (columns[i].priority == p &&
			    used + columns[i].width + 1 <= width) {
				on[i] = true;
				used += columns[i].width + 1;
			}
	for (i = 0; i < NCOLUMNS; i++)
		if (on[i])
			out[n++] = &columns[i];
	if (!n)
		out[n++] = &columns[0];
	return n;
}

/* ---- sorting ---------------------------------------------------------- */

static const char *const sort_names[DASH_SORTS] = {
	"id", "rate", "lost", "lateness", "state",
};

static const struct dash_view *sort_view;
static enum dash_sort sort_key;
static bool sort_reverse;

static int cmp_u64(uint64_t a, uint64_t b)
{
	return a < b ? -1 : a > b;
}

static int cmp_rows(const void *pa, const void *pb)
{
	const struct dash_row *a = &sort_view->rows[*(const size_t *)pa];
	const struct dash_row *b = &sort_view->rows[*(const size_t *)pb];
	int c = 0;

	switch (sort_key) {
	case DASH_SORT_RATE:
		c = -((a->pps > b->pps) - (a->pps < b->pps));
		break;
	case DASH_SORT_LOST:
		c = -cmp_u64(a->lost, b->lost);
		break;
	case DASH_SORT_LATENESS:
		c = -cmp_u64(a->late_valid ? a->late_p99_ns : 0,
			     b->late_valid ? b->late_p99_ns : 0);
		break;
	case DASH_SORT_STATE:
		c = strcmp(a->state, b->state);
		break;
	default:
		break;
	}
	if (!c)
		c = cmp_u64(((uint64_t)a->run_id << 32) | a->id,
			    ((uint64_t)b->run_id << 32) | b->id);
	return sort_reverse ? -c : c;
}

static int order_rows(struct dash *d, const struct dash_view *v)
{
	size_t i;

	if (v->nrows > d->order_cap) {
		size_t *o = realloc(d->order, v->nrows * sizeof(*o));

		if (!o)
			return -ENOMEM;
		d->order = o;
		d->order_cap = v->nrows;
	}
	for (i = 0; i < v->nrows; i++)
		d->order[i] = i;
	sort_view = v;
	sort_key = d->sort;
	sort_reverse = d->reverse;
	qsort(d->order, v->nrows, sizeof(*d->order), cmp_rows);
	return 0;
}

/* The selected row's position in the order; the first when none. */
static size_t selected_pos(struct dash *d, const struct dash_view *v)
{
	size_t i;

	for (i = 0; d->have_selected && i < v->nrows; i++)
		if (v->rows[d->order[i]].id == d->selected)
			return i;
	if (v->nrows) {
		d->selected = v->rows[d->order[0]].id;
		d->have_selected = true;
	}
	return 0;
}

/* ---- drawing ---------------------------------------------------------- */

static const char help_wide[] =
	"arrows select  s start  u user-TGs  p pause  r resume  k kill  +/- rate  o sort  h help  q quit";
static const char help_short[] =
	"Up/Dn s:start u:user p:pause r:resume k:kill +/-:rate o:sort h:help q:quit";

static const char *const help_long[] = {
	"Up/Down, PgUp/PgDn, Home/End   select a TG",
	"s   start the selected TG now: waiting, it goes; ended, it starts again; suspended, it resumes",
	"u   start every TG that waits for the operator (as SIGUSR1 does)",
	"p   suspend the selected TG      r   resume it",
	"c   type a control message for the selected TG: Enter sends it, Esc cancels",
	"k   kill the selected TG (its counters stay)",
	"+   double its throughput        -   halve it        =   as requested",
	"o   sort by id, rate, lost, lateness, state       O   reverse the order",
	"h   this help / the events       q   quit: kill every TG, finish the recording",
	"replay: n or ] next frame, b or [ previous frame",
};

/* The help pane: its title and every line of help_long. */
#define HELP_LINES	((int)(sizeof(help_long) / sizeof(help_long[0])) + 1)

static int state_color(const char *state)
{
	if (!strcmp(state, "error"))
		return 1;
	if (!strcmp(state, "running"))
		return 2;
	if (!strcmp(state, "suspended") || !strcmp(state, "waiting"))
		return 3;
	return 0;
}

static void put_cell(int y, int x, const struct column *c, const char *s)
{
	int len = (int)strlen(s);

	if (len > c->width)
		len = c->width;
	if (c->left)
		mvaddnstr(y, x, s, len);
	else
		mvaddnstr(y, x + c->width - len, s, len);
}

/* The interfaces listened on that went away, on line y. */
static void draw_lost(const struct dash_view *v, int y)
{
	char line[512];
	size_t i;
	int n;

	n = snprintf(line, sizeof(line), "receive interface%s gone: ",
		     v->nifaces_lost == 1 ? "" : "s");
	for (i = 0; i < v->nifaces_lost && n < (int)sizeof(line); i++)
		n += snprintf(line + n, sizeof(line) - (size_t)n, "%s%s",
			      i ? ", " : "", v->ifaces_lost[i]);
	if (n < (int)sizeof(line))
		snprintf(line + n, sizeof(line) - (size_t)n,
			 ": nothing more is received on %s",
			 v->nifaces_lost == 1 ? "it" : "them");
	attron(COLOR_PAIR(1) | A_BOLD);
	mvaddnstr(y, 0, line, COLS);
	attroff(COLOR_PAIR(1) | A_BOLD);
}

static void draw_header(const struct dash *d, const struct dash_view *v,
			int lines)
{
	const struct dash_totals *t = &v->totals;
	char a[16], b[16], c[16], e[16], g[16], line[512];
	bool red;
	int n;

	/* What changes first, so that a narrow screen keeps it. */
	n = snprintf(line, sizeof(line), "mtg %s  T+%.1fs", v->command,
		     (double)v->elapsed_ns / 1e9);
	if (v->remaining_known)
		n += snprintf(line + n, sizeof(line) - (size_t)n,
			      "  left %.1fs", (double)v->remaining_ns / 1e9);
	n += snprintf(line + n, sizeof(line) - (size_t)n, "  %s  %zu TG%s",
		      v->phase, v->nrows, v->nrows == 1 ? "" : "s");
	if (d->replay)
		n += snprintf(line + n, sizeof(line) - (size_t)n,
			      "  replay %llu/%llu",
			      (unsigned long long)d->frame + 1,
			      (unsigned long long)d->frames);
	if (v->run_id)
		n += snprintf(line + n, sizeof(line) - (size_t)n, "  run %u",
			      v->run_id);
	if (v->file)
		snprintf(line + n, sizeof(line) - (size_t)n, "  %s", v->file);
	attron(A_BOLD);
	mvaddnstr(0, 0, line, COLS);
	attroff(A_BOLD);
	if (lines < 2)
		return;
	n = 0;
	if (strcmp(v->command, "listen"))
		n = snprintf(line, sizeof(line), "sent %s (%s/s %sb/s)  ",
			     dash_si(a, sizeof(a), (double)t->sent),
			     dash_si(b, sizeof(b), t->tx_pps),
			     dash_si(c, sizeof(c), t->tx_bps));
	snprintf(line + n, sizeof(line) - (size_t)n,
		 "rcvd %s (%s/s %sb/s)  lost %s  dup %llu  reord %llu  biterr %llu  late %llu",
		 dash_si(e, sizeof(e), (double)t->received),
		 dash_si(a, sizeof(a), t->rx_pps),
		 dash_si(b, sizeof(b), t->rx_bps),
		 dash_si(g, sizeof(g), (double)t->lost),
		 (unsigned long long)t->duplicates,
		 (unsigned long long)t->reordered,
		 (unsigned long long)t->bit_errors,
		 (unsigned long long)t->late_packets);
	mvaddnstr(1, 0, line, COLS);
	if (lines < 3)
		return;
	if (!v->listening) {
		mvaddnstr(2, 0, "not listening: nothing comes back to measure",
			  COLS);
		return;
	}
	/* Interfaces gone: a line of their own, or the ring line's start. */
	red = v->ring_drops || v->keep_drops ||
	      (v->nifaces_lost && lines < 4);
	n = 0;
	if (v->nifaces_lost && lines < 4)
		n = snprintf(line, sizeof(line), "GONE %s  ",
			     v->ifaces_lost[0]);
	n += snprintf(line + n, sizeof(line) - (size_t)n,
		     "ring %.1f%% of %llu  drops %llu  records %llu  corrupt %llu",
		     v->ring_size ? 100.0 * (double)v->ring_fill /
		     (double)v->ring_size : 0.0,
		     (unsigned long long)v->ring_size,
		     (unsigned long long)v->ring_drops,
		     (unsigned long long)v->rx_records,
		     (unsigned long long)v->hdr_corrupt);
	if (v->keep_drops)
		n += snprintf(line + n, sizeof(line) - (size_t)n,
			      "  keep-lost %llu",
			      (unsigned long long)v->keep_drops);
	if (v->recording)
		snprintf(line + n, sizeof(line) - (size_t)n,
			 "  rec %s %s records %sB", v->recording,
			 dash_si(a, sizeof(a), (double)v->recorded),
			 dash_si(b, sizeof(b), (double)v->recording_bytes));
	if (red)
		attron(COLOR_PAIR(1) | A_BOLD);
	mvaddnstr(2, 0, line, COLS);
	if (red)
		attroff(COLOR_PAIR(1) | A_BOLD);
	if (lines >= 4 && v->nifaces_lost)
		draw_lost(v, 3);
}

static void draw_table(struct dash *d, const struct dash_view *v, int y0,
		       int height)
{
	const struct column *cols[NCOLUMNS];
	size_t ncols = pick_columns(COLS, cols), k, sel;
	char buf[64];
	int x, y, rows;

	if (height <= 0)
		return;
	if (height >= 2) {
		attron(A_REVERSE);
		mvhline(y0, 0, ' ', COLS);
		for (k = 0, x = 0; k < ncols; k++) {
			put_cell(y0, x, cols[k], cols[k]->head);
			x += cols[k]->width + 1;
		}
		attroff(A_REVERSE);
		y0++;
		height--;
	}
	rows = height;
	sel = selected_pos(d, v);
	/* Keep the selection in view. */
	if (sel < d->top)
		d->top = sel;
	if (sel >= d->top + (size_t)rows)
		d->top = sel - (size_t)rows + 1;
	if (d->top + (size_t)rows > v->nrows)
		d->top = v->nrows > (size_t)rows ? v->nrows - (size_t)rows : 0;
	for (y = 0; y < rows && d->top + (size_t)y < v->nrows; y++) {
		size_t pos = d->top + (size_t)y;
		const struct dash_row *r = &v->rows[d->order[pos]];
		bool is_sel = pos == sel;
		int color = state_color(r->state);

		if (is_sel) {
			attron(A_REVERSE);
			mvhline(y0 + y, 0, ' ', COLS);
			mvaddch(y0 + y, 0, '>');	/* for monochrome too */
		}
		for (k = 0, x = 0; k < ncols; k++) {
			bool state = cols[k]->fmt == fmt_state;

			cols[k]->fmt(buf, sizeof(buf), r);
			if (state && color)
				attron(COLOR_PAIR(color));
			put_cell(y0 + y, x, cols[k], buf);
			if (state && color)
				attroff(COLOR_PAIR(color));
			x += cols[k]->width + 1;
		}
		if (is_sel)
			attroff(A_REVERSE);
	}
	if (!v->nrows)
		mvaddnstr(y0, 0, v->listening ? "(no flow received yet)" :
			  "(no TG)", COLS);
}

static void draw_events(const struct dash *d, const struct dash_events *ev,
			int y0, int height)
{
	char title[96];
	uint64_t first, k;
	int y;

	if (height <= 0)
		return;
	if (d->help) {
		mvhline(y0, 0, ACS_HLINE, COLS);
		mvaddnstr(y0, 2, " keys ", COLS - 2);
		for (y = 1; y < height && (size_t)y <= sizeof(help_long) /
			     sizeof(help_long[0]); y++)
			mvaddnstr(y0 + y, 0, help_long[y - 1], COLS);
		return;
	}
	snprintf(title, sizeof(title), " events (%llu) ",
		 (unsigned long long)ev->count);
	mvhline(y0, 0, ACS_HLINE, COLS);
	mvaddnstr(y0, 2, title, COLS - 2);
	height--;
	first = ev->count > (uint64_t)height ? ev->count - (uint64_t)height : 0;
	if (ev->count - first > DASH_EVENTS)
		first = ev->count - DASH_EVENTS;
	for (k = first, y = 1; k < ev->count; k++, y++)
		mvaddnstr(y0 + y, 0, ev->ring[k % DASH_EVENTS].text, COLS);
}

/* The bottom line while a control message is typed: its end, if long. */
static void draw_prompt(const struct dash *d)
{
	char head[64];
	int n, room;
	size_t from = 0;

	n = snprintf(head, sizeof(head), "ctrl to TG %u (Enter sends, Esc cancels): ",
		     d->prompt_tg);
	if (n >= COLS)
		n = snprintf(head, sizeof(head), "TG %u> ", d->prompt_tg);
	room = COLS - n - 1;
	if (room < 1)
		room = 1;
	if (d->prompt_len > (size_t)room)
		from = d->prompt_len - (size_t)room;
	attron(A_REVERSE);
	mvhline(LINES - 1, 0, ' ', COLS);
	mvaddnstr(LINES - 1, 0, head, COLS);
	attroff(A_REVERSE);
	if (n < COLS)
		mvaddnstr(LINES - 1, n, d->prompt_text + from,
			  (int)(d->prompt_len - from));
}

void dash_draw(struct dash *d, const struct dash_view *v,
	       struct dash_events *ev)
{
	int header, events = 0, table;

	d->last = v;
	if (!d->active || order_rows(d, v))
		return;
	erase();	/* not clear(): no flicker, curses sends the changes */
	/* From the top: header, table, events; the help line at the bottom. */
	header = LINES >= 12 ? 3 : LINES >= 6 ? 2 : 1;
	if (v->listening && v->nifaces_lost && LINES >= 13)
		header++;	/* a line for the interfaces gone */
	if (LINES >= 16)
		events = 1 + (LINES - header - 4) / 4 > 9 ? 9 :
			 1 + (LINES - header - 4) / 4;
	if (d->help && LINES >= 8 && events < HELP_LINES)
		events = LINES - header - 4 < HELP_LINES ? LINES - header - 4 :
			 HELP_LINES;
	table = LINES - header - events - (LINES >= 2 ? 1 : 0);
	draw_header(d, v, header);
	draw_table(d, v, header, table);
	draw_events(d, ev, header + table, events);
	if (d->prompt) {
		draw_prompt(d);
	} else if (LINES >= 2) {
		attron(A_REVERSE);
		mvhline(LINES - 1, 0, ' ', COLS);
		mvaddnstr(LINES - 1, 0, COLS >= (int)sizeof(help_wide) - 1 ?
			  help_wide : COLS >= (int)sizeof(help_short) - 1 ?
			  help_short : "h help  q quit", COLS);
		if (COLS >= (int)sizeof(help_wide) + 14) {
			char s[32];

			snprintf(s, sizeof(s), "sort: %s%s",
				 sort_names[d->sort], d->reverse ? " (rev)" : "");
			mvaddnstr(LINES - 1, COLS - (int)strlen(s) - 1, s,
				  (int)strlen(s));
		}
		attroff(A_REVERSE);
	}
	refresh();
}

/* ---- keys ------------------------------------------------------------- */

static const struct dash_row *selected_row(struct dash *d)
{
	const struct dash_view *v = d->last;
	size_t i;

	if (!v || !d->have_selected)
		return NULL;
	for (i = 0; i < v->nrows; i++)
		if (v->rows[i].id == d->selected)
			return &v->rows[i];
	return NULL;
}

static void move_selection(struct dash *d, long delta)
{
	const struct dash_view *v = d->last;
	long pos;

	if (!v || !v->nrows || order_rows(d, v))
		return;
	pos = (long)selected_pos(d, v) + delta;
	if (pos < 0)
		pos = 0;
	if (pos >= (long)v->nrows)
		pos = (long)v->nrows - 1;
	d->selected = v->rows[d->order[pos]].id;
	d->have_selected = true;
}

/* A TG action needs a TG of ours. */
static bool tg_action(struct dash *d, struct dash_events *ev,
		      struct dash_action *a, enum dash_act act)
{
	const struct dash_row *r = selected_row(d);

	if (!r) {
		dash_event(ev, "no TG selected");
		return false;
	}
	if (!r->has_tx) {
		dash_event(ev, "TG %u is not this run's: only its receiving side is shown",
			   r->id);
		return false;
	}
	a->act = act;
	a->tg_id = r->id;
	return true;
}

static bool rate_action(struct dash *d, struct dash_events *ev,
			struct dash_action *a, int ch)
{
	const struct dash_row *r = selected_row(d);
	double f;

	if (!tg_action(d, ev, a, DASH_RATE))
		return false;
	f = r->rate_factor > 0 ? r->rate_factor : 1.0;
	f = ch == '+' ? f * 2 : ch == '-' ? f / 2 : 1.0;
	if (f > RATE_FACTOR_MAX || f < 1.0 / RATE_FACTOR_MAX) {
		dash_event(ev, "TG %u: the throughput stays within x1/65536 .. x65536 of the requested",
			   r->id);
		return false;
	}
	a->factor = f;
	return true;
}

/*
 * A key while a control message is typed: text, Backspace, Enter (the
 * message goes, as a DASH_CTRLMSG action) or Esc (nothing goes).
 */
static void prompt_key(struct dash *d, struct dash_events *ev,
		       struct dash_action *a, int ch)
{
	switch (ch) {
	case '\r':
	case '\n':
	case KEY_ENTER:
		d->prompt = false;
		a->act = DASH_CTRLMSG;
		a->tg_id = d->prompt_tg;
		a->data = (const uint8_t *)d->prompt_text;
		a->len = d->prompt_len;
		return;
	case 27:	/* Esc */
		d->prompt = false;
		dash_event(ev, "TG %u: control message cancelled", d->prompt_tg);
		return;
	case KEY_BACKSPACE:
	case 127:
	case 8:
		/* a whole UTF-8 character */
		while (d->prompt_len &&
		       ((uint8_t)d->prompt_text[--d->prompt_len] & 0xc0) == 0x80)
			;
		return;
	}
	if (ch < 0x20 || ch > 0xff || ch == 0x7f)
		return;		/* function keys, controls */
	if (d->prompt_len == DASH_PROMPT_MAX) {
		dash_event(ev, "a control message holds %d bytes at most",
			   DASH_PROMPT_MAX);
		return;
	}
	d->prompt_text[d->prompt_len++] = (char)ch;
	d->prompt_text[d->prompt_len] = '\0';
}

bool dash_due(struct dash *d, uint64_t now, uint64_t next_draw)
{
	if (now < d->next_keys && now < next_draw)
		return false;
	d->next_keys = now + DASH_KEYS_NS;
	return true;
}

struct dash_action dash_keys(struct dash *d, struct dash_events *ev,
			     bool *redraw)
{
	struct dash_action a = { .act = DASH_NONE };
	int ch, page = LINES > 8 ? LINES - 8 : 1;

	*redraw = false;
	if (!d->active)
		return a;
	pump_stderr(ev);
	while (a.act == DASH_NONE && (ch = getch()) != ERR) {
		*redraw = true;
		if (d->prompt) {
			prompt_key(d, ev, &a, ch);
			continue;
		}
		switch (ch) {
		case KEY_UP:
			move_selection(d, -1);
			break;
		case KEY_DOWN:
			move_selection(d, 1);
			break;
		case KEY_PPAGE:
			move_selection(d, -page);
			break;
		case KEY_NPAGE:
			move_selection(d, page);
			break;
		case KEY_HOME:
			move_selection(d, -(long)(d->last ? d->last->nrows : 0));
			break;
		case KEY_END:
			move_selection(d, (long)(d->last ? d->last->nrows : 0));
			break;
		case KEY_RESIZE:
			break;
		case 'q':
		case 'Q':
			a.act = DASH_QUIT;
			break;
		case 's':
			tg_action(d, ev, &a, DASH_START);
			break;
		case 'u':
			a.act = DASH_START_USER;
			break;
		case 'p':
			tg_action(d, ev, &a, DASH_SUSPEND);
			break;
		case 'r':
			tg_action(d, ev, &a, DASH_RESUME);
			break;
		case 'k':
			tg_action(d, ev, &a, DASH_KILL);
			break;
		case 'c':
			if (tg_action(d, ev, &a, DASH_CTRLMSG)) {
				d->prompt = true;
				d->prompt_tg = a.tg_id;
				d->prompt_len = 0;
				d->prompt_text[0] = '\0';
				a.act = DASH_NONE;	/* on Enter */
			}
			break;
		case '+':
		case '-':
		case '=':
			rate_action(d, ev, &a, ch);
			break;
		case 'o':
			d->sort = (d->sort + 1) % DASH_SORTS;
			break;
		case 'O':
			d->reverse = !d->reverse;
			break;
		case 'h':
		case '?':
			d->help = !d->help;
			break;
		case 'n':
		case ']':
			a.act = d->replay ? DASH_NEXT_FRAME : DASH_NONE;
			break;
		case 'b':
		case '[':
			a.act = d->replay ? DASH_PREV_FRAME : DASH_NONE;
			break;
		default:
			break;
		}
	}
	return a;
}

/* ---- the JSON line ---------------------------------------------------- */

static void kdouble_or_null(struct jw *j, const char *key, bool valid,
			    double v)
{
	if (valid && isfinite(v))
		jw_kdouble(j, key, v);
	else
		jw_knull(j, key);
}

void dash_view_json(FILE *f, const struct dash_view *v, const char *type,
		    const struct dash_events *ev, uint64_t *since)
{
	const struct dash_totals *t = &v->totals;
	struct jw j;
	uint64_t k;
	size_t i;

	jw_init_compact(&j, f);
	jw_obj_begin(&j);
	jw_kstr(&j, "format", DASH_FORMAT);
	jw_ku64(&j, "version", DASH_VERSION);
	jw_kstr(&j, "type", type);
	jw_kstr(&j, "command", v->command);
	jw_kstr(&j, "file", v->file);
	jw_ku64(&j, "run_id", v->run_id);
	jw_ku64(&j, "time_ns", v->time_ns);
	jw_ku64(&j, "elapsed_ns", v->elapsed_ns);
	if (v->remaining_known)
		jw_ku64(&j, "remaining_ns", v->remaining_ns);
	else
		jw_knull(&j, "remaining_ns");
	jw_kstr(&j, "phase", v->phase);
	jw_key(&j, "totals");
	jw_obj_begin(&j);
	jw_ku64(&j, "sent", t->sent);
	jw_ku64(&j, "bytes", t->bytes);
	jw_ku64(&j, "received", t->received);
	jw_ku64(&j, "lost", t->lost);
	jw_ku64(&j, "duplicates", t->duplicates);
	jw_ku64(&j, "reordered", t->reordered);
	jw_ku64(&j, "bit_errors", t->bit_errors);
	jw_ku64(&j, "late_packets", t->late_packets);
	jw_kdouble(&j, "tx_pps", t->tx_pps);
	jw_kdouble(&j, "tx_bps", t->tx_bps);
	jw_kdouble(&j, "rx_pps", t->rx_pps);
	jw_kdouble(&j, "rx_bps", t->rx_bps);
	jw_obj_end(&j);
	jw_key(&j, "rx");
	if (v->listening) {
		jw_obj_begin(&j);
		jw_ku64(&j, "ring_fill", v->ring_fill);
		jw_ku64(&j, "ring_size", v->ring_size);
		jw_ku64(&j, "ring_drops", v->ring_drops);
		jw_ku64(&j, "ctrl_drops", v->ctrl_drops);
		jw_ku64(&j, "keep_drops", v->keep_drops);
		jw_ku64(&j, "records", v->rx_records);
		jw_ku64(&j, "hdr_corrupt", v->hdr_corrupt);
		jw_kstr(&j, "recording", v->recording);
		jw_ku64(&j, "recorded", v->recorded);
		jw_ku64(&j, "recording_bytes", v->recording_bytes);
		jw_key(&j, "ifaces_lost");
		jw_arr_begin(&j);
		for (i = 0; i < v->nifaces_lost; i++)
			jw_str(&j, v->ifaces_lost[i]);
		jw_arr_end(&j);
		jw_obj_end(&j);
	} else {
		jw_null(&j);
	}
	jw_key(&j, "tgs");
	jw_arr_begin(&j);
	for (i = 0; i < v->nrows; i++) {
		const struct dash_row *r = &v->rows[i];

		jw_obj_begin(&j);
		jw_ku64(&j, "id", r->id);
		jw_ku64(&j, "run_id", r->run_id);
		jw_kstr(&j, "model", r->model);
		jw_kstr(&j, "dst", r->dst);
		jw_kstr(&j, "state", r->state);
		jw_kbool(&j, "tx", r->has_tx);
		jw_kbool(&j, "rx", r->has_rx);
		jw_kdouble(&j, "requested_pps", r->req_pps);
		jw_kdouble(&j, "requested_bps", r->req_bps);
		jw_kdouble(&j, "rate_factor", r->rate_factor);
		jw_kdouble(&j, "pps", r->pps);
		jw_kdouble(&j, "bps", r->bps);
		jw_kdouble(&j, "rx_pps", r->rx_pps);
		jw_kdouble(&j, "rx_bps", r->rx_bps);
		jw_ku64(&j, "sent", r->sent);
		jw_ku64(&j, "bytes", r->bytes);
		jw_ku64(&j, "received", r->received);
		jw_ku64(&j, "lost", r->lost);
		jw_kstr(&j, "gaps", r->gaps);
		jw_ku64(&j, "duplicates", r->duplicates);
		jw_ku64(&j, "reordered", r->reordered);
		jw_ku64(&j, "bit_errors", r->bit_errors);
		kdouble_or_null(&j, "ber", r->ber_valid, r->ber);
		kdouble_or_null(&j, "owd_ns", r->owd_valid, r->owd_ns);
		kdouble_or_null(&j, "jitter_ns", r->owd_valid, r->jitter_ns);
		if (r->late_valid)
			jw_ku64(&j, "lateness_p99_ns", r->late_p99_ns);
		else
			jw_knull(&j, "lateness_p99_ns");
		jw_obj_end(&j);
	}
	jw_arr_end(&j);
	jw_key(&j, "events");
	jw_arr_begin(&j);
	k = *since;
	if (ev->count > DASH_EVENTS && k < ev->count - DASH_EVENTS)
		k = ev->count - DASH_EVENTS;	/* the older ones are gone */
	for (; k < ev->count; k++)
		jw_str(&j, ev->ring[k % DASH_EVENTS].text);
	*since = ev->count;
	jw_arr_end(&j);
	jw_obj_end(&j);
	fflush(f);
}
