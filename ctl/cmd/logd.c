// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * mtgctl logd: the log server (ITGLog's role, Documentation/tsp.rst "The
 * log server"). Clients (listen, run, recv with --log) connect over TSP,
 * prove they hold the key and open a log: a run's records from one host,
 * with the metadata of its recording. The records come in batches over
 * the TCP connection, or in authenticated UDP datagrams whose gaps are
 * counted as lost; each log is written to DIR/RUNID-HOST.mtgrec, in the
 * recording format, never over another file. One thread: poll() over the
 * sockets and every connection, as recv.
 */
#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <openssl/crypto.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "rx/recording.h"
#include "tsp/serve.h"
#include "util/clock.h"
#include "util/signals.h"
#include "util/jw.h"

#define LOGD_PORT_DEFAULT	9001	/* ITGLog's signalling port */
#define LOGD_META_ROOM		256	/* spaces after the metadata: room for
					 * the final counts */
#define LOGD_DATAGRAM		2048	/* larger than any batch's datagram */
/* UDP: how long a closed log waits for its datagrams still on the way */
#define LOGD_UDP_GRACE_MS	500

static volatile sig_atomic_t stop_signal;

struct log {
	uint32_t id;
	uint32_t run_id;
	bool udp;
	char name[TSP_LOG_NAME_MAX + 1];
	char path[PATH_MAX];
	const char *file;		/* path's name in DIR */
	struct recorder rec;
	char *meta;			/* the client's, its last '}' cut */
	uint8_t key[TSP_KEY_LEN];	/* UDP: its datagrams' */
	uint64_t next_seq, next_first;	/* the batch due */
	uint64_t lost, batches_lost, late;
	bool closed;			/* TSP_LOG_CLOSE came */
	struct tsp_log_close fin;
	uint64_t close_by;		/* UDP: monotonic ms, its grace's end */
};

struct client {
	struct tsp_conn c;
	struct tsp_opening op;
	struct log *log;
};

struct logd {
	const struct logd_opts *o;
	struct tsp_key key;
	int lfd, ufd;
	uint16_t port;
	struct client **clients;
	size_t n, max;
	uint32_t last_id;
	uint64_t refused_conns, bad_datagrams, logs, records, lost;
	FILE *say;
};

static void on_signal(int sig)
{
	stop_signal = sig;
}

static void say(struct logd *d, const struct client *cl, const char *fmt,
		...) __attribute__((format(printf, 3, 4)));

static void say(struct logd *d, const struct client *cl, const char *fmt,
		...)
{
	va_list ap;

	if (cl)
		fprintf(d->say, "%s: ", cl->c.peer);
	va_start(ap, fmt);
	vfprintf(d->say, fmt, ap);
	va_end(ap);
	fputc('\n', d->say);
	fflush(d->say);
}

/* The metadata: the client's with "logd" added, and room after it. */
static char *meta_json(const struct client *cl, const char *why,
		       size_t room, size_t *len)
{
	const struct log *l = cl->log;
	char *buf = NULL;
	struct jw j;
	FILE *f;

	f = open_memstream(&buf, len);
	if (!f)
		return NULL;
	fputs(l->meta, f);
	fputs(",\"logd\":", f);
	jw_init_compact(&j, f);
	jw_obj_begin(&j);
	jw_kstr(&j, "transport", l->udp ? "udp" : "tcp");
	jw_kstr(&j, "peer", cl->c.peer);
	jw_kstr(&j, "host", l->name);
	jw_ku64(&j, "log_id", l->id);
	jw_ku64(&j, "records", l->rec.written);
	jw_ku64(&j, "lost", l->lost);
	jw_ku64(&j, "batches_lost", l->batches_lost);
	jw_ku64(&j, "late", l->late);
	if (l->closed)
		jw_ku64(&j, "not_sent", l->fin.not_sent);
	else
		jw_knull(&j, "not_sent");
	jw_kbool(&j, "complete", l->closed && !why);
	jw_kstr(&j, "why", why);
	jw_obj_end(&j);
	fprintf(f, "}%*s", (int)room, "");
	if (fclose(f)) {
		free(buf);
		return NULL;
	}
	return buf;
}

/*
 * The log ends: its metadata says the final counts, the file is finished
 * (marked incomplete in "logd" unless the client closed it whole), a line
 * says so.
 */
