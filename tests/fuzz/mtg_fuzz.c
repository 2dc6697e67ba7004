// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * mtg_fuzz: random calls on /dev/mtg (ioctl, mmap, mprotect, munmap, close,
 * fork) with random structures, sizes, offsets and pointers, from a fixed
 * seed so that a failure can be replayed.
 *
 *   mtg_fuzz [--seed N] [--calls N] [--sessions N] [--device PATH]
 *            [--ifindex N --dst A.B.C.D]
 *
 * With --ifindex (an Ethernet device of this namespace with a route to the
 * IPv4 address --dst), traffic generators are started too, on tables the
 * fuzzer writes (valid ones mostly, random bytes too), and steered.
 *
 * It checks what must hold whatever the input: an unknown command fails
 * with ENOTTY; every call returns (no hang); a successful mapping can be
 * read (and written where it may be) without a fault. The kernel side (no
 * oops, WARN, KASAN, lockdep or kmemleak report) is checked by the VM lane.
 * Exit status 0 when every check held, 1 otherwise.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <arpa/inet.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../../kmod/uapi/mtg.h"

#define MAX_SESSIONS	64
#define MAX_MAPS	256

static const unsigned long known_cmds[] = {
	MTG_IOC_VERSION, MTG_IOC_ALLOC, MTG_IOC_MMAP_OFFSETS, MTG_IOC_STATS,
	MTG_IOC_IFACE_ADD, MTG_IOC_IFACE_DEL, MTG_IOC_IFACE_INFO,
	MTG_IOC_TG_START, MTG_IOC_TG_KILL, MTG_IOC_TG_SUSPEND,
	MTG_IOC_TG_RESUME, MTG_IOC_TG_SET_RATE, MTG_IOC_TG_CTRLMSG,
	MTG_IOC_TG_STATS, MTG_IOC_RX_OFFSETS, MTG_IOC_RX_STATS,
	MTG_IOC_RX_SET_RUN, MTG_IOC_RX_KEEP_OFFSETS, MTG_IOC_RX_DITG,
};
static const char *const known_names[] = {
	"version", "alloc", "mmap_offsets", "stats", "iface_add", "iface_del",
	"iface_info", "tg_start", "tg_kill", "tg_suspend", "tg_resume",
	"tg_set_rate", "tg_ctrlmsg", "tg_stats", "rx_offsets", "rx_stats",
	"rx_set_run", "rx_keep_offsets", "rx_ditg",
};
#define NR_KNOWN (sizeof(known_cmds) / sizeof(known_cmds[0]))

struct mapping {
	void *addr;
	size_t len;
	int prot;
};

static uint64_t rng_state;
static int sessions[MAX_SESSIONS];
static int nr_sessions;
static struct mapping maps[MAX_MAPS];
static int nr_maps;
static unsigned long failures, calls_by_errno[256];
/* Successes per known command, then mmap: proof the deep paths ran. */
static unsigned long successes[NR_KNOWN + 1];
static long page;
static void *ro_page;		/* writes to it fault: EFAULT for _IOR */
static void *unmapped_page;	/* any access faults */
static uint32_t tg_ifindex;	/* --ifindex: where TGs send */
static struct { int fd; uint32_t id; } started[8];	/* recent TG starts */
static struct { int fd; uint32_t id; } added[8];	/* recent IFACE_ADDs */
static uint32_t picked_iface;
static uint32_t picked_tg;	/* tg_id of the last pick_tg_id() */
static struct in_addr tg_dst;	/* --dst */
static uint32_t rx_ifindex;	/* --rx-ifindex: the TGs' destination's */
static int rx_netns_fd = -1;	/* --rx-netns: ... in that namespace */

