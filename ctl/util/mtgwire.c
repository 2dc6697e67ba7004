// SPDX-License-Identifier: GPL-2.0-or-later
/* The MTG header's CRC and the payload patterns (mtgwire.h). */
#include "util/mtgwire.h"
#include "uapi/mtg.h"

uint32_t mtg_crc32c(const void *data, size_t len)
{
	const uint8_t *p = data;
	uint32_t crc = 0xffffffffU;
	int k;

	/* bit by bit, reflected: the header's 44 bytes, once a message */
	while (len--) {
		crc ^= *p++;
		for (k = 0; k < 8; k++)
			crc = crc >> 1 ^ (0x82f63b78U & -(crc & 1));
	}
	return ~crc;
}

uint32_t mtg_pattern_wrong_bits(uint8_t kind, uint8_t value, uint32_t seed,
				const uint8_t *got, size_t len)
{
	uint32_t x = seed ? seed : 1, bits = 0;
	size_t i;

	for (i = 0; i < len; i++) {
		uint8_t want;

		if (kind == MTG_PATT_FIXED) {
			want = value;
		} else if (kind == MTG_PATT_INCR) {
			want = (uint8_t)(value + i);
		} else {
			/* RANDOM: xorshift32, 4 bytes at a time, low first */
			if (i % 4 == 0) {
				x ^= x << 13;
				x ^= x >> 17;
				x ^= x << 5;
			}
			want = (uint8_t)(x >> (8 * (i % 4)));
		}
		bits += (uint32_t)__builtin_popcount(got[i] ^ want);
	}
	return bits;
}
