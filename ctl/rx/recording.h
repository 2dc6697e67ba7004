/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The recording file (Documentation/recording-format.rst): a 64-byte
 * binary header, JSON metadata padded to a page boundary, then one
 * little-endian struct mtg_rx_rec (96 bytes) per received packet, so that
 * numpy maps the records with the dtype the metadata spells out.
 *
 * The header's counts are written when the recording is finished; a file
 * whose COMPLETE flag is clear was not finished (the recorder died), and
 * holds the records its length says. A write that fails (a full disk)
 * ends the recording where the last whole record ends: the file stays
 * valid, and what could not be written is counted in not_written.
 *
 * Extra entries of variable length (control messages received; payloads
 * and wrong-bit positions kept) wait in a temporary file while the
 * recording goes on, and follow the records, in a section of their own,
 * when it is finished: such a file is version 2. A file without them stays
 * version 1, which every reader of version 1 reads as before.
 */
#ifndef MTGCTL_RECORDING_H
#define MTGCTL_RECORDING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "uapi/mtg.h"

#define REC_MAGIC		"\x89MTGREC\n"
#define REC_VERSION		1	/* records only */
#define REC_VERSION_EXTRAS	2	/* records, then the extra section */
#define REC_ALIGN		4096	/* records start on a page boundary */
#define REC_F_COMPLETE		(1U << 0)	/* finished; counts are final */
#define REC_F_EXTRAS		(1U << 1)	/* version 2: the section is there */
#define REC_SIZE		sizeof(struct mtg_rx_rec)	/* a record's bytes */

/* The fixed header at offset 0, little-endian. */
struct rec_file_header {
	char magic[8];		/* REC_MAGIC */
	uint32_t version;	/* REC_VERSION, REC_VERSION_EXTRAS */
	uint32_t header_bytes;	/* offset of record 0, a multiple of REC_ALIGN */
	uint32_t record_bytes;	/* sizeof(struct mtg_rx_rec) */
	uint32_t flags;		/* REC_F_* */
	uint64_t records;	/* records in the file (when complete) */
	uint64_t not_written;	/* records received but not written */
	uint64_t ring_drops;	/* packets the module's ring dropped */
	uint64_t end_ns;	/* when the recording ended, CLOCK_TAI */
	uint32_t meta_bytes;	/* JSON metadata at offset 64 */
	uint32_t ifaces_lost;	/* interfaces listened on that went away
				 * (written when it happens; 0 in files of
				 * recorders that could not tell)
				 */
};

#define REC_EXTRA_MAGIC		"\x89MTGEXT\n"

/* The extra section's header, right after the last record (version 2). */
struct rec_extra_header {
	char magic[8];		/* REC_EXTRA_MAGIC */
	uint64_t entries;
	uint64_t bytes;		/* of the entries, after this header */
	uint64_t ctrl_drops;	/* control messages the module's queue lost */
	uint64_t keep_drops;	/* payloads, wrong-bit lists the module lost */
	uint64_t extras_lost;	/* entries mtgctl took but could not write */
	uint64_t reserved[2];	/* zero */
};

/* What an extra entry holds (rec_extra.type). */
#define REC_EXTRA_CTRL		1	/* a control message received */
#define REC_EXTRA_PAYLOAD	2	/* a packet's payload, as received */
#define REC_EXTRA_WRONG_BITS	3	/* its wrong bits' positions, __u32 */
#define REC_EXTRA_RATE		4	/* a TG's throughput changed in the run */

#define REC_EXTRA_F_CUT		(1U << 0)	/* fewer positions than count */
#define REC_EXTRA_NO_RECORD	UINT64_MAX	/* rec_extra.record of CTRL */

/*
 * An extra entry's head, 64 bytes, little-endian; data_len bytes of data
 * follow, then zeros to a multiple of 8 (bytes counts them all).
 */
struct rec_extra {
	uint32_t bytes;		/* the whole entry: head, data, padding */
	uint16_t type;		/* REC_EXTRA_* */
	uint16_t flags;		/* REC_EXTRA_F_* */
	uint64_t record;	/* PAYLOAD, WRONG_BITS: the packet's record
				 * (its index); CTRL: REC_EXTRA_NO_RECORD
				 */
	uint64_t rx_ns;		/* receive stamp */
	uint64_t seq;
	uint64_t tx_ns;
	uint32_t run_id;
	uint32_t tg_id;
	uint16_t iface;
	uint16_t rx_flags;	/* MTG_RX_F_* */
	uint32_t count;		/* WRONG_BITS: the packet's wrong bits;
				 * PAYLOAD: its payload bytes
				 */
	uint32_t data_len;	/* bytes of data after the head */
	uint32_t reserved;	/* zero */
};

