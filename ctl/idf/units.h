/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Values as the IDF writes them, which mtgctl's command line and its
 * commands on standard input take too: numbers with units, absolute
 * times, a control message's bytes (Documentation/idf.rst).
 */
#ifndef MTGCTL_IDF_UNITS_H
#define MTGCTL_IDF_UNITS_H

#include <stddef.h>
#include <stdint.h>

/*
 * A decimal number (a fraction allowed) and an optional suffix. Time: ns,
 * us, ms, s, the bare number in units of 10^bare_exp ns. Count: k, M, G.
 * 0, or -1 with *why set to a phrase.
 */
int idf_parse_time(const char *s, int bare_exp, uint64_t *ns,
		   const char **why);
int idf_parse_count(const char *s, uint64_t *v, const char **why);

/*
 * An absolute time, local unless it ends in Z: YYYY-MM-DDTHH:MM:SS[.F] or
 * HH:MM:SS[.F] (today). 0 and the CLOCK_REALTIME ns, or -1.
 */
int idf_parse_when(const char *s, uint64_t *ns);

/*
 * A control message's bytes as the IDF and mtgctl's commands write them:
 * "TEXT" with C escapes (\\ \" \n \r \t \0 \xHH), hex:HEX, or else the
 * text as it is. 0 with *len bytes in out (at most max), or -1 and *why.
 */
int idf_parse_data(const char *s, uint8_t *out, size_t max, size_t *len,
		   const char **why);

/*
 * Bytes as a "TEXT" idf_parse_data() reads back, cut with "..." after the
 * closing quote if buf is too small.
 */
void idf_data_str(const uint8_t *data, size_t len, char *buf, size_t size);

#endif /* MTGCTL_IDF_UNITS_H */
