/* SPDX-License-Identifier: GPL-2.0-or-later */
/* TSP messages as JSON, for tests/tools/tsp_tool (tsp_json.c). */
#ifndef MTG_TSP_JSON_H
#define MTG_TSP_JSON_H

#include <jansson.h>

#include "tsp/wire.h"
#include "util/jw.h"

/* m, decoded from len bytes at the stream's byte offset */
void msg_json(struct jw *j, const struct tsp_msg *m, uint64_t offset,
	      size_t len);
void err_json(struct jw *j, const struct tsp_err *e);
/* m from what msg_json wrote (the fields it needs): 0, or -1 with err */
int msg_from_json(json_t *o, struct tsp_msg *m, char *err, size_t len);

#endif /* MTG_TSP_JSON_H */
