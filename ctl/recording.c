// SPDX-License-Identifier: GPL-2.0-or-later
/* The recording file writer (recording.h). */
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mtgctl.h"
#include "recording.h"

#define REC_BUF_BYTES	(1u << 20)	/* written in blocks of 1 MiB */
#define REC_SIZE	sizeof(struct mtg_rx_rec)
#define XHEAD		sizeof(struct rec_extra)
/* The largest entry: a head, 64 KiB of data (a payload, or positions). */
#define XENTRY_MAX	(XHEAD + 65536 * sizeof(uint32_t))

_Static_assert(sizeof(struct rec_file_header) == 64, "64-byte header");
_Static_assert(REC_SIZE == 96, "the format's record is 96 bytes");
_Static_assert(sizeof(struct rec_extra_header) == 64, "64-byte section header");
_Static_assert(sizeof(struct rec_extra) == 64, "64-byte entry head");
_Static_assert(XENTRY_MAX <= REC_BUF_BYTES, "an entry fits the buffer");

const struct rec_field rec_fields[REC_NFIELDS] = {
	{ "rx_ns", "<u8", 0 }, { "seq", "<u8", 0 },
	{ "sched_ns", "<u8", 0 }, { "tx_ns", "<u8", 0 },
	{ "tp_ns", "<u8", 4 }, { "run_id", "<u4", 0 },
	{ "tg_id", "<u4", 0 }, { "wrong_bits", "<u4", 0 },
	{ "len", "<u2", 0 }, { "iface", "<u2", 0 },
	{ "flags", "<u2", 0 }, { "nut", "u1", 6 }, { "ttl", "u1", 0 },
	{ "tos", "u1", 0 }, { "payload_len", "<u2", 0 },
	{ "reserved", "<u4", 0 },
};

/* A new file beside path (same directory: rename() can replace path). */
static int create_beside(struct recorder *w, const char *path)
{
	size_t len = strlen(path) + sizeof(".XXXXXX");
	mode_t mask;

	w->tmp_path = malloc(len);
	if (!w->tmp_path)
		return -ENOMEM;
	snprintf(w->tmp_path, len, "%s.XXXXXX", path);
	w->fd = mkostemp(w->tmp_path, O_CLOEXEC);
	if (w->fd < 0) {
		int err = errno;

		free(w->tmp_path);
		w->tmp_path = NULL;
		return -err;
	}
	/* mkostemp() makes 0600; a recording gets what open() would give. */
	mask = umask(0);
	umask(mask);
	if (fchmod(w->fd, 0666 & ~mask))
		return -errno;
	return 0;
}

int rec_create(struct recorder *w, const char *path, bool force)
{
	int err = 0;

	memset(w, 0, sizeof(*w));
	w->path = path;
	w->xfd = -1;
	w->version = REC_VERSION;
	if (force) {
		err = create_beside(w, path);
	} else {
		w->fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
		if (w->fd < 0)
			err = -errno;
	}
	if (err) {
		if (err == -EEXIST)
			pr_err("%s exists: not overwriting a recording (--force to replace it)\n",
			       path);
		else
			pr_err("cannot create the recording %s: %s\n", path,
			       strerror(-err));
		if (w->tmp_path)
			rec_abandon(w);
		return err;
	}
	w->created = true;
	w->buf = malloc(REC_BUF_BYTES);
	if (!w->buf) {
		pr_err("out of memory\n");
		rec_abandon(w);
		return -ENOMEM;
	}
	return 0;
}

/* Write all of buf at off; 0 or -errno (with what got written in *done). */
static int pwrite_all(int fd, const void *buf, size_t len, off_t off,
		      size_t *done)
{
	size_t n = 0;

	while (n < len) {
		ssize_t k = pwrite(fd, (const char *)buf + n, len - n,
				   off + (off_t)n);

		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0) {
			*done = n;
			return k < 0 ? -errno : -EIO;
		}
		n += (size_t)k;
	}
	*done = n;
	return 0;
}

