// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * mtgctl daemon's part run (daemon.h): `mtgctl run FILE --host NAME
 * --run-id R --hold --json-stream --json SUMMARY` in a private directory,
 * its stream made into TSP_JOB_READY and TSP_JOB_PROGRESS, what it says
 * on stderr kept for a refusal, its summary and exit status sent at its
 * end.
 */
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cmd/daemon.h"
#include "util/clock.h"

/* The child ends (SIGTERM, then SIGKILL): its exit status, as a shell's. */
int reap(struct job *j, bool kill_it)
{
	uint64_t by = now_mono_ms() + DAEMON_KILL_MS;
	int status = 0;
	pid_t r;

	if (j->pid <= 0)
		return -1;
	close_fd(&j->in);	/* a held child reads its end: nothing starts */
	if (kill_it)
		kill(j->pid, SIGTERM);
	for (;;) {
		r = waitpid(j->pid, &status, kill_it ? WNOHANG : 0);
		if (r == j->pid || (r < 0 && errno != EINTR))
			break;
		if (r == 0 && now_mono_ms() >= by) {
			kill(j->pid, SIGKILL);
			kill_it = false;	/* now wait for it */
		} else if (r == 0) {
			usleep(10000);
		}
	}
	j->pid = 0;
	if (r < 0)
		return -1;
	if (WIFSIGNALED(status))
		return EXIT_SIGNAL + WTERMSIG(status);
	return WEXITSTATUS(status);
}

void remove_dir(struct job *j)
{
	char p[PATH_MAX];

	if (!j->dir[0])
		return;
	snprintf(p, sizeof(p), "%s/%s", j->dir, j->file);
	unlink(p);
	snprintf(p, sizeof(p), "%s/summary.json", j->dir);
	unlink(p);
	rmdir(j->dir);
	j->dir[0] = '\0';
}

/* The part into a private directory: DIR/FILE. 0, or -1 with why. */
int write_part(struct job *j, char *why, size_t len)
{
	char p[PATH_MAX];
	ssize_t k;
	size_t off = 0;
	int fd;

	snprintf(j->dir, sizeof(j->dir), "/tmp/mtgctl-daemon-XXXXXX");
	if (!mkdtemp(j->dir)) {
		snprintf(why, len, "cannot make a directory for the part: %s",
			 strerror(errno));
		j->dir[0] = '\0';
		return -1;
	}
	snprintf(p, sizeof(p), "%s/%s", j->dir, j->file);
	fd = open(p, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	while (fd >= 0 && off < j->idf_len) {
		k = write(fd, j->idf + off, j->idf_len - off);
		if (k <= 0)
			break;
		off += (size_t)k;
	}
	if (fd < 0 || off < j->idf_len || close(fd)) {
		snprintf(why, len, "cannot write the part in %s: %s", j->dir,
			 strerror(errno));
		return -1;
	}
	return 0;
}

/* `mtgctl run` of the part, held ready: 0, or -1 with why. */
int spawn(struct daemon *d, struct job *j, char *why, size_t len)
{
	char file[PATH_MAX], summary[PATH_MAX], run_id[16];
	int in[2], out[2], err[2];
	const char *argv[20];
	int n = 0;

	snprintf(file, sizeof(file), "%s/%s", j->dir, j->file);
	snprintf(summary, sizeof(summary), "%s/summary.json", j->dir);
	snprintf(run_id, sizeof(run_id), "%u", j->run_id);
	argv[n++] = "mtgctl";
	argv[n++] = "run";
	argv[n++] = file;
	argv[n++] = "--host";
	argv[n++] = j->host;
	argv[n++] = "--run-id";
	argv[n++] = run_id;
	argv[n++] = "--hold";
	argv[n++] = "--json-stream";
	argv[n++] = "--json";
	argv[n++] = summary;
	if (d->o->device) {
		argv[n++] = "--device";
		argv[n++] = d->o->device;
	}
	argv[n] = NULL;
	if (pipe2(in, O_CLOEXEC) || pipe2(out, O_CLOEXEC) ||
	    pipe2(err, O_CLOEXEC)) {
		snprintf(why, len, "cannot make pipes: %s", strerror(errno));
		return -1;
	}
	fflush(NULL);
	j->pid = fork();
	if (j->pid < 0) {
		snprintf(why, len, "cannot fork: %s", strerror(errno));
		j->pid = 0;
		return -1;
	}
	if (!j->pid) {
		/* the run's own signals, none of ours */
		signal(SIGPIPE, SIG_DFL);
		dup2(in[0], STDIN_FILENO);
		dup2(out[1], STDOUT_FILENO);
		dup2(err[1], STDERR_FILENO);
		execv(d->self, (char **)argv);
		dprintf(STDERR_FILENO, "mtgctl daemon: cannot run %s: %s\n",
			d->self, strerror(errno));
		_exit(EXIT_ERROR);
	}
	close(in[0]);
	close(out[1]);
	close(err[1]);
	j->in = in[1];
	j->out = out[0];
	j->err = err[0];
	fcntl(j->out, F_SETFL, O_NONBLOCK);
	fcntl(j->err, F_SETFL, O_NONBLOCK);
	j->state = JOB_PREPARING;
	return 0;
}

/* The end: the summary's pieces, then TSP_JOB_END; 1 (the session ends). */
int send_end(struct client *m, int status, uint8_t flags,
		    const char *text, char *why, size_t len)
{
	struct tsp_msg end = { .type = TSP_JOB_END };
	struct job *j = m->job;
	char p[PATH_MAX];
	uint8_t *buf = NULL;
	size_t n = 0;
	FILE *f;

	snprintf(p, sizeof(p), "%s/summary.json", j->dir);
	f = j->dir[0] ? fopen(p, "re") : NULL;	/* a killed run writes it too */
	if (f) {
		buf = malloc(TSP_JOB_SUMMARY_MAX);
		n = buf ? fread(buf, 1, TSP_JOB_SUMMARY_MAX, f) : 0;
		fclose(f);
	}
	end.u.jend.run_id = j->run_id;
	end.u.jend.status = (uint8_t)(status < 0 ? EXIT_ERROR : status);
	end.u.jend.flags = flags;
	end.u.jend.summary_len = (uint32_t)n;
	tsp_text_set(&end.u.jend.why, text);
	for (size_t off = 0; off < n; off += TSP_JOB_CHUNK) {
		struct tsp_msg piece = { .type = TSP_JOB_DATA };

		piece.u.jdata.kind = TSP_JOB_SUMMARY;
		piece.u.jdata.offset = (uint32_t)off;
		piece.u.jdata.len = (uint16_t)(n - off < TSP_JOB_CHUNK ?
					       n - off : TSP_JOB_CHUNK);
		piece.u.jdata.bytes = buf + off;
		if (tsp_conn_send(&m->c, &piece, TSP_SERVE_SEND_MS, why,
				  len)) {
			free(buf);
			return -1;
		}
	}
	free(buf);
	if (tsp_conn_send(&m->c, &end, TSP_SERVE_SEND_MS, why, len))
		return -1;
	return 1;
}

/* A line of the child's stream: the hold (ready), or progress. */
static int stream_line(struct client *m, const char *line, char *why,
		       size_t len)
{
	struct tsp_job_row rows[TSP_JOB_ROWS];
	struct tsp_msg out = { .type = TSP_JOB_PROGRESS };
	struct job *j = m->job;
	json_t *o, *tgs, *t;
	const char *type;
	size_t i, k = 0;
	int ret = 0;

	o = json_loads(line, 0, NULL);
	type = json_string_value(json_object_get(o, "type"));
	if (!type) {
		json_decref(o);
		return 0;	/* not the stream's: ignored */
	}
	if (!strcmp(type, "hold") && j->state == JOB_PREPARING) {
		out.type = TSP_JOB_READY;
		out.u.ready.run_id = j->run_id;
		j->tgs = (uint32_t)json_integer_value(json_object_get(o, "tgs"));
		out.u.ready.tgs = j->tgs;
		j->state = JOB_READY;
		json_decref(o);
		return tsp_conn_send(&m->c, &out, TSP_SERVE_SEND_MS, why, len);
	}
	tgs = json_object_get(o, "tgs");
	out.u.prog.run_id = j->run_id;
	out.u.prog.elapsed_ns =
		(uint64_t)json_integer_value(json_object_get(o, "elapsed_ns"));
	out.u.prog.rows = rows;
	json_array_foreach(tgs, i, t) {
		const char *st = json_string_value(json_object_get(t, "state"));
		json_t *late = json_object_get(t, "lateness_p99_ns");
		int code = st ? tsp_job_state_code(st) : -1;

		rows[k].tgid = (uint32_t)json_integer_value(json_object_get(t, "id"));
		rows[k].state = (uint8_t)(code < 0 ? TSP_JOB_ERROR : code);
		rows[k].sent = (uint64_t)json_integer_value(json_object_get(t, "sent"));
		rows[k].bytes = (uint64_t)json_integer_value(json_object_get(t, "bytes"));
		rows[k].late_p99_ns = json_is_integer(late) ?
			(uint64_t)json_integer_value(late) : UINT64_MAX;
		if (++k == TSP_JOB_ROWS || i + 1 == json_array_size(tgs)) {
			out.u.prog.count = (uint16_t)k;
			ret = tsp_conn_send(&m->c, &out, TSP_SERVE_SEND_MS, why,
					    len);
			k = 0;
			if (ret)
				break;
		}
	}
	json_decref(o);
	return ret;
}

/* The child's stdout: whole lines to stream_line. 0, 1 at its end, -1. */
int read_stream(struct client *m, char *why, size_t len)
{
	struct job *j = m->job;
	char buf[4096];
	ssize_t k;
	size_t i;

	if (!j->line && !(j->line = malloc(DAEMON_LINE))) {
		snprintf(why, len, "out of memory");
		return -1;
	}
	while ((k = read(j->out, buf, sizeof(buf))) > 0) {
		for (i = 0; i < (size_t)k; i++) {
			if (buf[i] != '\n') {
				if (j->line_len < DAEMON_LINE - 1)
					j->line[j->line_len++] = buf[i];
				else
					j->line_over = true;
				continue;
			}
			j->line[j->line_len] = '\0';
			j->line_len = 0;
			if (j->line_over) {
				j->lines_over++;	/* said at the end */
				j->line_over = false;
				continue;
			}
			if (stream_line(m, j->line, why, len))
				return -1;
		}
	}
	if (k == 0) {
		close_fd(&j->out);
		return 1;
	}
	return 0;
}

/* The child's stderr: said here, its first lines kept. */
void read_said(struct daemon *d, struct client *m)
{
	struct job *j = m->job;
	char buf[1024];
	ssize_t k;
	size_t i;

	while ((k = read(j->err, buf, sizeof(buf))) > 0) {
		for (i = 0; i < (size_t)k; i++) {
			if (buf[i] != '\n' && j->elen < sizeof(j->ebuf) - 1) {
				j->ebuf[j->elen++] = buf[i];
				continue;
			}
			if (buf[i] != '\n')
				continue;
			j->ebuf[j->elen] = '\0';
			say(d, m, "run %u: %s", j->run_id, j->ebuf);
			if (j->said_len + j->elen + 2 < sizeof(j->said)) {
				memcpy(j->said + j->said_len, j->ebuf, j->elen);
				j->said_len += j->elen;
				j->said[j->said_len++] = '\n';
				j->said[j->said_len] = '\0';
			}
			j->elen = 0;
		}
	}
	if (k == 0)
		close_fd(&j->err);
}

/*
 * Why a part was refused, from what its run said: its first error line
 * ("FILE:LINE:COL: error: ..." for the IDF's), "mtgctl: " cut, and how
 * many more lines there were.
 */
void refusal(const struct job *j, int status, char *text, size_t len)
{
	const char *s = j->said, *pick = NULL, *e;
	size_t lines = 0, n;

	for (e = s; *e; e++)
		lines += *e == '\n';
	for (e = s; *e && !pick; e += strcspn(e, "\n") + 1) {
		n = strcspn(e, "\n");
		if (memmem(e, n, ": error: ", 9))
			pick = e;
		if (!e[n])
			break;
	}
	if (!pick)
		pick = s;
	if (!strncmp(pick, "mtgctl: ", 8))
		pick += 8;
	/* the file as the manager named it, not as this host keeps it */
	n = strlen(j->dir);
	if (n && !strncmp(pick, j->dir, n) && pick[n] == '/')
		pick += n + 1;
	n = strcspn(pick, "\n");
	if (!n)
		snprintf(text, len, "its run ended (exit status %d) before it was ready, saying nothing",
			 status);
	else
		snprintf(text, len, "%.*s%s", (int)n, pick,
			 lines > 1 ? " (and more: see the daemon's output)" : "");
}
