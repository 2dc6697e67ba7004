/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Inside `mtgctl manage`: manage.c (the file, the hosts' run from one
 * T0, progress lines and stream, the merged summary) and manage_view.c
 * (the dashboard, on a terminal).
 */
#ifndef MTGCTL_CMD_MANAGE_H
#define MTGCTL_CMD_MANAGE_H

#include <stdbool.h>
#include <stdint.h>

#include "cmd/cmd.h"
#include "idf/idf.h"
#include "remote/manager.h"
#include "screen/dash.h"

/* The dashboard of a managed run. */
struct mview {
	bool on;		/* curses is on */
	struct dash dash;
	struct dash_events ev;	/* the event pane (stderr goes there) */
	struct dash_view view;	/* a row per TG, in the hosts' order */
	uint64_t next_draw;	/* CLOCK_TAI: the next frame, at the latest */
};

/* The rows of m's TGs (f's), curses on: 0, or -errno (it said why). */
int mview_open(struct mview *v, const struct mgr *m, const struct idf_file *f,
	       const char *file);
/* Keys, then a frame at a bounded rate: true when q was pressed. */
bool mview_turn(struct mview *v, const struct mgr *m, uint64_t t0,
		const char *phase);
void mview_close(struct mview *v);

#endif /* MTGCTL_CMD_MANAGE_H */