/* splitmix64: small, good enough, and the same on every machine. */
static uint64_t rnd(void)
{
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static uint64_t rnd_below(uint64_t n)
{
	return n ? rnd() % n : 0;
}

/* Sizes and offsets near the interesting edges. */
static uint64_t rnd_size(void)
{
	switch (rnd_below(8)) {
	case 0: return 0;
	case 1: return rnd_below(64);
	case 2: return page * (1 + rnd_below(8));
	case 3: return page * (1 + rnd_below(8)) + rnd_below(3) - 1;
	case 4: return (1ULL << rnd_below(64)) + rnd_below(3) - 1;
	case 5: return UINT64_MAX - rnd_below(page * 2);
	case 6: return (uint64_t)256 << 20;
	default: return rnd();
	}
}

static void note(const char *what, long ret)
{
	int e = ret < 0 ? errno : 0;

	calls_by_errno[e < 256 ? e : 255]++;
	(void)what;
}

static void fail(const char *fmt, unsigned long a, int e)
{
	fprintf(stderr, "mtg_fuzz: ");
	fprintf(stderr, fmt, a);
	fprintf(stderr, " (%s)\n", strerror(e));
	failures++;
}

static int pick_fd(void)
{
	if (!nr_sessions || rnd_below(50) == 0)
		return 1000 + (int)rnd_below(24);	/* closed: EBADF */
	return sessions[rnd_below(nr_sessions)];
}

static void do_open(const char *dev)
{
	int fd;

	if (nr_sessions == MAX_SESSIONS)
		return;
	fd = open(dev, O_RDWR | O_CLOEXEC);
	note("open", fd);
	if (fd < 0) {
		fail("open failed%lu", 0, errno);
		return;
	}
	sessions[nr_sessions++] = fd;
}

/*
 * Its TGs and interfaces went with it: steering them through a descriptor
 * number that a later open may reuse would mostly miss, and the commands
 * behind a TG or interface id would too seldom succeed to be fuzzed.
 */
static void forget_session(int fd)
{
	int i;

	for (i = 0; i < 8; i++) {
		if (started[i].fd == fd)
			started[i].id = 0;
		if (added[i].fd == fd)
			added[i].id = 0;
	}
}

static void do_close(void)
{
	int i;

	if (!nr_sessions)
		return;
	i = (int)rnd_below(nr_sessions);
	note("close", close(sessions[i]));
	forget_session(sessions[i]);
	sessions[i] = sessions[--nr_sessions];
}

static uint32_t pick_tg_id(void);
static void pick_tg_start(struct mtg_tg_start *d);

/* A buffer of random bytes, or a valid-looking struct, or a bad pointer. */
static void *pick_arg(unsigned char *buf, size_t len, unsigned long cmd)
{
	/* TG commands need a valid-looking argument more often to get far. */
	int tg = _IOC_NR(cmd) >= 0x10 && _IOC_NR(cmd) <= 0x16;
	size_t i;

	switch (rnd_below(tg ? 24 : 12)) {
	case 0: return NULL;
	case 1: return ro_page;
	case 2: return unmapped_page;
	case 3: return (void *)(uintptr_t)rnd();
	default: break;
	}
	for (i = 0; i < len; i++)
		buf[i] = (unsigned char)rnd();
	if (!rnd_below(tg ? 4 : 2))
		return buf;
	/* Mostly valid structures, so the deeper paths run too. */
	memset(buf, 0, len);
	if (cmd == MTG_IOC_ALLOC) {
		struct mtg_alloc *a = (void *)buf;

		a->table_bytes = rnd_below(4) ? page * (1 + rnd_below(64)) : rnd_size();
		if (rnd_below(2))
			a->rx_records = rnd_below(4) ? 16ULL << rnd_below(9) :
				rnd_size();
		/* a keep ring, mostly valid: entries to wrap and drop */
		if (a->rx_records && rnd_below(2))
			a->keep_bytes = rnd_below(4) ?
				(uint64_t)MTG_KEEP_BYTES_MIN << rnd_below(3) :
				rnd_size();
	} else if (cmd == MTG_IOC_IFACE_ADD) {
		struct mtg_iface_add *a = (void *)buf;

		a->netns_fd = rnd_below(4) ? MTG_NETNS_CURRENT : (uint32_t)rnd_below(64);
		/* lo (1) exists everywhere; the rest mostly do not */
		a->ifindex = rnd_below(2) ? 1 : (uint32_t)rnd_below(6);
		a->flags = (uint32_t)rnd_below(rnd_below(8) ? 4 : 64);
		/* Listen where the TGs' packets arrive. */
		if (rx_ifindex && rnd_below(2)) {
			a->netns_fd = (uint32_t)rx_netns_fd;
			a->ifindex = rx_ifindex;
			a->flags = MTG_IFACE_F_RX |
				   (rnd_below(4) ? 0 : MTG_IFACE_F_RX_PASS);
		}
	} else if (cmd == MTG_IOC_RX_SET_RUN) {
		*(uint32_t *)buf = rnd_below(2) ? 0 : (uint32_t)rnd();
	} else if (cmd == MTG_IOC_RX_DITG) {
		struct mtg_rx_ditg *d = (void *)buf;

		/* mostly the TGs' port, where their D-ITG packets go */
		d->port = rnd_below(4) ? 9 : (uint16_t)rnd_below(80);
		d->op = (uint16_t)(rnd_below(8) ? 1 + rnd_below(2) : rnd_below(4));
		d->run_id = rnd_below(4) ? (uint32_t)rnd_below(3) : (uint32_t)rnd();
	} else if (cmd == MTG_IOC_IFACE_DEL || cmd == MTG_IOC_IFACE_INFO) {
		*(uint32_t *)buf = picked_iface;
	} else if (cmd == MTG_IOC_TG_START) {
		pick_tg_start((struct mtg_tg_start *)buf);
	} else if (cmd == MTG_IOC_TG_SET_RATE) {
		struct mtg_tg_rate *r = (void *)buf;

		r->tg_id = pick_tg_id();
		r->num = 1 + (uint32_t)rnd_below(rnd_below(8) ? 4 : 70000);
		r->den = 1 + (uint32_t)rnd_below(4);
	} else if (cmd == MTG_IOC_TG_CTRLMSG) {
		struct mtg_tg_ctrlmsg *m = (void *)buf;

		m->tg_id = pick_tg_id();
		m->len = (uint32_t)rnd_below(rnd_below(8) ? 64 : 4096);
		m->data = (uintptr_t)(buf + 1024);
	} else if (cmd == MTG_IOC_TG_KILL || cmd == MTG_IOC_TG_SUSPEND ||
		   cmd == MTG_IOC_TG_RESUME || cmd == MTG_IOC_TG_STATS) {
		*(uint32_t *)buf = pick_tg_id();
	}
	return buf;
}

/*
 * Timetables for the TGs to come: a few valid entries at the start of the
 * tables region, sometimes random bytes, and a streaming ring after them.
 */
static void write_tables(int fd)
{
	struct mtg_alloc alloc = {
		.table_bytes = (uint64_t)page,
		.rx_records = rnd_below(2) ? 64 : 0,
	};

	if (alloc.rx_records && rnd_below(2))
		alloc.keep_bytes = MTG_KEEP_BYTES_MIN;
	struct mtg_mmap_offsets off;
	struct mtg_tt_entry *e;
	struct mtg_tt_ring *ring;
	unsigned char *t;
	size_t i;

	/* Most sessions never got past a random ALLOC: give them memory. */
	if (ioctl(fd, MTG_IOC_MMAP_OFFSETS, &off) &&
	    (ioctl(fd, MTG_IOC_ALLOC, &alloc) ||
	     ioctl(fd, MTG_IOC_MMAP_OFFSETS, &off)))
		return;
	t = mmap(NULL, page, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		 (off_t)off.region[MTG_REGION_TABLES].offset);
	if (t == MAP_FAILED)
		return;
	e = (struct mtg_tt_entry *)t;
	for (i = 0; i < 16; i++) {
		e[i].gap_ns = 20000 + rnd_below(2000000);
		e[i].len = 130 + (uint32_t)rnd_below(rnd_below(8) ? 1000 : 2000);
		e[i].reserved = rnd_below(16) ? 0 : (uint32_t)rnd();
	}
	ring = (struct mtg_tt_ring *)(t + 1024);
	ring->producer = rnd_below(8) ? rnd_below(9) : rnd();
	if (!rnd_below(8))
		for (i = 0; i < 128; i++)
			t[rnd_below(1152)] = (unsigned char)rnd();
	munmap(t, page);
}

static uint32_t pick_tg_id(void)
{
	return picked_tg;
}

/* Interfaces that exist, mostly: ids start at 1 and are reused. */
static int pick_iface(int fd)
{
	unsigned int i = (unsigned int)rnd_below(8);

	picked_iface = rnd_below(4) ? 1 + (uint32_t)rnd_below(2) : (uint32_t)rnd();
	if (!added[i].id || !rnd_below(4))
		return fd;
	picked_iface = added[i].id;
	return added[i].fd;
}

/* Steer TGs that exist, mostly: a recently started one and its session. */
static int pick_tg(int fd)
{
	unsigned int i = (unsigned int)rnd_below(8);

	picked_tg = rnd_below(8) ? 1 + (uint32_t)rnd_below(4) : (uint32_t)rnd();
	if (!started[i].id || !rnd_below(4))
		return fd;
	picked_tg = started[i].id;
	return started[i].fd;
}

static uint64_t tai_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_TAI, &ts);
	return (uint64_t)ts.tv_sec * 1000000000 + (uint64_t)ts.tv_nsec;
}

