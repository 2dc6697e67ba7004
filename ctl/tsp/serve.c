// SPDX-License-Identifier: GPL-2.0-or-later
/* The answering end of TSP connections (serve.h). */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "tsp/serve.h"
#include "util/clock.h"

int tsp_serve_socket(const char *bind_to, uint16_t port, int type,
		     char *why, size_t len)
{
	struct sockaddr_storage ss = { 0 };
	struct sockaddr_in6 *s6 = (void *)&ss;
	struct sockaddr_in *s4 = (void *)&ss;
	int one = 1, family = AF_INET6, fd;
	socklen_t sl = sizeof(*s6);

	s6->sin6_family = AF_INET6;
	s6->sin6_addr = in6addr_any;
	s6->sin6_port = htons(port);
	if (bind_to && inet_pton(AF_INET, bind_to, &s4->sin_addr) == 1) {
		family = AF_INET;
		s4->sin_family = AF_INET;
		s4->sin_port = htons(port);
		sl = sizeof(*s4);
	} else if (bind_to &&
		   inet_pton(AF_INET6, bind_to, &s6->sin6_addr) != 1) {
		snprintf(why, len, "--bind '%s' is not an IPv4 or IPv6 address",
			 bind_to);
		return -1;
	}
	fd = socket(family, type | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		snprintf(why, len, "cannot make a socket: %s", strerror(errno));
		return -1;
	}
	if (type == SOCK_STREAM)
		setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&ss, sl) ||
	    (type == SOCK_STREAM && listen(fd, 64))) {
		snprintf(why, len, "cannot %s %s port %u%s%s: %s",
			 type == SOCK_STREAM ? "listen on" : "bind",
			 type == SOCK_STREAM ? "TCP" : "UDP", port,
			 bind_to ? " of " : "", bind_to ? bind_to : "",
			 strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}

int tsp_serve_accept(int lfd, size_t held, size_t max, uint64_t *refused,
		     FILE *say, char *peer, size_t plen)
{
	struct sockaddr_storage ss;
	socklen_t sl;
	int fd;

	for (;;) {
		sl = sizeof(ss);
		fd = accept4(lfd, (struct sockaddr *)&ss, &sl,
			     SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd < 0)
			return -1;
		tsp_sockaddr_str(&ss, peer, plen);
		if (held < max)
			return fd;
		/* counted and said: a flood costs nothing held */
		if (!(*refused)++ || !(*refused % 1000)) {
			fprintf(say, "%s: refused: already %zu connections (%llu refused so far)\n",
				peer, max, (unsigned long long)*refused);
			fflush(say);
		}
		close(fd);
	}
}

void tsp_opening_init(struct tsp_opening *o)
{
	memset(o, 0, sizeof(*o));
	o->state = TSP_OPEN_HELLO;
	o->by_ms = now_mono_ms() + TSP_OPEN_MS;
}

void tsp_opening_wipe(struct tsp_opening *o)
{
	tsp_hs_wipe(&o->hs);
}

int tsp_refuse(struct tsp_conn *c, uint16_t code, uint8_t about,
	       const char *text, char *why, size_t len)
{
	tsp_conn_error(c, code, about, text);
	snprintf(why, len, "%s: %s", tsp_error_name(code), text);
	return -1;
}

static int on_hello(struct tsp_conn *c, struct tsp_opening *o,
		    const struct tsp_key *key, const struct tsp_msg *m,
		    char *why, size_t len)
{
	struct tsp_msg out = { .type = TSP_HELLO };
	char text[64];

	if (m->type == TSP_CONNECT) {
		/* ITGSend understands no TSP_ERROR: just close */
		snprintf(why, len, "a D-ITG sender (TSP_CONNECT): not taken, D-ITG has no authentication (mtgctl recv --allow-ditg)");
		return -1;
	}
	if (m->type != TSP_HELLO)
		return tsp_refuse(c, TSP_ERR_UNEXPECTED, m->type,
				  "a connection opens with TSP_HELLO", why,
				  len);
	if (m->u.hello.major != TSP_VERSION_MAJOR) {
		snprintf(text, sizeof(text), "TSP %d.%d here; %u.%u asked",
			 TSP_VERSION_MAJOR, TSP_VERSION_MINOR,
			 m->u.hello.major, m->u.hello.minor);
		return tsp_refuse(c, TSP_ERR_VERSION, TSP_HELLO, text, why,
				  len);
	}
	out.u.hello.major = TSP_VERSION_MAJOR;
	/* the lower of the two minor versions (ours is 0 in TSP 1.0) */
	out.u.hello.minor = TSP_VERSION_MINOR;
	if (m->u.hello.minor + 0U < out.u.hello.minor + 0U)
		out.u.hello.minor = m->u.hello.minor;
	tsp_hs_init(&o->hs, TSP_FROM_RECEIVER, key, &m->u.hello,
		    &out.u.hello);
	if (tsp_conn_send(c, &out, TSP_SERVE_SEND_MS, why, len))
		return -1;
	if (tsp_hs_challenge(&o->hs, now_tai(), &out, text, sizeof(text)))
		return tsp_refuse(c, TSP_ERR_INTERNAL, 0, text, why, len);
	if (tsp_conn_send(c, &out, TSP_SERVE_SEND_MS, why, len))
		return -1;
	o->state = TSP_OPEN_AUTH;
	return 0;
}

static int on_auth(struct tsp_conn *c, struct tsp_opening *o,
		   const struct tsp_msg *m, char *why, size_t len)
{
	struct tsp_msg out;
	char text[160];
	int code;

	if (m->type == TSP_FLOW_REQ || m->type == TSP_LOG_OPEN ||
	    m->type == TSP_JOB_OFFER)
		return tsp_refuse(c, TSP_ERR_AUTH_REQUIRED, m->type,
				  m->type == TSP_FLOW_REQ ?
				  "a flow before authentication" :
				  m->type == TSP_LOG_OPEN ?
				  "a log before authentication" :
				  "a part before authentication", why, len);
	if (m->type != TSP_AUTH)
		return tsp_refuse(c, TSP_ERR_UNEXPECTED, m->type,
				  "TSP_AUTH is due", why, len);
	code = tsp_hs_verify(&o->hs, now_tai(), m, &out, text, sizeof(text));
	if (code)
		return tsp_refuse(c, (uint16_t)code, TSP_AUTH, text, why, len);
	if (tsp_conn_send(c, &out, TSP_SERVE_SEND_MS, why, len))
		return -1;
	o->state = TSP_OPEN_DONE;
	return 0;
}

int tsp_opening_step(struct tsp_conn *c, struct tsp_opening *o,
		     const struct tsp_key *key, const struct tsp_msg *m,
		     char *why, size_t len)
{
	if (o->state == TSP_OPEN_HELLO)
		return on_hello(c, o, key, m, why, len);
	return on_auth(c, o, m, why, len);
}

bool tsp_opening_expired(struct tsp_conn *c, const struct tsp_opening *o,
			 uint64_t now_ms, char *why, size_t len)
{
	if (o->state == TSP_OPEN_DONE || now_ms <= o->by_ms)
		return false;
	tsp_conn_error(c, TSP_ERR_UNEXPECTED, 0, "no authentication in 15 s");
	snprintf(why, len, "dropped: no authentication in 15 s");
	return true;
}

int tsp_serve_read(struct tsp_conn *c, tsp_on_msg on_msg, void *daemon,
		   void *peer, char *why, size_t len)
{
	struct tsp_msg m;
	ssize_t k;
	int r;

	k = tsp_conn_fill(c);
	if (k < 0 && k != -EAGAIN) {
		snprintf(why, len, "connection lost: %s", strerror((int)-k));
		return -1;
	}
	for (;;) {
		r = tsp_conn_next(c, &m, why, len);
		if (!r)
			return 0;
		if (r < 0) {
			/* a peer that only shut its side down still reads */
			tsp_conn_error(c, TSP_ERR_MALFORMED, 0, why);
			return -1;
		}
		r = on_msg(daemon, peer, &m, why, len);
		tsp_msg_free(&m);
		if (r > 0) {
			why[0] = '\0';
			return -1;
		}
		if (r < 0)
			return -1;
	}
}
