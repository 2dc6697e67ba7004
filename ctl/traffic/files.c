// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The models whose gaps come from a file (Documentation/idf.rst): a trace
 * of (time, length) lines, or the timestamps and lengths of a pcap file,
 * read once into entries that the model gives in a circle (models.h).
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>


#include "idf/units.h"
#include "traffic/models.h"

/* Grows g->file to hold one more entry; -1: no memory. */
static int file_push(struct model_gen *g, size_t *cap, uint64_t t,
		     uint32_t len)
{
	if (g->file_len == *cap) {
		size_t n = *cap ? 2 * *cap : 1024;
		struct mtg_tt_entry *e = realloc(g->file, n * sizeof(*e));

		if (!e)
			return -1;
		g->file = e;
		*cap = n;
	}
	/* the departure time for now; file_gaps() makes it a gap */
	g->file[g->file_len].gap_ns = t;
	g->file[g->file_len].len = len;
	g->file[g->file_len].reserved = 0;
	g->file_len++;
	return 0;
}

/*
 * Times into gaps: entry k's gap is time k+1 - time k (0 where a pcap's
 * clock went back); the last one's the mean, so that a loop keeps the rate.
 */
static void file_gaps(struct model_gen *g)
{
	size_t k, n = g->file_len;
	uint64_t span = g->file[n - 1].gap_ns - g->file[0].gap_ns;

	for (k = 0; k + 1 < n; k++) {
		uint64_t a = g->file[k].gap_ns, b = g->file[k + 1].gap_ns;

		if (b < a)
			g->backwards++;
		g->file[k].gap_ns = b > a ? b - a : 0;
	}
	g->file[n - 1].gap_ns = span / (n - 1);
}

/*
 * A trace: lines of TIME LENGTH, TIME the departure after the trace's
 * start (s for a bare number, or a unit) and not decreasing, LENGTH the
 * frame's bytes at L2 without FCS; '#' comments, blank lines.
 */
static int trace_load(struct model_gen *g, FILE *in, const char *path,
		      char *err, size_t size)
{
	uint32_t min_len = idf_min_len(g->tg);
	char *line = NULL, *c, *time_s, *len_s, *save, *end;
	size_t cap = 0, ecap = 0;
	unsigned int lineno = 0;
	uint64_t t, prev = 0;
	unsigned long len;
	const char *why;
	int ret = -1;

	while (getline(&line, &cap, in) >= 0) {
		lineno++;
		c = strchr(line, '#');
		if (c)
			*c = '\0';
		time_s = strtok_r(line, " \t\r\n", &save);
		if (!time_s)
			continue;
		len_s = strtok_r(NULL, " \t\r\n", &save);
		why = NULL;
		if (idf_parse_time(time_s, 9, &t, &why)) {
			snprintf(err, size, "%s:%u:%ld: expected a time (s, or a unit: ns, us, ms, s), got '%s'%s%s%s",
				 path, lineno, (long)(time_s - line) + 1,
				 time_s, why ? " (" : "", why ? why : "",
				 why ? ")" : "");
			goto out;
		}
		if (g->file_len && t < prev) {
			snprintf(err, size, "%s:%u:%ld: the time goes back (%s after %llu ns)",
				 path, lineno, (long)(time_s - line) + 1,
				 time_s, (unsigned long long)prev);
			goto out;
		}
		errno = 0;
		len = len_s ? strtoul(len_s, &end, 10) : 0;
		if (!len_s || errno || *end || !isdigit((unsigned char)*len_s) ||
		    len < min_len || len > IDF_LEN_MAX) {
			snprintf(err, size, "%s:%u:%ld: expected a frame length, %u .. %u bytes, got '%s'",
				 path, lineno,
				 len_s ? (long)(len_s - line) + 1 :
				 (long)strlen(time_s) + (long)(time_s - line) + 1,
				 min_len, IDF_LEN_MAX, len_s ? len_s : "end of line");
			goto out;
		}
		if (strtok_r(NULL, " \t\r\n", &save)) {
			snprintf(err, size, "%s:%u: expected TIME LENGTH and nothing more",
				 path, lineno);
			goto out;
		}
		if (file_push(g, &ecap, t, (uint32_t)len)) {
			snprintf(err, size, "out of memory for %s", path);
			goto out;
		}
		prev = t;
	}
	ret = 0;
out:
	free(line);
	return ret;
}

static uint32_t rd32(const unsigned char *b, bool swap)
{
	uint32_t v;

	memcpy(&v, b, 4);
	return swap ? __builtin_bswap32(v) : v;
}

/* A classic pcap file's timestamps (any byte order, us or ns). */
static int pcap_load(struct model_gen *g, FILE *in, const char *path,
		     char *err, size_t size)
{
	unsigned char hdr[24], rec[16];
	uint64_t frac_ns, k = 0;
	size_t ecap = 0;
	bool swap;
	uint32_t magic;

	if (fread(hdr, 1, sizeof(hdr), in) != sizeof(hdr)) {
		snprintf(err, size, "%s: not a pcap file (shorter than its header)",
			 path);
		return -1;
	}
	memcpy(&magic, hdr, 4);
	swap = magic == 0xd4c3b2a1 || magic == 0x4d3cb2a1;
	magic = swap ? __builtin_bswap32(magic) : magic;
	if (magic != 0xa1b2c3d4 && magic != 0xa1b23c4d) {
		snprintf(err, size, "%s: not a pcap file (magic %08x; pcapng: convert it with 'editcap -F pcap')",
			 path, magic);
		return -1;
	}
	frac_ns = magic == 0xa1b23c4d ? 1 : 1000;
	for (;; k++) {
		size_t got = fread(rec, 1, sizeof(rec), in);
		uint32_t incl;

		if (!got)
			break;
		incl = rd32(rec + 8, swap);
		if (got != sizeof(rec) || incl > (1U << 18) ||
		    fseek(in, incl, SEEK_CUR)) {
			snprintf(err, size, "%s: packet %llu is cut short or damaged",
				 path, (unsigned long long)k + 1);
			return -1;
		}
		if (file_push(g, &ecap, rd32(rec, swap) * 1000000000ULL +
			      rd32(rec + 4, swap) * frac_ns,
			      g->tg->len_max)) {
			snprintf(err, size, "out of memory for %s", path);
			return -1;
		}
	}
	return 0;
}

static int file_load(struct model_gen *g, char *err, size_t size)
{
	const char *path = g->tg->dist_file, *why;
	FILE *in = idf_fopen_regular(path, &why);
	int ret;

	if (!in) {
		snprintf(err, size, "cannot read %s: %s", path, why);
		return -1;
	}
	ret = g->tg->dist == IDF_DIST_TRACE ?
		trace_load(g, in, path, err, size) :
		pcap_load(g, in, path, err, size);
	if (!ret && ferror(in)) {
		snprintf(err, size, "cannot read %s: %s", path,
			 strerror(errno));
		ret = -1;
	}
	fclose(in);
	if (!ret && g->file_len < 2) {
		snprintf(err, size, "%s: %zu packets; a timing needs 2 at least",
			 path, g->file_len);
		ret = -1;
	}
	if (!ret)
		file_gaps(g);
	return ret;
}

/* The file's entries; an error names the keyword that gave the file. */
int model_file_init(struct model_gen *g, char *err, size_t size)
{
	int k = snprintf(err, size, "'dist %s': ",
			 idf_dist_name(g->tg->dist));

	if (k < 0 || (size_t)k >= size)
		k = 0;
	return file_load(g, err + k, size - (size_t)k);
}
