// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Messages over connections into records (conns.h). Each connection is
 * read without blocking; a message's receive stamp is the kernel's
 * (SO_TIMESTAMPNS) of the data that completed it: over TCP, the segment
 * that brought its last byte, read by itself. A stream whose length or
 * header is not MTG's cannot be followed further and is closed; a
 * message's whole length is the table's length over UDP, as the TG sent
 * it (the record's len), with no interface of the session's.
 */
#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "idf/idf.h"
#include "rx/conns.h"
#include "util/clock.h"
#include "util/log.h"
#include "util/mtgwire.h"

#ifndef SOCK_DCCP
#define SOCK_DCCP	6
#endif
#ifndef IPPROTO_DCCP
#define IPPROTO_DCCP	33
#endif

#define PREFIX		2		/* TCP's length before a message */
#define MSG_MAX		65535
#define UDP_OVER_IPV4	(14 + 20 + 8)	/* a table length less the message */
#define UDP_OVER_IPV6	(14 + 40 + 8)
#define CONNS_MAX	1024

struct conn {
	int fd;
	int protocol;
	bool ipv6;
	uint32_t have;		/* bytes of buf read (the prefix included) */
	uint32_t need;		/* of the message; 0: its length unknown */
	uint64_t stamp;		/* CLOCK_TAI of the last data read; 0: none */
	uint8_t buf[PREFIX + MSG_MAX];
};

struct conn_rx {
	int listen_fd[CONN_SPECS_MAX];
	int protocol[CONN_SPECS_MAX];
	size_t nlisten;
	struct conn *conns[CONNS_MAX];
	size_t nconns;
	struct conn_stats st;
	uint32_t run_id;	/* recorded; 0: every run */
	int64_t tai_minus_real;	/* ns, at the last poll */
};

const char *conn_spec_parse(const char *s, struct conn_spec *out)
{
	static const struct {
		const char *name;
		int type, protocol;
	} protos[] = {
		{ "tcp", SOCK_STREAM, IPPROTO_TCP },
		{ "sctp", SOCK_STREAM, IPPROTO_SCTP },
		{ "dccp", SOCK_DCCP, IPPROTO_DCCP },
	};
	const char *colon = strchr(s, ':'), *why;
	struct idf_addr a;
	size_t i;

	memset(out, 0, sizeof(*out));
	snprintf(out->text, sizeof(out->text), "%s", s);
	for (i = 0; colon && i < sizeof(protos) / sizeof(protos[0]); i++)
		if (strlen(protos[i].name) == (size_t)(colon - s) &&
		    !strncmp(s, protos[i].name, (size_t)(colon - s)))
			break;
	if (!colon || i == sizeof(protos) / sizeof(protos[0]))
		return "expected PROTO:ADDR:PORT (PROTO tcp, sctp or dccp)";
	why = idf_parse_endpoint(colon + 1, true, &a);
	if (why)
		return *why ? why :
			"expected PROTO:ADDR:PORT (IPv6 in brackets)";
	out->type = protos[i].type;
	out->protocol = protos[i].protocol;
	if (a.family == AF_INET6) {
		struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)&out->addr;

		sin6->sin6_family = AF_INET6;
		sin6->sin6_port = htons(a.port);
		memcpy(&sin6->sin6_addr, a.addr, 16);
		out->alen = sizeof(*sin6);
	} else {
		struct sockaddr_in *sin = (struct sockaddr_in *)&out->addr;

		sin->sin_family = AF_INET;
		sin->sin_port = htons(a.port);
		memcpy(&sin->sin_addr, a.addr, 4);
		out->alen = sizeof(*sin);
	}
	return NULL;
}

static int listen_on(const struct conn_spec *sp)
{
	int one = 1, fd, err;

	fd = socket(sp->addr.ss_family, sp->type | SOCK_NONBLOCK | SOCK_CLOEXEC,
		    sp->protocol);
	if (fd < 0) {
		err = -errno;
		pr_err("listen --accept %s: %s%s\n", sp->text, strerror(-err),
		       err == -EPROTONOSUPPORT || err == -ESOCKTNOSUPPORT ?
		       " (the protocol's module is not in this kernel)" : "");
		return err;
	}
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (const struct sockaddr *)&sp->addr, sp->alen) ||
	    listen(fd, 64)) {
		err = -errno;
		pr_err("listen --accept %s: %s\n", sp->text, strerror(-err));
		close(fd);
		return err;
	}
	return fd;
}

