// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Numbers with units, times, and data bytes, as the IDF and mtgctl's
 * command line write them (units.h).
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "idf/parser.h"
#include "idf/units.h"

static int pow10_mul(uint64_t *v, int exp)
{
	while (exp-- > 0) {
		if (*v > UINT64_MAX / 10)
			return -1;
		*v *= 10;
	}
	return 0;
}

/*
 * s[0..n) as a decimal number with an optional fraction, times 10^exp;
 * the result must be whole.
 */
static int parse_scaled(const char *s, size_t n, int exp, uint64_t *out,
			const char **why)
{
	uint64_t v = 0;
	size_t i = 0;
	int frac = -1, digits = 0;

	for (; i < n; i++) {
		if (s[i] == '.' && frac < 0) {
			frac = 0;
			continue;
		}
		if (!isdigit((unsigned char)s[i])) {
			*why = "not a number";
			return -1;
		}
		if (v > (UINT64_MAX - 9) / 10) {
			*why = "too large";
			return -1;
		}
		v = v * 10 + (uint64_t)(s[i] - '0');
		digits++;
		if (frac >= 0)
			frac++;
	}
	if (!digits) {
		*why = "not a number";
		return -1;
	}
	exp -= frac > 0 ? frac : 0;
	for (; exp < 0; exp++) {
		if (v % 10) {
			*why = "finer than the smallest unit";
			return -1;
		}
		v /= 10;
	}
	if (pow10_mul(&v, exp)) {
		*why = "too large";
		return -1;
	}
	*out = v;
	return 0;
}

struct unit {
	const char *suffix;
	int exp;		/* power of ten of the base unit */
};

/* Why s is refused when it is a negative number: NULL if it is not one. */
const char *negative(const char *s)
{
	if (s[0] == '-' && (isdigit((unsigned char)s[1]) || s[1] == '.'))
		return "negative values are not allowed";
	return NULL;
}

static int parse_with_units(const char *s, const struct unit *units,
			    int bare_exp, uint64_t *out, const char **why)
{
	size_t n = strlen(s), k = n;
	const struct unit *u;

	*why = negative(s);
	if (*why)
		return -1;
	while (k > 0 && isalpha((unsigned char)s[k - 1]))
		k--;
	if (k == n)
		return parse_scaled(s, n, bare_exp, out, why);
	if (k == 0) {
		*why = NULL;
		return -1;
	}
	for (u = units; u->suffix; u++)
		if (!strcmp(s + k, u->suffix))
			return parse_scaled(s, k, u->exp, out, why);
	*why = "unknown unit";
	return -1;
}

int idf_parse_time(const char *s, int bare_exp, uint64_t *ns, const char **why)
{
	static const struct unit units[] = {
		{ "ns", 0 }, { "us", 3 }, { "ms", 6 }, { "s", 9 }, { NULL, 0 }
	};

	return parse_with_units(s, units, bare_exp, ns, why);
}

int idf_parse_when(const char *s, uint64_t *ns)
{
	struct tm tm = { 0 };
	uint64_t frac = 0;
	const char *end;
	bool utc;
	time_t now, secs;
	size_t n = strlen(s);
	int digits = 0;

	utc = n && s[n - 1] == 'Z';
	if (strchr(s, '-')) {
		end = strptime(s, "%Y-%m-%dT%H:%M:%S", &tm);
	} else {
		now = time(NULL);
		if (!localtime_r(&now, &tm))
			return -1;
		end = strptime(s, "%H:%M:%S", &tm);
	}
	if (!end)
		return -1;
	if (*end == '.') {
		for (end++; isdigit((unsigned char)*end); end++, digits++)
			if (digits < 9)
				frac = frac * 10 + (uint64_t)(*end - '0');
		if (!digits)
			return -1;
		for (; digits < 9; digits++)
			frac *= 10;
	}
	if (*end != (utc ? 'Z' : '\0') || (utc && end[1]))
		return -1;
	tm.tm_isdst = -1;
	secs = utc ? timegm(&tm) : mktime(&tm);
	if (secs == (time_t)-1 || secs < 0)
		return -1;
	*ns = (uint64_t)secs * 1000000000ULL + frac;
	return 0;
}

