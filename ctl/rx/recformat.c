// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The recording format, written in one place (recording.h,
 * Documentation/recording-format.rst): the binary header, the byte order
 * of records and extra entries, and the metadata JSON with the records'
 * dtype. The writer (recording.c) and the reader (recread.c) use these.
 */
#include <dirent.h>
#include <endian.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/timex.h>
#include <sys/utsname.h>

#include "idf/idf.h"
#include "module/iface.h"
#include "rx/recording.h"
#include "traffic/tg_json.h"
#include "util/jw.h"
#include "util/log.h"

_Static_assert(sizeof(struct rec_file_header) == 64, "64-byte header");
_Static_assert(REC_SIZE == 96, "the format's record is 96 bytes");
_Static_assert(sizeof(struct rec_extra_header) == 64, "64-byte section header");
_Static_assert(sizeof(struct rec_extra) == 64, "64-byte entry head");

const struct rec_field rec_fields[REC_NFIELDS] = {
	{ "rx_ns", "<u8", 0 }, { "seq", "<u8", 0 },
	{ "sched_ns", "<u8", 0 }, { "tx_ns", "<u8", 0 },
	{ "tp_ns", "<u8", 4 }, { "run_id", "<u4", 0 },
	{ "tg_id", "<u4", 0 }, { "wrong_bits", "<u4", 0 },
	{ "len", "<u2", 0 }, { "iface", "<u2", 0 },
	{ "flags", "<u2", 0 }, { "nut", "u1", 6 }, { "ttl", "u1", 0 },
	{ "tos", "u1", 0 }, { "payload_len", "<u2", 0 },
	{ "reserved", "<u4", 0 },
};

void rec_header_fill(const struct recorder *w, struct rec_file_header *h,
		     uint32_t flags, uint64_t ring_drops, uint64_t end_ns)
{
	memset(h, 0, sizeof(*h));
	memcpy(h->magic, REC_MAGIC, sizeof(h->magic));
	h->version = htole32(w->version);
	h->header_bytes = htole32(w->header_bytes);
	h->record_bytes = htole32(REC_SIZE);
	h->flags = htole32(flags | (w->extras ? REC_F_EXTRAS : 0));
	h->records = htole64(w->written);
	h->not_written = htole64(w->not_written);
	h->ring_drops = htole64(ring_drops);
	h->end_ns = htole64(end_ns);
	h->meta_bytes = htole32(w->meta_bytes);
	h->ifaces_lost = htole32(w->ifaces_lost);
}

/*
 * Between host order and the format's little-endian: the same swap both
 * ways (and nothing on a little-endian host).
 */
void rec_swap(struct mtg_rx_rec *r)
{
#if __BYTE_ORDER != __LITTLE_ENDIAN
	size_t i;

	r->rx_ns = htole64(r->rx_ns);
	r->seq = htole64(r->seq);
	r->sched_ns = htole64(r->sched_ns);
	r->tx_ns = htole64(r->tx_ns);
	for (i = 0; i < 4; i++)
		r->tp_ns[i] = htole64(r->tp_ns[i]);
	r->run_id = htole32(r->run_id);
	r->tg_id = htole32(r->tg_id);
	r->wrong_bits = htole32(r->wrong_bits);
	r->len = htole16(r->len);
	r->iface = htole16(r->iface);
	r->flags = htole16(r->flags);
	r->payload_len = htole16(r->payload_len);
#else
	(void)r;
#endif
}

/* Between host order and little-endian, as rec_swap() for records. */
void rec_extra_swap(struct rec_extra *e)
{
#if __BYTE_ORDER != __LITTLE_ENDIAN
	e->bytes = htole32(e->bytes);
	e->type = htole16(e->type);
	e->flags = htole16(e->flags);
	e->record = htole64(e->record);
	e->rx_ns = htole64(e->rx_ns);
	e->seq = htole64(e->seq);
	e->tx_ns = htole64(e->tx_ns);
	e->run_id = htole32(e->run_id);
	e->tg_id = htole32(e->tg_id);
	e->iface = htole16(e->iface);
	e->rx_flags = htole16(e->rx_flags);
	e->count = htole32(e->count);
	e->data_len = htole32(e->data_len);
#else
	(void)e;
#endif
}