static void header_fill(const struct recorder *w, struct rec_file_header *h,
			uint32_t flags, uint64_t ring_drops, uint64_t end_ns)
{
	memset(h, 0, sizeof(*h));
	memcpy(h->magic, REC_MAGIC, sizeof(h->magic));
	h->version = htole32(w->version);
	h->header_bytes = htole32(w->header_bytes);
	h->record_bytes = htole32(REC_SIZE);
	h->flags = htole32(flags | (w->extras ? REC_F_EXTRAS : 0));
	h->records = htole64(w->written);
	h->not_written = htole64(w->not_written);
	h->ring_drops = htole64(ring_drops);
	h->end_ns = htole64(end_ns);
	h->meta_bytes = htole32(w->meta_bytes);
	h->ifaces_lost = htole32(w->ifaces_lost);
}

/*
 * Where the metadata's "version": 1 has its digit (file offset; 0 if not
 * found): a recording that ends up with extra entries says 2 there.
 */
static uint64_t meta_version_digit(const char *meta, size_t len)
{
	static const char key[] = "\"version\":";
	const char *p = memmem(meta, len, key, sizeof(key) - 1);

	if (!p)
		return 0;
	for (p += sizeof(key) - 1; p < meta + len && *p == ' '; p++)
		;
	if (p + 1 >= meta + len || *p != '0' + REC_VERSION ||
	    (p[1] >= '0' && p[1] <= '9'))
		return 0;
	return sizeof(struct rec_file_header) + (uint64_t)(p - meta);
}

int rec_begin(struct recorder *w, const char *meta, size_t meta_bytes)
{
	struct rec_file_header h;
	size_t total, done;
	uint8_t *head;
	int err;

	if (meta_bytes > UINT32_MAX - REC_ALIGN - sizeof(h))
		return -E2BIG;
	total = (sizeof(h) + meta_bytes + REC_ALIGN - 1) / REC_ALIGN * REC_ALIGN;
	head = calloc(1, total);
	if (!head)
		return -ENOMEM;
	w->header_bytes = (uint32_t)total;
	w->meta_bytes = (uint32_t)meta_bytes;
	w->meta_version_at = meta_version_digit(meta, meta_bytes);
	header_fill(w, &h, 0, 0, 0);
	memcpy(head, &h, sizeof(h));
	memcpy(head + sizeof(h), meta, meta_bytes);
	err = pwrite_all(w->fd, head, total, 0, &done);
	free(head);
	if (err) {
		w->error = err;
		pr_err("cannot write the recording %s: %s\n", w->path,
		       strerror(-err));
	}
	return err;
}

/*
 * Between host order and the format's little-endian: the same swap both
 * ways (and nothing on a little-endian host).
 */
static void rec_swap(struct mtg_rx_rec *r)
{
#if __BYTE_ORDER != __LITTLE_ENDIAN
	size_t i;

	r->rx_ns = htole64(r->rx_ns);
	r->seq = htole64(r->seq);
	r->sched_ns = htole64(r->sched_ns);
	r->tx_ns = htole64(r->tx_ns);
	for (i = 0; i < 4; i++)
		r->tp_ns[i] = htole64(r->tp_ns[i]);
	r->run_id = htole32(r->run_id);
	r->tg_id = htole32(r->tg_id);
	r->wrong_bits = htole32(r->wrong_bits);
	r->len = htole16(r->len);
	r->iface = htole16(r->iface);
	r->flags = htole16(r->flags);
	r->payload_len = htole16(r->payload_len);
#else
	(void)r;
#endif
}

int rec_flush(struct recorder *w)
{
	size_t done;
	off_t off;
	int err;

	if (w->error || !w->len)
		return w->error;
	off = (off_t)w->header_bytes + (off_t)(w->written * REC_SIZE);
	err = pwrite_all(w->fd, w->buf, w->len, off, &done);
	w->written += done / REC_SIZE;
	if (err) {
		/* Whatever part of a record made it to disk is cut off. */
		w->not_written += (w->len - done / REC_SIZE * REC_SIZE) / REC_SIZE;
		if (ftruncate(w->fd, (off_t)w->header_bytes +
			      (off_t)(w->written * REC_SIZE)))
			err = err ? err : -errno;
		w->error = err;
	}
	w->len = 0;
	return err;
}

