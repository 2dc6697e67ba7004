// SPDX-License-Identifier: GPL-2.0
/*
 * The wire format both TX and RX need (kmod/uapi/mtg.h): the MTG header's
 * CRC, and the payload patterns, the byte stream a TG's payload follows,
 * which the sender writes and the receiver regenerates from the header
 * alone to count wrong bits. A pattern can be produced in pieces: every
 * piece but the last must be a multiple of 4 bytes long (RANDOM makes its
 * bytes 4 at a time).
 */
#include <linux/bitops.h>
#include <linux/crc32.h>
#include <linux/string.h>

#include "mtg.h"

/* CRC32C of the header's fields fixed when the packet is built. */
u32 mtg_hdr_crc(const struct mtg_hdr *h)
{
	return ~__crc32c_le(~0U, (const u8 *)h, MTG_HDR_CRC_LEN);
}

void mtg_patt_init(struct mtg_patt *pt, u8 kind, u8 value, u32 seed)
{
	pt->kind = kind;
	pt->value = value;
	pt->x = seed ? seed : 1;
}

/* The next len bytes of the stream. */
void mtg_patt_fill(struct mtg_patt *pt, u8 *p, u32 len)
{
	u32 i;

	switch (pt->kind) {
	case MTG_PATT_FIXED:
		memset(p, pt->value, len);
		break;
	case MTG_PATT_INCR:
		for (i = 0; i < len; i++)
			p[i] = pt->value++;
		break;
	case MTG_PATT_RANDOM:
		/* xorshift32, four bytes at a time, low byte first */
		while (len) {
			u32 n = min_t(u32, len, 4);
			__le32 word;

			pt->x ^= pt->x << 13;
			pt->x ^= pt->x >> 17;
			pt->x ^= pt->x << 5;
			word = cpu_to_le32(pt->x);
			memcpy(p, &word, n);
			p += n;
			len -= n;
		}
		break;
	}
}

/*
 * As mtg_patt_wrong_bits(), and the positions of the bits that differ
 * (first: the position of got's first bit; bit k is bit 7 - k % 8 of byte
 * k / 8) into pos, *npos of them so far, max at most.
 */
u32 mtg_patt_wrong_positions(struct mtg_patt *pt, const u8 *got, u32 len,
			     u32 first, __u32 *pos, u32 *npos, u32 max)
{
	u8 want[MTG_PATT_CHUNK];
	u32 bits = 0, i, done = 0;

	while (len) {
		u32 n = min_t(u32, len, sizeof(want));

		mtg_patt_fill(pt, want, n);
		for (i = 0; i < n; i++) {
			u8 x = got[i] ^ want[i];

			bits += hweight8(x);
			while (x && *npos < max) {
				u32 b = fls(x) - 1;	/* most significant */

				pos[(*npos)++] = first + (done + i) * 8 + 7 - b;
				x &= ~BIT(b);
			}
		}
		got += n;
		done += n;
		len -= n;
	}
	return bits;
}

/* Bits that differ between got and the next len bytes of the stream. */
u32 mtg_patt_wrong_bits(struct mtg_patt *pt, const u8 *got, u32 len)
{
	u8 want[MTG_PATT_CHUNK];
	u32 bits = 0, i;

	while (len) {
		u32 n = min_t(u32, len, sizeof(want));

		mtg_patt_fill(pt, want, n);
		for (i = 0; i + 8 <= n; i += 8) {
			u64 a, b;

			/* unaligned loads, as the compiler sees fit */
			memcpy(&a, got + i, 8);
			memcpy(&b, want + i, 8);
			bits += hweight64(a ^ b);
		}
		for (; i < n; i++)
			bits += hweight8(got[i] ^ want[i]);
		got += n;
		len -= n;
	}
	return bits;
}
