/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What mtgctl's commands share: messages, exit codes, option structures. */
#ifndef MTGCTL_H
#define MTGCTL_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define MTGCTL_VERSION	"0.1.0"

/* Exit status (Documentation/mtgctl.rst). */
#define EXIT_OK		0	/* valid; or every TG finished cleanly */
#define EXIT_ERROR	1	/* bad input, or could not run */
#define EXIT_COUNTED	2	/* ran, but errors were counted or a TG failed */
#define EXIT_SIGNAL	128	/* + the signal that interrupted the run */

#define pr_err(fmt, ...)	fprintf(stderr, "mtgctl: " fmt, ##__VA_ARGS__)
#define pr_warn(fmt, ...)	fprintf(stderr, "mtgctl: warning: " fmt, ##__VA_ARGS__)

struct check_opts {
	bool json;		/* JSON on stdout */
};

struct run_opts {
	bool batch;		/* plain progress lines, no dashboard */
	const char *json;	/* summary file, or NULL */
	uint64_t start_delay;	/* ns from now to the run's T0 */
	const char *device;	/* the module's device file */
};

int cmd_check(const char *file, const struct check_opts *o);
int cmd_run(const char *file, const struct run_opts *o);

#endif /* MTGCTL_H */