/* A record's fields, as numpy's dtype description has them. */
static void record_dtype(struct jw *j)
{
	size_t i;

	jw_key(j, "record");
	jw_obj_begin(j);
	jw_ku64(j, "bytes", sizeof(struct mtg_rx_rec));
	jw_key(j, "dtype");
	jw_arr_begin(j);
	for (i = 0; i < REC_NFIELDS; i++) {
		jw_arr_begin(j);
		jw_str(j, rec_fields[i].name);
		jw_str(j, rec_fields[i].type);
		if (rec_fields[i].count) {
			jw_arr_begin(j);
			jw_u64(j, rec_fields[i].count);
			jw_arr_end(j);
		}
		jw_arr_end(j);
	}
	jw_arr_end(j);
	jw_key(j, "flags");
	jw_obj_begin(j);
	jw_ku64(j, "stamp_mask", MTG_RX_F_STAMP);
	jw_ku64(j, "stamp_hook", MTG_RX_STAMP_HOOK);
	jw_ku64(j, "stamp_sw", MTG_RX_STAMP_SW);
	jw_ku64(j, "stamp_hw", MTG_RX_STAMP_HW);
	jw_ku64(j, "ipv6", MTG_RX_F_IPV6);
	jw_ku64(j, "hdr_corrupt", MTG_RX_F_HDR_CORRUPT);
	jw_ku64(j, "csum_bad", MTG_RX_F_CSUM_BAD);
	jw_ku64(j, "kept", MTG_RX_F_KEPT);
	jw_ku64(j, "keep_lost", MTG_RX_F_KEEP_LOST);
	jw_ku64(j, "ditg", MTG_RX_F_DITG);
	jw_ku64(j, "csum_partial", MTG_RX_F_CSUM_PARTIAL);
	jw_ku64(j, "icmp", MTG_RX_F_ICMP);
	jw_obj_end(j);
	jw_obj_end(j);
}

/*
 * The clock daemons running on the host (by their command names in
 * /proc): which disciplines the clock, PTP (ptp4l, phc2sys) or NTP
 * (chronyd, ntpd, systemd-timesyncd), as a list.
 */