int idf_parse_count(const char *s, uint64_t *v, const char **why)
{
	static const struct unit units[] = {
		{ "k", 3 }, { "K", 3 }, { "M", 6 }, { "G", 9 }, { NULL, 0 }
	};

	return parse_with_units(s, units, 0, v, why);
}

/* A whole number, decimal or 0x hexadecimal, at most max. */
int parse_uint(const char *s, uint64_t max, uint64_t *out)
{
	int base = 10;
	char *end;

	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		s += 2;
	}
	if (!isxdigit((unsigned char)s[0]))
		return -1;
	errno = 0;
	*out = strtoull(s, &end, base);
	if (*end || errno || *out > max)
		return -1;
	return 0;
}

static int hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = (char)tolower((unsigned char)c);
	return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* "TEXT": the bytes between the quotes, escapes undone. */
static int parse_quoted(const char *s, uint8_t *out, size_t max, size_t *len,
			const char **why)
{
	size_t n = 0;
	int hi, lo;
	char c;

	for (s++; *s != '"'; s++) {
		c = *s;
		if (!c) {
			*why = "no closing '\"'";
			return -1;
		}
		if (c == '\\') {
			switch (*++s) {
			case '\\': case '"': c = *s; break;
			case 'n': c = '\n'; break;
			case 'r': c = '\r'; break;
			case 't': c = '\t'; break;
			case '0': c = '\0'; break;
			case 'x':
				hi = hex_digit(s[1]);
				lo = hi < 0 ? -1 : hex_digit(s[2]);
				if (lo < 0) {
					*why = "'\\x' takes two hexadecimal digits";
					return -1;
				}
				c = (char)(hi << 4 | lo);
				s += 2;
				break;
			default:
				*why = "unknown escape: use \\\\ \\\" \\n \\r \\t \\0 \\xHH";
				return -1;
			}
		}
		if (n == max) {
			*why = "longer than the 1024 bytes a control message holds";
			return -1;
		}
		out[n++] = (uint8_t)c;
	}
	if (s[1]) {
		*why = "text after the closing '\"'";
		return -1;
	}
	*len = n;
	return 0;
}

int idf_parse_data(const char *s, uint8_t *out, size_t max, size_t *len,
		   const char **why)
{
	size_t n;
	int hi, lo;

	*why = NULL;
	if (s[0] == '"')
		return parse_quoted(s, out, max, len, why);
	if (strncmp(s, "hex:", 4)) {
		n = strlen(s);
		if (n > max) {
			*why = "longer than the 1024 bytes a control message holds";
			return -1;
		}
		memcpy(out, s, n);
		*len = n;
		return 0;
	}
	for (s += 4, n = 0; *s; s += 2) {
		hi = hex_digit(s[0]);
		lo = hi < 0 ? -1 : hex_digit(s[1]);
		if (lo < 0) {
			*why = "'hex:' takes pairs of hexadecimal digits";
			return -1;
		}
		if (n == max) {
			*why = "longer than the 1024 bytes a control message holds";
			return -1;
		}
		out[n++] = (uint8_t)(hi << 4 | lo);
	}
	*len = n;
	return 0;
}

void idf_data_str(const uint8_t *data, size_t len, char *buf, size_t size)
{
	size_t i, n = 0;
	char esc[5];

	if (size < 8) {
		snprintf(buf, size, "%s", size > 3 ? "..." : "");
		return;
	}
	buf[n++] = '"';
	for (i = 0; i < len; i++) {
		uint8_t c = data[i];

		if (c == '"' || c == '\\')
			snprintf(esc, sizeof(esc), "\\%c", c);
		else if (c == '\n')
			snprintf(esc, sizeof(esc), "\\n");
		else if (c >= 0x20 && c < 0x7f)
			snprintf(esc, sizeof(esc), "%c", c);
		else
			snprintf(esc, sizeof(esc), "\\x%02x", c);
		/* room for this, the quote, "..." and the NUL */
		if (n + strlen(esc) + 5 > size) {
			snprintf(buf + n, size - n, "\"...");
			return;
		}
		memcpy(buf + n, esc, strlen(esc));
		n += strlen(esc);
	}
	buf[n++] = '"';
	buf[n] = '\0';
}