static void end_log(struct logd *d, struct client *cl, const char *why,
		    struct tsp_log_done *done)
{
	struct log *l = cl->log;
	size_t len = 0;
	char *meta;
	int err;

	if (!l)
		return;
	rec_flush(&l->rec);	/* the counts the metadata says are written */
	meta = meta_json(cl, why, 0, &len);
	err = meta ? rec_rewrite_meta(&l->rec, meta, len) : -ENOMEM;
	free(meta);
	if (!err)
		err = rec_finish(&l->rec, l->closed ? l->fin.ring_drops : 0,
				 l->closed ? l->fin.end_ns : now_tai());
	else
		rec_finish(&l->rec, 0, now_tai());
	d->records += l->rec.written;
	d->lost += l->lost;
	say(d, cl, "log %u (run %u, host %s): %s, %llu records in %s, %llu lost (%llu batches), %llu late%s%s%s%s",
	    l->id, l->run_id, l->name,
	    l->closed && !why ? "complete" : "incomplete",
	    (unsigned long long)l->rec.written, l->path,
	    (unsigned long long)l->lost,
	    (unsigned long long)l->batches_lost,
	    (unsigned long long)l->late, why ? ": " : "", why ? why : "",
	    err ? ": cannot write it: " : "", err ? strerror(-err) : "");
	if (done) {
		done->records = l->rec.written;
		done->lost = l->lost;
		done->batches_lost = l->batches_lost;
		done->late = l->late;
		tsp_text_set(&done->file, l->file);
	}
	free(l->meta);
	OPENSSL_cleanse(l->key, sizeof(l->key));
	free(l);
	cl->log = NULL;
}

static void drop_client(struct logd *d, size_t idx, const char *why)
{
	struct client *cl = d->clients[idx];

	if (why && !cl->log)
		say(d, cl, "%s", why);
	end_log(d, cl, why ? why : "the connection ended without TSP_LOG_CLOSE",
		NULL);
	tsp_opening_wipe(&cl->op);
	tsp_conn_close(&cl->c);
	free(cl);
	d->clients[idx] = d->clients[--d->n];
}

static void take_connections(struct logd *d)
{
	char name[TSP_PEER_NAME];
	struct client *cl;
	int fd;

	while ((fd = tsp_serve_accept(d->lfd, d->n, d->max, &d->refused_conns,
				      d->say, name, sizeof(name))) >= 0) {
		cl = calloc(1, sizeof(*cl));
		if (!cl) {
			close(fd);
			continue;
		}
		tsp_conn_init(&cl->c, fd, TSP_FROM_RECEIVER, name);
		tsp_opening_init(&cl->op);
		d->clients[d->n++] = cl;
	}
}

/*
 * The client's metadata: a recording's (version 1: records only), with
 * no "logd" of its own and the run id the log was opened for. 0, or -1
 * with why.
 */
static int meta_check(const struct tsp_log_open *o, char *why, size_t len)
{
	char w[200];
	json_t *meta, *run;
	int ret = -1;

	if (rec_meta_check(o->meta, o->meta_len, REC_VERSION, w, sizeof(w))) {
		snprintf(why, len, "the metadata is not a recording's: %s", w);
		return -1;
	}
	meta = json_loadb(o->meta, o->meta_len, JSON_DECODE_INT_AS_REAL, NULL);
	run = json_object_get(meta, "run_id");
	if (!meta)
		snprintf(why, len, "out of memory");
	else if (json_object_get(meta, "logd"))
		snprintf(why, len, "the metadata has a \"logd\" already: a log server's file is not logged again");
	else if (o->run_id ? !json_is_number(run) ||
		 json_number_value(run) != o->run_id :
		 run && !json_is_null(run))
		snprintf(why, len, "the metadata's run_id is not the log's %u",
			 o->run_id);
	else
		ret = 0;
	json_decref(meta);
	return ret;
}

/* DIR/RUNID-HOST.mtgrec (RUNID "all" for every run), a number added if
 * that is taken: created, never another file overwritten. */
