/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The XDP receiver (rx.bpf.c) and its loader (ctl/bpf/xdprx.c) share
 * this: the counters' indices in the per-CPU array "counters". Only enums
 * and macros: read by the BPF program and by userspace.
 *
 * The ring buffer "records" holds struct mtg_rx_rec (a data packet) and
 * struct mtg_ctrl_rec (a control message, type MTG_CTRL_MSG) as the
 * module's rings do; a sample's size says which.
 */
#ifndef MTG_EBPF_RX_H
#define MTG_EBPF_RX_H

/*
 * What the receiver counted. RXC_RECORDED .. RXC_UNPARSED: what became of
 * a frame, one each, never two; the others count within RXC_RECORDED.
 */
enum rx_counter {
	RXC_RECORDED,	/* an MTG frame: its record pushed into the ring */
	RXC_CTRL,	/* a control message: pushed into the ring */
	RXC_RING_DROPS,	/* an MTG frame or control message whose record
			 * found the ring full: lost, counted
			 */
	RXC_FOREIGN,	/* an MTG frame of another run: passed */
	RXC_NOT_MTG,	/* a frame parsed whole that is not MTG (another
			 * protocol, payload, header version): passed
			 */
	RXC_UNPARSED,	/* could not be parsed (truncated, fragment, IPv6
			 * extension header, two VLAN tags): passed
			 */
	RXC_BYTES,	/* of RXC_RECORDED: their L2 bytes */
	RXC_HDR_CORRUPT,	/* of RXC_RECORDED: header CRC wrong */
	RXC_CSUM_BAD,	/* of RXC_RECORDED: a checksum or length wrong */
	RXC_KEEP_DROPS,	/* of RXC_RECORDED: keeping asked for, not done */
	RXC_COUNTERS
};

#endif /* MTG_EBPF_RX_H */
