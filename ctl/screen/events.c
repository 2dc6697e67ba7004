// SPDX-License-Identifier: GPL-2.0-or-later
/* The event pane's lines: a FILE that keeps the last DASH_EVENTS (dash.h). */
#include <stdarg.h>
#include <sys/types.h>
#include <errno.h>
#include <string.h>

#include "screen/dash.h"

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
