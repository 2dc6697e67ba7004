// SPDX-License-Identifier: GPL-2.0
/*
 * TGs over a connection (MTG_TG_FLAGS_TCP, _SCTP, _DCCP): the module opens
 * a socket at the start, the dispatcher queues a message per slot, and a
 * worker on the TG's CPU writes the queue out in order.
 *
 * The dispatcher runs with bottom halves off and cannot write to a socket;
 * it only queues (sched, seq, len) and kicks the worker (one producer, one
 * consumer: the kfifo needs no lock). The worker never blocks: a message
 * that finds the send buffer full waits for the socket's write_space
 * callback, counted in write_waits; its lateness says how long it waited.
 *
 * The socket is created as a user's would be (it holds its namespace, as a
 * process's socket does) and is closed when the TG lets go of its device:
 * killed, failed, or its session ended. By then the socket's callbacks are
 * the protocol's own again and sk_user_data is NULL: a connection that
 * lingers after the close (FIN_WAIT, TIME_WAIT) refers to nothing of the
 * module. The close itself runs in a work item: the TG lets go under the
 * session's lock, which mmap takes under mmap_lock, and waiting there for
 * the writer (or taking the socket's lock) would close a cycle with the
 * socket's lock, which a receive to user memory takes before mmap_lock
 * (lockdep saw it). The TG's memory waits for that work (mtg_sock_free).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/in.h>
#include <linux/in6.h>
#include <linux/kfifo.h>
#include <linux/net.h>
#include <linux/sctp.h>
#include <linux/slab.h>
#include <linux/tcp.h>
#include <linux/udp.h>
#include <net/sock.h>
#include <net/tcp.h>

#include "mtg.h"

#define MTG_SOCK_FLAGS	(MTG_TG_FLAGS_TCP | MTG_TG_FLAGS_SCTP | \
			 MTG_TG_FLAGS_DCCP)
/* TCP's length before each message (DNS over TCP's framing) */
#define MTG_SOCK_PREFIX	2
/* the MTG header's offset in buf: aligned, the prefix before it */
#define MTG_SOCK_HDR_AT	8
/* a wait for room the protocol may not announce: looked at again after */
#define MTG_SOCK_RETRY	msecs_to_jiffies(10)

/* A slot's message, queued by the dispatcher for the worker. */
struct mtg_sock_msg {
	u64 sched;
	u64 seq;
	u32 len;		/* the table's frame length */
};

struct mtg_sock {
	struct socket *sock;
	struct mtg_tg *tg;
	struct delayed_work work;
	DECLARE_KFIFO_PTR(queue, struct mtg_sock_msg);
	void (*saved_write_space)(struct sock *sk);
	u32 prefix;		/* MTG_SOCK_PREFIX over TCP, else 0 */
	u32 max_payload;	/* bytes buf holds after the prefix */
	bool fin;		/* the TG finished: half-close once written */
	bool closing;		/* the TG let go: the writer stops */
	struct work_struct close_work;

	/* The worker's. */
	u8 *buf;		/* the message being written, at msg */
	u8 *msg;		/* buf + MTG_SOCK_HDR_AT - prefix */
	struct mtg_sock_msg cur;
	u32 cur_bytes;		/* of buf, prefix included; 0: none */
	u32 done;		/* of them written */
	u64 stamp;		/* cur's TX stamp */
	bool waiting;		/* cur found the send buffer full */
	bool shut;		/* half-closed */
	bool busy;		/* cur is being written (release, acquire) */
};

static struct workqueue_struct *mtg_sock_wq;

static void mtg_sock_close_work(struct work_struct *work);

bool mtg_sock_flags(u32 flags)
{
	return flags & MTG_SOCK_FLAGS;
}

static void mtg_sock_fail(struct mtg_sock *ms, int err)
{
	struct mtg_tg *tg = ms->tg;

	WRITE_ONCE(tg->st.sock_error, -err);
	mtg_cpu_stop(tg, MTG_TG_STATE_FAILED, MTG_TG_ERROR_SOCKET);
}

/* Build the next queued message into buf; false if the queue is empty. */
static bool mtg_sock_next(struct mtg_sock *ms)
{
	struct mtg_tg *tg = ms->tg;
	u32 payload;

	if (!kfifo_get(&ms->queue, &ms->cur))
		return false;
	payload = ms->cur.len - tg->tmpl_len;
	if (ms->prefix)
		*(__be16 *)ms->msg = cpu_to_be16(payload);
	mtg_tx_payload(tg, ms->buf + MTG_SOCK_HDR_AT, payload, ms->cur.sched,
		       ms->cur.seq, tg->hdr_flags, NULL);
	ms->cur_bytes = ms->prefix + payload;
	ms->done = 0;
	ms->waiting = false;
	ms->stamp = 0;
	return true;
}

