// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * mtg_fuzz: random calls on /dev/mtg (ioctl, mmap, mprotect, munmap, close,
 * fork) with random structures, sizes, offsets and pointers, from a fixed
 * seed so that a failure can be replayed.
 *
 *   mtg_fuzz [--seed N] [--calls N] [--sessions N] [--device PATH]
 *
 * It checks what must hold whatever the input: an unknown command fails
 * with ENOTTY; every call returns (no hang); a successful mapping can be
 * read (and written where it may be) without a fault. The kernel side (no
 * oops, WARN, KASAN, lockdep or kmemleak report) is checked by the VM lane.
 * Exit status 0 when every check held, 1 otherwise.
 */
#define _GNU_SOURCE
#include <errno.h>
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
#include <unistd.h>

#include "../../kmod/uapi/mtg.h"

#define MAX_SESSIONS	64
#define MAX_MAPS	256

static const unsigned long known_cmds[] = {
	MTG_IOC_VERSION, MTG_IOC_ALLOC, MTG_IOC_MMAP_OFFSETS, MTG_IOC_STATS,
	MTG_IOC_IFACE_ADD, MTG_IOC_IFACE_DEL, MTG_IOC_IFACE_INFO,
};
static const char *const known_names[] = {
	"version", "alloc", "mmap_offsets", "stats", "iface_add", "iface_del",
	"iface_info",
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

static void do_close(void)
{
	int i;

	if (!nr_sessions)
		return;
	i = (int)rnd_below(nr_sessions);
	note("close", close(sessions[i]));
	sessions[i] = sessions[--nr_sessions];
}

/* A buffer of random bytes, or a valid-looking struct, or a bad pointer. */
static void *pick_arg(unsigned char *buf, size_t len, unsigned long cmd)
{
	size_t i;

	switch (rnd_below(12)) {
	case 0: return NULL;
	case 1: return ro_page;
	case 2: return unmapped_page;
	case 3: return (void *)(uintptr_t)rnd();
	default: break;
	}
	for (i = 0; i < len; i++)
		buf[i] = (unsigned char)rnd();
	if (rnd_below(2))
		return buf;
	/* Mostly valid structures, so the deeper paths run too. */
	memset(buf, 0, len);
	if (cmd == MTG_IOC_ALLOC) {
		struct mtg_alloc *a = (void *)buf;

		a->table_bytes = rnd_below(4) ? page * (1 + rnd_below(64)) : rnd_size();
	} else if (cmd == MTG_IOC_IFACE_ADD) {
		struct mtg_iface_add *a = (void *)buf;

		a->netns_fd = rnd_below(4) ? MTG_NETNS_CURRENT : (uint32_t)rnd_below(64);
		/* lo (1) exists everywhere; the rest mostly do not */
		a->ifindex = rnd_below(2) ? 1 : (uint32_t)rnd_below(6);
	} else if (cmd == MTG_IOC_IFACE_DEL || cmd == MTG_IOC_IFACE_INFO) {
		/* ids start at 1 and are reused: the low ones exist */
		*(uint32_t *)buf = rnd_below(4) ? 1 + (uint32_t)rnd_below(2) :
						  (uint32_t)rnd();
	}
	return buf;
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
	ret = ioctl(fd, cmd, pick_arg(buf, sizeof(buf), cmd));
	note("ioctl", ret);
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
	fprintf(stderr, "usage: mtg_fuzz [--seed N] [--calls N] [--sessions N] [--device PATH]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "seed", required_argument, NULL, 's' },
		{ "calls", required_argument, NULL, 'c' },
		{ "sessions", required_argument, NULL, 'n' },
		{ "device", required_argument, NULL, 'd' },
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
		default: usage();
		}
	}
	if (max_sessions < 1 || max_sessions > MAX_SESSIONS)
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
		printf(" %s=%lu", known_names[i], successes[i]);
	printf(" mmap=%lu\n", successes[NR_KNOWN]);
	return failures ? 1 : 0;
}