/* A descriptor that is valid more often than not, flaws at random. */
static void pick_tg_start(struct mtg_tg_start *d)
{
	uint64_t now = tai_now();

	d->tg_id = pick_tg_id();
	d->run_id = (uint32_t)rnd();
	d->flags = (uint32_t)rnd_below(MTG_TG_FLAGS_MASK + 1) & ~MTG_TG_FLAGS_IPV6;
	if (rnd_below(4))
		d->flags |= MTG_TG_FLAGS_DST_MAC;
	/* D-ITG's header and ICMP exclude each other: mostly one of them */
	if ((d->flags & MTG_TG_FLAGS_DITG) && (d->flags & MTG_TG_FLAGS_ICMP) &&
	    rnd_below(8))
		d->flags &= rnd_below(2) ? ~MTG_TG_FLAGS_DITG : ~MTG_TG_FLAGS_ICMP;
	/*
	 * A connection (TCP, SCTP, DCCP; nothing listens at the target: the
	 * connect is refused) now and then, and mostly one transport only
	 */
	if (rnd_below(8)) {
		d->flags &= ~(MTG_TG_FLAGS_TCP | MTG_TG_FLAGS_SCTP |
			      MTG_TG_FLAGS_DCCP);
	} else if (rnd_below(8)) {
		d->flags &= ~(MTG_TG_FLAGS_TCP | MTG_TG_FLAGS_SCTP |
			      MTG_TG_FLAGS_DCCP | MTG_TG_FLAGS_ICMP |
			      MTG_TG_FLAGS_DITG);
		d->flags |= MTG_TG_FLAGS_TCP << rnd_below(3);
	}
	if (!rnd_below(16))
		d->flags = (uint32_t)rnd();
	d->netns_fd = MTG_NETNS_CURRENT;
	d->ifindex = rnd_below(16) ? tg_ifindex : (uint32_t)rnd_below(8);
	d->cpu = (uint32_t)rnd_below(rnd_below(8) ? 2 : 64);
	memcpy(d->dst_addr, &tg_dst, 4);
	d->src_port = (uint16_t)rnd();
	/* an ICMP echo has no port (0), a UDP datagram one: mostly right */
	if (d->flags & MTG_TG_FLAGS_ICMP)
		d->dst_port = rnd_below(16) ? 0 : 9;
	else
		d->dst_port = rnd_below(16) ? 9 : 0;
	d->ttl = rnd_below(16) ? 64 : 0;
	d->dst_mac[0] = 2;
	d->patt_kind = (uint8_t)rnd_below(rnd_below(8) ? 3 : 8);
	d->patt_seed = (uint32_t)rnd();
	d->table_offset = 16 * rnd_below(rnd_below(8) ? 4 : 1000);
	d->table_len = rnd_below(8) ? 8 : (uint32_t)rnd_below(1U << 31);
	d->ring_offset = d->flags & MTG_TG_FLAGS_STREAM ? 1024 : 0;
	if (!rnd_below(16))
		d->ring_offset = rnd_size();
	d->start_ns = rnd_below(16) ? now + rnd_below(50000000) : rnd();
	d->stop_ns = rnd_below(2) ? d->start_ns + 1 + rnd_below(300000000) : 0;
	d->stop_count = rnd_below(2) ? rnd_below(200) : 0;
	d->late_threshold_ns = rnd_below(2) ? rnd_below(100000) : 0;
}

