// SPDX-License-Identifier: GPL-2.0-or-later
/* The dashboard's keys: selection, sorting, TG actions, the prompt (dash.h). */
#include <curses.h>

#include "screen/dash.h"

#define RATE_FACTOR_MAX	65536.0	/* MTG_IOC_TG_SET_RATE's num and den */

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

	if (!v || !v->nrows || dash_order_rows(d, v))
		return;
	pos = (long)dash_selected_pos(d, v) + delta;
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
	dash_pump_stderr(ev);
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
