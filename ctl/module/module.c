// SPDX-License-Identifier: GPL-2.0-or-later
/* The /dev/mtg client (kmod/uapi/mtg.h shows the sequence in ten lines). */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "module/module.h"
#include "util/log.h"

static const char *open_hint(int err)
{
	switch (err) {
	case ENOENT:
	case ENXIO:
	case ENODEV:
		return " (is mtg.ko loaded? modprobe mtg)";
	case EACCES:
	case EPERM:
		return " (CAP_NET_ADMIN is needed: run as root)";
	}
	return "";
}

int mtg_dev_open(struct mtg_dev *d, const char *path)
{
	int err;

	memset(d, 0, sizeof(*d));
	d->fd = -1;
	d->path = path;
	d->fd = open(path, O_RDWR | O_CLOEXEC);
	if (d->fd < 0) {
		err = errno;
		pr_err("cannot open %s: %s%s\n", path, strerror(err),
		       open_hint(err));
		return -err;
	}
	if (ioctl(d->fd, MTG_IOC_VERSION, &d->ver)) {
		err = errno;
		pr_err("%s: MTG_IOC_VERSION failed: %s (not an mtg device?)\n",
		       path, strerror(err));
		goto err_close;
	}
	if (d->ver.abi_major != MTG_ABI_MAJOR) {
		pr_err("%s speaks ABI %u.%u, mtgctl speaks %u.%u: load the mtg.ko that came with this mtgctl\n",
		       path, d->ver.abi_major, d->ver.abi_minor,
		       MTG_ABI_MAJOR, MTG_ABI_MINOR);
		err = EPROTO;
		goto err_close;
	}
	if (d->ver.abi_minor < MTG_ABI_MINOR) {
		pr_err("%s speaks ABI %u.%u, without the commands of %u.%u (traffic generators, receive path): load a newer mtg.ko\n",
		       path, d->ver.abi_major, d->ver.abi_minor,
		       MTG_ABI_MAJOR, MTG_ABI_MINOR);
		err = EPROTO;
		goto err_close;
	}
	return 0;

err_close:
	close(d->fd);
	d->fd = -1;
	return -err;
}

static void *map_region(struct mtg_dev *d, int idx, int prot, size_t *size)
{
	const struct mtg_region *r = &d->off.region[idx];
	void *p;

	if (!r->size) {
		pr_err("%s: the module offers no region %d\n", d->path, idx);
		errno = ENODATA;
		return NULL;
	}
	p = mmap(NULL, r->size, prot, MAP_SHARED, d->fd, (off_t)r->offset);
	if (p == MAP_FAILED) {
		pr_err("%s: cannot map region %d (%llu bytes): %s\n", d->path,
		       idx, (unsigned long long)r->size, strerror(errno));
		return NULL;
	}
	*size = r->size;
	return p;
}

static void ring_setup(struct mtg_dev *d, struct mtg_ring_reader *r,
		       const struct mtg_ring_offsets *o)
{
	r->records = (const uint8_t *)d->rx + o->records;
	r->producer = (const uint64_t *)((const uint8_t *)d->rx + o->producer);
	r->consumer = (uint64_t *)((uint8_t *)d->rx_cons + o->consumer);
	r->nr = o->nr;
	r->size = o->size;
	r->cons = __atomic_load_n(r->consumer, __ATOMIC_RELAXED);
}

/* The rings as the module describes them, checked against our mappings. */
static int rx_map(struct mtg_dev *d)
{
	const struct mtg_rx_offsets *o = &d->rx_off;
	const struct mtg_ring_offsets *rings[] = { &o->data, &o->ctrl };
	const uint32_t sizes[] = { sizeof(struct mtg_rx_rec),
				   sizeof(struct mtg_ctrl_rec) };
	size_t i;

	if (ioctl(d->fd, MTG_IOC_RX_OFFSETS, &d->rx_off)) {
		pr_err("%s: MTG_IOC_RX_OFFSETS failed: %s\n", d->path,
		       strerror(errno));
		return -errno;
	}
	d->rx = map_region(d, MTG_REGION_RX, PROT_READ, &d->rx_size);
	if (!d->rx)
		return -errno;
	d->rx_cons = map_region(d, MTG_REGION_RX_CONS, PROT_READ | PROT_WRITE,
				&d->rx_cons_size);
	if (!d->rx_cons)
		return -errno;
	for (i = 0; i < 2; i++) {
		const struct mtg_ring_offsets *r = rings[i];

		if (r->size != sizes[i] || !r->nr || r->nr & (r->nr - 1) ||
		    r->records + (uint64_t)r->nr * r->size > d->rx_size ||
		    r->producer + 8 > d->rx_size ||
		    r->consumer + 8 > d->rx_cons_size ||
		    o->stats + sizeof(struct mtg_rx_stats) > d->rx_size) {
			pr_err("%s: the receive rings' layout makes no sense (not the mtg.ko of this mtgctl?)\n",
			       d->path);
			return -EPROTO;
		}
	}
	ring_setup(d, &d->data, &o->data);
	ring_setup(d, &d->ctrl, &o->ctrl);
	return 0;
}

