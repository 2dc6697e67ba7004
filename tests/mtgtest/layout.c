// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Prints the layout of kmod/uapi/mtg.h as the C compiler sees it, one
 * "name value" per line, for tests/host/test_abi_layout.py to compare with
 * the Python mirror (scripts/mtgwitness/abi.py).
 */
#include <stddef.h>
#include <stdio.h>

#include "../../kmod/uapi/mtg.h"

#define SIZE(s) printf("sizeof %s %zu\n", #s, sizeof(struct s))
#define OFF(s, f) printf("offsetof %s.%s %zu\n", #s, #f, offsetof(struct s, f))
#define CMD(c) printf("cmd %s %lu\n", #c, (unsigned long)(c))

int main(void)
{
	SIZE(mtg_version); SIZE(mtg_alloc); SIZE(mtg_region);
	SIZE(mtg_mmap_offsets); SIZE(mtg_stats); SIZE(mtg_status);
	SIZE(mtg_iface_add); SIZE(mtg_iface_info);
	OFF(mtg_version, max_session_bytes); OFF(mtg_version, max_ifaces);
	OFF(mtg_alloc, rx_records); OFF(mtg_alloc, keep_bytes);
	OFF(mtg_region, flags);
	OFF(mtg_stats, flags); OFF(mtg_stats, ifaces_lost); OFF(mtg_stats, events);
	OFF(mtg_status, seq); OFF(mtg_status, stats);
	OFF(mtg_iface_add, id); OFF(mtg_iface_info, netns_cookie);
	OFF(mtg_iface_info, name);
	CMD(MTG_IOC_VERSION); CMD(MTG_IOC_ALLOC); CMD(MTG_IOC_MMAP_OFFSETS);
	CMD(MTG_IOC_STATS); CMD(MTG_IOC_IFACE_ADD); CMD(MTG_IOC_IFACE_DEL);
	CMD(MTG_IOC_IFACE_INFO);

	SIZE(mtg_tt_entry); SIZE(mtg_tt_ring); SIZE(mtg_tg_start);
	SIZE(mtg_tg_rate); SIZE(mtg_tg_ctrlmsg); SIZE(mtg_tg_stats);
	SIZE(mtg_hdr);
	OFF(mtg_tt_entry, len); OFF(mtg_tt_entry, reserved);
	OFF(mtg_tt_ring, producer); OFF(mtg_tt_ring, consumer);
	OFF(mtg_tg_start, cpu); OFF(mtg_tg_start, src_addr);
	OFF(mtg_tg_start, dst_addr); OFF(mtg_tg_start, src_port);
	OFF(mtg_tg_start, dst_port); OFF(mtg_tg_start, tos);
	OFF(mtg_tg_start, ttl); OFF(mtg_tg_start, dst_mac);
	OFF(mtg_tg_start, patt_kind); OFF(mtg_tg_start, patt_value);
	OFF(mtg_tg_start, reserved0); OFF(mtg_tg_start, patt_seed);
	OFF(mtg_tg_start, table_len); OFF(mtg_tg_start, table_offset);
	OFF(mtg_tg_start, ring_offset); OFF(mtg_tg_start, start_ns);
	OFF(mtg_tg_start, stop_count); OFF(mtg_tg_start, stop_ns);
	OFF(mtg_tg_start, late_threshold_ns); OFF(mtg_tg_start, reserved);
	OFF(mtg_tg_rate, num); OFF(mtg_tg_rate, den); OFF(mtg_tg_rate, reserved);
	OFF(mtg_tg_ctrlmsg, len); OFF(mtg_tg_ctrlmsg, data);
	OFF(mtg_tg_stats, state); OFF(mtg_tg_stats, error);
	OFF(mtg_tg_stats, cpu); OFF(mtg_tg_stats, sent);
	OFF(mtg_tg_stats, bad_entries); OFF(mtg_tg_stats, underruns);
	OFF(mtg_tg_stats, ctrl_sent); OFF(mtg_tg_stats, next_seq);
	OFF(mtg_tg_stats, lateness_max_ns); OFF(mtg_tg_stats, lateness_sum_ns);
	OFF(mtg_tg_stats, early); OFF(mtg_tg_stats, lead_ns);
	OFF(mtg_tg_stats, spin_ns); OFF(mtg_tg_stats, reserved);
	OFF(mtg_tg_stats, lateness_hist);
	OFF(mtg_hdr, version); OFF(mtg_hdr, flags); OFF(mtg_hdr, hdr_len);
	OFF(mtg_hdr, run_id); OFF(mtg_hdr, tg_id); OFF(mtg_hdr, seq);
	OFF(mtg_hdr, sched_ns); OFF(mtg_hdr, nut); OFF(mtg_hdr, patt_kind);
	OFF(mtg_hdr, patt_value); OFF(mtg_hdr, patt_seed); OFF(mtg_hdr, crc);
	OFF(mtg_hdr, tx_ns); OFF(mtg_hdr, tp_ns);
	CMD(MTG_IOC_TG_START); CMD(MTG_IOC_TG_KILL); CMD(MTG_IOC_TG_SUSPEND);
	CMD(MTG_IOC_TG_RESUME); CMD(MTG_IOC_TG_SET_RATE);
	CMD(MTG_IOC_TG_CTRLMSG); CMD(MTG_IOC_TG_STATS);

	SIZE(mtg_ring_offsets); SIZE(mtg_rx_offsets); SIZE(mtg_rx_stats);
	SIZE(mtg_rx_rec); SIZE(mtg_ctrl_rec);
	OFF(mtg_ring_offsets, consumer); OFF(mtg_ring_offsets, records);
	OFF(mtg_ring_offsets, nr); OFF(mtg_ring_offsets, size);
	OFF(mtg_rx_offsets, ctrl); OFF(mtg_rx_offsets, stats);
	OFF(mtg_rx_stats, ring_drops); OFF(mtg_rx_stats, wrong_bits);
	OFF(mtg_rx_stats, bad_consumer); OFF(mtg_rx_stats, reserved);
	OFF(mtg_rx_rec, seq); OFF(mtg_rx_rec, tx_ns); OFF(mtg_rx_rec, tp_ns);
	OFF(mtg_rx_rec, run_id); OFF(mtg_rx_rec, wrong_bits);
	OFF(mtg_rx_rec, len); OFF(mtg_rx_rec, iface); OFF(mtg_rx_rec, flags);
	OFF(mtg_rx_rec, nut); OFF(mtg_rx_rec, ttl); OFF(mtg_rx_rec, tos);
	OFF(mtg_rx_rec, payload_len); OFF(mtg_rx_rec, reserved);
	OFF(mtg_ctrl_rec, type); OFF(mtg_ctrl_rec, len); OFF(mtg_ctrl_rec, seq);
	OFF(mtg_ctrl_rec, events); OFF(mtg_ctrl_rec, iface);
	OFF(mtg_ctrl_rec, count); OFF(mtg_ctrl_rec, data);
	CMD(MTG_IOC_RX_OFFSETS); CMD(MTG_IOC_RX_STATS); CMD(MTG_IOC_RX_SET_RUN);
	CMD(MTG_IOC_RX_KEEP_OFFSETS);
	SIZE(mtg_keep_rec); SIZE(mtg_keep_offsets);
	OFF(mtg_keep_rec, type); OFF(mtg_keep_rec, flags);
	OFF(mtg_keep_rec, record); OFF(mtg_keep_rec, rx_ns);
	OFF(mtg_keep_rec, seq); OFF(mtg_keep_rec, run_id);
	OFF(mtg_keep_rec, tg_id); OFF(mtg_keep_rec, count);
	OFF(mtg_keep_rec, data_len);
	OFF(mtg_keep_offsets, consumer); OFF(mtg_keep_offsets, area);
	OFF(mtg_keep_offsets, bytes); OFF(mtg_keep_offsets, reserved);
	OFF(mtg_rx_stats, kept); OFF(mtg_rx_stats, keep_drops);
	OFF(mtg_rx_stats, ditg_short);
	SIZE(mtg_rx_ditg); SIZE(mtg_ditg_hdr);
	OFF(mtg_rx_ditg, port); OFF(mtg_rx_ditg, op); OFF(mtg_rx_ditg, reserved);
	OFF(mtg_ditg_hdr, seq); OFF(mtg_ditg_hdr, tx_sec);
	OFF(mtg_ditg_hdr, tx_usec);
	CMD(MTG_IOC_RX_DITG);

	/* Constants the Python mirror copies. */
#define CONST(c) printf("const %s %llu\n", #c, (unsigned long long)(c))
	CONST(MTG_ABI_MAJOR); CONST(MTG_ABI_MINOR);
	CONST(MTG_TG_FLAGS_IPV6); CONST(MTG_TG_FLAGS_STREAM); CONST(MTG_TG_FLAGS_LATE_SKIP);
	CONST(MTG_TG_FLAGS_QDISC); CONST(MTG_TG_FLAGS_PRECISE); CONST(MTG_TG_FLAGS_DST_MAC);
	CONST(MTG_TG_FLAGS_RESTART); CONST(MTG_TG_FLAGS_KEEP_PAYLOAD);
	CONST(MTG_TG_FLAGS_KEEP_BITS); CONST(MTG_TG_FLAGS_DITG);
	CONST(MTG_TG_FLAGS_MASK);
	CONST(MTG_PATT_FIXED); CONST(MTG_PATT_RANDOM); CONST(MTG_PATT_INCR);
	CONST(MTG_PATT_CTRL); CONST(MTG_CTRLMSG_MAX);
	CONST(MTG_TG_STATE_RUNNING); CONST(MTG_TG_STATE_SUSPENDED); CONST(MTG_TG_STATE_FINISHED);
	CONST(MTG_TG_STATE_KILLED); CONST(MTG_TG_STATE_FAILED);
	CONST(MTG_TG_ERROR_NONE); CONST(MTG_TG_ERROR_DEV_GONE);
	CONST(MTG_TG_ERROR_CPU_OFFLINE); CONST(MTG_TG_ERROR_RING);
	CONST(MTG_TG_ERROR_TIME);
	CONST(MTG_LAT_BUCKETS);
	CONST(MTG_HDR_MAGIC); CONST(MTG_HDR_VERSION); CONST(MTG_HDR_LEN);
	CONST(MTG_HDR_CRC_LEN); CONST(MTG_HDR_F_CTRL);
	CONST(MTG_HDR_F_KEEP_PAYLOAD); CONST(MTG_HDR_F_KEEP_BITS);
	CONST(MTG_REGION_RX); CONST(MTG_REGION_RX_CONS);
	CONST(MTG_IFACE_F_RX); CONST(MTG_IFACE_F_RX_PASS); CONST(MTG_IFACE_F_ALL);
	CONST(MTG_RX_RECORDS_MIN); CONST(MTG_RX_RECORDS_MAX);
	CONST(MTG_CTRL_RECORDS);
	CONST(MTG_RX_STAMP_HOOK); CONST(MTG_RX_STAMP_SW); CONST(MTG_RX_STAMP_HW);
	CONST(MTG_RX_F_STAMP); CONST(MTG_RX_F_IPV6); CONST(MTG_RX_F_HDR_CORRUPT);
	CONST(MTG_RX_F_CSUM_BAD); CONST(MTG_RX_F_KEPT); CONST(MTG_RX_F_KEEP_LOST);
	CONST(MTG_RX_F_DITG); CONST(MTG_RX_F_CSUM_PARTIAL);
	CONST(MTG_DITG_HDR_LEN); CONST(MTG_DITG_PORTS); CONST(MTG_DITG_ADD);
	CONST(MTG_DITG_DEL);
	CONST(MTG_KEEP_BYTES_MIN); CONST(MTG_KEEP_BYTES_MAX);
	CONST(MTG_KEEP_BITS_MAX); CONST(MTG_KEEP_PAD); CONST(MTG_KEEP_PAYLOAD);
	CONST(MTG_KEEP_BITS); CONST(MTG_KEEP_F_CUT);
	CONST(MTG_CTRL_MSG); CONST(MTG_CTRL_TG_EVENT); CONST(MTG_CTRL_RX_DROPS);
	return 0;
}
