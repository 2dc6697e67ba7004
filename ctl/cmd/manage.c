// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * mtgctl manage: ITGManager's role (Documentation/tsp.rst "The manager
 * and its daemons"). FILE's TGs name hosts; each host's `mtgctl daemon`
 * is sent the file and the name of its host (remote/manager.c), and
 * prepares its TGs. Only when every host said it is ready does anything
 * start, all at one T0; any refusal drops every part, and says which
 * host and why. Then one progress line a second per TG with its host (or
 * a JSON line), a daemon that vanishes reported while the others go on,
 * and at the end one summary merging every host's, each TG with its
 * host.
 */
#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include "cmd/manage.h"
#include "util/clock.h"
#include "util/signals.h"

#define MANAGE_FORMAT		"mtgctl-manage"
#define MANAGE_VERSION		1
#define MANAGE_STREAM		"mtgctl-manage-stream"
#define MANAGE_END_MS		30000	/* after a drop: the hosts' ends */

static volatile sig_atomic_t stop_signal, signals;

static void on_signal(int sig)
{
	stop_signal = sig;
	signals++;
}

static uint32_t run_id_new(void)
{
	uint32_t id = 0;

	while (!id)
		if (getrandom(&id, sizeof(id), 0) != sizeof(id))
			id = (uint32_t)now_tai() ^ (uint32_t)getpid();
	return id;
}

/* Each host's state on stderr: after a refusal, and at the end. */
static void hosts_report(const struct mgr *m, FILE *f)
{
	size_t i;

	for (i = 0; i < m->nhosts; i++) {
		const struct mhost *h = &m->hosts[i];

		fprintf(f, "host %s (%s): ", h->h->name, h->addr);
		if (h->state == MH_FAILED)
			fprintf(f, "%s%s\n", h->was_running ? "lost mid-run: " : "",
				h->why);
		else if (h->state == MH_ENDED)
			fprintf(f, "ended, exit status %d%s%s%s\n", h->status,
				h->killed ? ", stopped" : "",
				h->why[0] ? ": " : "", h->why);
		else if (h->state == MH_READY)
			fprintf(f, "was ready (%u TG%s): dropped, nothing started\n",
				h->tgs, h->tgs == 1 ? "" : "s");
		else
			fprintf(f, "%s\n", mhost_state_name(h->state));
	}
	fflush(f);
}

static void late_str(const struct tsp_job_row *r, char *buf, size_t size)
{
	if (r->late_p99_ns == UINT64_MAX)
		snprintf(buf, size, "-");
	else
		snprintf(buf, size, "%" PRIu64 " us", r->late_p99_ns / 1000);
}

/* One line per TG with its host. */
static void progress(const struct mgr *m, uint64_t t0)
{
	uint64_t now = now_tai(), el = now > t0 ? now - t0 : 0;
	size_t i, k;
	char late[32];

	for (i = 0; i < m->nhosts; i++) {
		const struct mhost *h = &m->hosts[i];

		for (k = 0; k < h->nrows; k++) {
			const struct tsp_job_row *r = &h->rows[k].row;

			late_str(r, late, sizeof(late));
			printf("%4" PRIu64 ".%01" PRIu64 "s host %s tg %u: %s, sent %" PRIu64 ", %" PRIu64 " bytes, lateness p99 %s\n",
			       el / 1000000000, el / 100000000 % 10,
			       h->h->name, h->rows[k].tgid,
			       h->state == MH_FAILED ? "lost" :
			       r->tgid ? tsp_job_state_name(r->state) :
			       "waiting", r->sent, r->bytes, late);
		}
	}
	fflush(stdout);
}

/* The rows as a JSON object (stream lines). */
static json_t *rows_json(const struct mgr *m, const char *type, uint64_t t0)
{
	json_t *o = json_object(), *tgs = json_array(), *hosts = json_array();
	uint64_t now = now_tai();
	size_t i, k;

	json_object_set_new(o, "format", json_string(MANAGE_STREAM));
	json_object_set_new(o, "version", json_integer(MANAGE_VERSION));
	json_object_set_new(o, "type", json_string(type));
	json_object_set_new(o, "run_id", json_integer(m->run_id));
	json_object_set_new(o, "elapsed_ns",
			    json_integer(now > t0 ? (json_int_t)(now - t0) : 0));
	for (i = 0; i < m->nhosts; i++) {
		const struct mhost *h = &m->hosts[i];

		json_array_append_new(hosts, json_pack("{s:s, s:I, s:s, s:s}",
			"name", h->h->name, "run_id", (json_int_t)h->run_id,
			"daemon", h->addr, "state",
			h->state == MH_FAILED && h->was_running ? "lost" :
			mhost_state_name(h->state)));
		for (k = 0; k < h->nrows; k++) {
			const struct tsp_job_row *r = &h->rows[k].row;

			json_array_append_new(tgs, json_pack("{s:s, s:I, s:s, s:I, s:I, s:o}",
				"host", h->h->name, "id", (json_int_t)h->rows[k].tgid,
				"state", h->state == MH_FAILED ? "lost" :
				r->tgid ? tsp_job_state_name(r->state) : "waiting",
				"sent", (json_int_t)r->sent, "bytes", (json_int_t)r->bytes,
				"lateness_p99_ns", r->late_p99_ns == UINT64_MAX ?
				json_null() : json_integer((json_int_t)r->late_p99_ns)));
		}
	}
	json_object_set_new(o, "hosts", hosts);
	json_object_set_new(o, "tgs", tgs);
	return o;
}