static int create_file(struct logd *d, struct log *l, char *why, size_t len)
{
	char run[16] = "all";
	unsigned int n;
	int err;

	if (l->run_id)
		snprintf(run, sizeof(run), "%u", l->run_id);
	for (n = 1; n < 1000; n++) {
		char sfx[16] = "";

		if (n > 1)
			snprintf(sfx, sizeof(sfx), ".%u", n);
		snprintf(l->path, sizeof(l->path), "%s/%s-%s%s.mtgrec",
			 d->o->out, run, l->name, sfx);
		if (!access(l->path, F_OK))
			continue;
		err = rec_create(&l->rec, l->path, false);
		if (err == -EEXIST)
			continue;
		if (err) {
			snprintf(why, len, "cannot create %.160s: %s", l->path,
				 strerror(-err));
			return -1;
		}
		l->file = strrchr(l->path, '/') + 1;
		return 0;
	}
	snprintf(why, len, "%s/%s-%s.mtgrec and 998 others exist", d->o->out,
		 run, l->name);
	return -1;
}

static int open_log(struct logd *d, struct client *cl, const struct tsp_msg *m,
		    char *why, size_t len)
{
	const struct tsp_log_open *o = &m->u.lopen;
	struct tsp_msg ack = { .type = TSP_LOG_ACK };
	char text[TSP_MAX_TEXT + 1], *meta;
	struct log *l;
	size_t n, mlen;
	int err;

	if (o->transport == TSP_LOG_UDP && d->ufd < 0)
		return tsp_refuse(&cl->c, TSP_ERR_REFUSED, TSP_LOG_OPEN,
				  "this log server takes no UDP logs (it runs without --udp)",
				  why, len);
	if (meta_check(o, text, sizeof(text)))
		return tsp_refuse(&cl->c, TSP_ERR_REFUSED, TSP_LOG_OPEN, text,
				  why, len);
	l = calloc(1, sizeof(*l));
	if (!l || !(l->meta = strdup(o->meta))) {
		free(l);
		return tsp_refuse(&cl->c, TSP_ERR_INTERNAL, TSP_LOG_OPEN,
				  "out of memory", why, len);
	}
	/* the object without its last '}' (checked: an object) */
	for (n = strlen(l->meta); n && l->meta[n - 1] != '}'; n--)
		;
	l->meta[n - 1] = '\0';
	l->id = ++d->last_id ? d->last_id : ++d->last_id;
	l->run_id = o->run_id;
	l->udp = o->transport == TSP_LOG_UDP;
	memcpy(l->name, o->name, sizeof(l->name));
	if (l->udp && tsp_hs_log_key(&cl->op.hs, l->id, l->key)) {
		free(l->meta);
		free(l);
		return tsp_refuse(&cl->c, TSP_ERR_INTERNAL, TSP_LOG_OPEN,
				  "HMAC-SHA-256 failed in OpenSSL", why, len);
	}
	if (create_file(d, l, text, sizeof(text))) {
		free(l->meta);
		free(l);
		return tsp_refuse(&cl->c, TSP_ERR_REFUSED, TSP_LOG_OPEN, text,
				  why, len);
	}
	cl->log = l;
	meta = meta_json(cl, NULL, LOGD_META_ROOM, &mlen);
	err = meta ? rec_begin(&l->rec, meta, mlen) : -ENOMEM;
	free(meta);
	if (err) {
		snprintf(text, sizeof(text), "cannot write %.160s: %s", l->path,
			 strerror(-err));
		rec_abandon(&l->rec);
		free(l->meta);
		free(l);
		cl->log = NULL;
		return tsp_refuse(&cl->c, TSP_ERR_INTERNAL, TSP_LOG_OPEN, text,
				  why, len);
	}
	d->logs++;
	ack.u.lack.log_id = l->id;
	ack.u.lack.udp_port = l->udp ? d->port : 0;
	say(d, cl, "log %u: run %u from host %s over %s into %s", l->id,
	    l->run_id, l->name, l->udp ? "UDP" : "TCP", l->path);
	return tsp_conn_send(&cl->c, &ack, TSP_SERVE_SEND_MS, why, len);
}

/* A batch's records into the file; the next one due after it. */
static void write_batch(struct log *l, const struct tsp_log_batch *b)
{
	struct mtg_rx_rec r;
	size_t i;

	for (i = 0; i < b->count; i++) {
		memcpy(&r, b->recs + i * TSP_LOG_REC, sizeof(r));
		rec_swap(&r);		/* the format's order into ours */
		rec_add(&l->rec, &r);
	}
	l->next_seq = b->seq + 1;
	l->next_first = b->first + b->count;
}