static void do_ioctl(void)
{
	unsigned char buf[4096] __attribute__((aligned(8)));
	unsigned long cmd;
	int known = 1, fd = pick_fd();
	long ret;
	size_t i;

	switch (rnd_below(4)) {
	case 0:	/* a known command with one bit flipped */
		cmd = known_cmds[rnd_below(NR_KNOWN)] ^ (1UL << rnd_below(32));
		known = 0;
		break;
	case 1:
		cmd = (unsigned long)(uint32_t)rnd();
		known = 0;
		break;
	default:
		cmd = known_cmds[rnd_below(NR_KNOWN)];
		break;
	}
	for (i = 0; !known && i < NR_KNOWN; i++)
		known = cmd == known_cmds[i];
	if (cmd == MTG_IOC_TG_START && !tg_ifindex)
		return;
	if (cmd == MTG_IOC_TG_START && rnd_below(8))
		write_tables(fd);
	if (_IOC_NR(cmd) >= 0x11 && _IOC_NR(cmd) <= 0x16)
		fd = pick_tg(fd);
	else
		picked_tg = 1 + (uint32_t)rnd_below(4);
	if (cmd == MTG_IOC_IFACE_DEL || cmd == MTG_IOC_IFACE_INFO)
		fd = pick_iface(fd);
	ret = ioctl(fd, cmd, pick_arg(buf, sizeof(buf), cmd));
	note("ioctl", ret);
	if (ret == 0 && cmd == MTG_IOC_IFACE_ADD) {
		i = rnd_below(8);
		added[i].fd = fd;
		added[i].id = ((struct mtg_iface_add *)buf)->id;
	}
	if (ret == 0 && cmd == MTG_IOC_TG_START) {
		i = rnd_below(8);
		started[i].fd = fd;
		started[i].id = ((struct mtg_tg_start *)buf)->tg_id;
	}
	for (i = 0; ret == 0 && i < NR_KNOWN; i++)
		successes[i] += cmd == known_cmds[i];
	if (!known && ret == 0)
		fail("unknown command %#lx succeeded", cmd, 0);
	if (!known && ret < 0 && errno != ENOTTY && errno != EBADF)
		fail("unknown command %#lx did not fail with ENOTTY", cmd, errno);
}

