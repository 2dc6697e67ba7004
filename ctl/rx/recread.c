// SPDX-License-Identifier: GPL-2.0-or-later
/* The recording file reader (recording.h): every header and entry checked. */
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
		rec_extra_swap(e);
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