/* Between host order and little-endian, as rec_swap() for records. */
static void extra_swap(struct rec_extra *e)
{
#if __BYTE_ORDER != __LITTLE_ENDIAN
	e->bytes = htole32(e->bytes);
	e->type = htole16(e->type);
	e->flags = htole16(e->flags);
	e->record = htole64(e->record);
	e->rx_ns = htole64(e->rx_ns);
	e->seq = htole64(e->seq);
	e->tx_ns = htole64(e->tx_ns);
	e->run_id = htole32(e->run_id);
	e->tg_id = htole32(e->tg_id);
	e->iface = htole16(e->iface);
	e->rx_flags = htole16(e->rx_flags);
	e->count = htole32(e->count);
	e->data_len = htole32(e->data_len);
#else
	(void)e;
#endif
}

/*
 * The file the extra entries wait in until the end: unnamed (O_TMPFILE),
 * in the recording's directory, so that the end copies on one file system;
 * where O_TMPFILE is not supported, a named one removed at once.
 */
static int extras_open(struct recorder *w)
{
	const char *path = w->path, *slash = strrchr(path, '/');
	char *name;
	size_t n;
	int err = 0;

	w->xbuf = malloc(REC_BUF_BYTES);
	n = strlen(path) + sizeof(".extras.XXXXXX");
	name = malloc(n);
	if (!w->xbuf || !name) {
		free(name);
		return -ENOMEM;
	}
	if (slash)
		snprintf(name, n, "%.*s", slash == path ? 1 : (int)(slash - path),
			 path);
	else
		snprintf(name, n, ".");
	w->xfd = open(name, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (w->xfd < 0) {
		snprintf(name, n, "%s.extras.XXXXXX", path);
		w->xfd = mkostemp(name, O_CLOEXEC);
		if (w->xfd < 0)
			err = -errno;
		else
			unlink(name);
	}
	free(name);
	return err;
}

/* The buffered entries into the waiting file; lost and counted on error. */
static int extras_flush(struct recorder *w, uint64_t *buffered)
{
	uint64_t at = w->xbytes - w->xlen;
	size_t done;
	int err;

	if (!w->xlen)
		return 0;
	err = pwrite_all(w->xfd, w->xbuf, w->xlen, (off_t)at, &done);
	if (err) {
		if (ftruncate(w->xfd, (off_t)at))
			err = err ? err : -errno;
		w->xlost += *buffered;
		w->xentries -= *buffered;
		w->xbytes = at;
		if (!w->error)
			w->error = err;
	}
	w->xlen = 0;
	*buffered = 0;
	return err;
}

int rec_add_extra(struct recorder *w, const struct rec_extra *e,
		  const void *data)
{
	size_t bytes = (XHEAD + e->data_len + 7) & ~(size_t)7;
	struct rec_extra *h;
	int err;

	if (w->error || bytes > XENTRY_MAX) {
		w->xlost++;
		return w->error ? w->error : -EMSGSIZE;
	}
	if (w->xfd < 0) {
		err = extras_open(w);
		if (err) {
			w->xlost++;
			w->error = err;
			return err;
		}
	}
	if (w->xlen + bytes > REC_BUF_BYTES &&
	    extras_flush(w, &w->xbuffered)) {
		w->xlost++;
		return w->error;
	}
	h = (struct rec_extra *)(w->xbuf + w->xlen);
	memset(h, 0, bytes);
	*h = *e;
	h->bytes = (uint32_t)bytes;
	h->reserved = 0;
	extra_swap(h);
	memcpy(h + 1, data, e->data_len);
	w->xlen += bytes;
	w->xbytes += bytes;
	w->xentries++;
	w->xbuffered++;
	return 0;
}

int rec_add_rate(struct recorder *w, uint32_t run_id, uint32_t tg_id,
		 uint64_t when_ns, uint32_t num, uint32_t den, uint16_t by)
{
	struct rec_extra_rate d = {
		.num = htole32(num),
		.den = htole32(den),
		.by = htole16(by),
	};
	struct rec_extra e = {
		.type = REC_EXTRA_RATE,
		.record = REC_EXTRA_NO_RECORD,
		.rx_ns = when_ns,
		.run_id = run_id,
		.tg_id = tg_id,
		.data_len = sizeof(d),
	};

	return rec_add_extra(w, &e, &d);
}

void rec_extra_drops(struct recorder *w, uint64_t ctrl_drops,
		     uint64_t keep_drops)
{
	w->ctrl_drops = ctrl_drops;
	w->keep_drops = keep_drops;
}

/*
 * The extra section at end: its header and, with entries, the entries
 * from the waiting file (through xbuf).
 */
static int extras_write(struct recorder *w, off_t end, bool entries)
{
	struct rec_extra_header xh;
	uint64_t at = 0;
	size_t done;
	ssize_t n;
	int err;

	memset(&xh, 0, sizeof(xh));
	memcpy(xh.magic, REC_EXTRA_MAGIC, sizeof(xh.magic));
	xh.entries = htole64(entries ? w->xentries : 0);
	xh.bytes = htole64(entries ? w->xbytes : 0);
	xh.ctrl_drops = htole64(w->ctrl_drops);
	xh.keep_drops = htole64(w->keep_drops);
	xh.extras_lost = htole64(w->xlost);
	err = pwrite_all(w->fd, &xh, sizeof(xh), end, &done);
	while (!err && entries && at < w->xbytes) {
		n = pread(w->xfd, w->xbuf, REC_BUF_BYTES, (off_t)at);
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		err = pwrite_all(w->fd, w->xbuf, (size_t)n,
				 end + (off_t)sizeof(xh) + (off_t)at, &done);
		at += (uint64_t)n;
	}
	return err;
}

/*
 * The end: the extra section after the last record. A file with neither
 * entries nor losses of them stays version 1. If the entries cannot be
 * written, the file is cut back to its records and a section without
 * entries counts them in extras_lost; the metadata's version digit is
 * made 2 last, so that a file is version 2 only with its section whole.
 * If that cannot be done either, the file stays version 1, and the
 * entries are counted as lost in the summary and the report.
 */
static void extras_append(struct recorder *w)
{
	off_t end = (off_t)w->header_bytes + (off_t)(w->written * REC_SIZE);
	int err = 0;

	if (!w->xentries && !w->xlost && !w->ctrl_drops && !w->keep_drops)
		return;
	if (w->xfd >= 0)
		err = extras_flush(w, &w->xbuffered);
	if (!err)
		err = extras_write(w, end, true);
	if (err) {
		if (!w->error)
			w->error = err;
		w->xlost += w->xentries;
		w->xentries = 0;
		w->xbytes = 0;
		if (ftruncate(w->fd, end) || extras_write(w, end, false))
			goto err_cut;
	}
	if (!w->meta_version_at ||
	    pwrite(w->fd, "2", 1, (off_t)w->meta_version_at) != 1) {
		if (!w->error)
			w->error = w->meta_version_at ? -errno : -EIO;
		goto err_cut;
	}
	w->version = REC_VERSION_EXTRAS;
	w->extras = true;
	return;

err_cut:
	if (ftruncate(w->fd, end) && !w->error)
		w->error = -errno;
	w->xlost += w->xentries;
	w->xentries = 0;
	w->xbytes = 0;
}

static void extras_close(struct recorder *w)
{
	if (w->xfd >= 0)
		close(w->xfd);
	w->xfd = -1;
	free(w->xbuf);
	w->xbuf = NULL;
}

int rec_ifaces_lost(struct recorder *w, uint32_t n)
{
	struct rec_file_header h;
	size_t done;
	int err;

	w->ifaces_lost = n;
	if (w->error || w->fd < 0)
		return w->error;
	/* Unfinished: no COMPLETE flag, no counts, as rec_begin() wrote it. */
	header_fill(w, &h, 0, 0, 0);
	h.records = 0;
	h.not_written = 0;
	err = pwrite_all(w->fd, &h, sizeof(h), 0, &done);
	if (err)
		w->error = err;
	return err;
}

int rec_add(struct recorder *w, const struct mtg_rx_rec *r)
{
	struct mtg_rx_rec *slot;

	if (w->error) {
		w->not_written++;
		return w->error;
	}
	if (w->len + REC_SIZE > REC_BUF_BYTES && rec_flush(w)) {
		w->not_written++;
		return w->error;
	}
	slot = (struct mtg_rx_rec *)(w->buf + w->len);
	memcpy(slot, r, REC_SIZE);
	rec_swap(slot);
	w->len += REC_SIZE;
	return 0;
}

int rec_finish(struct recorder *w, uint64_t ring_drops, uint64_t end_ns)
{
	struct rec_file_header h;
	size_t done;
	int err;

	if (w->fd < 0)
		return w->error;
	rec_flush(w);
	extras_append(w);
	extras_close(w);
	header_fill(w, &h, REC_F_COMPLETE, ring_drops, end_ns);
	/* Rewriting the first page needs no new space on a full disk. */
	err = pwrite_all(w->fd, &h, sizeof(h), 0, &done);
	if (!err && fsync(w->fd))
		err = -errno;
	if (close(w->fd) && !err)
		err = -errno;
	w->fd = -1;
	if (err && !w->error)
		w->error = err;
	free(w->buf);
	w->buf = NULL;
	return w->error;
}

const char *rec_commit(struct recorder *w)
{
	if (!w->tmp_path)
		return w->path;
	if (rename(w->tmp_path, w->path)) {
		pr_err("cannot replace %s: %s: recording in %s instead\n",
		       w->path, strerror(errno), w->tmp_path);
		/* Kept for the process's life: messages and summary name it. */
		w->path = w->tmp_path;
		w->tmp_path = NULL;
		return w->path;
	}
	free(w->tmp_path);
	w->tmp_path = NULL;
	return w->path;
}

void rec_abandon(struct recorder *w)
{
	extras_close(w);
	if (w->fd >= 0) {
		close(w->fd);
		w->fd = -1;
	}
	if (w->created || w->tmp_path)
		unlink(w->tmp_path ? w->tmp_path : w->path);
	w->created = false;
	free(w->tmp_path);
	w->tmp_path = NULL;
	free(w->buf);
	w->buf = NULL;
}

static size_t min_size(size_t a, size_t b)
{
	return a < b ? a : b;
}

/* Refuse path: a message, and -EINVAL. */
__attribute__((format(printf, 2, 3)))
static int refuse(struct rec_reader *r, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "mtgctl: %s: ", r->path);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	rec_close(r);
	return -EINVAL;
}