static void touch_mapping(struct mapping *m)
{
	volatile unsigned char *p = m->addr;
	size_t off;

	for (off = 0; off < m->len; off += page) {
		(void)p[off];
		if (m->prot & PROT_WRITE)
			p[off] = (unsigned char)rnd();
		/* elsewhere in the page too: the keep ring's consumer count */
		if ((m->prot & PROT_WRITE) && rnd_below(2))
			p[off + rnd_below((uint64_t)page)] = (unsigned char)rnd();
	}
}

static void do_mmap(void)
{
	int prot, flags, fd = pick_fd();
	struct mtg_mmap_offsets off;
	uint64_t offset, len;
	void *addr;

	if (nr_maps == MAX_MAPS)
		return;
	prot = (int)rnd_below(8) & (PROT_READ | PROT_WRITE | PROT_EXEC);
	flags = rnd_below(5) ? MAP_SHARED : MAP_PRIVATE;
	if (rnd_below(3) && ioctl(fd, MTG_IOC_MMAP_OFFSETS, &off) == 0) {
		struct mtg_region *r = &off.region[rnd_below(MTG_REGION_MAX)];

		offset = r->offset + page * rnd_below(3);
		len = rnd_below(3) ? r->size : rnd_size() & ~((uint64_t)page - 1);
	} else {
		offset = rnd_size() & ~((uint64_t)page - 1);
		len = rnd_size();
	}
	if (!len || len > ((uint64_t)1 << 32))
		len = page;
	addr = mmap(NULL, len, prot, flags, fd, (off_t)offset);
	note("mmap", addr == MAP_FAILED ? -1 : 0);
	if (addr == MAP_FAILED)
		return;
	successes[NR_KNOWN]++;
	maps[nr_maps] = (struct mapping){ addr, len, prot };
	if (prot & PROT_READ)
		touch_mapping(&maps[nr_maps]);
	nr_maps++;
}

