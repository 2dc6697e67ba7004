/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Inside `mtgctl daemon`: daemon.c (the managers: connections, the
 * opening, the part's messages, the loop) and daemon_child.c (the part's
 * run: its directory, the child, its stream and what it said, its end).
 */
#ifndef MTGCTL_CMD_DAEMON_H
#define MTGCTL_CMD_DAEMON_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "cmd/cmd.h"
#include "tsp/serve.h"

#define DAEMON_MANAGERS		64	/* connections at once: one served */
#define DAEMON_LINE		(16U << 20)	/* a line of the child's stream */
#define DAEMON_SAID		4096	/* what the child said, kept for a
					 * refusal */
#define DAEMON_KILL_MS		5000	/* SIGTERM, then SIGKILL after */
#define DAEMON_TAKE_MS		30000	/* the IDF's next piece, at most */

enum job_state {
	JOB_NONE,		/* authenticated, no part yet */
	JOB_TAKING,		/* the IDF's pieces coming */
	JOB_PREPARING,		/* the child prepares */
	JOB_READY,		/* held, T0 awaited */
	JOB_RUNNING,		/* started */
};

struct job {
	enum job_state state;
	uint32_t run_id;
	char host[TSP_LOG_NAME_MAX + 1];
	char file[NAME_MAX + 1];	/* the manager's file's name */
	char *idf;
	uint32_t idf_len, got;
	uint64_t take_by;		/* monotonic ms: the next piece's due */
	char dir[64];			/* private: the file, the summary */
	pid_t pid;
	int in, out, err;		/* the child's stdin, stdout, stderr */
	char *line;			/* stdout's line being read */
	size_t line_len;
	bool line_over;			/* it is longer than DAEMON_LINE */
	uint64_t lines_over;		/* such lines: not relayed, counted */
	char said[DAEMON_SAID];		/* stderr, its first lines */
	size_t said_len;
	char ebuf[512];			/* stderr's line being read */
	size_t elen;
	uint32_t tgs;
};

struct client {
	struct tsp_conn c;
	struct tsp_opening op;
	struct job *job;		/* the part it offered; NULL: none */
};

struct daemon {
	const struct daemon_opts *o;
	struct tsp_key key;
	int lfd;
	struct client *m[DAEMON_MANAGERS];
	size_t n;
	struct job *busy;		/* the part being served */
	struct client *owner;		/* its manager */
	uint64_t refused_conns, parts, refused;
	FILE *say;
	char self[PATH_MAX];		/* this binary: what the parts run */
};

/* daemon.c */
void say(struct daemon *d, const struct client *m, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void close_fd(int *fd);

/* daemon_child.c */
/* The child ends (killed: SIGTERM, then SIGKILL): its exit status. */
int reap(struct job *j, bool kill_it);
/* The part's directory and what is in it, removed. */
void remove_dir(struct job *j);
/* The part into a private directory: 0, or -1 with why. */
int write_part(struct job *j, char *why, size_t len);
/* `mtgctl run` of the part, held ready: 0, or -1 with why. */
int spawn(struct daemon *d, struct job *j, char *why, size_t len);
/* The summary's pieces, then TSP_JOB_END: 1 (the session ends), -1. */
int send_end(struct client *m, int status, uint8_t flags, const char *text,
	     char *why, size_t len);
/* The child's stdout into ready and progress: 0, 1 at its end, -1. */
int read_stream(struct client *m, char *why, size_t len);
/* The child's stderr: said, its first lines kept. */
void read_said(struct daemon *d, struct client *m);
/* Why a part was refused, from what its run said. */
void refusal(const struct job *j, int status, char *text, size_t len);

#endif /* MTGCTL_CMD_DAEMON_H */