/*
 * REC_EXTRA_RATE's data, 16 bytes, little-endian: from the head's rx_ns
 * on (CLOCK_TAI, taken once the module had the change), TG tg_id sends
 * at num/den times its timetable's throughput: each gap of its timetable
 * times den/num, as the module scales them (MTG_TG_SET_RATE).
 */
struct rec_extra_rate {
	uint32_t num;		/* 1 .. REC_RATE_MAX */
	uint32_t den;		/* 1 .. REC_RATE_MAX */
	uint16_t by;		/* REC_RATE_BY_* */
	uint16_t reserved;	/* zero */
	uint32_t reserved2;	/* zero */
};

#define REC_RATE_MAX		65536	/* the module's bound on num, den */
#define REC_RATE_BY_KEY		1	/* the dashboard's +, -, = */
#define REC_RATE_BY_COMMAND	2	/* --commands' `rate` */
#define REC_RATE_BY_RESTART	3	/* started again: its timetable's rate */

struct recorder {
	int fd;			/* -1: closed */
	const char *path;
	char *tmp_path;		/* --force: written here until rec_commit() */
	bool created;		/* we made the file (remove it if abandoned) */
	uint8_t *buf;		/* records waiting to be written */
	size_t len;		/* bytes in buf */
	uint32_t header_bytes;
	uint32_t meta_bytes;
	uint64_t written;	/* records in the file */
	uint64_t not_written;
	uint32_t ifaces_lost;
	int error;		/* the first write error (negative errno) */
	uint64_t meta_version_at;	/* the metadata's version digit */
	int xfd;		/* extra entries until the end; -1: none yet */
	uint8_t *xbuf;		/* entries waiting to be written there */
	size_t xlen;
	uint64_t xentries;	/* entries taken (in xfd and xbuf) */
	uint64_t xbytes;	/* their bytes */
	uint64_t xbuffered;	/* of them: in xbuf */
	uint64_t xlost;		/* entries that could not be kept */
	uint64_t ctrl_drops, keep_drops;	/* the module's, at the end */
	bool extras;		/* the section was written */
	uint32_t version;	/* REC_VERSION until the extras make it 2 */
};

/*
 * Create path for writing; an existing file is refused (-EEXIST) unless
 * force. With force the recording is written to a new file beside path
 * and replaces it only at rec_commit(): a run that never starts leaves the
 * old recording as it was. Prints what went wrong.
 */
int rec_create(struct recorder *w, const char *path, bool force);
/*
 * The run has started: a forced recording takes path's place (rename).
 * If that fails it says so and goes on in the file beside it; returns the
 * path the recording is in.
 */
const char *rec_commit(struct recorder *w);
/* Write the header and the metadata (meta_bytes of JSON). */
int rec_begin(struct recorder *w, const char *meta, size_t meta_bytes);
/*
 * Add one record; written out in large blocks. After a write error, the
 * record is only counted (not_written) and the error returned.
 */
int rec_add(struct recorder *w, const struct mtg_rx_rec *r);
/*
 * Add an extra entry (its head's bytes and data_len are filled in here)
 * with e->data_len bytes of data; it follows the records once the
 * recording is finished. After a write error, it is only counted.
 */
int rec_add_extra(struct recorder *w, const struct rec_extra *e,
		  const void *data);
/*
 * A TG's throughput changed (struct rec_extra_rate): a REC_EXTRA_RATE
 * entry, at when_ns (CLOCK_TAI). As rec_add_extra().
 */
int rec_add_rate(struct recorder *w, uint32_t run_id, uint32_t tg_id,
		 uint64_t when_ns, uint32_t num, uint32_t den, uint16_t by);
/* The module's losses of what would have been extra entries. */
void rec_extra_drops(struct recorder *w, uint64_t ctrl_drops,
		     uint64_t keep_drops);
/*
 * Replace the metadata (len bytes) with one a writer knows only at the
 * end (logd's counts): it must fit the room rec_begin() made, up to the
 * records; the header says its new length at once. 0, or -E2BIG, -errno.
 */
int rec_rewrite_meta(struct recorder *w, const char *meta, size_t len);
/* Write what is buffered. */
int rec_flush(struct recorder *w);
/* n interfaces went away: the header says so at once (finished or not). */
int rec_ifaces_lost(struct recorder *w, uint32_t n);
/*
 * Finish: write the rest, the final counts and the COMPLETE flag, close.
 * Returns the first error the recording met (0 if none).
 */
int rec_finish(struct recorder *w, uint64_t ring_drops, uint64_t end_ns);
/* Nothing was recorded (the run never started): close, and remove the
 * file if we created it. */
