// SPDX-License-Identifier: GPL-2.0-or-later
/* Encoding TSP (wire.h): the layouts' walk (codec.c) writing. */
#include <string.h>

#include "tsp/codec.h"

static size_t walk(const struct tsp_msg *m, enum tsp_dir from,
		   enum cur_mode mode, uint8_t *buf, size_t size,
		   struct tsp_err *e)
{
	struct tsp_cfg cfg = { .from = from, .passive = m->passive };
	struct tsp_msg copy = *m;	/* the walk writes back what it wrote */
	struct cur c = {
		.mode = mode, .from = from, .passive = m->passive,
		.buf = buf, .end = size, .e = e,
	};

	memset(e, 0, sizeof(*e));
	if (tsp_check_type(m->type, &cfg, 0, e) || tsp_walk(&c, &copy))
		return 0;
	return c.off;
}

size_t tsp_encoded_len(const struct tsp_msg *m, enum tsp_dir from,
		       struct tsp_err *e)
{
	return walk(m, from, CUR_SIZE, NULL, 0, e);
}

size_t tsp_encode(const struct tsp_msg *m, enum tsp_dir from, uint8_t *buf,
		  size_t size, struct tsp_err *e)
{
	return walk(m, from, CUR_WRITE, buf, size, e);
}
