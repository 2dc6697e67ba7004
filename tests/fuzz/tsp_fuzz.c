// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer target for ctl/tsp's decoder: every input is a TCP stream
 * read as each end and mode would read it (from the sender or the
 * receiver, passive or not), whole and a byte at a time, through
 * tsp_decode and the stream decoder. Both must agree, and every message
 * decoded must encode back to the very bytes it came from: anything else
 * aborts. ASan and UBSan turn a read past the input or an overflow into a
 * crash. Run for a bounded number of inputs by tests/host/test_fuzz_tsp.py.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tsp/wire.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static uint8_t out[TSP_MAX_MSG];

/* the messages of data[0..size): how many, the bytes they took in *at */
static size_t whole(const struct tsp_cfg *c, const uint8_t *data,
		    size_t size, size_t *at, struct tsp_err *e)
{
	struct tsp_msg m;
	struct tsp_err ee;
	size_t used, n = 0, len;

	for (*at = 0; *at < size; *at += used, n++) {
		if (tsp_decode(c, data + *at, size - *at, *at, true, &m, &used,
			       e) != TSP_MSG)
			break;
		len = tsp_encode(&m, c->from, out, sizeof(out), &ee);
		if (len != used || memcmp(out, data + *at, used))
			abort();	/* decoded, but not what it said */
		tsp_msg_free(&m);
	}
	return n;
}

/* the same through the stream, a byte at a time */
static size_t bytewise(const struct tsp_cfg *c, const uint8_t *data,
		       size_t size, struct tsp_err *e, bool *failed)
{
	struct tsp_stream s;
	struct tsp_msg m;
	enum tsp_res res;
	size_t i, n = 0;

	*failed = false;
	tsp_stream_init(&s, c);
	for (i = 0; i < size && !*failed; i++) {
		if (tsp_stream_feed(&s, data + i, 1, &m, &res, e) != 1)
			abort();
		if (res == TSP_MSG) {
			n++;
			tsp_msg_free(&m);
		}
		*failed = res == TSP_BAD;
	}
	if (!*failed && tsp_stream_end(&s, e))
		*failed = true;
	tsp_stream_free(&s);
	return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct tsp_err e1, e2;
	unsigned int k;
	size_t at, n1, n2;
	bool failed;

	for (k = 0; k < 4; k++) {
		struct tsp_cfg c = {
			.from = k & 1 ? TSP_FROM_RECEIVER : TSP_FROM_SENDER,
			.passive = k & 2,
		};

		memset(&e1, 0, sizeof(e1));
		memset(&e2, 0, sizeof(e2));
		n1 = whole(&c, data, size, &at, &e1);
		n2 = bytewise(&c, data, size, &e2, &failed);
		/* the same messages, and the same error at the same byte */
		if (n1 != n2 || failed != (at < size) ||
		    (failed && (e1.code != e2.code || e1.offset != e2.offset)))
			abort();
	}
	return 0;
}
