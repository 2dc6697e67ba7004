// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The "mtg" generic netlink family through libnl-genl-3 (family.h): the
 * family resolved by name, requests sent, replies and notifications parsed
 * with nla_parse against policies made from the lists below.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>
#include <netlink/netlink.h>
#include <netlink/socket.h>

#include "nl/family.h"
#include "util/log.h"

#define HIST_BYTES	(sizeof(__u64) * MTG_LAT_BUCKETS)

/*
 * The attributes mtgctl reads, set by set: X(SET, NAME, libnl type, exact
 * length or 0, needed in every reply of the set). From them come the
 * policies nla_parse checks replies against, the attributes a reply must
 * hold, and the list `show --ids` prints.
 */
#define IFACE_ATTRS(X)					\
	X(IFACE, ID, NLA_U32, 0, 1)			\
	X(IFACE, IFINDEX, NLA_U32, 0, 1)		\
	X(IFACE, NAME, NLA_STRING, 0, 1)		\
	X(IFACE, STATE, NLA_U32, 0, 1)			\
	X(IFACE, NETNS_COOKIE, NLA_U64, 0, 1)

#define SESSION_ATTRS(X)				\
	X(SESSION, ID, NLA_U64, 0, 1)			\
	X(SESSION, PID, NLA_U32, 0, 1)			\
	X(SESSION, COMM, NLA_STRING, 0, 1)		\
	X(SESSION, FLAGS, NLA_U32, 0, 1)		\
	X(SESSION, MEM_BYTES, NLA_U64, 0, 1)		\
	X(SESSION, IFACES, NLA_U32, 0, 1)		\
	X(SESSION, IFACES_LOST, NLA_U32, 0, 1)		\
	X(SESSION, EVENTS, NLA_U64, 0, 1)		\
	X(SESSION, IFACE, NLA_NESTED, 0, 0)		\
	X(SESSION, TGS, NLA_U32, 0, 1)

#define TG_ATTRS(X)					\
	X(TG, SESSION_ID, NLA_U64, 0, 1)		\
	X(TG, ID, NLA_U32, 0, 1)			\
	X(TG, STATE, NLA_U32, 0, 1)			\
	X(TG, ERROR, NLA_U32, 0, 1)			\
	X(TG, FLAGS, NLA_U32, 0, 1)			\
	X(TG, CPU, NLA_U32, 0, 1)			\
	X(TG, IFINDEX, NLA_U32, 0, 1)			\
	X(TG, RUN_ID, NLA_U32, 0, 1)			\
	X(TG, SENT, NLA_U64, 0, 1)			\
	X(TG, BYTES, NLA_U64, 0, 1)			\
	X(TG, TX_ERRORS, NLA_U64, 0, 1)			\
	X(TG, SKIPPED_LATE, NLA_U64, 0, 1)		\
	X(TG, BAD_ENTRIES, NLA_U64, 0, 1)		\
	X(TG, UNDERRUNS, NLA_U64, 0, 1)			\
	X(TG, LATE_PACKETS, NLA_U64, 0, 1)		\
	X(TG, EVENTS, NLA_U64, 0, 1)			\
	X(TG, CTRL_SENT, NLA_U64, 0, 1)			\
	X(TG, NEXT_SEQ, NLA_U64, 0, 1)			\
	X(TG, NEXT_NS, NLA_U64, 0, 1)			\
	X(TG, LATENESS_MAX, NLA_U64, 0, 1)		\
	X(TG, LATENESS_SUM, NLA_U64, 0, 1)		\
	X(TG, EARLY, NLA_U64, 0, 1)			\
	X(TG, LEAD, NLA_U64, 0, 1)			\
	X(TG, SPIN, NLA_U64, 0, 1)			\
	X(TG, LATENESS_HIST, NLA_UNSPEC, HIST_BYTES, 1)	\
	X(TG, EVENT, NLA_U32, 0, 0)			\
	X(TG, SOCK_ERROR, NLA_U32, 0, 0)		\
	X(TG, RETRANS, NLA_U64, 0, 0)			\
	X(TG, WRITE_WAITS, NLA_U64, 0, 0)

#define POLICY(_set, _name, _type, _len, _need)		\
	[MTG_A_##_set##_##_name] = { .type = (_type), .minlen = (_len), \
				     .maxlen = (_len) },
