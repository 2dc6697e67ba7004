/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The MTG header's CRC and the payload patterns in userspace, as the
 * module computes them (kmod/mtg_wire.c, kmod/uapi/mtg.h): for what
 * mtgctl reads from sockets rather than from the module's ring.
 */
#ifndef MTGCTL_MTGWIRE_H
#define MTGCTL_MTGWIRE_H

#include <stddef.h>
#include <stdint.h>

/* CRC32C (Castagnoli) of len bytes, as the header's crc field holds it. */
uint32_t mtg_crc32c(const void *data, size_t len);

/* Bits of got that differ from the pattern kind/value/seed describes. */
uint32_t mtg_pattern_wrong_bits(uint8_t kind, uint8_t value, uint32_t seed,
				const uint8_t *got, size_t len);

#endif /* MTGCTL_MTGWIRE_H */