/*
 * What is wrong with the extra entry e at pos of the section (left bytes
 * of it from there, got of them read), into why; false if nothing.
 * mtgsap's recording.py checks the same, in the same words.
 */
static bool extra_wrong(const struct rec_reader *r, const struct rec_extra *e,
			uint64_t left, size_t got, char *why, size_t size)
{
	if (got < sizeof(*e))
		snprintf(why, size, "%llu bytes left, less than an entry's %zu-byte head",
			 (unsigned long long)left, sizeof(*e));
	else if (e->bytes < sizeof(*e) || e->bytes % 8)
		snprintf(why, size, "its length is %u, not a multiple of 8 from %zu",
			 e->bytes, sizeof(*e));
	else if (e->bytes > left)
		snprintf(why, size, "its length %u goes past the section's end, %llu bytes on",
			 e->bytes, (unsigned long long)left);
	else if (e->data_len > e->bytes - sizeof(*e) ||
		 e->bytes - sizeof(*e) - e->data_len >= 8)
		snprintf(why, size, "%u bytes of data do not make its length %u",
			 e->data_len, e->bytes);
	else if ((e->type == REC_EXTRA_PAYLOAD ||
		  e->type == REC_EXTRA_WRONG_BITS) && e->record >= r->records)
		snprintf(why, size, "it is of record %llu, the file has %llu",
			 (unsigned long long)e->record,
			 (unsigned long long)r->records);
	else if (e->type == REC_EXTRA_WRONG_BITS && e->data_len % 4)
		snprintf(why, size, "%u bytes of wrong bits' positions, not a multiple of 4",
			 e->data_len);
	else
		return false;
	return true;
}