/* The keep ring's place, checked against the mapping. */
static int keep_map(struct mtg_dev *d)
{
	struct mtg_keep_offsets o;

	if (ioctl(d->fd, MTG_IOC_RX_KEEP_OFFSETS, &o)) {
		pr_err("%s: MTG_IOC_RX_KEEP_OFFSETS failed: %s\n", d->path,
		       strerror(errno));
		return -errno;
	}
	if (!o.bytes || o.bytes & (o.bytes - 1) || o.area % 8 ||
	    o.area > d->rx_size || o.bytes > d->rx_size - o.area ||
	    o.producer % 8 || o.producer + 8 > d->rx_size ||
	    o.consumer % 8 || o.consumer + 8 > d->rx_cons_size) {
		pr_err("%s: the keep ring's layout makes no sense (not the mtg.ko of this mtgctl?)\n",
		       d->path);
		return -EPROTO;
	}
	d->keep.area = (const uint8_t *)d->rx + o.area;
	d->keep.producer = (const uint64_t *)((const uint8_t *)d->rx +
					      o.producer);
	d->keep.consumer = (uint64_t *)((uint8_t *)d->rx_cons + o.consumer);
	d->keep.bytes = o.bytes;
	d->keep.cons = __atomic_load_n(d->keep.consumer, __ATOMIC_RELAXED);
	return 0;
}

int mtg_keep_next(struct mtg_keep_reader *k, struct mtg_keep_rec *e,
		  const uint8_t **data)
{
	uint64_t prod, avail, at;
	uint32_t len;

	if (!k->bytes)
		return 0;
	prod = __atomic_load_n(k->producer, __ATOMIC_ACQUIRE);
	for (;;) {
		avail = prod - k->cons;
		if (!avail)
			return 0;
		at = k->cons & (k->bytes - 1);
		if (avail > k->bytes || avail % 8)
			return -EPROTO;
		/* A pad at the ring's end may be all of 8 bytes. */
		memcpy(e, k->area + at, 8);
		len = e->len;
		if (len < 8 || len % 8 || len > avail || len > k->bytes - at)
			return -EPROTO;
		if (e->type == MTG_KEEP_PAD) {
			k->cons += len;
			continue;
		}
		if (len < sizeof(*e))
			return -EPROTO;
		memcpy(e, k->area + at, sizeof(*e));
		if (e->len != len || e->data_len > len - sizeof(*e))
			return -EPROTO;
		*data = k->area + at + sizeof(*e);
		k->cons += len;
		return 1;
	}
}

void mtg_keep_release(struct mtg_keep_reader *k)
{
	if (k->bytes)
		__atomic_store_n(k->consumer, k->cons, __ATOMIC_RELEASE);
}

int mtg_dev_alloc(struct mtg_dev *d, uint64_t table_bytes,
		  uint64_t rx_records, uint64_t keep_bytes)
{
	struct mtg_alloc alloc = {
		.table_bytes = table_bytes,
		.rx_records = rx_records,
		.keep_bytes = keep_bytes,
	};
	int err;

	if (ioctl(d->fd, MTG_IOC_ALLOC, &alloc)) {
		err = errno;
		if (err == E2BIG)
			pr_err("%s: %llu bytes of timetables, a ring of %llu records and a keep ring of %llu bytes exceed the module's cap of %llu bytes a session (max_session_bytes)\n",
			       d->path, (unsigned long long)table_bytes,
			       (unsigned long long)rx_records,
			       (unsigned long long)keep_bytes,
			       (unsigned long long)d->ver.max_session_bytes);
		else
			pr_err("%s: cannot allocate %llu bytes of timetables, a ring of %llu records and a keep ring of %llu bytes: %s\n",
			       d->path, (unsigned long long)table_bytes,
			       (unsigned long long)rx_records,
			       (unsigned long long)keep_bytes, strerror(err));
		return -err;
	}
	if (ioctl(d->fd, MTG_IOC_MMAP_OFFSETS, &d->off)) {
		err = errno;
		pr_err("%s: MTG_IOC_MMAP_OFFSETS failed: %s\n", d->path,
		       strerror(err));
		return -err;
	}
	if (table_bytes) {
		d->tables = map_region(d, MTG_REGION_TABLES,
				       PROT_READ | PROT_WRITE, &d->tables_size);
		if (!d->tables)
			return -errno;
		if (d->tables_size < table_bytes) {
			pr_err("%s: the tables region has %zu bytes, %llu asked\n",
			       d->path, d->tables_size,
			       (unsigned long long)table_bytes);
			return -ENOSPC;
		}
	}
	d->status = map_region(d, MTG_REGION_STATUS, PROT_READ,
			       &d->status_size);
	if (!d->status)
		return -errno;
	if (!rx_records)
		return 0;
	err = rx_map(d);
	return err || !keep_bytes ? err : keep_map(d);
}

