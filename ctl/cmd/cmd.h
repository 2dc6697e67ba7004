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

#define RX_RING_DEFAULT	65536	/* receive ring records */
#define KEEP_RING_RUN	(16U << 20)	/* keep ring bytes, when a TG keeps */
#define KEEP_RING_LISTEN (4U << 20)	/* keep ring bytes of listen */

struct run_opts {
	bool batch;		/* plain progress lines, no dashboard */
	bool json_stream;	/* a JSON line a second on stdout */
	const char *output;	/* recording file, or NULL (the IDF's `out`) */
	bool force;		/* replace an existing recording */
	const char *json;	/* summary file, or NULL */
	uint64_t start_delay;	/* ns from now to the run's T0 */
	uint64_t drain;		/* ns of receiving after the TGs ended */
	uint64_t ring;		/* receive ring records */
	const char *device;	/* the module's device file */
	bool commands;		/* take commands on standard input */
	uint64_t keep_ring;	/* keep ring bytes, if a TG keeps */
};

struct listen_opts {
	bool batch;
	bool json_stream;
	const char *output;
	bool force;
	const char *json;
	uint64_t run_id;	/* 0: every run */
	uint64_t duration;	/* ns; 0: until a signal */
	bool passthrough;
	uint64_t ring;
	const char *device;
	uint64_t keep_ring;	/* keep ring bytes */
};

struct info_opts {
	bool json;
};

struct replay_opts {
	bool play;		/* advance at the recorded pace */
};

struct table_opts {
	uint64_t tg;		/* 0: every TG */
	uint64_t count;		/* departures; 0: one pass of the table */
	const char *format;	/* "csv" or "bin" */
};

int cmd_check(const char *file, const struct check_opts *o);
int cmd_info(const char *file, const struct info_opts *o);
int cmd_table(const char *file, const struct table_opts *o);
int cmd_run(const char *file, const struct run_opts *o);
int cmd_listen(int ndevs, char **devs, const struct listen_opts *o);
int cmd_replay(const char *file, bool play);

#endif /* MTGCTL_H */
