// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The dashboard (dash.h): the terminal's life cycle and curses drawing.
 * Its keys are in keys.c, the event pane's lines in events.c, a view's
 * numbers and JSON line in view.c.
 */
#include <curses.h>
#include <errno.h>
#include <fcntl.h>
#include <locale.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "screen/dash.h"
#include "util/log.h"
#define STDERR_KEEP	65536	/* bytes of stderr replayed after curses */

/* ---- the terminal ----------------------------------------------------- */

/* For atexit and fatal signals: one dashboard at a time. */
static struct dash *open_dash;
static SCREEN *screen;
static int saved_stderr = -1, stderr_pipe = -1;
static char *stderr_kept;
static size_t stderr_kept_len;

void dash_pump_stderr(struct dash_events *ev)
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
	dash_pump_stderr(NULL);
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

int dash_order_rows(struct dash *d, const struct dash_view *v)
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
size_t dash_selected_pos(struct dash *d, const struct dash_view *v)
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
	sel = dash_selected_pos(d, v);
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
	if (!d->active || dash_order_rows(d, v))
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