static void stream_line(const struct mgr *m, const char *type, uint64_t t0)
{
	json_t *o = rows_json(m, type, t0);

	json_dumpf(o, stdout, JSON_COMPACT);
	fputc('\n', stdout);
	fflush(stdout);
	json_decref(o);
}

/* Every host's summary merged: each TG with its host. */
static json_t *merged(const struct mgr *m, const char *file, uint64_t t0,
		      uint64_t end)
{
	json_t *o = json_object(), *hosts = json_array(), *tgs = json_array();
	size_t i, k;

	json_object_set_new(o, "format", json_string(MANAGE_FORMAT));
	json_object_set_new(o, "version", json_integer(MANAGE_VERSION));
	json_object_set_new(o, "file", json_string(file));
	json_object_set_new(o, "run_id", json_integer(m->run_id));
	json_object_set_new(o, "start_ns", json_integer((json_int_t)t0));
	json_object_set_new(o, "end_ns", json_integer((json_int_t)end));
	json_object_set_new(o, "interrupted", json_boolean(stop_signal));
	for (i = 0; i < m->nhosts; i++) {
		const struct mhost *h = &m->hosts[i];
		json_t *s = h->summary ? json_loads(h->summary, 0, NULL) : NULL;
		json_t *ho, *t;

		ho = json_pack("{s:s, s:I, s:s, s:s}", "name", h->h->name,
			       "run_id", (json_int_t)h->run_id, "daemon",
			       h->addr, "state",
			       h->state == MH_FAILED && h->was_running ? "lost" :
			       mhost_state_name(h->state));
		json_object_set_new(ho, "exit_status", h->state == MH_ENDED ?
				    json_integer(h->status) : json_null());
		json_object_set_new(ho, "why", h->why[0] ?
				    json_string(h->why) : json_null());
		json_array_foreach(json_object_get(s, "tgs"), k, t) {
			json_t *c = json_deep_copy(t);

			json_object_set_new(c, "host", json_string(h->h->name));
			json_array_append_new(tgs, c);
		}
		json_object_set_new(ho, "summary", s ? s : json_null());
		json_array_append_new(hosts, ho);
	}
	json_object_set_new(o, "hosts", hosts);
	json_object_set_new(o, "tgs", tgs);
	return o;
}

/* The merged summary at path, whole or not at all. 0, or -errno. */
static int write_merged(const char *path, json_t *o)
{
	size_t n = strlen(path);
	char *tmp = malloc(n + 8);
	int fd, err = 0;
	FILE *f;

	if (!tmp)
		return -ENOMEM;
	snprintf(tmp, n + 8, "%s.XXXXXX", path);
	fd = mkstemp(tmp);
	if (fd < 0) {
		free(tmp);
		return -errno;
	}
	f = fdopen(fd, "w");
	if (!f || json_dumpf(o, f, JSON_INDENT(2)) || fputc('\n', f) == EOF ||
	    fflush(f) || fsync(fd))
		err = errno ? -errno : -EIO;
	if (f ? fclose(f) : close(fd))
		err = err ? err : -errno;
	if (!err && rename(tmp, path))
		err = -errno;
	if (err)
		unlink(tmp);
	free(tmp);
	return err;
}

/*
 * The run: progress until every host ended or failed; a signal, or q on
 * the dashboard, drops every part. true when q was pressed.
 */
static bool watch(struct mgr *m, const struct manage_opts *o, uint64_t t0,
		  struct mview *v)
{
	uint64_t next = t0 + 1000000000ULL, drop_by = 0;
	bool dropped = false, quit = false;
	size_t i;

