// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * mtgctl daemon: a sending host's daemon (ITGSend's daemon mode, driven
 * by ITGManager; here by mtgctl manage; Documentation/tsp.rst "The
 * manager and its daemons"). A manager connects over TSP, proves it
 * holds the key and offers a part: the experiment's file, the host whose
 * TGs this daemon runs, the run id. The part runs as `mtgctl run FILE
 * --host NAME --run-id R --hold --json-stream --json SUMMARY`, a child
 * (this very binary, /proc/self/exe as it was at the start) in a private
 * directory (daemon_child.c): it says when it is ready (its "hold" line),
 * starts at the T0 the manager sends on its standard input, and its
 * stream becomes the manager's progress; its summary goes back at the
 * end. A child that ends before it is
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
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "cmd/daemon.h"
#include "util/clock.h"
#include "util/signals.h"

static volatile sig_atomic_t stop_signal;

static void on_signal(int sig)
{
	stop_signal = sig;
}

void say(struct daemon *d, const struct client *m, const char *fmt, ...)
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

void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
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
	j->take_by = now_mono_ms() + DAEMON_TAKE_MS;
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
	j->take_by = now_mono_ms() + DAEMON_TAKE_MS;
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
	snprintf(text, sizeof(text), "%s%s%s",
		 status ? "the run counted errors or failed (its summary says which)" : "",
		 status && j->lines_over ? "; " : "",
		 j->lines_over ? "some progress was not relayed (lines of its stream over 16 MiB)" : "");
	say(d, m, "run %u: ended, exit status %d%s%s", j->run_id, status,
	    text[0] ? ": " : "", text);
	return send_end(m, status, 0, text, why, len);
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
		if (m->job && m->job->state == JOB_TAKING &&
		    now_mono_ms() > m->job->take_by) {
			tsp_refuse(&m->c, TSP_ERR_UNEXPECTED, TSP_JOB_DATA,
				   "the IDF's pieces stopped coming (30 s without one)",
				   why, sizeof(why));
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
		/* the closed ones go first: a flood that ended keeps no one out */
		serve(d, pfd, npolled);
		if (pfd[0].revents & POLLIN)
			take_connections(d);
	}
}

int cmd_daemon(const struct daemon_opts *given)
{
	struct daemon_opts opts = *given, *o = &opts;
	struct daemon d = { .o = o, .lfd = -1, .say = stdout };
	int rc = EXIT_ERROR;

	if (!o->port)
		o->port = DAEMON_PORT_DEFAULT;
	if (configure(&d))
		goto out;
	stop_signals(on_signal);
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