void rec_abandon(struct recorder *w);

/*
 * The format's bytes, written in one place (recformat.c): the header, the
 * records' and entries' byte order, the metadata.
 */
void rec_header_fill(const struct recorder *w, struct rec_file_header *h,
		     uint32_t flags, uint64_t ring_drops, uint64_t end_ns);
/* Between host order and the format's little-endian, both ways. */
void rec_swap(struct mtg_rx_rec *r);
void rec_extra_swap(struct rec_extra *e);

struct idf_file;
struct idf_tg;
struct listen_dev;
struct tt;

/* What a recording's metadata says about the run. */
struct rec_meta {
	const char *command;		/* "run", "listen" */
	uint32_t run_id;		/* 0: every run */
	uint64_t start_ns;		/* T0, or the start of listening */
	uint64_t ring_records;
	bool passthrough;
	const char *xdp_stamp;		/* listen --xdp: "tai" or "hw"; NULL:
					 * the module received
					 */
	const struct listen_dev *devs;
	size_t ndevs;
	const struct idf_file *idf;	/* NULL for listen */
	const struct idf_tg *const *tgs;	/* the IDF's TGs, as run */
	const struct tt *const *tts;
	size_t ntgs;
	/*
	 * recv: the TGs as the senders described them (compact JSON, each
	 * checked), instead of tgs; and who sent them over TSP.
	 */
	const char *const *tg_raw;
	size_t nraw;
	const char *tsp_sender;		/* "192.0.2.1:40000", or NULL */
	const char *tsp_key;		/* the key file the sender proved */
	int64_t tsp_offset_ns;		/* the sender's estimate of our clock */
	uint64_t tsp_uncertainty_ns;	/* 0: none */
};

/* The metadata JSON (malloc'd, *len bytes), or NULL when out of memory. */
char *rec_meta_json(const struct rec_meta *mi, size_t *len);

/* A record's fields, as the metadata's numpy dtype description has them. */
struct rec_field {
	const char *name, *type;	/* "seq", "<u8" */
	unsigned int count;		/* 0: a scalar; else an array of these */
};

#define REC_NFIELDS	16
extern const struct rec_field rec_fields[REC_NFIELDS];

/*
 * Check a recording's metadata (len bytes of JSON; the header says
 * version): the keys a reader knows have their types, the record's dtype
 * is the format's (Documentation/recording-format.rst). 0, or -1 with
 * what is wrong and where in why ("start_ns is \"x\", not ...").
 */
int rec_meta_check(const char *raw, size_t len, uint32_t version, char *why,
		   size_t size);

/* A recording opened for reading, its header checked. */
struct rec_reader {
	int fd;
	const char *path;
	struct rec_file_header h;	/* host byte order */
	uint64_t size;			/* bytes */
	uint64_t records;		/* whole records in the file */
	uint64_t partial;		/* bytes of a cut record at the end */
	bool complete;			/* REC_F_COMPLETE */
	bool has_extras;		/* REC_F_EXTRAS: xh is the section's */
	struct rec_extra_header xh;	/* host byte order */
	uint64_t extras_at;		/* file offset of the first entry */
};

/*
 * Open and check path: a regular file, an mtg recording of a format this
 * mtgctl reads, its metadata sound (rec_meta_check), whole. A truncated,
 * damaged or foreign file is refused (-EINVAL), saying why; an unfinished
 * one (no COMPLETE flag) is read as far as its whole records go.
 */
int rec_open(struct rec_reader *r, const char *path);
/* Up to n records from index first into out (host byte order); how many. */
int64_t rec_read(struct rec_reader *r, uint64_t first, struct mtg_rx_rec *out,
		 size_t n);
/*
 * The extra entry at *pos (0: the first), its data (at most cap bytes)
 * into data; *pos moves to the next one. 1, 0 after the last, or -EINVAL
 * for a damaged entry (said), -errno if it cannot be read.
 */
int rec_extra_next(struct rec_reader *r, uint64_t *pos, struct rec_extra *e,
		   void *data, size_t cap);
void rec_close(struct rec_reader *r);
/*
 * A REC_EXTRA_RATE entry's data (e->data_len bytes at data) into *out,
 * host byte order, checked: 0, or -1 with what is wrong in why.
 */
int rec_rate_read(const struct rec_extra *e, const void *data,
		  struct rec_extra_rate *out, char *why, size_t size);
/* REC_RATE_BY_*'s name: "key", "command", "restart" ("?" for others). */
const char *rec_rate_by_name(uint16_t by);

#endif /* MTGCTL_RECORDING_H */