const char *rec_rate_by_name(uint16_t by)
{
	switch (by) {
	case REC_RATE_BY_KEY:
		return "key";
	case REC_RATE_BY_COMMAND:
		return "command";
	case REC_RATE_BY_RESTART:
		return "restart";
	}
	return "?";
}

int rec_rate_read(const struct rec_extra *e, const void *data,
		  struct rec_extra_rate *out, char *why, size_t size)
{
	if (e->record != REC_EXTRA_NO_RECORD) {
		snprintf(why, size, "a rate change of record %llu, not of none (2^64 - 1)",
			 (unsigned long long)e->record);
		return -1;
	}
	if (e->data_len != sizeof(*out)) {
		snprintf(why, size, "a rate change of %u bytes of data, not %zu",
			 e->data_len, sizeof(*out));
		return -1;
	}
	memcpy(out, data, sizeof(*out));
	out->num = le32toh(out->num);
	out->den = le32toh(out->den);
	out->by = le16toh(out->by);
	out->reserved = le16toh(out->reserved);
	out->reserved2 = le32toh(out->reserved2);
	if (!out->num || out->num > REC_RATE_MAX || !out->den ||
	    out->den > REC_RATE_MAX)
		snprintf(why, size, "a rate change of x%u/%u, not num/den from 1 to %u",
			 out->num, out->den, REC_RATE_MAX);
	else if (!strcmp(rec_rate_by_name(out->by), "?"))
		snprintf(why, size, "a rate change by %u, not 1 (key), 2 (command) or 3 (restart)",
			 out->by);
	else if (out->reserved || out->reserved2)
		snprintf(why, size, "a rate change whose reserved bytes are not 0");
	else
		return 0;
	return -1;
}

