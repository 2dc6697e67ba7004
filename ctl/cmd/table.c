// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * mtgctl table: the timetables an IDF gives, without the module. For each
 * TG (or --tg N) the entries as the module will read them: one pass of
 * the table, or --count K departures (a looping table repeats, as in the
 * module). CSV, or fixed-size little-endian binary records
 * (Documentation/mtgctl.rst, "mtgctl table").
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "idf/idf.h"
#include "traffic/lengths.h"
#include "traffic/tables.h"

/* The binary record; little-endian (the machines mtg runs on). */
struct table_record {
	uint32_t tg;
	uint32_t len;		/* frame bytes at L2 without FCS */
	uint64_t departure_ns;	/* after the run's T0 */
	uint64_t gap_ns;	/* to the next departure */
};

_Static_assert(sizeof(struct table_record) == 24, "table_record layout");

/* Entry k's category, which tt_entry() gave last; "" for other models. */
static const char *category(const struct idf_tg *tg, const struct tt *tt,
			    uint64_t k)
{
	int c = tt_category(tt, k);

	return c < 0 ? "" : tg->beh->cat[c].name;
}

static int print_table(const struct idf_tg *tg, struct tt *tt,
		       const struct table_opts *o, bool bin, char *buf,
		       size_t bufsize)
{
	uint64_t n = o->count ? o->count : tt->len, k;
	uint64_t dep = tg->start + tt->first_ns;
	size_t used = 0;

	for (k = 0; k < n; k++) {
		struct mtg_tt_entry entry, *e = &entry;

		tt_entry(tt, k, e);

		if (bin) {
			struct table_record r = {
				.tg = tg->id, .len = e->len,
				.departure_ns = dep, .gap_ns = e->gap_ns,
			};

			if (used + sizeof(r) > bufsize) {
				if (fwrite(buf, 1, used, stdout) != used)
					return -1;
				used = 0;
			}
			memcpy(buf + used, &r, sizeof(r));
			used += sizeof(r);
		} else if (printf("%" PRIu32 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64
				  ",%" PRIu32 "%s%s\n", tg->id, k, dep,
				  (uint64_t)e->gap_ns, e->len,
				  o->category ? "," : "",
				  o->category ? category(tg, tt, k) : "") < 0) {
			return -1;
		}
		dep += e->gap_ns;
	}
	if (used && fwrite(buf, 1, used, stdout) != used)
		return -1;
	return 0;
}

int cmd_table(const char *file, const struct table_opts *o)
{
	static char buf[1 << 16];
	struct idf_file f;
	struct tt *tts = NULL;
	char err[256];
	bool bin;
	size_t i, n = 0;
	int ret;

	if (strcmp(o->format, "csv") && strcmp(o->format, "bin")) {
		pr_err("table: --format expects 'csv' or 'bin', got '%s'\n",
		       o->format);
		return EXIT_ERROR;
	}
	bin = !strcmp(o->format, "bin");
	if (bin && o->category) {
		pr_err("table: --category is a column of the CSV; the binary records have none\n");
		return EXIT_ERROR;
	}
	if (bin && isatty(STDOUT_FILENO)) {
		pr_err("table: --format bin writes binary records: redirect it to a file\n");
		return EXIT_ERROR;
	}
	ret = idf_load(&f, file);
	if (ret && ret != -EINVAL) {
		pr_err("cannot read %s: %s\n", file, strerror(-ret));
		idf_free(&f);
		return EXIT_ERROR;
	}
	idf_print_diags(&f, stderr);
	if (ret)
		goto out;
	for (i = 0; i < f.ntgs; i++)
		n += !o->tg || f.tgs[i].id == o->tg;
	if (!n) {
		pr_err("%s: no TG %" PRIu64 " (the file has", file, o->tg);
		for (i = 0; i < f.ntgs; i++)
			fprintf(stderr, " %u", f.tgs[i].id);
		fprintf(stderr, ")\n");
		ret = -1;
		goto out;
	}
	/* every table first: an error prints nothing */
	tts = calloc(f.ntgs, sizeof(*tts));
	if (!tts) {
		pr_err("out of memory\n");
		ret = -1;
		goto out;
	}
	for (i = 0; i < f.ntgs && !ret; i++) {
		if (o->tg && f.tgs[i].id != o->tg)
			continue;
		ret = tt_build(&f.tgs[i], &tts[i], err, sizeof(err));
		if (ret)
			idf_print_tg_error(&f, &f.tgs[i], err, stderr);
	}
	if (ret)
		goto out;
	if (!bin)
		printf("tg,k,departure_ns,gap_ns,len%s\n",
		       o->category ? ",category" : "");
	for (i = 0; i < f.ntgs && !ret; i++) {
		const struct idf_tg *tg = &f.tgs[i];
		struct tt *tt = &tts[i];

		if (o->tg && tg->id != o->tg)
			continue;
		ret = print_table(tg, tt, o, bin, buf, sizeof(buf));
		if (ret) {
			pr_err("table: cannot write the output: %s\n",
			       strerror(errno));
			break;
		}
		if (tt->clipped)
			pr_warn("TG %u: %" PRIu64 " gaps cut to an hour\n",
				tg->id, tt->clipped);
		if (tt->len_clamped)
			pr_warn("TG %u: %" PRIu64 " lengths clamped to %" PRIu32 " .. %" PRIu32 " bytes\n",
				tg->id, tt->len_clamped, len_lowest(tg),
				tg->len_max);
		if (tt->negative)
			pr_warn("TG %u: %" PRIu64 " fgn slots below 0 packets, made 0\n",
				tg->id, tt->negative);
		if (tt->backwards)
			pr_warn("TG %u: the pcap's clock went back %" PRIu64 " times: gaps of 0 there\n",
				tg->id, tt->backwards);
	}
	if (!ret && fflush(stdout)) {
		pr_err("table: cannot write the output: %s\n", strerror(errno));
		ret = -1;
	}
out:
	if (tts)
		for (i = 0; i < f.ntgs; i++)
			tt_free(&tts[i]);
	free(tts);
	idf_free(&f);
	return ret ? EXIT_ERROR : EXIT_OK;
}