	while (!mgr_done(m) && signals < 2) {
		if ((stop_signal || quit) && !dropped) {
			mgr_drop(m, quit ? "q on the manager's dashboard" :
				 stop_signal == SIGINT ? "the manager got SIGINT" :
				 "the manager got SIGTERM");
			dropped = true;
			drop_by = now_mono_ms() + MANAGE_END_MS;
		}
		if (dropped && now_mono_ms() > drop_by)
			break;
		mgr_poll(m, v->on ? 20 : 100);
		quit |= mview_turn(v, m, t0, dropped ? "stopping" : "running");
		for (i = 0; i < m->nhosts; i++) {
			struct mhost *h = &m->hosts[i];

			if (h->state == MH_FAILED && h->was_running &&
			    !h->said) {
				fprintf(stderr, "host %s (%s): lost mid-run: %s; the other hosts go on\n",
					h->h->name, h->addr, h->why);
				h->said = true;
			}
		}
		if (now_tai() >= next) {
			if (o->json_stream)
				stream_line(m, "interval", t0);
			else if (!v->on)
				progress(m, t0);
			next += 1000000000ULL;
		}
	}
	return quit;
}

/* 0 every host ended cleanly; 2 some counted errors or was lost. */
static int outcome(const struct mgr *m)
{
	size_t i;

	for (i = 0; i < m->nhosts; i++)
		if (m->hosts[i].state != MH_ENDED || m->hosts[i].status)
			return EXIT_COUNTED;
	return EXIT_OK;
}

static int load(struct idf_file *f, const char *file)
{
	int ret = idf_load(f, file);

	if (ret && ret != -EINVAL) {
		pr_err("cannot read %s: %s\n", file, strerror(-ret));
		return -1;
	}
	idf_print_diags(f, stderr);
	if (ret)
		return -1;
	if (!idf_has_hosts(f)) {
		pr_err("%s: no TG names a host ('host NAME'): nothing to manage; run it here with 'mtgctl run %s'\n",
		       file, file);
		return -1;
	}
	if (f->nincludes) {
		pr_err("%s: it includes %s: the daemons are sent the file's own text only; write the included lines in it\n",
		       file, f->includes[0].name);
		return -1;
	}
	return 0;
}

int cmd_manage(const char *file, const struct manage_opts *o)
{
	struct mview v = { .on = false };
	struct idf_file f;
	struct mgr m = { 0 };
	bool quit;
	char why[300];
	uint64_t t0, end;
	int rc = EXIT_ERROR, err;
	json_t *sum;
	size_t i, ntgs = 0;

	if (load(&f, file))
		goto out;
	if (mgr_init(&m, &f, run_id_new(), why, sizeof(why))) {
		pr_err("%s: %s\n", file, why);
		goto out;
	}
	stop_signals(on_signal);
	if (!mgr_prepare(&m, &f, file, &stop_signal) || stop_signal) {
		mgr_drop(&m, stop_signal ? "the manager was interrupted" :
			 "another host is not ready");
		fprintf(stderr, "%s: run %u: nothing started: %s\n", file,
			m.run_id, stop_signal ? "interrupted" :
			"a host is not ready");
		hosts_report(&m, stderr);
		if (stop_signal)
			rc = EXIT_SIGNAL + stop_signal;
		goto out;
	}
	for (i = 0; i < m.nhosts; i++)
		ntgs += m.hosts[i].tgs;
	t0 = now_tai() + o->start_delay;
	fprintf(o->json_stream ? stderr : stdout,
		"run_id %u: %zu TG%s on %zu host%s from %s, T0 %" PRIu64 " (CLOCK_TAI), in %" PRIu64 " ms\n",
		m.run_id, ntgs, ntgs == 1 ? "" : "s", m.nhosts,
		m.nhosts == 1 ? "" : "s", file, t0, o->start_delay / 1000000);
	fflush(stdout);
	mgr_start(&m, t0);
	/* on a terminal, the dashboard; if it cannot be, lines (it said why) */
	if (!o->batch && !o->json_stream && isatty(STDIN_FILENO) &&
	    isatty(STDOUT_FILENO))
		mview_open(&v, &m, &f, file);
	quit = watch(&m, o, t0, &v);
	mview_close(&v);
	end = now_tai();
	if (o->json_stream)
		stream_line(&m, "end", t0);
	else
		progress(&m, t0);
	hosts_report(&m, o->json_stream ? stderr : stdout);
	rc = outcome(&m);
	if (o->json) {
		sum = merged(&m, file, t0, end);
		err = write_merged(o->json, sum);
		json_decref(sum);
		if (err) {
			pr_err("cannot write the summary %s: %s\n", o->json,
			       strerror(-err));
			rc = EXIT_ERROR;
		}
	}
	if (stop_signal)
		rc = EXIT_SIGNAL + stop_signal;
	else if (quit)
		printf("quit from the dashboard: every host's part dropped\n");
out:
	mgr_free(&m);
	idf_free(&f);
	return rc;
}
