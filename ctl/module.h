/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The /dev/mtg client: one session, its shared memory and the traffic
 * generator commands (kmod/uapi/mtg.h, Documentation/abi.rst). Functions
 * return 0 or a negative errno; the ones that can fail for a reason the
 * user must hear print it, naming the device.
 */
#ifndef MTGCTL_MODULE_H
#define MTGCTL_MODULE_H

#include <stddef.h>
#include <stdint.h>

#include "../kmod/uapi/mtg.h"

struct mtg_dev {
	int fd;
	const char *path;
	struct mtg_version ver;
	struct mtg_mmap_offsets off;
	void *tables;			/* MTG_REGION_TABLES, read-write */
	size_t tables_size;
	const void *status;		/* MTG_REGION_STATUS, read-only */
	size_t status_size;
};

/* Open the device and check that it speaks our ABI major version. */
int mtg_dev_open(struct mtg_dev *d, const char *path);
/* Allocate table_bytes of timetables and map the tables and the status. */
int mtg_dev_alloc(struct mtg_dev *d, uint64_t table_bytes);
int mtg_dev_tg_start(struct mtg_dev *d, struct mtg_tg_start *start);
int mtg_dev_tg_kill(struct mtg_dev *d, uint32_t tg_id);
int mtg_dev_tg_stats(struct mtg_dev *d, uint32_t tg_id,
		     struct mtg_tg_stats *st);
/* The session's counters from the status page (seqcount read). */
int mtg_dev_status(const struct mtg_dev *d, struct mtg_stats *st);
void mtg_dev_close(struct mtg_dev *d);

/* What an errno from MTG_IOC_TG_START means, in words. */
const char *mtg_tg_start_hint(int err);
/* "running", "finished", ...; "dev_gone", ... or NULL for none. */
const char *mtg_tg_state_name(uint32_t state);
const char *mtg_tg_error_name(uint32_t error);
int mtg_tg_ended(uint32_t state);

#endif /* MTGCTL_MODULE_H */