static int take_batch(struct client *cl, const struct tsp_msg *m, char *why,
		      size_t len)
{
	const struct tsp_log_batch *b = &m->u.batch;
	struct log *l = cl->log;
	char text[200];

	if (l->udp || b->log_id != l->id || b->seq != l->next_seq ||
	    b->first != l->next_first) {
		snprintf(text, sizeof(text), "log %u's batch %llu (records from %llu) where %s%llu (from %llu) was due",
			 b->log_id, (unsigned long long)b->seq,
			 (unsigned long long)b->first,
			 l->udp ? "none over TCP, UDP datagrams; " : "batch ",
			 (unsigned long long)l->next_seq,
			 (unsigned long long)l->next_first);
		return tsp_refuse(&cl->c, TSP_ERR_UNEXPECTED, TSP_LOG_BATCH,
				  text, why, len);
	}
	write_batch(l, b);
	if (l->rec.error) {
		snprintf(text, sizeof(text), "cannot write %.160s: %s", l->path,
			 strerror(-l->rec.error));
		return tsp_refuse(&cl->c, TSP_ERR_INTERNAL, TSP_LOG_BATCH,
				  text, why, len);
	}
	return 0;
}

static struct log *find_udp_log(struct logd *d, uint32_t id)
{
	size_t i;

	for (i = 0; i < d->n; i++) {
		struct log *l = d->clients[i]->log;

		if (l && l->udp && l->id == id)
			return l;
	}
	return NULL;
}

static void bad_datagram(struct logd *d, const char *from, const char *what)
{
	if (!d->bad_datagrams++ || !(d->bad_datagrams % 1000))
		say(d, NULL, "%s: datagram refused: %s (%llu refused so far)",
		    from, what, (unsigned long long)d->bad_datagrams);
}

/* One datagram: a batch of an open UDP log, its MAC right. */
static void take_datagram(struct logd *d, const uint8_t *p, size_t n,
			  const char *from)
{
	static const struct tsp_cfg cfg = { .from = TSP_FROM_SENDER };
	struct tsp_err e;
	struct tsp_msg m;
	struct log *l;
	uint32_t id;
	size_t used;

	if (n < TSP_FRAME_HDR + 24 + TSP_LOG_REC + TSP_MAC_LEN ||
	    p[0] != TSP_LOG_BATCH)
		return bad_datagram(d, from, "not a TSP_LOG_BATCH and its MAC");
	memcpy(&id, p + TSP_FRAME_HDR, sizeof(id));
	l = find_udp_log(d, be32toh(id));
	if (!l)
		return bad_datagram(d, from, "of no open UDP log");
	n -= TSP_MAC_LEN;
	if (!tsp_log_mac_ok(l->key, p, n, p + n))
		return bad_datagram(d, from, "its MAC is wrong");
	if (tsp_decode(&cfg, p, n, 0, true, &m, &used, &e) != TSP_MSG ||
	    used != n) {
		if (used == n)
			tsp_msg_free(&m);
		return bad_datagram(d, from, "its batch does not decode");
	}
	if (m.u.batch.seq < l->next_seq) {
		l->late++;		/* reordered, or sent twice */
	} else if (m.u.batch.first < l->next_first) {
		bad_datagram(d, from, "its records overlap the last batch's");
	} else {
		l->batches_lost += m.u.batch.seq - l->next_seq;
		l->lost += m.u.batch.first - l->next_first;
		write_batch(l, &m.u.batch);
	}
	tsp_msg_free(&m);
}

static void take_datagrams(struct logd *d)
{
	uint8_t buf[LOGD_DATAGRAM];
	struct sockaddr_storage ss;
	char from[TSP_PEER_NAME];
	socklen_t sl;
	ssize_t k;

	if (d->ufd < 0)
		return;
	for (;;) {
		sl = sizeof(ss);
		k = recvfrom(d->ufd, buf, sizeof(buf), MSG_TRUNC,
			     (struct sockaddr *)&ss, &sl);
		if (k < 0)
			return;
		tsp_sockaddr_str(&ss, from, sizeof(from));
		if ((size_t)k > sizeof(buf))
			bad_datagram(d, from, "longer than any batch's");
		else
			take_datagram(d, buf, (size_t)k, from);
	}
}