int mtg_dev_listen(struct mtg_dev *d, int netns_fd, uint32_t ifindex,
		   bool pass, uint32_t *id)
{
	struct mtg_iface_add req = {
		.netns_fd = netns_fd < 0 ? MTG_NETNS_CURRENT : (uint32_t)netns_fd,
		.ifindex = ifindex,
		.flags = MTG_IFACE_F_RX | (pass ? MTG_IFACE_F_RX_PASS : 0),
	};

	if (ioctl(d->fd, MTG_IOC_IFACE_ADD, &req))
		return -errno;
	*id = req.id;
	return 0;
}

int mtg_dev_iface_info(struct mtg_dev *d, uint32_t id,
		       struct mtg_iface_info *info)
{
	memset(info, 0, sizeof(*info));
	info->id = id;
	return ioctl(d->fd, MTG_IOC_IFACE_INFO, info) ? -errno : 0;
}

int mtg_dev_rx_set_run(struct mtg_dev *d, uint32_t run_id)
{
	return ioctl(d->fd, MTG_IOC_RX_SET_RUN, &run_id) ? -errno : 0;
}

int mtg_dev_rx_ditg(struct mtg_dev *d, uint16_t port, uint32_t run_id,
		    bool add)
{
	struct mtg_rx_ditg req = {
		.run_id = add ? run_id : 0, .port = port,
		.op = add ? MTG_DITG_ADD : MTG_DITG_DEL,
	};

	return ioctl(d->fd, MTG_IOC_RX_DITG, &req) ? -errno : 0;
}

int mtg_dev_rx_stats(struct mtg_dev *d, struct mtg_rx_stats *st)
{
	return ioctl(d->fd, MTG_IOC_RX_STATS, st) ? -errno : 0;
}

/* The module's counters from the shared copy: each whole, no system call. */
void mtg_dev_rx_stats_shm(const struct mtg_dev *d, struct mtg_rx_stats *st)
{
	const uint64_t *src = (const uint64_t *)((const uint8_t *)d->rx +
						 d->rx_off.stats);
	uint64_t v[sizeof(*st) / sizeof(uint64_t)];
	size_t i;

	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		v[i] = __atomic_load_n(&src[i], __ATOMIC_RELAXED);
	memcpy(st, v, sizeof(*st));
}

int64_t mtg_ring_ready(const struct mtg_ring_reader *r)
{
	/* Pairs with the kernel's release: the records are complete. */
	uint64_t prod = __atomic_load_n(r->producer, __ATOMIC_ACQUIRE);

	if (prod - r->cons > r->nr)
		return -EPROTO;
	return (int64_t)(prod - r->cons);
}

void mtg_ring_release(struct mtg_ring_reader *r, uint64_t n)
{
	r->cons += n;
	/* We are done with the records before the kernel may reuse them. */
	__atomic_store_n(r->consumer, r->cons, __ATOMIC_RELEASE);
}

int mtg_dev_tg_start(struct mtg_dev *d, struct mtg_tg_start *start)
{
	return ioctl(d->fd, MTG_IOC_TG_START, start) ? -errno : 0;
}

int mtg_dev_tg_kill(struct mtg_dev *d, uint32_t tg_id)
{
	return ioctl(d->fd, MTG_IOC_TG_KILL, &tg_id) ? -errno : 0;
}

int mtg_dev_tg_suspend(struct mtg_dev *d, uint32_t tg_id)
{
	return ioctl(d->fd, MTG_IOC_TG_SUSPEND, &tg_id) ? -errno : 0;
}

int mtg_dev_tg_resume(struct mtg_dev *d, uint32_t tg_id)
{
	return ioctl(d->fd, MTG_IOC_TG_RESUME, &tg_id) ? -errno : 0;
}

int mtg_dev_tg_set_rate(struct mtg_dev *d, uint32_t tg_id, uint32_t num,
			uint32_t den)
{
	struct mtg_tg_rate r = { .tg_id = tg_id, .num = num, .den = den };

	return ioctl(d->fd, MTG_IOC_TG_SET_RATE, &r) ? -errno : 0;
}

