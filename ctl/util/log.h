/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What every part of mtgctl may say: its version, its exit codes, its
 * messages on stderr. Libraries include this, never cmd/cmd.h.
 */
#ifndef MTGCTL_LOG_H
#define MTGCTL_LOG_H

#include <stdio.h>

#define MTGCTL_VERSION	"0.1.0"

/* Exit status (Documentation/mtgctl.rst). */
#define EXIT_OK		0	/* valid; or every TG finished cleanly */
#define EXIT_ERROR	1	/* bad input, or could not run */
#define EXIT_COUNTED	2	/* ran, but errors were counted or a TG failed */
#define EXIT_SIGNAL	128	/* + the signal that interrupted the run */

#define pr_err(fmt, ...)	fprintf(stderr, "mtgctl: " fmt, ##__VA_ARGS__)
#define pr_warn(fmt, ...)	fprintf(stderr, "mtgctl: warning: " fmt, ##__VA_ARGS__)

#endif /* MTGCTL_LOG_H */
