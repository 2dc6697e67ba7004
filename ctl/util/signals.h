/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The signals that stop a daemon or a manager (recv, logd, daemon, manage). */
#ifndef MTGCTL_SIGNALS_H
#define MTGCTL_SIGNALS_H

/*
 * SIGINT, SIGTERM and SIGHUP to handler (without SA_RESTART: a wait they
 * interrupt ends, and the loop looks at what the handler set); SIGPIPE
 * ignored (a peer gone is an error of the write, not the process's end).
 */
void stop_signals(void (*handler)(int));

#endif /* MTGCTL_SIGNALS_H */
