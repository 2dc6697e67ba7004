// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * One TSP connection over TCP (conn.h): whole messages out within a time
 * limit, the peer's bytes through the stream decoder, the sender's
 * opening.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "tsp/conn.h"
#include "util/clock.h"

static int left_ms(uint64_t deadline)
{
	uint64_t now = now_mono_ms();

	return now >= deadline ? 0 : (int)(deadline - now);
}

void tsp_conn_init(struct tsp_conn *c, int fd, enum tsp_dir self,
		   const char *peer)
{
	struct tsp_cfg cfg = {
		.from = self == TSP_FROM_SENDER ? TSP_FROM_RECEIVER :
			TSP_FROM_SENDER,
	};
	int one = 1;

	memset(c, 0, sizeof(*c));
	c->fd = fd;
	c->self = self;
	snprintf(c->peer, sizeof(c->peer), "%s", peer);
	tsp_stream_init(&c->in, &cfg);
	if (fd >= 0) {
		fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
		/* small messages answered at once: no Nagle delay */
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	}
}

void tsp_conn_close(struct tsp_conn *c)
{
	if (c->fd >= 0)
		close(c->fd);
	c->fd = -1;
	tsp_stream_free(&c->in);
}

void tsp_sockaddr_str(const void *sa, char *buf, size_t size)
{
	const struct sockaddr_in6 *s6 = sa;
	const struct sockaddr_in *s4 = sa;
	char a[INET6_ADDRSTRLEN];

	if (s4->sin_family == AF_INET) {
		inet_ntop(AF_INET, &s4->sin_addr, a, sizeof(a));
		snprintf(buf, size, "%s:%u", a, ntohs(s4->sin_port));
	} else if (IN6_IS_ADDR_V4MAPPED(&s6->sin6_addr)) {
		/* an IPv4 peer of a dual-stack socket: as IPv4 */
		inet_ntop(AF_INET, s6->sin6_addr.s6_addr + 12, a, sizeof(a));
		snprintf(buf, size, "%s:%u", a, ntohs(s6->sin6_port));
	} else {
		inet_ntop(AF_INET6, &s6->sin6_addr, a, sizeof(a));
		snprintf(buf, size, "[%s]:%u", a, ntohs(s6->sin6_port));
	}
}

int tsp_conn_send(struct tsp_conn *c, const struct tsp_msg *m, int timeout_ms,
		  char *why, size_t len)
{
	uint64_t deadline = now_mono_ms() + (uint64_t)timeout_ms;
	static uint8_t buf[TSP_MAX_MSG];
	struct pollfd pfd = { .fd = c->fd, .events = POLLOUT };
	struct tsp_err e;
	size_t n, off = 0;
	ssize_t k;

	n = tsp_encode(m, c->self, buf, sizeof(buf), &e);
	if (!n) {
		tsp_err_str(&e, why, len);
		return -1;
	}
	while (off < n) {
		k = send(c->fd, buf + off, n - off, MSG_NOSIGNAL);
		if (k > 0) {
			off += (size_t)k;
			continue;
		}
		if (k < 0 && errno != EAGAIN && errno != EINTR) {
			snprintf(why, len, "cannot send to %s: %s", c->peer,
				 strerror(errno));
			return -1;
		}
		if (!left_ms(deadline) || poll(&pfd, 1, left_ms(deadline)) == 0) {
			snprintf(why, len, "%s takes nothing: %s not sent in %d ms",
				 c->peer, tsp_type_name(m->type), timeout_ms);
			return -1;
		}
	}
	return 0;
}

void tsp_conn_error(struct tsp_conn *c, uint16_t code, uint8_t about,
		    const char *text)
{
	struct tsp_msg m = { .type = TSP_ERROR };
	char why[64];

	if (c->ditg)
		return;
	m.u.error.code = code;
	m.u.error.about = about;
	tsp_text_set(&m.u.error.text, text);
	tsp_conn_send(c, &m, 1000, why, sizeof(why));
}

ssize_t tsp_conn_fill(struct tsp_conn *c)
{
	ssize_t k;

	if (c->off == c->len)
		c->off = c->len = 0;
	if (c->len == sizeof(c->buf))
		return -EAGAIN;	/* what is read is fed first */
	do
		k = recv(c->fd, c->buf + c->len, sizeof(c->buf) - c->len, 0);
	while (k < 0 && errno == EINTR);
	if (k < 0)
		return -errno;
	if (!k)
		c->eof = true;
	c->len += (size_t)k;
	return k;
}

int tsp_conn_next(struct tsp_conn *c, struct tsp_msg *m, char *why,
		  size_t len)
{
	enum tsp_res res;
	struct tsp_err e;
	size_t used;

	used = tsp_stream_feed(&c->in, c->buf + c->off, c->len - c->off, m,
			       &res, &e);
	c->off += used;
	if (res == TSP_MSG)
		return 1;
	if (res == TSP_MORE && !(c->eof && c->off == c->len))
		return 0;
	if (res == TSP_MORE && tsp_stream_end(&c->in, &e) == 0) {
		snprintf(why, len, "%s closed the connection", c->peer);
		return -1;
	}
	tsp_err_str(&e, why, len);
	return -1;
}