static void mtg_sock_work(struct work_struct *work)
{
	struct mtg_sock *ms = container_of(to_delayed_work(work),
					   struct mtg_sock, work);
	struct mtg_tg *tg = ms->tg;
	int ret;

	for (;;) {
		struct msghdr msg = {
			.msg_flags = MSG_DONTWAIT | MSG_NOSIGNAL,
		};
		struct kvec iov;

		if (READ_ONCE(ms->closing) ||
		    READ_ONCE(tg->state) == MTG_TG_STATE_FAILED ||
		    READ_ONCE(tg->state) == MTG_TG_STATE_KILLED)
			return;
		if (!ms->cur_bytes) {
			WRITE_ONCE(ms->busy, true);
			/* busy before the queue's out index moves: pairs
			 * with mtg_sock_drained()'s smp_rmb()
			 */
			smp_wmb();
			if (!mtg_sock_next(ms)) {
				/* the last message's counts before it */
				smp_store_release(&ms->busy, false);
				break;
			}
		}
		if (!ms->stamp) {
			struct mtg_hdr *h = (struct mtg_hdr *)(ms->buf +
							       MTG_SOCK_HDR_AT);

			/* as late as the socket allows: just before it */
			ms->stamp = mtg_now();
			h->tx_ns = cpu_to_be64(ms->stamp);
		}
		iov.iov_base = ms->msg + ms->done;
		iov.iov_len = ms->cur_bytes - ms->done;
		ret = kernel_sendmsg(ms->sock, &msg, &iov, 1, iov.iov_len);
		if (ret == -EAGAIN) {
			/* write_space requeues the work, or the retry does */
			queue_delayed_work_on(tg->cpu->cpu, mtg_sock_wq,
					      &ms->work, MTG_SOCK_RETRY);
			if (!ms->waiting) {
				ms->waiting = true;
				WRITE_ONCE(tg->st.write_waits,
					   tg->st.write_waits + 1);
			}
			return;
		}
		if (ret < 0) {
			mtg_sock_fail(ms, ret);
			return;
		}
		ms->done += ret;
		if (ms->done < ms->cur_bytes)
			continue;
		mtg_tg_account(tg, ms->cur_bytes, ms->cur.sched, ms->stamp);
		ms->cur_bytes = 0;
		cond_resched();
	}
	/* Every message written, and the TG will queue no more: say so. */
	if (READ_ONCE(ms->fin) && !ms->shut) {
		ms->shut = true;
		kernel_sock_shutdown(ms->sock, SHUT_WR);
	}
}

static void mtg_sock_kick(struct mtg_sock *ms)
{
	mod_delayed_work_on(ms->tg->cpu->cpu, mtg_sock_wq, &ms->work, 0);
}

static void mtg_sock_write_space(struct sock *sk)
{
	void (*saved)(struct sock *sk) = NULL;
	struct mtg_sock *ms;

	read_lock_bh(&sk->sk_callback_lock);
	ms = sk->sk_user_data;
	if (ms) {
		saved = ms->saved_write_space;
		mtg_sock_kick(ms);
	}
	read_unlock_bh(&sk->sk_callback_lock);
	if (saved)
		saved(sk);
}

/*
 * Dispatcher: queue slot seq's message; -ENOBUFS if MTG_SOCK_QUEUE are
 * unwritten already, -EMSGSIZE if it does not fit the buffer.
 */
int mtg_sock_post(struct mtg_tg *tg, u32 len, u64 sched, u64 seq)
{
	struct mtg_sock *ms = tg->sock;
	struct mtg_sock_msg m = { .sched = sched, .seq = seq, .len = len };

	if (len - tg->tmpl_len > ms->max_payload)
		return -EMSGSIZE;
	return kfifo_put(&ms->queue, m) ? 0 : -ENOBUFS;
}

/* Dispatcher: after queueing, or to finish. */
void mtg_sock_wake(struct mtg_tg *tg)
{
	mtg_sock_kick(tg->sock);
}

/*
 * Dispatcher, at the TG's stop condition: true once every message queued
 * has been written; the worker then half-closes the connection.
 */