/* The closed log ends: what never came is lost; TSP_LOG_DONE says it all. */
static int finish_log(struct logd *d, struct client *cl, char *why,
		      size_t len)
{
	struct tsp_msg done = { .type = TSP_LOG_DONE };
	struct log *l = cl->log;

	l->lost += l->fin.records - l->next_first;
	l->batches_lost += l->fin.batches - l->next_seq;
	end_log(d, cl, NULL, &done.u.ldone);
	return tsp_conn_send(&cl->c, &done, TSP_SERVE_SEND_MS, why, len);
}

/*
 * TSP_LOG_CLOSE: a TCP log ends now (1); a UDP log once every batch came
 * or its grace passed (0: the loop ends it, finish_log). -1 with why.
 */
static int close_log(struct logd *d, struct client *cl,
		     const struct tsp_msg *m, char *why, size_t len)
{
	const struct tsp_log_close *f = &m->u.lclose;
	struct log *l = cl->log;
	char text[200];

	if (l->closed)
		return tsp_refuse(&cl->c, TSP_ERR_UNEXPECTED, TSP_LOG_CLOSE,
				  "the log is closed already", why, len);
	take_datagrams(d);	/* what is already here is not lost */
	if (f->records < l->next_first || f->batches < l->next_seq ||
	    (!l->udp && (f->records != l->next_first ||
			 f->batches != l->next_seq))) {
		snprintf(text, sizeof(text), "%llu records in %llu batches closed, but %llu in %llu came",
			 (unsigned long long)f->records,
			 (unsigned long long)f->batches,
			 (unsigned long long)l->next_first,
			 (unsigned long long)l->next_seq);
		return tsp_refuse(&cl->c, TSP_ERR_UNEXPECTED, TSP_LOG_CLOSE,
				  text, why, len);
	}
	l->closed = true;
	l->fin = *f;
	l->close_by = now_mono_ms() + LOGD_UDP_GRACE_MS;
	if (l->udp && l->next_first < f->records)
		return 0;
	return finish_log(d, cl, why, len) ? -1 : 1;
}

/* A closed UDP log whose batches all came, or whose grace passed. */
static bool log_due(const struct client *cl, uint64_t now_ms)
{
	const struct log *l = cl->log;

	return l && l->closed &&
	       (l->next_first >= l->fin.records || now_ms >= l->close_by);
}

/* One message: 0 to go on, 1 when the log is done, -1 (why) to drop. */
static int on_message(struct logd *d, struct client *cl,
		      const struct tsp_msg *m, char *why, size_t len)
{
	if (cl->op.state != TSP_OPEN_DONE)
		return tsp_opening_step(&cl->c, &cl->op, &d->key, m, why, len);
	if (!cl->log) {
		if (m->type == TSP_LOG_OPEN)
			return open_log(d, cl, m, why, len);
		return tsp_refuse(&cl->c, TSP_ERR_UNEXPECTED, m->type,
				  "TSP_LOG_OPEN is due", why, len);
	}
	if (m->type == TSP_LOG_BATCH)
		return take_batch(cl, m, why, len);
	if (m->type == TSP_LOG_CLOSE)
		return close_log(d, cl, m, why, len);
	return tsp_refuse(&cl->c, TSP_ERR_UNEXPECTED, m->type,
			  "not a message of an open log", why, len);
}

/* on_message, as tsp_serve_read() calls it */
static int on_msg(void *d, void *cl, const struct tsp_msg *m, char *why,
		  size_t len)
{
	return on_message(d, cl, m, why, len);
}

static int configure(struct logd *d)
{
	const struct logd_opts *o = d->o;
	char why[200];
	struct stat st;

	if (!o->key) {
		pr_err("logd: --key FILE is needed: the key clients must prove they hold (Documentation/tsp.rst, Key files)\n");
		return -1;
	}
	if (!o->out) {
		pr_err("logd: --out DIR is needed: where the logs are written\n");
		return -1;
	}
	if (tsp_key_load(o->key, &d->key, why, sizeof(why))) {
		pr_err("logd: %s\n", why);
		return -1;
	}
	if (stat(o->out, &st) || !S_ISDIR(st.st_mode)) {
		pr_err("logd: --out %s: %s\n", o->out,
		       errno && !S_ISDIR(st.st_mode) ? strerror(errno) :
		       "not a directory");
		return -1;
	}
	d->port = (uint16_t)o->port;
	d->lfd = tsp_serve_socket(o->bind, d->port, SOCK_STREAM, why,
				  sizeof(why));
	if (d->lfd >= 0 && o->udp)
		d->ufd = tsp_serve_socket(o->bind, d->port, SOCK_DGRAM, why,
					  sizeof(why));
	if (d->lfd < 0 || (o->udp && d->ufd < 0)) {
		pr_err("logd: %s\n", why);
		return -1;
	}
	d->max = o->max_clients;
	d->clients = calloc(d->max, sizeof(*d->clients));
	if (!d->clients) {
		pr_err("out of memory\n");
		return -1;
	}
	return 0;
}

