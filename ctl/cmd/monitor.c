// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * mtgctl monitor: what the module's events group says (sessions opened
 * and ended, interfaces lost, what TGs raised), one line per notification
 * as `ip monitor` prints, or a JSON object per line; until SIGINT or
 * SIGTERM. Notifications the kernel dropped (the socket's buffer overran)
 * are said where they were lost and make the exit status 2.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <string.h>

#include "cmd/cmd.h"
#include "nl/family.h"
#include "nl/format.h"
#include "util/jw.h"

static volatile sig_atomic_t stop_signal;

static void on_signal(int sig)
{
	stop_signal = sig;
}

/* The words of a notification: the spec's operation names, '_' for '-'. */
static const char *ntf_name(uint8_t cmd)
{
	switch (cmd) {
	case MTG_CMD_SESSION_NEW_NTF:
		return "session_new_ntf";
	case MTG_CMD_SESSION_END_NTF:
		return "session_end_ntf";
	case MTG_CMD_IFACE_LOST_NTF:
		return "iface_lost_ntf";
	case MTG_CMD_TG_EVENT_NTF:
		return "tg_event_ntf";
	}
	return "unknown_ntf";
}

static void event_json(const struct mtg_nl_event *e)
{
	struct jw j;

	jw_init_compact(&j, stdout);
	jw_obj_begin(&j);
	jw_kstr(&j, "ntf", ntf_name(e->cmd));
	if (e->session) {
		jw_key(&j, "session");
		jw_obj_begin(&j);
		nl_session_json(&j, e->session,
				e->cmd != MTG_CMD_IFACE_LOST_NTF);
		jw_obj_end(&j);
	} else if (e->tg) {
		jw_key(&j, "tg");
		jw_obj_begin(&j);
		nl_tg_json(&j, e->tg);
		jw_obj_end(&j);
	} else {
		jw_ku64(&j, "cmd", e->cmd);
	}
	jw_obj_end(&j);
}

static void event_text(const struct mtg_nl_event *e)
{
	fprintf(stdout, "%s ", ntf_name(e->cmd));
	if (e->session) {
		nl_session_text(stdout, e->session,
				e->cmd != MTG_CMD_IFACE_LOST_NTF, true);
	} else if (e->tg) {
		fputc('<', stdout);
		mtg_nl_print_tg_events(stdout, e->tg->event, ",");
		fputs("> ", stdout);
		nl_tg_text(stdout, e->tg, "", true);
	} else {
		fprintf(stdout, "cmd %u", e->cmd);
	}
	fputc('\n', stdout);
}

static void event_shown(const struct mtg_nl_event *e, void *arg)
{
	const struct monitor_opts *o = arg;

	if (o->json)
		event_json(e);
	else
		event_text(e);
	fflush(stdout);
}

/* The kernel dropped notifications here: a line says so. */
static void overrun_shown(const struct monitor_opts *o)
{
	if (o->json)
		fputs("{\"ntf\":\"overrun\"}\n", stdout);
	else
		fputs("overrun: notifications were lost here (the socket's receive buffer was full)\n",
		      stdout);
	fflush(stdout);
}

int cmd_monitor(const struct monitor_opts *o)
{
	struct sigaction sa = { .sa_handler = on_signal };
	struct pollfd pfd = { .events = POLLIN };
	sigset_t block, orig;
	struct mtg_nl *nl;
	uint64_t overruns = 0;
	int err, ret;

	err = mtg_nl_open(&nl, true);
	if (err) {
		mtg_nl_perror("monitor", "open", err);
		return EXIT_ERROR;
	}
	/* Signals wait while a notification is shown; ppoll takes them. */
	sigemptyset(&sa.sa_mask);
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigprocmask(SIG_BLOCK, &block, &orig);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	pfd.fd = mtg_nl_fd(nl);
	ret = EXIT_OK;
	while (!stop_signal) {
		if (ppoll(&pfd, 1, NULL, &orig) < 0) {
			if (errno == EINTR)
				continue;
			pr_err("monitor: poll: %s\n", strerror(errno));
			ret = EXIT_ERROR;
			break;
		}
		err = mtg_nl_events(nl, event_shown, (void *)o);
		if (err == MTG_NL_OVERRUN) {
			overruns++;
			overrun_shown(o);
		} else if (err) {
			mtg_nl_perror("monitor", "reading notifications", err);
			ret = EXIT_ERROR;
			break;
		}
	}
	mtg_nl_close(nl);
	sigprocmask(SIG_SETMASK, &orig, NULL);
	if (ret == EXIT_OK && overruns) {
		pr_err("monitor: notifications were lost %llu time%s (the socket's receive buffer was full)\n",
		       (unsigned long long)overruns, overruns == 1 ? "" : "s");
		ret = EXIT_COUNTED;
	}
	return ret;
}