int tsp_conn_recv(struct tsp_conn *c, struct tsp_msg *m, int timeout_ms,
		  char *why, size_t len)
{
	uint64_t deadline = now_mono_ms() + (uint64_t)timeout_ms;
	struct pollfd pfd = { .fd = c->fd, .events = POLLIN };
	ssize_t k;
	int r;

	for (;;) {
		r = tsp_conn_next(c, m, why, len);
		if (r)
			return r;
		k = tsp_conn_fill(c);
		if (k > 0 || (k == 0 && c->eof))
			continue;
		if (k != -EAGAIN) {
			snprintf(why, len, "cannot read from %s: %s", c->peer,
				 strerror((int)-k));
			return -1;
		}
		if (!left_ms(deadline) || poll(&pfd, 1, left_ms(deadline)) == 0) {
			snprintf(why, len, "%s said nothing in %d ms", c->peer,
				 timeout_ms);
			return -1;
		}
	}
}

/* refused: what to look for at the other end (hint, said in why) */
static int connect_to(int family, const uint8_t *addr, uint16_t port,
		      int timeout_ms, const char *refused, char *peer,
		      size_t psize, char *why, size_t len)
{
	struct sockaddr_storage ss = { 0 };
	struct sockaddr_in6 *s6 = (void *)&ss;
	struct sockaddr_in *s4 = (void *)&ss;
	struct pollfd pfd = { .events = POLLOUT };
	socklen_t sl, el = sizeof(int);
	int fd, err = 0;

	if (family == AF_INET) {
		s4->sin_family = AF_INET;
		s4->sin_port = htons(port);
		memcpy(&s4->sin_addr, addr, 4);
		sl = sizeof(*s4);
	} else {
		s6->sin6_family = AF_INET6;
		s6->sin6_port = htons(port);
		memcpy(&s6->sin6_addr, addr, 16);
		sl = sizeof(*s6);
	}
	tsp_sockaddr_str(&ss, peer, psize);
	fd = socket(family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		snprintf(why, len, "cannot make a socket: %s", strerror(errno));
		return -1;
	}
	pfd.fd = fd;
	if (connect(fd, (struct sockaddr *)&ss, sl) && errno != EINPROGRESS)
		err = errno;
	else if (poll(&pfd, 1, timeout_ms) == 0)
		err = ETIMEDOUT;
	else if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &el))
		err = errno;
	if (err) {
		snprintf(why, len, "cannot connect to the receiver %s: %s%s%s%s",
			 peer, strerror(err),
			 err == ECONNREFUSED ? " (is " : "",
			 err == ECONNREFUSED ? refused : "",
			 err == ECONNREFUSED ? " running there?)" : "");
		close(fd);
		return -1;
	}
	return fd;
}

/* A message the opening did not expect: what the receiver said, or what. */
static int unexpected(const struct tsp_conn *c, const struct tsp_msg *m,
		      const char *waiting, char *why, size_t len)
{
	if (m->type == TSP_ERROR)
		snprintf(why, len, "the receiver %s refused: %s: %s", c->peer,
			 tsp_error_name(m->u.error.code), m->u.error.text.s);
	else
		snprintf(why, len, "the receiver %s sent %s where %s was due",
			 c->peer, tsp_type_name(m->type), waiting);
	return -1;
}

static int dial(struct tsp_conn *c, int family, const uint8_t *addr,
		uint16_t port, const struct tsp_key *key, int timeout_ms,
		struct tsp_handshake *keep, char *why, size_t len)
{
	struct tsp_msg out = { .type = TSP_HELLO }, in;
	struct tsp_handshake hs;
	char peer[TSP_PEER_NAME], w[200];
	int fd, ret = -1;