/* A UDP log waits for its last datagrams: look often. */
static bool closing(const struct logd *d)
{
	size_t i;

	for (i = 0; i < d->n; i++)
		if (d->clients[i]->log && d->clients[i]->log->closed)
			return true;
	return false;
}

static void loop(struct logd *d)
{
	uint64_t end = d->o->duration ? now_tai() + d->o->duration : 0;
	struct pollfd *pfd = calloc(d->max + 2, sizeof(*pfd));
	char why[TSP_MAX_TEXT + 200];
	size_t i, npolled;

	if (!pfd) {
		pr_err("out of memory\n");
		return;
	}
	while (!stop_signal && (!end || now_tai() < end)) {
		pfd[0] = (struct pollfd){ .fd = d->lfd, .events = POLLIN };
		pfd[1] = (struct pollfd){ .fd = d->ufd, .events = POLLIN };
		for (i = 0; i < d->n; i++)
			pfd[i + 2] = (struct pollfd){ .fd = d->clients[i]->c.fd,
						      .events = POLLIN };
		npolled = d->n;
		poll(pfd, npolled + 2, closing(d) ? 10 : 100);
		if (pfd[1].revents & POLLIN)
			take_datagrams(d);
		for (i = d->n; i-- > 0;) {
			struct client *cl = d->clients[i];

			if (i < npolled && pfd[i + 2].fd == cl->c.fd &&
			    pfd[i + 2].revents &&
			    tsp_serve_read(&cl->c, on_msg, d, cl, why,
					   sizeof(why))) {
				drop_client(d, i, why[0] ? why : NULL);
				continue;
			}
			if (tsp_opening_expired(&cl->c, &cl->op, now_mono_ms(),
						why, sizeof(why))) {
				drop_client(d, i, why);
			} else if (log_due(cl, now_mono_ms())) {
				why[0] = '\0';
				finish_log(d, cl, why, sizeof(why));
				drop_client(d, i, why[0] ? why : NULL);
			}
		}
		/* after the closed ones: a flood that ended keeps no one out */
		if (pfd[0].revents & POLLIN)
			take_connections(d);
	}
	free(pfd);
}

int cmd_logd(const struct logd_opts *given)
{
	struct logd_opts opts = *given, *o = &opts;
	struct logd d = { .o = o, .lfd = -1, .ufd = -1, .say = stdout };
	int rc = EXIT_ERROR;

	if (!o->port)
		o->port = LOGD_PORT_DEFAULT;
	if (!o->max_clients)
		o->max_clients = TSP_PEERS_MAX;
	if (configure(&d))
		goto out;
	stop_signals(on_signal);
	say(&d, NULL, "logging on TCP%s port %llu%s%s, key %s, logs in %s",
	    o->udp ? " and UDP" : "", (unsigned long long)o->port,
	    o->bind ? " of " : "", o->bind ? o->bind : "", o->key, o->out);
	loop(&d);
	while (d.n)
		drop_client(&d, d.n - 1, "the log server stops");
	say(&d, NULL, "stopped%s%s: %llu logs, %llu records written, %llu lost, %llu datagrams and %llu connections refused",
	    stop_signal ? " by signal " : "",
	    stop_signal ? strsignal(stop_signal) : "",
	    (unsigned long long)d.logs, (unsigned long long)d.records,
	    (unsigned long long)d.lost, (unsigned long long)d.bad_datagrams,
	    (unsigned long long)d.refused_conns);
	rc = EXIT_OK;
out:
	if (d.lfd >= 0)
		close(d.lfd);
	if (d.ufd >= 0)
		close(d.ufd);
	free(d.clients);
	tsp_key_wipe(&d.key);
	return rc;
}