static struct nla_policy iface_policy[MTG_A_IFACE_MAX + 1] = {
	IFACE_ATTRS(POLICY)
};
static struct nla_policy session_policy[MTG_A_SESSION_MAX + 1] = {
	SESSION_ATTRS(POLICY)
};
static struct nla_policy tg_policy[MTG_A_TG_MAX + 1] = {
	TG_ATTRS(POLICY)
};
#undef POLICY

/* The attributes a reply must hold: -1 where one need not, -2 at the end. */
#define NEEDED(_set, _name, _type, _len, _need)		\
	((_need) ? MTG_A_##_set##_##_name : -1),
static const int iface_needed[] = { IFACE_ATTRS(NEEDED) -2 };
static const int session_needed[] = { SESSION_ATTRS(NEEDED) -2 };
static const int tg_needed[] = { TG_ATTRS(NEEDED) -2 };
#undef NEEDED

struct nl_id {
	const char *id;		/* the uapi's name */
	int value;
	int type;		/* NLA_*, or -1: a command */
};

#define ATTR_ID(_set, _name, _type, _len, _need)		\
	{ "MTG_A_" #_set "_" #_name, MTG_A_##_set##_##_name, (_type) },
#define CMD_ID(_cmd)	{ #_cmd, _cmd, -1 }
static const struct nl_id ids[] = {
	IFACE_ATTRS(ATTR_ID)
	SESSION_ATTRS(ATTR_ID)
	TG_ATTRS(ATTR_ID)
	CMD_ID(MTG_CMD_SESSION_GET),
	CMD_ID(MTG_CMD_SESSION_NEW_NTF),
	CMD_ID(MTG_CMD_SESSION_END_NTF),
	CMD_ID(MTG_CMD_IFACE_LOST_NTF),
	CMD_ID(MTG_CMD_TG_GET),
	CMD_ID(MTG_CMD_TG_EVENT_NTF),
};
#undef ATTR_ID
#undef CMD_ID

static const char *type_name(int type)
{
	switch (type) {
	case NLA_U32:
		return "u32";
	case NLA_U64:
		return "u64";
	case NLA_STRING:
		return "string";
	case NLA_NESTED:
		return "nest";
	case NLA_UNSPEC:
		return "binary";
	}
	return "?";
}

void mtg_nl_print_ids(FILE *f)
{
	size_t i;

	fprintf(f, "family MTG_FAMILY_NAME %s\n", MTG_FAMILY_NAME);
	fprintf(f, "family MTG_FAMILY_VERSION %d\n", MTG_FAMILY_VERSION);
	fprintf(f, "group MTG_MCGRP_EVENTS %s\n", MTG_MCGRP_EVENTS);
	/* The sizes of the tables nla_parse fills. */
	fprintf(f, "max MTG_A_IFACE_MAX %d\n", MTG_A_IFACE_MAX);
	fprintf(f, "max MTG_A_SESSION_MAX %d\n", MTG_A_SESSION_MAX);
	fprintf(f, "max MTG_A_TG_MAX %d\n", MTG_A_TG_MAX);
	for (i = 0; i < sizeof(ids) / sizeof(ids[0]); i++) {
		if (ids[i].type < 0)
			fprintf(f, "cmd %s %d\n", ids[i].id, ids[i].value);
		else
			fprintf(f, "attr %s %d %s\n", ids[i].id, ids[i].value,
				type_name(ids[i].type));
	}
	mtg_nl_print_value_ids(f);
}

struct mtg_nl {
	struct nl_sock *sk;
	int family;
	int err;		/* of a callback: a reply that did not parse */
};

int mtg_nl_open(struct mtg_nl **out, bool events)
{
	struct mtg_nl *nl;
	int err, grp;

	nl = calloc(1, sizeof(*nl));
	if (!nl)
		return -NLE_NOMEM;
	nl->sk = nl_socket_alloc();
	if (!nl->sk) {
		free(nl);
		return -NLE_NOMEM;
	}
	/* A reply or an error, no ACK after a reply: one read a request. */
	nl_socket_disable_auto_ack(nl->sk);
	err = genl_connect(nl->sk);
	if (err)
		goto err_close;
	nl->family = genl_ctrl_resolve(nl->sk, MTG_FAMILY_NAME);
	if (nl->family < 0) {
		err = nl->family;
		goto err_close;
	}
	if (events) {
		grp = genl_ctrl_resolve_grp(nl->sk, MTG_FAMILY_NAME,
					    MTG_MCGRP_EVENTS);
		if (grp < 0) {
			err = grp;
			goto err_close;
		}
		/* Notifications carry no sequence number of ours. */
		nl_socket_disable_seq_check(nl->sk);
		/* Room for bursts; an overrun is still seen (ENOBUFS). */
		err = nl_socket_set_buffer_size(nl->sk, 1 << 20, 0);
		if (!err)
			err = nl_socket_add_membership(nl->sk, grp);
		if (!err)
			err = nl_socket_set_nonblocking(nl->sk);
		if (err)
			goto err_close;
	}
	*out = nl;
	return 0;

err_close:
	nl_socket_free(nl->sk);
	free(nl);
	return err;
}

void mtg_nl_close(struct mtg_nl *nl)
{
	if (!nl)
		return;
	nl_socket_free(nl->sk);
	free(nl);
}

void mtg_nl_perror(const char *cmd, const char *what, int err)
{
	if (err == -NLE_OBJ_NOTFOUND && !strcmp(what, "open"))
		pr_err("%s: no generic netlink family '%s' here: is mtg.ko loaded? (modprobe mtg)\n",
		       cmd, MTG_FAMILY_NAME);
	else
		pr_err("%s: %s: %s\n", cmd, what, nl_geterror(err));
}

int mtg_nl_fd(const struct mtg_nl *nl)
{
	return nl_socket_get_fd(nl->sk);
}

/* A reply that did not parse: said once, and the request fails. */
static int bad_reply(struct mtg_nl *nl, const char *what)
{
	if (!nl->err)
		pr_err("netlink: the module's message %s (built from another spec?)\n",
		       what);
	nl->err = -NLE_PARSE_ERR;
	return NL_STOP;
}

/* The first attribute of needed (a -2-ended array) tb[] lacks, or 0. */
static int missing(struct nlattr **tb, const int *needed)
{
	for (; *needed != -2; needed++)
		if (*needed >= 0 && !tb[*needed])
			return *needed;
	return 0;
}

static int parse_iface(struct nlattr *nest, struct mtg_nl_iface *i)
{
	struct nlattr *tb[MTG_A_IFACE_MAX + 1];

	if (nla_parse_nested(tb, MTG_A_IFACE_MAX, nest, iface_policy) ||
	    missing(tb, iface_needed))
		return -NLE_PARSE_ERR;
	i->id = nla_get_u32(tb[MTG_A_IFACE_ID]);
	i->ifindex = nla_get_u32(tb[MTG_A_IFACE_IFINDEX]);
	nla_strlcpy(i->name, tb[MTG_A_IFACE_NAME], sizeof(i->name));
	i->state = nla_get_u32(tb[MTG_A_IFACE_STATE]);
	i->netns_cookie = nla_get_u64(tb[MTG_A_IFACE_NETNS_COOKIE]);
	return 0;
}

/*
 * A session's message into s (its ifaces malloc'd); whole: every
 * attribute of session-get's reply, else only id and an iface
 * (iface-lost-ntf). 0, or -NLE_* with what went wrong in *why.
 */
static int parse_session(struct nl_msg *msg, struct mtg_nl_session *s,
			 bool whole, const char **why)
{
	struct genlmsghdr *gh = nlmsg_data(nlmsg_hdr(msg));
	struct nlattr *tb[MTG_A_SESSION_MAX + 1], *a;
	size_t n = 0;
	int rem;

	memset(s, 0, sizeof(*s));
	*why = "of a session does not parse";
	if (genlmsg_parse(nlmsg_hdr(msg), 0, tb, MTG_A_SESSION_MAX,
			  session_policy))
		return -NLE_PARSE_ERR;
	*why = "of a session lacks an attribute";
	if (whole ? missing(tb, session_needed) : !tb[MTG_A_SESSION_ID])
		return -NLE_MISSING_ATTR;
	s->id = nla_get_u64(tb[MTG_A_SESSION_ID]);
	/* iface is multi-attr: nla_parse keeps the last; count them all. */
	nla_for_each_attr(a, genlmsg_attrdata(gh, 0), genlmsg_attrlen(gh, 0),
			  rem)
		n += nla_type(a) == MTG_A_SESSION_IFACE;
	if (!whole && !n)
		return -NLE_MISSING_ATTR;
	if (n) {
		s->iface = calloc(n, sizeof(*s->iface));
		if (!s->iface) {
			*why = "of a session does not fit in memory";
			return -NLE_NOMEM;
		}
	}
	*why = "of a session has an interface that does not parse";
	nla_for_each_attr(a, genlmsg_attrdata(gh, 0), genlmsg_attrlen(gh, 0),
			  rem) {
		if (nla_type(a) != MTG_A_SESSION_IFACE)
			continue;
		if (parse_iface(a, &s->iface[s->n_iface])) {
			free(s->iface);
			s->iface = NULL;
			s->n_iface = 0;
			return -NLE_PARSE_ERR;
		}
		s->n_iface++;
	}
	if (!whole)
		return 0;
	s->pid = nla_get_u32(tb[MTG_A_SESSION_PID]);
	nla_strlcpy(s->comm, tb[MTG_A_SESSION_COMM], sizeof(s->comm));
	s->flags = nla_get_u32(tb[MTG_A_SESSION_FLAGS]);
	s->mem_bytes = nla_get_u64(tb[MTG_A_SESSION_MEM_BYTES]);
	s->ifaces = nla_get_u32(tb[MTG_A_SESSION_IFACES]);
	s->ifaces_lost = nla_get_u32(tb[MTG_A_SESSION_IFACES_LOST]);
	s->events = nla_get_u64(tb[MTG_A_SESSION_EVENTS]);
	s->tgs = nla_get_u32(tb[MTG_A_SESSION_TGS]);
	return 0;
}

/* A TG's message into t; its event only in tg-event-ntf. */
static int parse_tg(struct nl_msg *msg, struct mtg_nl_tg *t, bool event,
		    const char **why)
{
	struct nlattr *tb[MTG_A_TG_MAX + 1];
	struct mtg_tg_stats *st = &t->st;

	memset(t, 0, sizeof(*t));
	*why = "of a traffic generator does not parse";
	if (genlmsg_parse(nlmsg_hdr(msg), 0, tb, MTG_A_TG_MAX, tg_policy))
		return -NLE_PARSE_ERR;
	*why = "of a traffic generator lacks an attribute";
	if (missing(tb, tg_needed) || (event && !tb[MTG_A_TG_EVENT]))
		return -NLE_MISSING_ATTR;
	t->session_id = nla_get_u64(tb[MTG_A_TG_SESSION_ID]);
	t->flags = nla_get_u32(tb[MTG_A_TG_FLAGS]);
	t->ifindex = nla_get_u32(tb[MTG_A_TG_IFINDEX]);
	t->run_id = nla_get_u32(tb[MTG_A_TG_RUN_ID]);
	if (event)
		t->event = nla_get_u32(tb[MTG_A_TG_EVENT]);
	st->tg_id = nla_get_u32(tb[MTG_A_TG_ID]);
	st->state = nla_get_u32(tb[MTG_A_TG_STATE]);
	st->error = nla_get_u32(tb[MTG_A_TG_ERROR]);
	st->cpu = nla_get_u32(tb[MTG_A_TG_CPU]);
	st->sent = nla_get_u64(tb[MTG_A_TG_SENT]);
	st->bytes = nla_get_u64(tb[MTG_A_TG_BYTES]);
	st->tx_errors = nla_get_u64(tb[MTG_A_TG_TX_ERRORS]);
	st->skipped_late = nla_get_u64(tb[MTG_A_TG_SKIPPED_LATE]);
	st->bad_entries = nla_get_u64(tb[MTG_A_TG_BAD_ENTRIES]);
	st->underruns = nla_get_u64(tb[MTG_A_TG_UNDERRUNS]);
	st->late_packets = nla_get_u64(tb[MTG_A_TG_LATE_PACKETS]);
	st->events = nla_get_u64(tb[MTG_A_TG_EVENTS]);
	st->ctrl_sent = nla_get_u64(tb[MTG_A_TG_CTRL_SENT]);
	st->next_seq = nla_get_u64(tb[MTG_A_TG_NEXT_SEQ]);
	st->next_ns = nla_get_u64(tb[MTG_A_TG_NEXT_NS]);
	st->lateness_max_ns = nla_get_u64(tb[MTG_A_TG_LATENESS_MAX]);
	st->lateness_sum_ns = nla_get_u64(tb[MTG_A_TG_LATENESS_SUM]);
	st->early = nla_get_u64(tb[MTG_A_TG_EARLY]);
	st->lead_ns = nla_get_u64(tb[MTG_A_TG_LEAD]);
	st->spin_ns = nla_get_u64(tb[MTG_A_TG_SPIN]);
	/* since ABI 1.7 */
	if (tb[MTG_A_TG_SOCK_ERROR])
		st->sock_error = nla_get_u32(tb[MTG_A_TG_SOCK_ERROR]);
	if (tb[MTG_A_TG_RETRANS])
		st->retrans = nla_get_u64(tb[MTG_A_TG_RETRANS]);
	if (tb[MTG_A_TG_WRITE_WAITS])
		st->write_waits = nla_get_u64(tb[MTG_A_TG_WRITE_WAITS]);
	/* The policy asked for exactly HIST_BYTES. */
	memcpy(st->lateness_hist, nla_data(tb[MTG_A_TG_LATENESS_HIST]),
	       HIST_BYTES);
	return 0;
}

/* The command of a message, or -1 if it is not one of the family. */
static int msg_cmd(struct mtg_nl *nl, struct nl_msg *msg)
{
	struct nlmsghdr *nlh = nlmsg_hdr(msg);

	if (nlh->nlmsg_type != nl->family ||
	    !genlmsg_valid_hdr(nlh, 0))
		return -1;
	return ((struct genlmsghdr *)nlmsg_data(nlh))->cmd;
}

/* Send msg (freed) and read what answers it, each message to cb. */
static int request(struct mtg_nl *nl, struct nl_msg *msg,
		   int (*cb)(struct nl_msg *msg, void *arg), void *arg)
{
	int err;

	nl->err = 0;
	err = nl_socket_modify_cb(nl->sk, NL_CB_VALID, NL_CB_CUSTOM, cb, arg);
	if (!err)
		err = nl_send_auto(nl->sk, msg);
	nlmsg_free(msg);
	if (err < 0)
		return err;
	err = nl_recvmsgs_default(nl->sk);
	return nl->err ? nl->err : err;
}

static struct nl_msg *new_request(struct mtg_nl *nl, uint8_t cmd, bool dump)
{
	struct nl_msg *msg = nlmsg_alloc();

	if (msg && !genlmsg_put(msg, NL_AUTO_PORT, NL_AUTO_SEQ, nl->family, 0,
				dump ? NLM_F_DUMP : 0, cmd,
				MTG_FAMILY_VERSION)) {
		nlmsg_free(msg);
		msg = NULL;
	}
	return msg;
}

struct session_list {
	struct mtg_nl *nl;
	struct mtg_nl_session *s;
	size_t n, size;
};

static int session_got(struct nl_msg *msg, void *arg)
{
	struct session_list *l = arg;
	struct mtg_nl_session s, *more;
	const char *why;

	if (msg_cmd(l->nl, msg) != MTG_CMD_SESSION_GET)
		return bad_reply(l->nl, "answering session-get is not one");
	if (parse_session(msg, &s, true, &why))
		return bad_reply(l->nl, why);
	if (l->n == l->size) {
		l->size = l->size ? 2 * l->size : 16;
		more = realloc(l->s, l->size * sizeof(*more));
		if (!more) {
			free(s.iface);
			l->nl->err = -NLE_NOMEM;
			return NL_STOP;
		}
		l->s = more;
	}
	l->s[l->n++] = s;
	return NL_OK;
}

int mtg_nl_sessions(struct mtg_nl *nl, uint64_t id,
		    struct mtg_nl_session **out, size_t *n)
{
	struct session_list l = { .nl = nl };
	struct nl_msg *msg;
	int err;

	msg = new_request(nl, MTG_CMD_SESSION_GET, id == MTG_NL_ALL);
	if (!msg)
		return -NLE_NOMEM;
	if (id != MTG_NL_ALL &&
	    nla_put_u64(msg, MTG_A_SESSION_ID, id) < 0) {
		nlmsg_free(msg);
		return -NLE_NOMEM;
	}
	err = request(nl, msg, session_got, &l);
	if (err < 0) {
		mtg_nl_sessions_free(l.s, l.n);
		return err;
	}
	*out = l.s;
	*n = l.n;
	return 0;
}

void mtg_nl_sessions_free(struct mtg_nl_session *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(s[i].iface);
	free(s);
}

struct tg_walk {
	struct mtg_nl *nl;
	int (*cb)(const struct mtg_nl_tg *t, void *arg);
	void *arg;
	int ret;		/* cb's, if it stopped the walk */
	struct mtg_nl_tg t;	/* a TG with its histogram: not on the stack */
};

static int tg_got(struct nl_msg *msg, void *arg)
{
	struct tg_walk *w = arg;
	const char *why;

	if (msg_cmd(w->nl, msg) != MTG_CMD_TG_GET)
		return bad_reply(w->nl, "answering tg-get is not one");
	if (parse_tg(msg, &w->t, false, &why))
		return bad_reply(w->nl, why);
	w->ret = w->cb(&w->t, w->arg);
	return w->ret ? NL_STOP : NL_OK;
}

int mtg_nl_tgs(struct mtg_nl *nl, uint64_t sid, uint64_t tg,
	       int (*cb)(const struct mtg_nl_tg *t, void *arg), void *arg)
{
	struct tg_walk *w;
	struct nl_msg *msg;
	int err = -NLE_NOMEM;

	w = calloc(1, sizeof(*w));
	msg = new_request(nl, MTG_CMD_TG_GET, tg == MTG_NL_ALL);
	if (!w || !msg)
		goto out_free;
	if ((sid != MTG_NL_ALL &&
	     nla_put_u64(msg, MTG_A_TG_SESSION_ID, sid) < 0) ||
	    (tg != MTG_NL_ALL && nla_put_u32(msg, MTG_A_TG_ID, tg) < 0))
		goto out_free;
	w->nl = nl;
	w->cb = cb;
	w->arg = arg;
	err = request(nl, msg, tg_got, w);
	msg = NULL;
	if (w->ret)
		err = w->ret;
out_free:
	nlmsg_free(msg);
	free(w);
	return err;
}

struct event_walk {
	struct mtg_nl *nl;
	void (*cb)(const struct mtg_nl_event *e, void *arg);
	void *arg;
	struct mtg_nl_session s;
	struct mtg_nl_tg t;
};

static int event_got(struct nl_msg *msg, void *arg)
{
	struct event_walk *w = arg;
	struct mtg_nl_event e = { 0 };
	const char *why = NULL;
	int cmd = msg_cmd(w->nl, msg);

	if (cmd < 0)
		return NL_OK;		/* not the family's */
	e.cmd = cmd;
	switch (cmd) {
	case MTG_CMD_SESSION_NEW_NTF:
	case MTG_CMD_SESSION_END_NTF:
	case MTG_CMD_IFACE_LOST_NTF:
		if (parse_session(msg, &w->s,
				  cmd != MTG_CMD_IFACE_LOST_NTF, &why))
			return bad_reply(w->nl, why);
		e.session = &w->s;
		w->cb(&e, w->arg);
		free(w->s.iface);
		break;
	case MTG_CMD_TG_EVENT_NTF:
		if (parse_tg(msg, &w->t, true, &why))
			return bad_reply(w->nl, why);
		e.tg = &w->t;
		w->cb(&e, w->arg);
		break;
	default:
		/* A notification newer than this mtgctl: said, not parsed. */
		w->cb(&e, w->arg);
	}
	return NL_OK;
}

int mtg_nl_events(struct mtg_nl *nl,
		  void (*cb)(const struct mtg_nl_event *e, void *arg),
		  void *arg)
{
	struct event_walk *w = calloc(1, sizeof(*w));
	int err;

	if (!w)
		return -NLE_NOMEM;
	w->nl = nl;
	w->cb = cb;
	w->arg = arg;
	nl->err = 0;
	err = nl_socket_modify_cb(nl->sk, NL_CB_VALID, NL_CB_CUSTOM, event_got,
				  w);
	while (!err) {
		errno = 0;
		err = nl_recvmsgs_default(nl->sk);
		if (nl->err)
			err = nl->err;
	}
	if (err == -NLE_AGAIN)
		err = 0;
	/* libnl says ENOBUFS, the kernel's dropping, as NLE_NOMEM. */
	else if (err == -NLE_NOMEM && errno == ENOBUFS)
		err = MTG_NL_OVERRUN;
	free(w);
	return err;
}
