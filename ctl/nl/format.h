/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The family's sessions and TGs shown (show, monitor): as text, laid out
 * as `ip -s link` lays out links, or as JSON. Text and JSON say the same
 * words: the spec's attribute and value names with '_' for '-'.
 */
#ifndef MTGCTL_NL_FORMAT_H
#define MTGCTL_NL_FORMAT_H

#include <stdbool.h>
#include <stdio.h>

#include "nl/family.h"

struct jw;

/*
 * "session ID: pid ... tgs N", then a line per interface; oneline: the
 * interfaces on the same line, no newline at the end. whole false: only
 * the id and interfaces (iface-lost-ntf).
 */
void nl_session_text(FILE *f, const struct mtg_nl_session *s, bool whole,
		     bool oneline);
/*
 * "tg SID:ID: state ..." then its counters, lateness and histogram on
 * lines indented by indent; oneline: the counters and lateness on the
 * same line, no histogram, no newline at the end.
 */
void nl_tg_text(FILE *f, const struct mtg_nl_tg *t, const char *indent,
		bool oneline);
/* Their keys and values into an open JSON object. */
void nl_session_json(struct jw *j, const struct mtg_nl_session *s,
		     bool whole);
void nl_tg_json(struct jw *j, const struct mtg_nl_tg *t);

#endif /* MTGCTL_NL_FORMAT_H */