int mtg_dev_tg_ctrlmsg(struct mtg_dev *d, uint32_t tg_id, const void *data,
		       size_t len)
{
	struct mtg_tg_ctrlmsg m = {
		.tg_id = tg_id,
		.len = (uint32_t)len,
		.data = (uint64_t)(uintptr_t)data,
	};

	if (len > MTG_CTRLMSG_MAX)
		return -EMSGSIZE;
	return ioctl(d->fd, MTG_IOC_TG_CTRLMSG, &m) ? -errno : 0;
}

int mtg_dev_tg_stats(struct mtg_dev *d, uint32_t tg_id,
		     struct mtg_tg_stats *st)
{
	memset(st, 0, sizeof(*st));
	st->tg_id = tg_id;
	return ioctl(d->fd, MTG_IOC_TG_STATS, st) ? -errno : 0;
}

int mtg_dev_status(const struct mtg_dev *d, struct mtg_stats *st)
{
	const struct mtg_status *s = d->status;
	uint64_t seq;
	int tries;

	if (!s || s->magic != MTG_STATUS_MAGIC)
		return -ENODATA;
	for (tries = 0; tries < 1000; tries++) {
		seq = __atomic_load_n(&s->seq, __ATOMIC_ACQUIRE);
		if (seq & 1)
			continue;
		memcpy(st, (const void *)&s->stats, sizeof(*st));
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		if (__atomic_load_n(&s->seq, __ATOMIC_RELAXED) == seq)
			return 0;
	}
	return -EAGAIN;
}

void mtg_dev_close(struct mtg_dev *d)
{
	if (d->tables)
		munmap(d->tables, d->tables_size);
	if (d->status)
		munmap((void *)d->status, d->status_size);
	if (d->rx)
		munmap((void *)d->rx, d->rx_size);
	if (d->rx_cons)
		munmap(d->rx_cons, d->rx_cons_size);
	if (d->fd >= 0)
		close(d->fd);
	d->tables = NULL;
	d->status = NULL;
	d->rx = NULL;
	d->rx_cons = NULL;
	d->fd = -1;
}

const char *mtg_tg_start_hint(int err)
{
	switch (err) {
	case ETIME:
		return "its start time had passed when the module got it: raise --start-delay";
	case ENODEV:
		return "no such interface in that namespace (it went away?)";
	case EOPNOTSUPP:
		return "the interface is not an Ethernet device";
	case ENETUNREACH:
		return "the route to 'dst' does not leave through 'dev' (check the routes in its namespace)";
	case ENXIO:
		return "no such CPU: check 'cpu'";
	case EINTR:
		return "interrupted while resolving the destination's MAC address";
	case ENETDOWN:
		return "the interface is down";
	case EHOSTUNREACH:
		return "the destination's MAC address could not be resolved (no ARP/ND answer): check 'dst' and the route, or give 'mac'";
	case EADDRNOTAVAIL:
		return "the source address is not usable on that interface, or (IPv6) the interface has no usable link-local address to solicit the next hop from: give 'mac', or add the neighbour";
	case EEXIST:
		return "a TG with this tgid already runs in the session";
	case EMSGSIZE:
		return "the packet length does not fit the interface's MTU";
	case EPERM:
	case EACCES:
		return "CAP_NET_ADMIN is needed in the interface's namespace";
	case EBADF:
		return "the namespace file is not usable";
	case ENOMEM:
	case ENOSPC:
		return "the module is out of memory or of TG slots";
	case ESHUTDOWN:
		return "the session was ended (by an administrator?)";
	case EINVAL:
		return "the module refused a parameter (a length above the interface's MTU + 14 bytes? a table outside the shared memory?)";
	}
	return NULL;
}

const char *mtg_tg_state_name(uint32_t state)
{
	switch (state) {
	case MTG_TG_STATE_RUNNING:
		return "running";
	case MTG_TG_STATE_SUSPENDED:
		return "suspended";
	case MTG_TG_STATE_FINISHED:
		return "finished";
	case MTG_TG_STATE_KILLED:
		return "killed";
	case MTG_TG_STATE_FAILED:
		return "failed";
	case 0:		/* never given to the module (mtgctl's `time user`) */
		return "not started";
	}
	return "unknown";
}

const char *mtg_tg_error_name(uint32_t error)
{
	switch (error) {
	case MTG_TG_ERROR_NONE:
		return NULL;
	case MTG_TG_ERROR_DEV_GONE:
		return "dev_gone";
	case MTG_TG_ERROR_CPU_OFFLINE:
		return "cpu_offline";
	case MTG_TG_ERROR_RING:
		return "ring";
	case MTG_TG_ERROR_TIME:
		return "time";
	case MTG_TG_ERROR_SOCKET:
		return "socket";
	}
	return "unknown";
}

int mtg_tg_ended(uint32_t state)
{
	return state == MTG_TG_STATE_FINISHED || state == MTG_TG_STATE_KILLED ||
	       state == MTG_TG_STATE_FAILED;
}
