// SPDX-License-Identifier: GPL-2.0-or-later
/* A log at the log server, the client's end (logc.h). */
#include <errno.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <openssl/crypto.h>

#include "idf/idf.h"
#include "remote/logc.h"
#include "rx/recording.h"
#include "util/log.h"

#define LOGC_PORT_DEFAULT	9001	/* logd's, ITGLog's */
#define LOGC_OPEN_MS		5000	/* connect, hellos, proofs, ack */
#define LOGC_SEND_MS		2000	/* a batch that long unsent: gone */
#define LOGC_DONE_MS		10000	/* logd's last word */

_Static_assert(TSP_LOG_REC == sizeof(struct mtg_rx_rec),
	       "a batch's record is the recording's");

/* The log is gone: said once, with what logd said if it said something. */
static void gone(struct logc *l, const char *why)
{
	struct tsp_msg m;
	char w[TSP_MAX_TEXT + 64];

	if (l->failed)
		return;
	l->failed = true;
	/* an error logd sent before it closed tells more than ours */
	if (l->c.fd >= 0 && tsp_conn_fill(&l->c) >= 0 &&
	    tsp_conn_next(&l->c, &m, w, sizeof(w)) > 0) {
		if (m.type == TSP_ERROR) {
			pr_err("log %s: logd says %s: %s; the records from here on are not logged\n",
			       l->c.peer, tsp_error_name(m.u.error.code),
			       m.u.error.text.s);
			tsp_msg_free(&m);
			return;
		}
		tsp_msg_free(&m);
	}
	pr_err("log %s: %s; the records from here on are not logged\n",
	       l->c.peer, why);
}

/* A batch's datagram: the message, then its MAC. */
static int send_datagram(struct logc *l, const struct tsp_msg *m, char *why,
			 size_t len)
{
	uint8_t d[TSP_FRAME_HDR + 24 + TSP_LOG_UDP_MAX * TSP_LOG_REC +
		  TSP_MAC_LEN];
	struct tsp_err e;
	size_t n;

	n = tsp_encode(m, TSP_FROM_SENDER, d, sizeof(d) - TSP_MAC_LEN, &e);
	if (!n) {
		tsp_err_str(&e, why, len);
		return -1;
	}
	if (tsp_log_mac(l->key, d, n, d + n)) {
		snprintf(why, len, "HMAC-SHA-256 failed in OpenSSL");
		return -1;
	}
	if (send(l->ufd, d, n + TSP_MAC_LEN, 0) < 0) {
		snprintf(why, len, "cannot send a datagram to logd: %s",
			 strerror(errno));
		return -1;
	}
	return 0;
}

void logc_flush(struct logc *l)
{
	struct tsp_msg m = { .type = TSP_LOG_BATCH };
	char why[300];
	int err;

	if (!l || !l->n)
		return;
	m.u.batch = (struct tsp_log_batch){
		.log_id = l->log_id, .seq = l->seq, .first = l->sent,
		.count = (uint16_t)l->n, .recs = l->buf,
	};
	if (l->failed)
		err = -1;
	else if (l->udp)
		err = send_datagram(l, &m, why, sizeof(why));
	else
		err = tsp_conn_send(&l->c, &m, LOGC_SEND_MS, why, sizeof(why));
	if (err) {
		gone(l, why);
		l->not_sent += l->n;
	} else {
		l->seq++;
		l->sent += l->n;
	}
	l->n = 0;
}

void logc_add(struct logc *l, const struct mtg_rx_rec *r)
{
	struct mtg_rx_rec *slot = (struct mtg_rx_rec *)(l->buf +
							l->n * TSP_LOG_REC);

	*slot = *r;
	rec_swap(slot);		/* as the recording has it */
	if (++l->n == l->max)
		logc_flush(l);
}

static int parse_to(const char *to, struct idf_addr *a)
{
	const char *why = idf_parse_endpoint(to, false, a);

	if (why || !a->family) {
		pr_err("--log '%s' is not logd's ADDR[:PORT] (IPv6 in brackets: [2001:db8::1]:9001)%s%s%s\n",
		       to, why && *why ? " (" : "", why && *why ? why : "",
		       why && *why ? ")" : "");
		return -1;
	}
	if (!a->port)
		a->port = LOGC_PORT_DEFAULT;
	return 0;
}