int conn_rx_open(struct conn_rx **out, const struct conn_spec *specs,
		 size_t n, uint32_t run_id)
{
	struct conn_rx *c = calloc(1, sizeof(*c));
	size_t i;
	int fd;

	if (!c) {
		pr_err("out of memory\n");
		return -ENOMEM;
	}
	c->run_id = run_id;
	for (i = 0; i < n && i < CONN_SPECS_MAX; i++) {
		fd = listen_on(&specs[i]);
		if (fd < 0) {
			conn_rx_close(c);
			return fd;
		}
		c->listen_fd[c->nlisten] = fd;
		c->protocol[c->nlisten++] = specs[i].protocol;
	}
	*out = c;
	return 0;
}

static void take_new(struct conn_rx *c)
{
	struct sockaddr_storage peer;
	size_t i;
	int one = 1;

	for (i = 0; i < c->nlisten; i++) {
		for (;;) {
			socklen_t len = sizeof(peer);
			struct conn *k;
			int fd = accept4(c->listen_fd[i], (struct sockaddr *)&peer,
					 &len, SOCK_NONBLOCK | SOCK_CLOEXEC);

			if (fd < 0)
				break;
			k = c->nconns < CONNS_MAX ? calloc(1, sizeof(*k)) : NULL;
			if (!k) {
				pr_err("listen --accept: %s: a connection refused\n",
				       c->nconns < CONNS_MAX ? "out of memory" :
				       "1024 connections open already");
				c->st.errors++;
				close(fd);
				continue;
			}
			setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPNS, &one,
				   sizeof(one));
			k->fd = fd;
			k->protocol = c->protocol[i];
			k->ipv6 = peer.ss_family == AF_INET6;
			c->conns[c->nconns++] = k;
			c->st.accepted++;
		}
	}
}

/* Up to len bytes into p; the kernel's stamp of them in k->stamp. */
static ssize_t read_stamped(struct conn_rx *c, struct conn *k, uint8_t *p,
			    size_t len)
{
	char control[CMSG_SPACE(sizeof(struct timespec))];
	struct iovec iov = { .iov_base = p, .iov_len = len };
	struct msghdr msg = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = control, .msg_controllen = sizeof(control),
	};
	struct cmsghdr *cm;
	ssize_t got = recvmsg(k->fd, &msg, MSG_DONTWAIT);

	if (got <= 0)
		return got < 0 ? -errno : 0;
	k->stamp = 0;
	for (cm = CMSG_FIRSTHDR(&msg); cm; cm = CMSG_NXTHDR(&msg, cm))
		if (cm->cmsg_level == SOL_SOCKET &&
		    cm->cmsg_type == SCM_TIMESTAMPNS) {
			struct timespec ts;

			memcpy(&ts, CMSG_DATA(cm), sizeof(ts));
			k->stamp = (uint64_t)((int64_t)ts.tv_sec * 1000000000LL +
					      ts.tv_nsec + c->tai_minus_real);
		}
	return got;
}

/* The record of a whole message of len bytes at m; 1 if it is not MTG. */
static int deliver(struct conn_rx *c, struct conn *k, const uint8_t *m,
		   uint32_t len, struct receiver *x)
{
	struct mtg_rx_rec r = { 0 };
	struct mtg_hdr hdr;

	if (len < MTG_HDR_LEN) {
		c->st.not_mtg++;
		return 1;
	}
	memcpy(&hdr, m, sizeof(hdr));	/* m is unaligned after TCP's prefix */
	if (be32toh(hdr.magic) != MTG_HDR_MAGIC) {
		c->st.not_mtg++;
		return 1;
	}
	r.rx_ns = k->stamp ? k->stamp : now_tai();
	r.flags = k->stamp ? MTG_RX_STAMP_SW : MTG_RX_STAMP_HOOK;
	if (k->ipv6)
		r.flags |= MTG_RX_F_IPV6;
	r.len = (uint16_t)(len + (k->ipv6 ? UDP_OVER_IPV6 : UDP_OVER_IPV4));
	r.iface = CONN_IFACE;
	r.run_id = be32toh(hdr.run_id);
	r.tg_id = be32toh(hdr.tg_id);
	r.seq = be64toh(hdr.seq);
	r.sched_ns = be64toh(hdr.sched_ns);
	r.tx_ns = be64toh(hdr.tx_ns);
	for (int i = 0; i < 4; i++)
		r.tp_ns[i] = be64toh(hdr.tp_ns[i]);
	memcpy(r.nut, hdr.nut, sizeof(r.nut));
	r.payload_len = (uint16_t)(len - MTG_HDR_LEN);
	if (mtg_crc32c(m, MTG_HDR_CRC_LEN) != be32toh(hdr.crc)) {
		r.flags |= MTG_RX_F_HDR_CORRUPT;
	} else if (c->run_id && r.run_id != c->run_id) {
		c->st.other_runs++;	/* as the module passes them on */
		return 0;
	} else {
		r.wrong_bits = mtg_pattern_wrong_bits(hdr.patt_kind,
						      hdr.patt_value,
						      be32toh(hdr.patt_seed),
						      m + MTG_HDR_LEN,
						      r.payload_len);
	}
	return receiver_take(x, &r);
}

