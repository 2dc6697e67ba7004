// SPDX-License-Identifier: GPL-2.0-or-later
/* The signals that stop a daemon or a manager (signals.h). */
#include <signal.h>

#include "util/signals.h"

void stop_signals(void (*handler)(int))
{
	struct sigaction sa = { .sa_handler = handler };

	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
}
