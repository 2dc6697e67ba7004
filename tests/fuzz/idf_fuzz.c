// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer target for mtgctl's IDF parser: every input is parsed and
 * validated as a file would be, and the timetables of a valid file are
 * built (those of up to 4096 entries, fgn's batches aside, to keep each
 * input fast). ASan and UBSan turn any memory or arithmetic error into a
 * crash. `include` is refused (an input could name any file). Built and
 * run for a bounded time by tests/host/test_fuzz_idf.py.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "idf/idf.h"
#include "traffic/tables.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct idf_file f;
	char err[128];
	FILE *in;
	size_t i;

	memset(&f, 0, sizeof(f));
	f.name = strdup("fuzz.idf");
	/* an input could name any file, /dev/stdin included */
	f.no_include = true;
	/* a range of 2^20 TGs is a valid input that takes long to read */
	f.range_max = 64;
	if (!f.name || !size)
		goto out;
	in = fmemopen((void *)data, size, "r");
	if (!in)
		goto out;
	if (idf_parse(&f, in)) {
		fclose(in);
		goto out;
	}
	fclose(in);
	if (idf_validate(&f))
		goto out;
	for (i = 0; i < f.ntgs; i++) {
		struct tt tt;

		if (tt_len_for(&f.tgs[i]) > 4096 ||
		    f.tgs[i].dist == IDF_DIST_FGN)
			continue;
		if (!tt_build(&f.tgs[i], &tt, err, sizeof(err)))
			tt_free(&tt);
	}
out:
	idf_free(&f);
	return 0;
}