bool mtg_sock_drained(struct mtg_tg *tg)
{
	struct mtg_sock *ms = tg->sock;

	if (!kfifo_is_empty(&ms->queue))
		return false;
	smp_rmb();	/* pairs with the worker's smp_wmb() */
	if (smp_load_acquire(&ms->busy))
		return false;
	WRITE_ONCE(ms->fin, true);
	mtg_sock_kick(ms);
	return true;
}

/*
 * TCP: segments retransmitted so far (a racy read of the socket's
 * counter), or at its close.
 */
u64 mtg_sock_retrans(const struct mtg_tg *tg)
{
	if (!tg->sock || READ_ONCE(tg->sock->closing) ||
	    !(tg->flags & MTG_TG_FLAGS_TCP))
		return tg->st.retrans;
	return READ_ONCE(tcp_sk(tg->sock->sock->sk)->total_retrans);
}

static int mtg_sock_addr(const struct mtg_tg *tg, const u8 *addr, u16 port,
			 struct sockaddr_storage *ss)
{
	memset(ss, 0, sizeof(*ss));
	if (tg->flags & MTG_TG_FLAGS_IPV6) {
		struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)ss;

		sin6->sin6_family = AF_INET6;
		sin6->sin6_port = htons(port);
		memcpy(&sin6->sin6_addr, addr, sizeof(sin6->sin6_addr));
		if (ipv6_addr_type(&sin6->sin6_addr) & IPV6_ADDR_LINKLOCAL)
			sin6->sin6_scope_id = tg->ifindex;
		return sizeof(*sin6);
	}
	{
		struct sockaddr_in *sin = (struct sockaddr_in *)ss;

		sin->sin_family = AF_INET;
		sin->sin_port = htons(port);
		memcpy(&sin->sin_addr, addr, sizeof(sin->sin_addr));
		return sizeof(*sin);
	}
}

static int mtg_sock_create(struct mtg_tg *tg, struct net *net,
			   struct socket **sock)
{
	int family = tg->flags & MTG_TG_FLAGS_IPV6 ? AF_INET6 : AF_INET;
	int err;

	/* a user's socket (kern 0): it holds the namespace, LSMs see it */
	if (tg->flags & MTG_TG_FLAGS_TCP)
		return __sock_create(net, family, SOCK_STREAM, IPPROTO_TCP,
				     sock, 0);
	if (tg->flags & MTG_TG_FLAGS_SCTP)
		err = __sock_create(net, family, SOCK_STREAM, IPPROTO_SCTP,
				    sock, 0);
	else
		err = __sock_create(net, family, SOCK_DCCP, IPPROTO_DCCP,
				    sock, 0);
	/* no such protocol (module), whichever way the family says so */
	if (err == -ESOCKTNOSUPPORT)
		err = -EPROTONOSUPPORT;
	return err;
}

/* SCTP's Nagle: off, so that each message leaves when it is written. */
static void mtg_sock_nodelay(struct mtg_tg *tg, struct socket *sock)
{
	int one = 1;

	if (tg->flags & MTG_TG_FLAGS_TCP)
		tcp_sock_set_nodelay(sock->sk);
	else if (tg->flags & MTG_TG_FLAGS_SCTP)
		sock->ops->setsockopt(sock, SOL_SCTP, SCTP_NODELAY,
				      KERNEL_SOCKPTR(&one), sizeof(one));
}

/*
 * At the start (process context, no lock held): connect from the TG's
 * source to d's destination through its device, and set up the queue and
 * the worker. d->src_port gets the port used.
 */
