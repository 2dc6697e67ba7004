/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Text from files, made safe to show: what mtgctl quotes of a file in a
 * message must not drive the terminal it is printed on.
 */
#ifndef MTGCTL_TEXT_H
#define MTGCTL_TEXT_H

#include <stddef.h>

/* Bytes of the UTF-8 sequence at s (1 to 4), or 0 if it is not one. */
int utf8_len(const unsigned char *s);

/*
 * s into out (size bytes, NUL-terminated), each byte a terminal would act
 * on or could not show written as \xNN: the C0 and C1 controls, DEL, the
 * marks that reorder text (U+200E, U+200F, U+202A..U+202E, U+2066..U+2069)
 * and bytes that are not UTF-8. Cut, with "...", at a whole character if
 * it does not fit. The length written.
 */
size_t text_escape(char *out, size_t size, const char *s);

/*
 * The offset of the first byte of s[0..len) that text_escape would not
 * show as it is (NUL too), or len if there is none. s[len] must be NUL.
 */
size_t text_unshowable(const char *s, size_t len);

#endif /* MTGCTL_TEXT_H */
