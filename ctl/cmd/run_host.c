// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * run's part in mtgctl manage (Documentation/mtgctl.rst, daemon): a file
 * whose TGs name hosts runs one host's TGs (--host), and a run held
 * ready until its start time comes on standard input (--hold), which is
 * how `mtgctl daemon` starts every host's part at one T0.
 */
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/run.h"

int run_hosts(struct run *r)
{
	const struct run_opts *o = r->o;
	size_t i;

	if (o->hold && o->commands) {
		pr_err("run: --hold takes its start on standard input: not with --commands\n");
		return -EINVAL;
	}
	if (!o->host) {
		for (i = 0; i < r->f.ntgs && !r->f.tgs[i].host[0]; i++)
			;
		if (i == r->f.ntgs)
			return 0;
		pr_err("%s:%u: TG %u runs on host '%s': a file whose TGs name hosts runs with 'mtgctl manage %s', each host's TGs on its 'mtgctl daemon' (or one host's here: 'mtgctl run %s --host NAME')\n",
		       r->file, r->f.tgs[i].loc[IDF_KW_host].line,
		       r->f.tgs[i].id, r->f.tgs[i].host, r->file, r->file);
		return -EINVAL;
	}
	if (idf_keep_host(&r->f, o->host)) {
		pr_err("%s: --host %s: the file declares no host '%s'\n",
		       r->file, o->host, o->host);
		return -EINVAL;
	}
	if (!r->f.ntgs) {
		pr_err("%s: --host %s: no TG runs on host '%s'\n", r->file,
		       o->host, o->host);
		return -EINVAL;
	}
	return 0;
}

/*
 * --hold: everything is ready; say so on stdout (a line of the stream:
 * type "hold") and wait for "start T0" (CLOCK_TAI ns) on stdin. 0 with
 * r->t0, or -1: stdin ended, said something else, a signal came, or T0
 * is not ahead.
 */
int hold_start(struct run *r)
{
	struct pollfd p = { .fd = STDIN_FILENO, .events = POLLIN };
	char line[64];
	size_t n = 0;
	ssize_t k;
	uint64_t t0, now;
	char *end;

	printf("{\"format\":\"%s\",\"version\":%d,\"type\":\"hold\",\"run_id\":%" PRIu32 ",\"tgs\":%zu}\n",
	       DASH_FORMAT, DASH_VERSION, r->run_id, r->ntgs);
	fflush(stdout);
	while (!stop_signal && n < sizeof(line) - 1) {
		if (poll(&p, 1, -1) < 0)
			continue;	/* a signal: looked at above */
		k = read(STDIN_FILENO, line + n, 1);
		if (k <= 0) {
			pr_err("%s: held ready, but the start never came (standard input %s): nothing started\n",
			       r->file, k ? strerror(errno) : "ended");
			return -1;
		}
		if (line[n] == '\n')
			break;
		n++;
	}
	if (stop_signal)
		return -1;
	line[n] = '\0';
	errno = 0;
	t0 = strncmp(line, "start ", 6) ? 0 : strtoull(line + 6, &end, 10);
	if (!t0 || errno || *end) {
		pr_err("%s: held ready, but got '%s', not 'start T0': nothing started\n",
		       r->file, line);
		return -1;
	}
	now = now_tai();
	if (t0 <= now) {
		pr_err("%s: T0 %" PRIu64 " is %" PRIu64 " ms past: nothing started\n",
		       r->file, t0, (now - t0) / 1000000);
		return -1;
	}
	r->t0 = t0;
	return 0;
}
