// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * mtgctl daemon: a sending host's daemon (ITGSend's daemon mode, driven
 * by ITGManager; here by mtgctl manage; Documentation/tsp.rst "The
 * manager and its daemons"). A manager connects over TSP, proves it
 * holds the key and offers a part: the experiment's file, the host whose
 * TGs this daemon runs, the run id. The part runs as `mtgctl run FILE
 * --host NAME --run-id R --hold --json-stream --json SUMMARY`, a child
 * (this very binary, /proc/self/exe as it was at the start) in a private
 * directory: it says
 * when it is ready (its "hold" line), starts at the T0 the manager sends
 * on its standard input, and its stream becomes the manager's progress;
 * its summary goes back at the end. A child that ends before it is
 * ready is the part refused, with what it said (the file's line:col).
 *
 * Why a child, not the run in this process: run is the one piece of code
 * that sends (tables, module, remote receivers, recording, summary), with
 * its own signals and exit status; a child gets all of it as it is, and
 * a manager that vanishes is a SIGTERM away from every TG stopped, while
 * the daemon, untouched by the run's state, goes on serving.
 *
 * One part at a time: a second manager is refused while one is served.
 * One thread: poll() over the socket, the connections and the child.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <jansson.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "tsp/serve.h"
#include "util/clock.h"

#define DAEMON_MANAGERS		64	/* connections at once: one served */
#define DAEMON_LINE		(1U << 20)	/* a line of the child's stream */
#define DAEMON_SAID		4096	/* what the child said, kept for a
					 * refusal */
#define DAEMON_KILL_MS		5000	/* SIGTERM, then SIGKILL after */

static volatile sig_atomic_t stop_signal;

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
	char dir[64];			/* private: the file, the summary */
	pid_t pid;
	int in, out, err;		/* the child's stdin, stdout, stderr */
	char *line;			/* stdout's line being read */
	size_t line_len;
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

static void on_signal(int sig)
{
	stop_signal = sig;
}

static void say(struct daemon *d, const struct client *m, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void say(struct daemon *d, const struct client *m, const char *fmt, ...)
{
	va_list ap;

	if (m)
		fprintf(d->say, "%s: ", m->c.peer);
	va_start(ap, fmt);
	vfprintf(d->say, fmt, ap);
	va_end(ap);
	fputc('\n', d->say);
	fflush(d->say);
}

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

/* The child ends (SIGTERM, then SIGKILL): its exit status, as a shell's. */
static int reap(struct job *j, bool kill_it)
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

static void remove_dir(struct job *j)
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

static void free_job(struct daemon *d, struct client *m, bool kill_it)
{
	struct job *j = m->job;

	if (!j)
		return;
	reap(j, kill_it);
	close_fd(&j->in);
	close_fd(&j->out);
	close_fd(&j->err);
	remove_dir(j);
	free(j->idf);
	free(j->line);
	free(j);
	m->job = NULL;
	if (d->busy == j) {
		d->busy = NULL;
		d->owner = NULL;
	}
}

static void drop_mgr(struct daemon *d, size_t idx, const char *why)
{
	struct client *m = d->m[idx];

	if (m->job && m->job->pid > 0)
		say(d, m, "run %u: %s: its TGs stopped", m->job->run_id,
		    why ? why : "the manager left");
	else if (why && m->job)
		say(d, m, "run %u: %s", m->job->run_id, why);
	else if (why)
		say(d, m, "%s", why);
	free_job(d, m, true);
	tsp_opening_wipe(&m->op);
	tsp_conn_close(&m->c);
	free(m);
	d->m[idx] = d->m[--d->n];
}

/* Only the --allow addresses: "192.0.2.1:4000" is 192.0.2.1's. */
static bool allowed(const struct daemon *d, const char *peer)
{
	const char *a = d->o->allow;
	size_t hl;
	char host[TSP_PEER_NAME];

	if (!a)
		return true;
	snprintf(host, sizeof(host), "%s", peer[0] == '[' ? peer + 1 : peer);
	hl = strcspn(host, peer[0] == '[' ? "]" : ":");
	host[hl] = '\0';
	while (*a) {
		size_t n = strcspn(a, ",");

		if (n == hl && !strncmp(a, host, n))
			return true;
		a += n + (a[n] == ',');
	}
	return false;
}

static void take_connections(struct daemon *d)
{
	char name[TSP_PEER_NAME];
	struct client *m;
	int fd;

	while ((fd = tsp_serve_accept(d->lfd, d->n, DAEMON_MANAGERS,
				      &d->refused_conns, d->say, name,
				      sizeof(name))) >= 0) {
		if (!allowed(d, name)) {
			say(d, NULL, "%s: refused: not an --allow address",
			    name);
			close(fd);
			continue;
		}
		m = calloc(1, sizeof(*m));
		if (!m) {
			close(fd);
			continue;
		}
		tsp_conn_init(&m->c, fd, TSP_FROM_RECEIVER, name);
		tsp_opening_init(&m->op);
		d->m[d->n++] = m;
	}
}

/* The file's name from the manager: its last component, else "part.idf". */
static void file_name(struct job *j, const char *given)
{
	const char *s = strrchr(given, '/');

	s = s ? s + 1 : given;
	if (!*s || !strcmp(s, ".") || !strcmp(s, "..") ||
	    strlen(s) > NAME_MAX || !strcmp(s, "summary.json"))
		s = "part.idf";
	snprintf(j->file, sizeof(j->file), "%s", s);
}

static int take_offer(struct daemon *d, struct client *m,
		      const struct tsp_msg *msg, char *why, size_t len)
{
	const struct tsp_job_offer *o = &msg->u.offer;
	char text[200];
	struct job *j;

	if (d->busy) {
		snprintf(text, sizeof(text), "busy: this daemon serves run %u of the manager %s (one part at a time)",
			 d->busy->run_id, d->owner->c.peer);
		d->refused++;
		return tsp_refuse(&m->c, TSP_ERR_REFUSED, TSP_JOB_OFFER, text,
				  why, len);
	}
	j = calloc(1, sizeof(*j));
	if (j)
		j->idf = malloc(o->idf_len + 1);
	if (!j || !j->idf) {
		free(j);
		return tsp_refuse(&m->c, TSP_ERR_INTERNAL, TSP_JOB_OFFER,
				  "out of memory", why, len);
	}
	j->state = JOB_TAKING;
	j->run_id = o->run_id;
	j->idf_len = o->idf_len;
	j->in = j->out = j->err = -1;
	memcpy(j->host, o->host, sizeof(j->host));
	file_name(j, o->file.s);
	m->job = j;
	d->busy = j;
	d->owner = m;
	say(d, m, "run %u: host %s's part of %s offered (%u bytes)",
	    j->run_id, j->host, o->file.s, j->idf_len);
	return 0;
}

/* The part into a private directory: DIR/FILE. 0, or -1 with why. */
static int write_part(struct job *j, char *why, size_t len)
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
static int spawn(struct daemon *d, struct job *j, char *why, size_t len)
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

static int take_data(struct daemon *d, struct client *m,
		     const struct tsp_msg *msg, char *why, size_t len)
{
	const struct tsp_job_data *p = &msg->u.jdata;
	struct job *j = m->job;
	char text[200];

	if (p->offset != j->got || p->len > j->idf_len - j->got) {
		snprintf(text, sizeof(text), "the IDF's bytes %u..%u where %u..%u were due",
			 p->offset, p->offset + p->len, j->got, j->idf_len);
		return tsp_refuse(&m->c, TSP_ERR_UNEXPECTED, TSP_JOB_DATA,
				  text, why, len);
	}
	memcpy(j->idf + j->got, p->bytes, p->len);
	j->got += p->len;
	if (j->got < j->idf_len)
		return 0;
	j->idf[j->idf_len] = '\0';
	if (write_part(j, text, sizeof(text)) ||
	    spawn(d, j, text, sizeof(text)))
		return tsp_refuse(&m->c, TSP_ERR_INTERNAL, TSP_JOB_OFFER, text,
				  why, len);
	d->parts++;
	say(d, m, "run %u: preparing host %s's part (mtgctl run %s/%s, pid %d)",
	    j->run_id, j->host, j->dir, j->file, (int)j->pid);
	return 0;
}

static int take_start(struct client *m, const struct tsp_msg *msg, char *why,
		      size_t len)
{
	struct job *j = m->job;
	char line[48];
	int n;

	if (msg->u.jstart.run_id != j->run_id)
		return tsp_refuse(&m->c, TSP_ERR_UNEXPECTED, TSP_JOB_START,
				  "the start of another run", why, len);
	n = snprintf(line, sizeof(line), "start %" PRIu64 "\n",
		     msg->u.jstart.start_ns);
	if (write(j->in, line, (size_t)n) != n)
		return tsp_refuse(&m->c, TSP_ERR_INTERNAL, TSP_JOB_START,
				  "the run did not take its start", why, len);
	close_fd(&j->in);
	j->state = JOB_RUNNING;
	return 0;
}

/* The end: the summary's pieces, then TSP_JOB_END; 1 (the session ends). */
static int send_end(struct client *m, int status, uint8_t flags,
		    const char *text, char *why, size_t len)
{
	struct tsp_msg end = { .type = TSP_JOB_END };
	struct job *j = m->job;
	char p[PATH_MAX];
	uint8_t *buf = NULL;
	size_t n = 0;
	FILE *f;

	snprintf(p, sizeof(p), "%s/summary.json", j->dir);
	f = j->dir[0] && !flags ? fopen(p, "re") : NULL;
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

static int take_drop(struct daemon *d, struct client *m,
		     const struct tsp_msg *msg, char *why, size_t len)
{
	struct job *j = m->job;
	char text[TSP_MAX_TEXT + 64];
	int status;

	snprintf(text, sizeof(text), "dropped by the manager%s%s",
		 msg->u.drop.why.s[0] ? ": " : "", msg->u.drop.why.s);
	say(d, m, "run %u: %s", j->run_id, text);
	if (j->pid <= 0)
		return 1;	/* nothing to answer: the part never started */
	status = reap(j, true);
	return send_end(m, status, TSP_JOB_KILLED, text, why, len);
}

static int on_message(struct daemon *d, struct client *m, const struct tsp_msg *msg,
		      char *why, size_t len)
{
	struct job *j = m->job;

	if (m->op.state != TSP_OPEN_DONE)
		return tsp_opening_step(&m->c, &m->op, &d->key, msg, why, len);
	if (!j) {
		if (msg->type == TSP_JOB_OFFER)
			return take_offer(d, m, msg, why, len);
		return tsp_refuse(&m->c, TSP_ERR_UNEXPECTED, msg->type,
				  "TSP_JOB_OFFER is due", why, len);
	}
	if (msg->type == TSP_JOB_DROP && msg->u.drop.run_id == j->run_id)
		return take_drop(d, m, msg, why, len);
	if (j->state == JOB_TAKING && msg->type == TSP_JOB_DATA)
		return take_data(d, m, msg, why, len);
	if (j->state == JOB_READY && msg->type == TSP_JOB_START)
		return take_start(m, msg, why, len);
	return tsp_refuse(&m->c, TSP_ERR_UNEXPECTED, msg->type,
			  j->state == JOB_TAKING ? "the IDF's TSP_JOB_DATA is due" :
			  j->state == JOB_READY ? "TSP_JOB_START or TSP_JOB_DROP is due" :
			  "only TSP_JOB_DROP is taken while the part prepares or runs",
			  why, len);
}

static int on_msg(void *d, void *m, const struct tsp_msg *msg, char *why,
		  size_t len)
{
	return on_message(d, m, msg, why, len);
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
static int read_stream(struct client *m, char *why, size_t len)
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
				continue;
			}
			j->line[j->line_len] = '\0';
			j->line_len = 0;
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
static void read_said(struct daemon *d, struct client *m)
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
static void refusal(const struct job *j, int status, char *text, size_t len)
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

/* The child's pipes: read; at its end, the manager told. 0, or -1/1. */
static int child_turn(struct daemon *d, struct client *m, char *why, size_t len)
{
	struct job *j = m->job;
	char text[TSP_MAX_TEXT + 1];
	int r = 0, status;

	if (j->err >= 0)
		read_said(d, m);
	if (j->out >= 0) {
		r = read_stream(m, why, len);
		if (r < 0)
			return -1;
	}
	if (j->out >= 0 || j->err >= 0)
		return 0;
	status = reap(j, false);
	if (j->state == JOB_PREPARING || j->state == JOB_READY) {
		refusal(j, status, text, sizeof(text));
		d->refused++;
		return tsp_refuse(&m->c, TSP_ERR_REFUSED, TSP_JOB_OFFER, text,
				  why, len);
	}
	say(d, m, "run %u: ended, exit status %d", j->run_id, status);
	return send_end(m, status, 0, status ? "the run counted errors or failed (its summary says which)" : "",
			why, len);
}

static int configure(struct daemon *d)
{
	const struct daemon_opts *o = d->o;
	char why[PATH_MAX * 2 + 200];
	ssize_t n;

	if (!o->key) {
		pr_err("daemon: --key FILE is needed: the key managers must prove they hold (Documentation/tsp.rst, Key files)\n");
		return -1;
	}
	if (tsp_key_load(o->key, &d->key, why, sizeof(why))) {
		pr_err("daemon: %s\n", why);
		return -1;
	}
	/* read once: the binary may be replaced while the daemon runs (and
	 * under valgrind, /proc/self/exe is valgrind's, this path ours) */
	n = readlink("/proc/self/exe", d->self, sizeof(d->self) - 1);
	if (n <= 0) {
		pr_err("daemon: cannot read /proc/self/exe: %s\n",
		       strerror(errno));
		return -1;
	}
	d->self[n] = '\0';
	d->lfd = tsp_serve_socket(o->bind, (uint16_t)o->port, SOCK_STREAM,
				  why, sizeof(why));
	if (d->lfd < 0) {
		pr_err("daemon: %s\n", why);
		return -1;
	}
	return 0;
}

/* Each manager's turn: its messages, its opening's time, its child. */
static void serve(struct daemon *d, struct pollfd *pfd, size_t npolled)
{
	char why[TSP_MAX_TEXT + 200];
	size_t i;
	int r;

	for (i = d->n; i-- > 0;) {
		struct client *m = d->m[i];
		struct pollfd *p = &pfd[1 + 3 * i];

		why[0] = '\0';
		if (i < npolled && p->fd == m->c.fd && p->revents &&
		    tsp_serve_read(&m->c, on_msg, d, m, why, sizeof(why))) {
			drop_mgr(d, i, why[0] ? why : NULL);
			continue;
		}
		if (tsp_opening_expired(&m->c, &m->op, now_mono_ms(), why,
					sizeof(why))) {
			drop_mgr(d, i, why);
			continue;
		}
		if (!m->job || m->job->pid <= 0)
			continue;
		r = child_turn(d, m, why, sizeof(why));
		if (r)
			drop_mgr(d, i, r < 0 ? why : NULL);
	}
}

static void loop(struct daemon *d)
{
	uint64_t end = d->o->duration ? now_tai() + d->o->duration : 0;
	struct pollfd pfd[1 + 3 * DAEMON_MANAGERS];
	size_t i, npolled;

	while (!stop_signal && (!end || now_tai() < end)) {
		pfd[0] = (struct pollfd){ .fd = d->lfd, .events = POLLIN };
		for (i = 0; i < d->n; i++) {
			struct job *j = d->m[i]->job;

			pfd[1 + 3 * i] = (struct pollfd){
				.fd = d->m[i]->c.fd, .events = POLLIN };
			pfd[2 + 3 * i] = (struct pollfd){
				.fd = j ? j->out : -1, .events = POLLIN };
			pfd[3 + 3 * i] = (struct pollfd){
				.fd = j ? j->err : -1, .events = POLLIN };
		}
		npolled = d->n;
		poll(pfd, 1 + 3 * npolled, 100);
		if (pfd[0].revents & POLLIN)
			take_connections(d);
		serve(d, pfd, npolled);
	}
}

int cmd_daemon(const struct daemon_opts *given)
{
	struct sigaction sa = { .sa_handler = on_signal };
	struct daemon_opts opts = *given, *o = &opts;
	struct daemon d = { .o = o, .lfd = -1, .say = stdout };
	int rc = EXIT_ERROR;

	if (!o->port)
		o->port = DAEMON_PORT_DEFAULT;
	if (configure(&d))
		goto out;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	say(&d, NULL, "daemon on TCP port %llu%s%s, key %s%s%s: waiting for a manager",
	    (unsigned long long)o->port, o->bind ? " of " : "",
	    o->bind ? o->bind : "", o->key, o->allow ? ", managers from " : "",
	    o->allow ? o->allow : "");
	loop(&d);
	while (d.n)
		drop_mgr(&d, d.n - 1, "the daemon stops");
	say(&d, NULL, "stopped%s%s: %llu parts run, %llu refused, %llu connections refused",
	    stop_signal ? " by signal " : "",
	    stop_signal ? strsignal(stop_signal) : "",
	    (unsigned long long)d.parts, (unsigned long long)d.refused,
	    (unsigned long long)d.refused_conns);
	rc = EXIT_OK;
out:
	if (d.lfd >= 0)
		close(d.lfd);
	tsp_key_wipe(&d.key);
	return rc;
}
