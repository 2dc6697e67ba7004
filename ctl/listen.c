// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * mtgctl listen: a receive-only session, for the host at the far end of
 * the network under test. Listen on the interfaces given, record every
 * MTG packet that arrives (of one run, or of all), meter each flow, until
 * SIGINT, SIGTERM or --duration; then report and write the summary.
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "iface.h"
#include "module.h"
#include "mtgctl.h"
#include "receive.h"
#include "summary.h"

#define PROGRESS_NS	1000000000ULL	/* a progress line a second */

static volatile sig_atomic_t stop_signal;

static void on_signal(int sig)
{
	stop_signal = sig;
}

static uint64_t now_tai(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_TAI, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static void elapsed(uint64_t t0, uint64_t now)
{
	uint64_t dt = now > t0 ? now - t0 : 0;

	printf("%4llu.%01llus ", (unsigned long long)(dt / 1000000000ULL),
	       (unsigned long long)(dt / 100000000ULL % 10));
}

/* A line per flow met, then the receiving side's lines. */
static void report(const struct listening *ls)
{
	const struct meter_set *ms = &ls->rx.meters;
	size_t i;

	for (i = 0; i < ms->n; i++) {
		printf("run %u tg %u: ", ms->all[i]->run_id, ms->all[i]->tg_id);
		meter_print(stdout, ms->all[i], -1);
		printf("\n");
	}
	listening_report(ls, stdout);
}

static int write_summary(const struct listening *ls, const char *path,
			 uint32_t run_id, uint64_t start, uint64_t end)
{
	const struct meter_set *ms = &ls->rx.meters;
	struct summary_tg *tgs = calloc(ms->n ? ms->n : 1, sizeof(*tgs));
	struct summary_rx rx;
	struct summary s = {
		.command = "listen",
		.run_id = run_id,
		.start_ns = start,
		.end_ns = end,
		.interrupted = false,
		.tgs = tgs,
		.ntgs = ms->n,
		.rx = &rx,
	};
	size_t i;
	int err;

	if (!tgs)
		return -ENOMEM;
	listening_summary(ls, &rx);
	for (i = 0; i < ms->n; i++) {
		tgs[i].id = ms->all[i]->tg_id;
		tgs[i].run_id = ms->all[i]->run_id;
		tgs[i].m = ms->all[i];
	}
	err = summary_write(path, &s);
	free(tgs);
	return err;
}

/* Receive until a signal or the end of the duration. */
static int watch(struct listening *ls, uint64_t start, uint64_t duration)
{
	uint64_t next = start + PROGRESS_NS, now;
	int64_t got;

	for (;;) {
		now = now_tai();
		got = listening_poll(ls, now);
		if (got < 0)
			return (int)got;
		if (stop_signal || ls->write_failed ||
		    (duration && now - start >= duration))
			return 0;
		if (now >= next) {
			elapsed(start, now);
			listening_progress(ls, stdout);
			printf("\n");
			fflush(stdout);
			while (next <= now)
				next += PROGRESS_NS;
		}
		listening_wait(ls, got);
	}
}

int cmd_listen(int ndevs, char **devs, const struct listen_opts *o)
{
	struct sigaction sa = { .sa_handler = on_signal };
	struct idf_listen *want = calloc((size_t)ndevs, sizeof(*want));
	struct mtg_dev dev = { .fd = -1 };
	struct netns_cache ns = { 0 };
	struct listening ls = { 0 };
	struct rec_meta mi = {
		.command = "listen",
		.run_id = (uint32_t)o->run_id,
		.ring_records = o->ring,
		.passthrough = o->passthrough,
	};
	uint64_t start, end;
	const char *why;
	int i, ret, rc = EXIT_ERROR;

	if (!want) {
		pr_err("out of memory\n");
		return EXIT_ERROR;
	}
	if (!o->batch && isatty(STDOUT_FILENO)) {
		pr_err("the interactive dashboard is not available yet; use --batch\n");
		goto out;
	}
	for (i = 0; i < ndevs; i++) {
		why = idf_parse_listen(devs[i], &want[i]);
		if (why) {
			pr_err("listen: '%s' is not DEV or DEV@NETNS: expected %s\n",
			       devs[i], why);
			goto out;
		}
	}
	if (listening_resolve(&ls, want, (size_t)ndevs, "", &ns))
		goto out;
	if (o->output && listening_create(&ls, o->output, o->force))
		goto out;
	if (mtg_dev_open(&dev, o->device) ||
	    mtg_dev_alloc(&dev, 0, o->ring))
		goto err_abandon;

	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);

	start = now_tai();
	if (listening_attach(&ls, &dev, (uint32_t)o->run_id, o->passthrough,
			     start))
		goto err_abandon;
	mi.start_ns = start;
	mi.devs = ls.devs;
	mi.ndevs = ls.ndevs;
	ls.rx.any_flow = true;
	if (listening_begin(&ls, &mi))
		goto err_abandon;
	printf("listening on %d interface%s for %s", ndevs, ndevs == 1 ? "" : "s",
	       o->run_id ? "run " : "every run");
	if (o->run_id)
		printf("%llu", (unsigned long long)o->run_id);
	if (o->output)
		printf(", recording %s", o->output);
	printf(", from %llu (CLOCK_TAI)\n", (unsigned long long)start);
	fflush(stdout);

	ret = watch(&ls, start, o->duration);
	end = now_tai();
	if (listening_end(&ls, end))
		ret = -EIO;
	report(&ls);
	rc = ret ? EXIT_ERROR : listening_lost_any(&ls) ? EXIT_COUNTED :
		EXIT_OK;
	if (o->json) {
		ret = write_summary(&ls, o->json, (uint32_t)o->run_id, start,
				    end);
		if (ret) {
			pr_err("cannot write the summary %s: %s\n", o->json,
			       strerror(-ret));
			rc = EXIT_ERROR;
		}
	}
	goto out;

err_abandon:
	listening_abandon(&ls);
out:
	mtg_dev_close(&dev);
	listening_free(&ls);
	netns_cache_close(&ns);
	free(want);
	return rc;
}
