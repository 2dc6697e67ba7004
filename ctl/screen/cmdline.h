/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Commands for a running `mtgctl run`, one a line on standard input
 * (`--commands`, Documentation/mtgctl.rst, "Commands"): what a script
 * asks of the session the process owns, as the dashboard's keys do.
 *
 *	ctrl TG DATA	send a control message (DATA as the IDF's `ctrl`)
 *	start TG, kill TG, suspend TG, resume TG
 *	rate TG FACTOR	throughput FACTOR (N or 1/N, N a power of two)
 *			times the timetable's, as the keys + - =
 *	quit		as the dashboard's q
 *
 * A line becomes the struct dash_action a key makes; reading never waits.
 */
#ifndef MTGCTL_CMDLINE_H
#define MTGCTL_CMDLINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "idf/idf.h"
#include "screen/dash.h"

#define CMD_LINE_MAX	4096	/* bytes of a command line */

struct cmd_input {
	int fd;			/* -1: closed, its end reached */
	unsigned int line;	/* lines read so far */
	char buf[CMD_LINE_MAX + 1];
	size_t len;		/* bytes in buf */
	bool overlong;		/* skipping the rest of a line too long */
	uint8_t data[IDF_CTRL_MAX];	/* the message of the last `ctrl` */
};

void cmd_input_open(struct cmd_input *in, int fd);

/*
 * The next line waiting, without waiting: 1 with the command in *a (its
 * data in in->data), or with a->act DASH_NONE and what is wrong with the
 * line in why ("" for a blank line or a comment); 0 when no whole line is
 * waiting. At the end of the input the descriptor is closed (in->fd -1).
 */
int cmd_input_next(struct cmd_input *in, struct dash_action *a, char *why,
		   size_t why_size);

#endif /* MTGCTL_CMDLINE_H */
