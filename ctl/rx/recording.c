// SPDX-License-Identifier: GPL-2.0-or-later
/* The recording file writer (recording.h); the bytes it writes: recformat.c. */
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rx/recording.h"
#include "util/log.h"

#define REC_BUF_BYTES	(1u << 20)	/* written in blocks of 1 MiB */
#define XHEAD		sizeof(struct rec_extra)
/* The largest entry: a head, 64 KiB of data (a payload, or positions). */
#define XENTRY_MAX	(XHEAD + 65536 * sizeof(uint32_t))

_Static_assert(XENTRY_MAX <= REC_BUF_BYTES, "an entry fits the buffer");

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
	rec_header_fill(w, &h, 0, 0, 0);
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

/* The header of an unfinished file, as rec_begin() wrote it: no COMPLETE
 * flag, no counts; its lengths and lost interfaces as they are now. */
static int header_unfinished(struct recorder *w)
{
	struct rec_file_header h;
	size_t done;

	rec_header_fill(w, &h, 0, 0, 0);
	h.records = 0;
	h.not_written = 0;
	return pwrite_all(w->fd, &h, sizeof(h), 0, &done);
}

int rec_rewrite_meta(struct recorder *w, const char *meta, size_t len)
{
	size_t room, done;
	uint8_t *page;
	int err;

	if (w->fd < 0 || w->error)
		return w->fd < 0 ? -EBADF : w->error;
	room = w->header_bytes - sizeof(struct rec_file_header);
	if (len > room)
		return -E2BIG;
	page = calloc(1, room);
	if (!page)
		return -ENOMEM;
	memcpy(page, meta, len);
	err = pwrite_all(w->fd, page, room, sizeof(struct rec_file_header),
			 &done);
	free(page);
	if (!err) {
		w->meta_bytes = (uint32_t)len;
		w->meta_version_at = meta_version_digit(meta, len);
		err = header_unfinished(w);
	}
	if (err)
		w->error = err;
	return err;
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
	rec_extra_swap(h);
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
	int err;

	w->ifaces_lost = n;
	if (w->error || w->fd < 0)
		return w->error;
	err = header_unfinished(w);
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
	rec_header_fill(w, &h, REC_F_COMPLETE, ring_drops, end_ns);
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