static void clock_daemons(struct jw *j)
{
	static const char *const known[] = {
		"ptp4l", "phc2sys", "timemaster", "chronyd", "ntpd",
		"systemd-timesyn",	/* systemd-timesyncd, cut to 15 */
	};
	bool seen[sizeof(known) / sizeof(known[0])] = { false };
	struct dirent *e;
	char path[64], comm[32];
	size_t i, n;
	DIR *d;
	FILE *f;

	jw_key(j, "daemons");
	jw_arr_begin(j);
	d = opendir("/proc");
	while (d && (e = readdir(d))) {
		if (e->d_name[0] < '1' || e->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%.16s/comm", e->d_name);
		f = fopen(path, "re");
		if (!f)
			continue;
		n = fread(comm, 1, sizeof(comm) - 1, f);
		fclose(f);
		comm[n] = '\0';
		comm[strcspn(comm, "\n")] = '\0';
		for (i = 0; i < sizeof(known) / sizeof(known[0]); i++)
			if (!strcmp(comm, known[i]))
				seen[i] = true;
	}
	if (d)
		closedir(d);
	for (i = 0; i < sizeof(known) / sizeof(known[0]); i++)
		if (seen[i])
			jw_str(j, i == 5 ? "systemd-timesyncd" : known[i]);
	jw_arr_end(j);
}

/* The host and its clock, as the kernel tells them now. */
static void host_and_clock(struct jw *j)
{
	struct timex tx = { .modes = 0 };
	struct utsname u;
	int state;

	jw_key(j, "host");
	jw_obj_begin(j);
	if (!uname(&u)) {
		jw_kstr(j, "name", u.nodename);
		jw_kstr(j, "kernel", u.release);
		jw_kstr(j, "kernel_version", u.version);
		jw_kstr(j, "machine", u.machine);
	}
	jw_obj_end(j);

	state = adjtimex(&tx);
	jw_key(j, "clock");
	jw_obj_begin(j);
	jw_kstr(j, "id", "CLOCK_TAI");
	if (state >= 0) {
		/* STA_UNSYNC: nothing disciplines the clock (no NTP/PTP). */
		jw_kbool(j, "synchronised",
			 state != TIME_ERROR && !(tx.status & STA_UNSYNC));
		jw_ku64(j, "tai_offset_s", (uint64_t)tx.tai);
		jw_ku64(j, "maxerror_us", (uint64_t)tx.maxerror);
		jw_ku64(j, "esterror_us", (uint64_t)tx.esterror);
	}
	clock_daemons(j);
	jw_obj_end(j);
}

char *rec_meta_json(const struct rec_meta *mi, size_t *len)
{
	struct jw j;
	char *buf = NULL;
	FILE *f;
	size_t i;

	f = open_memstream(&buf, len);
	if (!f)
		return NULL;
	jw_init(&j, f);
	jw_obj_begin(&j);
	jw_kstr(&j, "format", "mtg-recording");
	jw_ku64(&j, "version", REC_VERSION);
	jw_kstr(&j, "command", mi->command);
	jw_kstr(&j, "mtgctl", MTGCTL_VERSION);
	jw_key(&j, "abi");
	jw_obj_begin(&j);
	jw_ku64(&j, "major", MTG_ABI_MAJOR);
	jw_ku64(&j, "minor", MTG_ABI_MINOR);
	jw_obj_end(&j);
	if (mi->run_id)
		jw_ku64(&j, "run_id", mi->run_id);
	else
		jw_knull(&j, "run_id");
	jw_ku64(&j, "start_ns", mi->start_ns);
	host_and_clock(&j);
	record_dtype(&j);
	jw_ku64(&j, "ring_records", mi->ring_records);
	jw_kbool(&j, "passthrough", mi->passthrough);
	if (mi->xdp_stamp) {
		jw_key(&j, "receiver");
		jw_obj_begin(&j);
		jw_kstr(&j, "source", "xdp");
		jw_kstr(&j, "stamp", mi->xdp_stamp);
		jw_kbool(&j, "payload_compared", false);
		jw_obj_end(&j);
	}
	jw_key(&j, "interfaces");
	jw_arr_begin(&j);
	for (i = 0; i < mi->ndevs; i++) {
		const struct listen_dev *d = &mi->devs[i];

		jw_obj_begin(&j);
		jw_ku64(&j, "id", d->id);
		jw_kstr(&j, "dev", d->l.dev);
		jw_kstr(&j, "netns", d->l.netns[0] ? d->l.netns : NULL);
		jw_ku64(&j, "ifindex", d->ifindex);
		jw_obj_end(&j);
	}
	jw_arr_end(&j);
	jw_key(&j, "idf");
	if (mi->idf) {
		jw_obj_begin(&j);
		jw_kstr(&j, "file", mi->idf->name);
		jw_kstr(&j, "text", mi->idf->text ? mi->idf->text : "");
		jw_key(&j, "includes");
		jw_arr_begin(&j);
		for (i = 0; i < mi->idf->nincludes; i++) {
			jw_obj_begin(&j);
			jw_kstr(&j, "file", mi->idf->includes[i].name);
			jw_kstr(&j, "text", mi->idf->includes[i].text);
			jw_obj_end(&j);
		}
		jw_arr_end(&j);
		jw_obj_end(&j);
	} else {
		jw_null(&j);
	}
	jw_key(&j, "tgs");
	jw_arr_begin(&j);
	for (i = 0; i < mi->ntgs; i++)
		tg_json(&j, mi->tgs[i], mi->tts[i], false);
	for (i = 0; i < mi->nraw; i++)
		jw_raw(&j, mi->tg_raw[i]);
	jw_arr_end(&j);
	if (mi->tsp_sender) {
		jw_key(&j, "tsp");
		jw_obj_begin(&j);
		jw_kstr(&j, "sender", mi->tsp_sender);
		jw_kstr(&j, "key", mi->tsp_key);
		jw_key(&j, "clock");
		if (mi->tsp_uncertainty_ns) {
			jw_obj_begin(&j);
			jw_ki64(&j, "offset_ns", mi->tsp_offset_ns);
			jw_ku64(&j, "uncertainty_ns", mi->tsp_uncertainty_ns);
			jw_obj_end(&j);
		} else {
			jw_null(&j);
		}
		jw_obj_end(&j);
	}
	jw_obj_end(&j);
	if (fclose(f)) {
		free(buf);
		return NULL;
	}
	return buf;
}