/*
 * A REC_EXTRA_RATE entry (extra_wrong() passed its head): its data read
 * and checked. true, with why, if it is wrong.
 */
static bool rate_wrong(const struct rec_reader *r, uint64_t pos,
		       const struct rec_extra *e, char *why, size_t size)
{
	struct rec_extra_rate d;
	uint8_t raw[sizeof(d)];
	size_t len = e->data_len < sizeof(raw) ? e->data_len : sizeof(raw);

	if (e->type != REC_EXTRA_RATE)
		return false;
	memset(raw, 0, sizeof(raw));
	if (pread(r->fd, raw, len, (off_t)(r->extras_at + pos + sizeof(*e))) !=
	    (ssize_t)len) {
		snprintf(why, size, "its data cannot be read");
		return true;
	}
	return rec_rate_read(e, raw, &d, why, size) != 0;
}

/* The extra entry's head at pos of the section; how many bytes were read. */
static ssize_t extra_head(const struct rec_reader *r, uint64_t pos,
			  struct rec_extra *e)
{
	ssize_t n = pread(r->fd, e, sizeof(*e), (off_t)(r->extras_at + pos));

	if (n >= 0)
		extra_swap(e);
	return n;
}

/* Version 2: the records, then the section, every entry's head checked. */
static int open_extras(struct rec_reader *r, uint64_t body)
{
	uint64_t claimed = r->h.records, end, pos, entries = 0;
	struct rec_extra_header xh;
	struct rec_extra e;
	char why[160];
	ssize_t n;

	if (claimed > body / REC_SIZE || body - claimed * REC_SIZE < sizeof(xh))
		return refuse(r, "truncated: the header says %llu records and an extra section, the file holds %llu bytes of them",
			      (unsigned long long)claimed,
			      (unsigned long long)body);
	end = r->h.header_bytes + claimed * REC_SIZE;
	n = pread(r->fd, &xh, sizeof(xh), (off_t)end);
	if (n != (ssize_t)sizeof(xh))
		return refuse(r, "cannot read the extra section at byte %llu",
			      (unsigned long long)end);
	if (memcmp(xh.magic, REC_EXTRA_MAGIC, sizeof(xh.magic)))
		return refuse(r, "damaged: no extra section (\\x89MTGEXT\\n) after the %llu records",
			      (unsigned long long)claimed);
	r->xh = xh;
	r->xh.entries = le64toh(xh.entries);
	r->xh.bytes = le64toh(xh.bytes);
	r->xh.ctrl_drops = le64toh(xh.ctrl_drops);
	r->xh.keep_drops = le64toh(xh.keep_drops);
	r->xh.extras_lost = le64toh(xh.extras_lost);
	if (body - claimed * REC_SIZE - sizeof(xh) != r->xh.bytes)
		return refuse(r, "%s: the extra section says %llu bytes of entries, the file holds %llu",
			      body - claimed * REC_SIZE - sizeof(xh) < r->xh.bytes ?
			      "truncated" : "damaged",
			      (unsigned long long)r->xh.bytes,
			      (unsigned long long)(body - claimed * REC_SIZE -
						   sizeof(xh)));
	r->records = claimed;
	r->extras_at = end + sizeof(xh);
	for (pos = 0; pos < r->xh.bytes; pos += e.bytes, entries++) {
		n = extra_head(r, pos, &e);
		if (n < 0)
			return refuse(r, "cannot read the extra section: %s",
				      strerror(errno));
		if (extra_wrong(r, &e, r->xh.bytes - pos, (size_t)n, why,
				sizeof(why)) ||
		    rate_wrong(r, pos, &e, why, sizeof(why)))
			return refuse(r, "damaged extra entry at byte %llu of the section: %s",
				      (unsigned long long)pos, why);
	}
	if (entries != r->xh.entries)
		return refuse(r, "damaged: the extra section says %llu entries, it holds %llu",
			      (unsigned long long)r->xh.entries,
			      (unsigned long long)entries);
	r->has_extras = true;
	return 0;
}