/*
 * What one connection has: records given, 0, or < 0 when it is to be
 * closed (-EPIPE: its end, cleanly).
 */
static int64_t read_conn(struct conn_rx *c, struct conn *k,
			 struct receiver *x)
{
	int64_t taken = 0;
	int err;

	for (;;) {
		ssize_t got;

		if (k->protocol != IPPROTO_TCP) {
			/* a message a read */
			got = read_stamped(c, k, k->buf, MSG_MAX);
			if (got <= 0)
				return got == -EAGAIN ? taken : got ? got : -EPIPE;
			err = deliver(c, k, k->buf, (uint32_t)got, x);
			if (err < 0)
				return err;
			taken += !err;
			continue;
		}
		/* the length, then exactly the message: its last bytes' stamp */
		got = read_stamped(c, k, k->buf + k->have,
				   (k->need ? k->need : PREFIX) - k->have);
		if (got <= 0) {
			if (got == -EAGAIN)
				return taken;
			if (k->have) {
				c->st.cut++;
				return -EPROTO;	/* counted: closed */
			}
			return got ? got : -EPIPE;
		}
		k->have += (uint32_t)got;
		if (!k->need && k->have == PREFIX) {
			uint32_t len = (uint32_t)k->buf[0] << 8 | k->buf[1];

			if (len < MTG_HDR_LEN) {
				c->st.not_mtg++;
				return -EPROTO;
			}
			k->need = PREFIX + len;
		}
		if (!k->need || k->have < k->need)
			continue;
		err = deliver(c, k, k->buf + PREFIX, k->need - PREFIX, x);
		if (err < 0)
			return err;
		if (err > 0)		/* not MTG: the stream is lost */
			return -EPROTO;
		k->have = k->need = 0;
		taken++;
	}
}

int64_t conn_rx_poll(struct conn_rx *c, struct receiver *x)
{
	struct timespec tai, real;
	int64_t taken = 0, got;
	size_t i = 0;

	if (!c)
		return 0;
	clock_gettime(CLOCK_TAI, &tai);
	clock_gettime(CLOCK_REALTIME, &real);
	c->tai_minus_real = (int64_t)(tai.tv_sec - real.tv_sec) * 1000000000LL +
		(tai.tv_nsec - real.tv_nsec);
	/* whole seconds: the offset is a count of leap seconds */
	c->tai_minus_real = (c->tai_minus_real + 500000000LL) / 1000000000LL *
		1000000000LL;
	take_new(c);
	while (i < c->nconns) {
		struct conn *k = c->conns[i];

		got = read_conn(c, k, x);
		if (got >= 0) {
			taken += got;
			i++;
			continue;
		}
		if (got == -ENOMEM)
			return got;
		if (got == -EPIPE)
			c->st.ended++;
		else if (got != -EPROTO)
			c->st.errors++;
		close(k->fd);
		free(k);
		c->conns[i] = c->conns[--c->nconns];
	}
	return taken;
}

void conn_rx_stats(const struct conn_rx *c, struct conn_stats *st)
{
	if (c)
		*st = c->st;
	else
		memset(st, 0, sizeof(*st));
}

void conn_rx_close(struct conn_rx *c)
{
	size_t i;

	if (!c)
		return;
	for (i = 0; i < c->nlisten; i++)
		close(c->listen_fd[i]);
	for (i = 0; i < c->nconns; i++) {
		close(c->conns[i]->fd);
		free(c->conns[i]);
	}
	free(c);
}