static void do_munmap_or_mprotect(void)
{
	struct mapping *m;
	int i, prot;

	if (!nr_maps)
		return;
	i = (int)rnd_below(nr_maps);
	m = &maps[i];
	if (rnd_below(2)) {
		prot = (int)rnd_below(8) & (PROT_READ | PROT_WRITE | PROT_EXEC);
		if (mprotect(m->addr, m->len, prot) == 0) {
			m->prot = prot;
			if (prot & PROT_READ)
				touch_mapping(m);
		}
		note("mprotect", 0);
		return;
	}
	note("munmap", munmap(m->addr, m->len));
	maps[i] = maps[--nr_maps];
}

/* A child inherits the descriptors (not the mappings) and pokes them. */
static void do_fork(void)
{
	pid_t pid = fork();
	int status;

	if (pid < 0)
		return;
	if (pid == 0) {
		int i;

		for (i = 0; i < 20; i++)
			do_ioctl();
		_exit(0);
	}
	waitpid(pid, &status, 0);
}

static void usage(void)
{
	fprintf(stderr, "usage: mtg_fuzz [--seed N] [--calls N] [--sessions N] [--device PATH]\n"
			"                [--ifindex N --dst A.B.C.D [--rx-netns PATH --rx-ifindex N]]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "seed", required_argument, NULL, 's' },
		{ "calls", required_argument, NULL, 'c' },
		{ "sessions", required_argument, NULL, 'n' },
		{ "device", required_argument, NULL, 'd' },
		{ "ifindex", required_argument, NULL, 'i' },
		{ "dst", required_argument, NULL, 't' },
		{ "rx-netns", required_argument, NULL, 'r' },
		{ "rx-ifindex", required_argument, NULL, 'x' },
		{ 0 }
	};
	unsigned long calls = 20000, i;
	const char *dev = MTG_DEVICE_PATH;
	int max_sessions = 8, c;
	uint64_t seed = 1;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 's': seed = strtoull(optarg, NULL, 0); break;
		case 'c': calls = strtoul(optarg, NULL, 0); break;
		case 'n': max_sessions = atoi(optarg); break;
		case 'd': dev = optarg; break;
		case 'i': tg_ifindex = (uint32_t)strtoul(optarg, NULL, 0); break;
		case 't':
			if (inet_pton(AF_INET, optarg, &tg_dst) != 1)
				usage();
			break;
		case 'r':
			rx_netns_fd = open(optarg, O_RDONLY | O_CLOEXEC);
			if (rx_netns_fd < 0)
				usage();
			break;
		case 'x': rx_ifindex = (uint32_t)strtoul(optarg, NULL, 0); break;
		default: usage();
		}
	}
	if (max_sessions < 1 || max_sessions > MAX_SESSIONS ||
	    (rx_ifindex && rx_netns_fd < 0))
		usage();
	rng_state = seed;
	page = sysconf(_SC_PAGESIZE);
	ro_page = mmap(NULL, page, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	unmapped_page = mmap(NULL, page, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	munmap(unmapped_page, page);

	for (i = 0; i < calls; i++) {
		uint64_t op = rnd_below(100);

		if (op < 5 || (nr_sessions < max_sessions && op < 10))
			do_open(dev);
		else if (op < 13)
			do_close();
		else if (op < 70)
			do_ioctl();
		else if (op < 85)
			do_mmap();
		else if (op < 99)
			do_munmap_or_mprotect();
		else
			do_fork();
	}
	while (nr_maps)
		munmap(maps[nr_maps - 1].addr, maps[nr_maps - 1].len), nr_maps--;
	while (nr_sessions)
		close(sessions[--nr_sessions]);

	printf("mtg_fuzz: seed %" PRIu64 ", %lu calls, %lu check failures; results by errno:",
	       seed, calls, failures);
	for (i = 0; i < 256; i++)
		if (calls_by_errno[i])
			printf(" %s=%lu", i ? strerrorname_np((int)i) ?: "?" : "OK",
			       calls_by_errno[i]);
	printf("\nmtg_fuzz: successes:");
	for (i = 0; i < NR_KNOWN; i++)
		if (tg_ifindex || strncmp(known_names[i], "tg_", 3))
			printf(" %s=%lu", known_names[i], successes[i]);
	printf(" mmap=%lu\n", successes[NR_KNOWN]);
	return failures ? 1 : 0;
}