/* The UDP socket the batches go through, to logd's address and port. */
static int udp_to(struct logc *l, const struct idf_addr *a, uint16_t port)
{
	struct sockaddr_storage ss = { 0 };
	struct sockaddr_in6 *s6 = (void *)&ss;
	struct sockaddr_in *s4 = (void *)&ss;
	socklen_t sl;

	if (a->family == AF_INET) {
		s4->sin_family = AF_INET;
		s4->sin_port = htons(port);
		memcpy(&s4->sin_addr, a->addr, 4);
		sl = sizeof(*s4);
	} else {
		s6->sin6_family = AF_INET6;
		s6->sin6_port = htons(port);
		memcpy(&s6->sin6_addr, a->addr, 16);
		sl = sizeof(*s6);
	}
	l->ufd = socket(a->family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (l->ufd < 0 || connect(l->ufd, (struct sockaddr *)&ss, sl)) {
		pr_err("log %s: cannot make its UDP socket: %s\n", l->c.peer,
		       strerror(errno));
		return -1;
	}
	return 0;
}

/* TSP_LOG_OPEN, and logd's answer: 0, or -1 (said). */
static int open_log(struct logc *l, const struct logc_cfg *cfg,
		    uint32_t run_id, const char *meta, size_t len,
		    const struct tsp_handshake *hs, const struct idf_addr *a)
{
	struct tsp_msg m = { .type = TSP_LOG_OPEN }, in;
	struct tsp_log_open *o = &m.u.lopen;
	char why[TSP_MAX_TEXT + 200];
	struct utsname u;
	const char *name = cfg->name;

	if (!name)
		name = uname(&u) ? "localhost" : u.nodename;
	if (len > TSP_MAX_LOG_META) {
		pr_err("log %s: the recording's metadata is %zu bytes, over the %d a log carries\n",
		       l->c.peer, len, TSP_MAX_LOG_META);
		return -1;
	}
	o->run_id = run_id;
	o->transport = cfg->udp ? TSP_LOG_UDP : TSP_LOG_TCP;
	o->name_len = (uint16_t)strnlen(name, TSP_LOG_NAME_MAX + 1);
	snprintf(o->name, sizeof(o->name), "%s", name);
	o->meta_len = (uint32_t)len;
	o->meta = (char *)meta;
	if (tsp_conn_send(&l->c, &m, LOGC_OPEN_MS, why, sizeof(why)) ||
	    tsp_conn_recv(&l->c, &in, LOGC_OPEN_MS, why, sizeof(why)) < 0) {
		pr_err("log %s: %s\n", l->c.peer, why);
		if (strstr(why, "field name"))
			pr_err("log %s: a host name is 1 to %d letters, digits, '-', '_' or '.': give one with --log-name\n",
			       l->c.peer, TSP_LOG_NAME_MAX);
		return -1;
	}
	if (in.type != TSP_LOG_ACK) {
		if (in.type == TSP_ERROR)
			pr_err("log %s: logd refused the log: %s: %s\n",
			       l->c.peer, tsp_error_name(in.u.error.code),
			       in.u.error.text.s);
		else
			pr_err("log %s: logd sent %s where TSP_LOG_ACK was due\n",
			       l->c.peer, tsp_type_name(in.type));
		tsp_msg_free(&in);
		return -1;
	}
	l->log_id = in.u.lack.log_id;
	if (!l->udp)
		return 0;
	if (tsp_hs_log_key(hs, l->log_id, l->key)) {
		pr_err("log %s: HMAC-SHA-256 failed in OpenSSL\n", l->c.peer);
		return -1;
	}
	return udp_to(l, a, in.u.lack.udp_port);
}

int logc_open(struct logc **out, const struct logc_cfg *cfg, uint32_t run_id,
	      const char *meta, size_t len)
{
	struct tsp_handshake hs;
	struct tsp_key key;
	struct idf_addr a;
	struct logc *l;
	char why[TSP_MAX_TEXT + 200];
	int ret = -1;

	*out = NULL;
	if (parse_to(cfg->to, &a))
		return -1;
	if (!cfg->key) {
		pr_err("--log needs --log-key FILE: the key logd checks (Documentation/tsp.rst, Key files)\n");
		return -1;
	}
	if (tsp_key_load(cfg->key, &key, why, sizeof(why))) {
		pr_err("%s\n", why);
		return -1;
	}
	l = calloc(1, sizeof(*l));
	if (l)
		l->buf = malloc(TSP_LOG_BATCH_MAX * TSP_LOG_REC);
	if (!l || !l->buf) {
		free(l);
		tsp_key_wipe(&key);
		pr_err("out of memory\n");
		return -1;
	}
	l->ufd = -1;
	l->udp = cfg->udp;
	l->max = cfg->udp ? TSP_LOG_UDP_MAX : TSP_LOG_BATCH_MAX;
	memset(&hs, 0, sizeof(hs));
	if (tsp_dial_hs(&l->c, a.family, a.addr, a.port, &key, LOGC_OPEN_MS,
			&hs, why, sizeof(why))) {
		pr_err("log: %s\n", why);
		/* the receiver's words are TSP's: here it is logd */
	} else if (!open_log(l, cfg, run_id, meta, len, &hs, &a)) {
		ret = 0;
	}
	tsp_hs_wipe(&hs);
	tsp_key_wipe(&key);
	if (ret) {
		logc_free(l);
		return -1;
	}
	*out = l;
	return 0;
}

int logc_close(struct logc *l, uint64_t ring_drops, uint64_t end_ns)
{
	struct tsp_msg m = { .type = TSP_LOG_CLOSE }, in;
	char why[TSP_MAX_TEXT + 200];

	logc_flush(l);
	if (l->failed)
		return -1;
	m.u.lclose = (struct tsp_log_close){
		.records = l->sent, .batches = l->seq, .not_sent = l->not_sent,
		.ring_drops = ring_drops, .end_ns = end_ns,
	};
	if (tsp_conn_send(&l->c, &m, LOGC_SEND_MS, why, sizeof(why)) ||
	    tsp_conn_recv(&l->c, &in, LOGC_DONE_MS, why, sizeof(why)) < 0) {
		gone(l, why);
		return -1;
	}
	if (in.type != TSP_LOG_DONE) {
		snprintf(why, sizeof(why), "logd %s%s%s where TSP_LOG_DONE was due",
			 in.type == TSP_ERROR ? "said " : "sent ",
			 in.type == TSP_ERROR ? in.u.error.text.s :
			 tsp_type_name(in.type), "");
		tsp_msg_free(&in);
		gone(l, why);
		return -1;
	}
	l->result = in.u.ldone;
	l->done = true;
	return 0;
}

void logc_report(const struct logc *l, FILE *out)
{
	fprintf(out, "log %s (%s, log %u): %llu records sent in %llu batches, %llu not sent",
		l->c.peer, l->udp ? "UDP" : "TCP", l->log_id,
		(unsigned long long)l->sent, (unsigned long long)l->seq,
		(unsigned long long)l->not_sent);
	if (l->done)
		fprintf(out, "; logd wrote %llu to %s, %llu lost on the way (%llu batches), %llu late\n",
			(unsigned long long)l->result.records,
			l->result.file.s, (unsigned long long)l->result.lost,
			(unsigned long long)l->result.batches_lost,
			(unsigned long long)l->result.late);
	else
		fprintf(out, "; logd said nothing of them: the log is incomplete there\n");
}

bool logc_lost_any(const struct logc *l)
{
	return !l->done || l->not_sent || l->result.lost;
}

void logc_free(struct logc *l)
{
	if (!l)
		return;
	tsp_conn_close(&l->c);
	if (l->ufd >= 0)
		close(l->ufd);
	OPENSSL_cleanse(l->key, sizeof(l->key));
	free(l->buf);
	free(l);
}