/* The metadata, checked (rec_meta_check); refused if damaged. */
static int read_meta(struct rec_reader *r)
{
	size_t len = r->h.meta_bytes;
	char why[512];
	ssize_t n;
	char *raw;
	int err;

	raw = malloc(len ? len : 1);
	if (!raw) {
		pr_err("%s: out of memory for %zu bytes of metadata\n", r->path,
		       len);
		rec_close(r);
		return -ENOMEM;
	}
	n = pread(r->fd, raw, len, sizeof(struct rec_file_header));
	if (n < 0 || (size_t)n != len) {
		err = n < 0 ? errno : EIO;
		free(raw);
		pr_err("cannot read %s: %s\n", r->path, strerror(err));
		rec_close(r);
		return -err;
	}
	err = rec_meta_check(raw, len, r->h.version, why, sizeof(why));
	free(raw);
	if (err)
		return refuse(r, "damaged metadata: %s", why);
	return 0;
}

int rec_open(struct rec_reader *r, const char *path)
{
	struct rec_file_header h;
	struct stat stb;
	uint64_t body, claimed;
	ssize_t n;
	int err;

	memset(r, 0, sizeof(*r));
	r->path = path;
	/* Not blocking: a FIFO would wait for a writer before fstat(). */
	r->fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (r->fd < 0 || fstat(r->fd, &stb)) {
		err = errno;
		pr_err("cannot open %s: %s\n", path, strerror(err));
		rec_close(r);
		return -err;
	}
	if (!S_ISREG(stb.st_mode))
		return refuse(r, "not a regular file");
	r->size = (uint64_t)stb.st_size;
	n = pread(r->fd, &h, sizeof(h), 0);
	if (n < 0) {
		err = errno;
		pr_err("cannot read %s: %s\n", path, strerror(err));
		rec_close(r);
		return -err;
	}
	if (!n)
		return refuse(r, "empty: not an mtg recording");
	if (memcmp(h.magic, REC_MAGIC, min_size((size_t)n, sizeof(h.magic))))
		return refuse(r, "not an mtg recording (no \\x89MTGREC\\n at its start)");
	if ((size_t)n < sizeof(h))
		return refuse(r, "truncated: %zd bytes, not even the 64-byte header",
			      n);
	r->h.version = le32toh(h.version);
	r->h.header_bytes = le32toh(h.header_bytes);
	r->h.record_bytes = le32toh(h.record_bytes);
	r->h.flags = le32toh(h.flags);
	r->h.records = le64toh(h.records);
	r->h.not_written = le64toh(h.not_written);
	r->h.ring_drops = le64toh(h.ring_drops);
	r->h.end_ns = le64toh(h.end_ns);
	r->h.meta_bytes = le32toh(h.meta_bytes);
	r->h.ifaces_lost = le32toh(h.ifaces_lost);
	memcpy(r->h.magic, h.magic, sizeof(h.magic));
	if (r->h.version != REC_VERSION && r->h.version != REC_VERSION_EXTRAS)
		return refuse(r, "a recording of format version %u; this mtgctl reads versions %u and %u",
			      r->h.version, REC_VERSION, REC_VERSION_EXTRAS);
	if (r->h.record_bytes != REC_SIZE)
		return refuse(r, "damaged header: records of %u bytes, the format has %zu",
			      r->h.record_bytes, REC_SIZE);
	if (r->h.header_bytes % REC_ALIGN ||
	    r->h.header_bytes < sizeof(h) + (uint64_t)r->h.meta_bytes)
		return refuse(r, "damaged header: records at byte %u, metadata of %u bytes",
			      r->h.header_bytes, r->h.meta_bytes);
	if (r->size < r->h.header_bytes)
		return refuse(r, "truncated: %llu bytes, the header and metadata alone take %u",
			      (unsigned long long)r->size, r->h.header_bytes);
	r->complete = r->h.flags & REC_F_COMPLETE;
	if (r->h.version == REC_VERSION_EXTRAS && !r->complete)
		return refuse(r, "damaged header: format version 2 without the COMPLETE flag");
	if (r->h.version == REC_VERSION_EXTRAS && !(r->h.flags & REC_F_EXTRAS))
		return refuse(r, "damaged header: format version 2 without the EXTRAS flag");
	if (r->h.version == REC_VERSION && (r->h.flags & REC_F_EXTRAS))
		return refuse(r, "damaged header: format version 1 with the EXTRAS flag");
	err = read_meta(r);
	if (err)
		return err;
	body = r->size - r->h.header_bytes;
	if (r->h.flags & REC_F_EXTRAS)
		return open_extras(r, body);
	r->records = body / REC_SIZE;
	r->partial = body % REC_SIZE;
	if (r->complete) {
		claimed = r->h.records;
		if (r->records < claimed)
			return refuse(r, "truncated: the header says %llu records, the file holds %llu%s",
				      (unsigned long long)claimed,
				      (unsigned long long)r->records,
				      r->partial ? " and part of another" : "");
		if (body != claimed * REC_SIZE)
			return refuse(r, "%llu bytes follow the %llu records the header counts",
				      (unsigned long long)(body - claimed * REC_SIZE),
				      (unsigned long long)claimed);
	}
	return 0;
}