	fd = connect_to(family, addr, port, timeout_ms, "`mtgctl recv`", peer,
			sizeof(peer), why, len);
	if (fd < 0) {
		tsp_conn_init(c, -1, TSP_FROM_SENDER, peer);
		return -1;
	}
	tsp_conn_init(c, fd, TSP_FROM_SENDER, peer);
	out.u.hello.major = TSP_VERSION_MAJOR;
	out.u.hello.minor = TSP_VERSION_MINOR;
	if (tsp_conn_send(c, &out, timeout_ms, why, len))
		return -1;
	if (tsp_conn_recv(c, &in, timeout_ms, w, sizeof(w)) < 0) {
		snprintf(why, len, "no TSP from %s (an mtg receiver answers a hello): %s",
			 peer, w);
		return -1;
	}
	if (in.type != TSP_HELLO) {
		unexpected(c, &in, "TSP_HELLO", why, len);
		tsp_msg_free(&in);
		return -1;
	}
	if (in.u.hello.major != TSP_VERSION_MAJOR ||
	    in.u.hello.minor > TSP_VERSION_MINOR) {
		snprintf(why, len, "the receiver %s speaks TSP %u.%u, this mtgctl %d.%d",
			 peer, in.u.hello.major, in.u.hello.minor,
			 TSP_VERSION_MAJOR, TSP_VERSION_MINOR);
		return -1;
	}
	tsp_hs_init(&hs, TSP_FROM_SENDER, key, &out.u.hello, &in.u.hello);
	if (tsp_conn_recv(c, &in, timeout_ms, why, len) < 0)
		goto out;
	if (in.type != TSP_CHALLENGE) {
		unexpected(c, &in, "TSP_CHALLENGE", why, len);
		tsp_msg_free(&in);
		goto out;
	}
	if (tsp_hs_answer(&hs, &in, &out, w, sizeof(w))) {
		snprintf(why, len, "the receiver %s: %s", peer, w);
		goto out;
	}
	if (tsp_conn_send(c, &out, timeout_ms, why, len) ||
	    tsp_conn_recv(c, &in, timeout_ms, why, len) < 0)
		goto out;
	if (in.type != TSP_AUTH_OK) {
		unexpected(c, &in, "TSP_AUTH_OK", why, len);
		tsp_msg_free(&in);
		goto out;
	}
	if (tsp_hs_confirm(&hs, &in, w, sizeof(w))) {
		snprintf(why, len, "the receiver %s did not prove it holds the key: %s",
			 peer, w);
		goto out;
	}
	if (keep)
		*keep = hs;
	ret = 0;
out:
	tsp_hs_wipe(&hs);
	return ret;
}

int tsp_dial_hs(struct tsp_conn *c, int family, const uint8_t *addr,
		uint16_t port, const struct tsp_key *key, int timeout_ms,
		struct tsp_handshake *keep, char *why, size_t len)
{
	if (!dial(c, family, addr, port, key, timeout_ms, keep, why, len))
		return 0;
	tsp_conn_close(c);
	return -1;
}

int tsp_dial(struct tsp_conn *c, int family, const uint8_t *addr,
	     uint16_t port, const struct tsp_key *key, int timeout_ms,
	     char *why, size_t len)
{
	return tsp_dial_hs(c, family, addr, port, key, timeout_ms, NULL, why,
			   len);
}

int tsp_dial_ditg(struct tsp_conn *c, int family, const uint8_t *addr,
		  uint16_t port, int timeout_ms, char *why, size_t len)
{
	struct tsp_msg out = { .type = TSP_CONNECT }, in;
	char peer[TSP_PEER_NAME], w[200];
	int fd;

	fd = connect_to(family, addr, port, timeout_ms, "ITGRecv", peer,
			sizeof(peer), why, len);
	tsp_conn_init(c, fd, TSP_FROM_SENDER, peer);
	if (fd < 0)
		return -1;
	c->ditg = true;
	if (tsp_conn_send(c, &out, timeout_ms, why, len))
		goto err_close;
	if (tsp_conn_recv(c, &in, timeout_ms, w, sizeof(w)) < 0) {
		snprintf(why, len, "no D-ITG signalling from %s (ITGRecv answers TSP_CONNECT): %s",
			 peer, w);
		goto err_close;
	}
	if (in.type == TSP_ACK_CONNECT)
		return 0;
	unexpected(c, &in, "TSP_ACK_CONNECT", why, len);
	tsp_msg_free(&in);
err_close:
	tsp_conn_close(c);
	return -1;
}

int tsp_clock_estimate(struct tsp_conn *c, unsigned int n, int timeout_ms,
		       struct tsp_clock *out, char *why, size_t len)
{
	struct tsp_msg m = { .type = TSP_TIME_REQ }, in;
	unsigned int i;

	memset(out, 0, sizeof(*out));
	for (i = 0; i < n; i++) {
		uint64_t t1 = now_tai(), t4, rtt, held;
		int64_t offset;

		m.u.time.t1 = t1;
		if (tsp_conn_send(c, &m, timeout_ms, why, len) ||
		    tsp_conn_recv(c, &in, timeout_ms, why, len) < 0)
			return -1;
		t4 = now_tai();
		if (in.type != TSP_TIME_RESP || in.u.time.t1 != t1 ||
		    in.u.time.t3 < in.u.time.t2) {
			snprintf(why, len, "%s answered a time request with %s",
				 c->peer, in.type == TSP_TIME_RESP ?
				 "stamps that make no sense" :
				 tsp_type_name(in.type));
			tsp_msg_free(&in);
			return -1;
		}
		held = in.u.time.t3 - in.u.time.t2;
		rtt = t4 - t1 > held ? t4 - t1 - held : 0;
		offset = ((int64_t)(in.u.time.t2 - t1) +
			  (int64_t)(in.u.time.t3 - t4)) / 2;
		if (!out->valid || rtt < out->rtt_ns) {
			out->valid = true;
			out->offset_ns = offset;
			out->rtt_ns = rtt;
			/* the clocks are read to the nanosecond: at least 1 */
			out->uncertainty_ns = rtt / 2 + 1;
		}
		out->samples++;
	}
	return 0;
}
