/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The /dev/mtg client: one session, its shared memory and the traffic
 * generator commands (kmod/uapi/mtg.h, Documentation/abi.rst). Functions
 * return 0 or a negative errno; the ones that can fail for a reason the
 * user must hear print it, naming the device.
 */
#ifndef MTGCTL_MODULE_H
#define MTGCTL_MODULE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "uapi/mtg.h"

/*
 * A receive ring of the module, read from its shared memory: records the
 * kernel wrote (read-only to us) up to its producer count; we hand slots
 * back by advancing the consumer count.
 */
struct mtg_ring_reader {
	const uint8_t *records;
	const uint64_t *producer;	/* written by the kernel */
	uint64_t *consumer;		/* written by us */
	uint32_t nr;			/* records, a power of two */
	uint32_t size;			/* bytes per record */
	uint64_t cons;			/* records taken so far */
};

/*
 * The keep ring, read from shared memory: entries of variable length
 * (struct mtg_keep_rec) up to the kernel's producer count of bytes; we
 * hand them back by advancing the consumer count.
 */
struct mtg_keep_reader {
	const uint8_t *area;
	const uint64_t *producer;	/* written by the kernel */
	uint64_t *consumer;		/* written by us */
	uint64_t bytes;			/* a power of two; 0: no keep ring */
	uint64_t cons;			/* bytes taken so far */
};

struct mtg_dev {
	int fd;
	const char *path;
	struct mtg_version ver;
	struct mtg_mmap_offsets off;
	void *tables;			/* MTG_REGION_TABLES, read-write */
	size_t tables_size;
	const void *status;		/* MTG_REGION_STATUS, read-only */
	size_t status_size;
	const void *rx;			/* MTG_REGION_RX, read-only */
	size_t rx_size;
	void *rx_cons;			/* MTG_REGION_RX_CONS, read-write */
	size_t rx_cons_size;
	struct mtg_rx_offsets rx_off;
	struct mtg_ring_reader data;	/* struct mtg_rx_rec */
	struct mtg_ring_reader ctrl;	/* struct mtg_ctrl_rec */
	struct mtg_keep_reader keep;	/* struct mtg_keep_rec */
};

/* Open the device and check that it speaks our ABI major version. */
int mtg_dev_open(struct mtg_dev *d, const char *path);
/*
 * Allocate table_bytes of timetables and rx_records of receive ring (each
 * may be 0, not both) with a keep ring of keep_bytes (0: none), and map
 * what was allocated and the status page.
 */
int mtg_dev_alloc(struct mtg_dev *d, uint64_t table_bytes,
		  uint64_t rx_records, uint64_t keep_bytes);
/* Listen on an interface (MTG_IFACE_F_RX, and _RX_PASS with pass). */
int mtg_dev_listen(struct mtg_dev *d, int netns_fd, uint32_t ifindex,
		   bool pass, uint32_t *id);
/* What became of interface id (MTG_IFACE_STATE_ATTACHED or _LOST in state). */
int mtg_dev_iface_info(struct mtg_dev *d, uint32_t id,
		       struct mtg_iface_info *info);
int mtg_dev_rx_set_run(struct mtg_dev *d, uint32_t run_id);
/* D-ITG's packets to UDP port recorded as run_id (add), or no longer. */
int mtg_dev_rx_ditg(struct mtg_dev *d, uint16_t port, uint32_t run_id,
		    bool add);
int mtg_dev_rx_stats(struct mtg_dev *d, struct mtg_rx_stats *st);
/* The same counters from the shared copy: each whole, no system call. */
void mtg_dev_rx_stats_shm(const struct mtg_dev *d, struct mtg_rx_stats *st);

/*
 * Records ready in a ring (the producer count read with acquire order);
 * -EPROTO if the count is impossible. mtg_ring_record(r, k) is the k-th of
 * them; mtg_ring_release() hands n back to the kernel.
 */
int64_t mtg_ring_ready(const struct mtg_ring_reader *r);
static inline const void *mtg_ring_record(const struct mtg_ring_reader *r,
					  uint64_t k)
{
	return r->records + ((r->cons + k) & (r->nr - 1)) * (size_t)r->size;
}
void mtg_ring_release(struct mtg_ring_reader *r, uint64_t n);
/*
 * The next entry of the keep ring (pads skipped): 1 with its head copied
 * (and checked) into *e and its data at *data, in the ring until
 * mtg_keep_release(); 0 when none is ready; -EPROTO when the counts or the
 * entry make no sense.
 */
int mtg_keep_next(struct mtg_keep_reader *k, struct mtg_keep_rec *e,
		  const uint8_t **data);
/* Hand back the entries taken. */
void mtg_keep_release(struct mtg_keep_reader *k);
int mtg_dev_tg_start(struct mtg_dev *d, struct mtg_tg_start *start);
int mtg_dev_tg_kill(struct mtg_dev *d, uint32_t tg_id);
int mtg_dev_tg_suspend(struct mtg_dev *d, uint32_t tg_id);
int mtg_dev_tg_resume(struct mtg_dev *d, uint32_t tg_id);
/* Throughput times num / den of the timetable's (each 1 .. 65536). */
int mtg_dev_tg_set_rate(struct mtg_dev *d, uint32_t tg_id, uint32_t num,
			uint32_t den);
/* Send a control message now (MTG_CTRLMSG_MAX bytes at most). */
int mtg_dev_tg_ctrlmsg(struct mtg_dev *d, uint32_t tg_id, const void *data,
		       size_t len);
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