int64_t rec_read(struct rec_reader *r, uint64_t first, struct mtg_rx_rec *out,
		 size_t n)
{
	size_t i, got;
	ssize_t k;

	if (first >= r->records)
		return 0;
	if (n > r->records - first)
		n = (size_t)(r->records - first);
	k = pread(r->fd, out, n * REC_SIZE,
		  (off_t)(r->h.header_bytes + first * REC_SIZE));
	if (k < 0)
		return -errno;
	got = (size_t)k / REC_SIZE;
	for (i = 0; i < got; i++)
		rec_swap(&out[i]);
	return (int64_t)got;
}

int rec_extra_next(struct rec_reader *r, uint64_t *pos, struct rec_extra *e,
		   void *data, size_t cap)
{
	char why[160];
	ssize_t n;
	size_t len;

	if (!r->has_extras || *pos >= r->xh.bytes)
		return 0;
	n = extra_head(r, *pos, e);
	if (n < 0)
		return -errno;
	/* rec_open() checked them all; the file may have changed since. */
	if (extra_wrong(r, e, r->xh.bytes - *pos, (size_t)n, why,
			sizeof(why)) ||
	    rate_wrong(r, *pos, e, why, sizeof(why))) {
		pr_err("%s: damaged extra entry at byte %llu of the section: %s\n",
		       r->path, (unsigned long long)*pos, why);
		return -EINVAL;
	}
	len = e->data_len < cap ? e->data_len : cap;
	n = pread(r->fd, data, len, (off_t)(r->extras_at + *pos + sizeof(*e)));
	if (n != (ssize_t)len)
		return n < 0 ? -errno : -EIO;
	*pos += e->bytes;
	return 1;
}

void rec_close(struct rec_reader *r)
{
	if (r->fd >= 0)
		close(r->fd);
	r->fd = -1;
}
