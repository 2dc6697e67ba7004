// SPDX-License-Identifier: GPL-2.0-or-later
/* Text from files, made safe to show (text.h). */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "util/text.h"

int utf8_len(const unsigned char *s)
{
	int n, i;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		n = 2;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		n = 3;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		n = 4;
	else
		return 0;
	for (i = 1; i < n; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	/* No overlong forms, surrogates or code points above U+10FFFF. */
	if ((s[0] == 0xe0 && s[1] < 0xa0) || (s[0] == 0xed && s[1] >= 0xa0) ||
	    (s[0] == 0xf0 && s[1] < 0x90) || (s[0] == 0xf4 && s[1] >= 0x90))
		return 0;
	return n;
}

/* The character of the n-byte UTF-8 sequence at s is shown as it is. */
static bool showable(const unsigned char *s, int n)
{
	uint32_t c;

	if (n == 1)
		return s[0] >= 0x20 && s[0] != 0x7f;
	if (n == 2)
		return s[0] != 0xc2 || s[1] >= 0xa0;	/* C1: U+0080..U+009F */
	if (n == 4)
		return true;
	c = (uint32_t)(s[0] & 0x0f) << 12 | (uint32_t)(s[1] & 0x3f) << 6 |
		(s[2] & 0x3f);
	return c != 0x200e && c != 0x200f && !(c >= 0x202a && c <= 0x202e) &&
		!(c >= 0x2066 && c <= 0x2069);
}

/* Bytes of the character at u as shown (*n: the bytes it takes in u). */
static size_t shown_len(const unsigned char *u, int *n)
{
	*n = utf8_len(u);
	if (*n && showable(u, *n))
		return (size_t)*n;
	*n = *n ? *n : 1;
	return 4 * (size_t)*n;	/* \xNN a byte */
}

size_t text_unshowable(const char *s, size_t len)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i;
	int n;

	for (i = 0; i < len; i += (size_t)n) {
		n = utf8_len(u + i);
		if (!n || i + (size_t)n > len || !showable(u + i, n))
			return i;
	}
	return len;
}

size_t text_escape(char *out, size_t size, const char *s)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t len = 0, all = 0, room, need;
	int n, i;

	if (!size)
		return 0;
	for (; *u; u += n)
		all += shown_len(u, &n);
	/* all of it, or as much as leaves room for "..." */
	room = all < size ? size - 1 : size > 4 ? size - 4 : 0;
	for (u = (const unsigned char *)s; *u; u += n) {
		need = shown_len(u, &n);
		if (len + need > room)
			break;
		if (need == (size_t)n) {
			memcpy(out + len, u, (size_t)n);
			len += (size_t)n;
		} else {
			for (i = 0; i < n; i++)
				len += (size_t)sprintf(out + len, "\\x%02x",
						       u[i]);
		}
	}
	if (*u && size > 4) {
		memcpy(out + len, "...", 3);
		len += 3;
	}
	out[len] = '\0';
	return len;
}