int mtg_sock_open(struct mtg_tg *tg, struct net *net, struct mtg_tg_start *d)
{
	struct sockaddr_storage ss;
	struct mtg_sock *ms;
	struct socket *sock;
	int alen, err;

	ms = kzalloc(sizeof(*ms), GFP_KERNEL_ACCOUNT);
	if (!ms)
		return -ENOMEM;
	ms->tg = tg;
	ms->prefix = tg->flags & MTG_TG_FLAGS_TCP ? MTG_SOCK_PREFIX : 0;
	ms->max_payload = READ_ONCE(tg->dev->mtu) + ETH_HLEN - tg->tmpl_len;
	INIT_DELAYED_WORK(&ms->work, mtg_sock_work);
	INIT_WORK(&ms->close_work, mtg_sock_close_work);
	err = kfifo_alloc(&ms->queue, MTG_SOCK_QUEUE, GFP_KERNEL_ACCOUNT);
	if (err)
		goto err_free;
	ms->buf = kvmalloc(MTG_SOCK_HDR_AT + ms->max_payload,
			   GFP_KERNEL_ACCOUNT);
	if (!ms->buf) {
		err = -ENOMEM;
		goto err_fifo;
	}
	ms->msg = ms->buf + MTG_SOCK_HDR_AT - ms->prefix;

	err = mtg_sock_create(tg, net, &sock);
	if (err)
		goto err_buf;
	ms->sock = sock;
	err = sock_bindtoindex(sock->sk, tg->ifindex, true);
	if (err)
		goto err_sock;
	/* a run again from the same port while the last one's TIME_WAIT */
	sock_set_reuseaddr(sock->sk);
	alen = mtg_sock_addr(tg, d->src_addr, d->src_port, &ss);
	err = kernel_bind(sock, (struct sockaddr *)&ss, alen);
	if (err)
		goto err_sock;
	mtg_sock_nodelay(tg, sock);
	sock_set_sndtimeo(sock->sk, MTG_SOCK_CONNECT_S);
	alen = mtg_sock_addr(tg, d->dst_addr, d->dst_port, &ss);
	err = kernel_connect(sock, (struct sockaddr *)&ss, alen, 0);
	/* still connecting when the time ran out */
	if (err == -EINPROGRESS || err == -EALREADY)
		err = -ETIMEDOUT;
	if (err == -ERESTARTSYS)
		err = -EINTR;
	if (err)
		goto err_sock;
	err = kernel_getsockname(sock, (struct sockaddr *)&ss);
	if (err < 0)
		goto err_sock;
	d->src_port = ntohs(tg->flags & MTG_TG_FLAGS_IPV6 ?
			    ((struct sockaddr_in6 *)&ss)->sin6_port :
			    ((struct sockaddr_in *)&ss)->sin_port);

	write_lock_bh(&sock->sk->sk_callback_lock);
	ms->saved_write_space = sock->sk->sk_write_space;
	sock->sk->sk_user_data = ms;
	sock->sk->sk_write_space = mtg_sock_write_space;
	write_unlock_bh(&sock->sk->sk_callback_lock);
	tg->sock = ms;
	return 0;

err_sock:
	sock_release(sock);
err_buf:
	kvfree(ms->buf);
err_fifo:
	kfifo_free(&ms->queue);
err_free:
	kfree(ms);
	return err;
}

/* The close proper, with no lock held: the writer waited out, then the socket. */
static void mtg_sock_close_work(struct work_struct *work)
{
	struct mtg_sock *ms = container_of(work, struct mtg_sock, close_work);

	cancel_delayed_work_sync(&ms->work);
	/* a message cut short: a reset says so, where a close would not */
	if (ms->cur_bytes && ms->done)
		sock_no_linger(ms->sock->sk);
	sock_release(ms->sock);
	ms->sock = NULL;
}

/*
 * The TG has stopped and no dispatcher is in it: the socket's callbacks
 * are the protocol's again, the writer stops, and the close is queued
 * (what the socket still has to send goes on without the module, as after
 * a process's close(), or is reset if a message is only partly written).
 * Any context that may sleep, any of the module's locks held.
 */
void mtg_sock_close(struct mtg_tg *tg)
{
	struct mtg_sock *ms = tg->sock;
	struct sock *sk;

	if (!ms || ms->closing)
		return;
	sk = ms->sock->sk;
	write_lock_bh(&sk->sk_callback_lock);
	sk->sk_write_space = ms->saved_write_space;
	sk->sk_user_data = NULL;
	write_unlock_bh(&sk->sk_callback_lock);
	tg->st.retrans = mtg_sock_retrans(tg);
	WRITE_ONCE(ms->closing, true);
	queue_work(mtg_sock_wq, &ms->close_work);
}

/* Before the TG's memory goes, with no lock held: its close done, freed. */
void mtg_sock_free(struct mtg_tg *tg)
{
	struct mtg_sock *ms = tg->sock;

	if (!ms)
		return;
	mtg_sock_close(tg);
	flush_work(&ms->close_work);
	kvfree(ms->buf);
	kfifo_free(&ms->queue);
	kfree(ms);
	tg->sock = NULL;
}

int mtg_sock_init(void)
{
	mtg_sock_wq = alloc_workqueue("mtg_sock", WQ_HIGHPRI, 0);
	return mtg_sock_wq ? 0 : -ENOMEM;
}

void mtg_sock_exit(void)
{
	destroy_workqueue(mtg_sock_wq);
}
