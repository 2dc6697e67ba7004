// SPDX-License-Identifier: GPL-2.0-or-later
/* Validation: what only the whole TG tells (idf_validate(), idf.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "idf/idf.h"
#include "idf/parser.h"
#include "traffic/gap.h"
#include "traffic/lengths.h"

/* `pkts computed`: the length that carries `thro` with one packet per `inta`. */
static void compute_len(struct idf_file *f, struct idf_tg *tg,
			uint32_t min_len)
{
	uint64_t ok = tg->set & ~tg->bad;
	double len;

	if (!(ok & (IDF_KW_BIT(IDF_KW_thro))) || !(ok & (IDF_KW_BIT(IDF_KW_inta))) ||
	    tg->inta_min != tg->inta_max) {
		error_loc(f, &tg->loc[IDF_KW_pkts],
			  "TG %u: 'pkts computed' needs 'thro' and one 'inta' (the length is thro * inta / 8)",
			  tg->id);
		tg->bad |= IDF_KW_BIT(IDF_KW_pkts);
		return;
	}
	len = round((double)tg->thro_req * (double)tg->inta_min / 8e9);
	if (len < min_len || len > IDF_LEN_MAX) {
		error_loc(f, &tg->loc[IDF_KW_pkts],
			  "TG %u: 'pkts computed' gives %.0f bytes (thro %llu bit/s * inta %llu ns / 8), outside %u .. %u",
			  tg->id, len, (unsigned long long)tg->thro_req,
			  (unsigned long long)tg->inta_min, min_len,
			  IDF_LEN_MAX);
		tg->bad |= IDF_KW_BIT(IDF_KW_pkts);
		return;
	}
	tg->len_max = tg->len_min = (uint32_t)len;
}

/*
 * No link sends frames closer than their time on the wire. The fastest
 * Ethernet, 800 Gbit/s (IEEE 802.3df), carries a frame of LEN bytes as
 * `pkts` counts them as LEN + 24 bytes (FCS 4, preamble and start
 * delimiter 8, inter-frame gap 12): (LEN + 24) / 100 ns. A rate whose
 * mean gap is shorter than that of the mean frame is refused.
 */
#define IDF_WIRE_GBPS		800
#define IDF_WIRE_EXTRA		24	/* bytes: FCS 4, preamble 8, gap 12 */

static void check_wire_rate(struct idf_file *f, const struct idf_tg *tg)
{
	uint64_t ok = tg->set & ~tg->bad;
	/* twice the mean length, and of its bytes on the wire */
	uint64_t len2 = (uint64_t)llround(2 * len_mean(tg));
	uint64_t wire2 = len2 + 2 * IDF_WIRE_EXTRA;
	double wire_ns = wire2 * 4.0 / IDF_WIRE_GBPS;
	unsigned __int128 gap2;
	char len_s[64], by[64], tail[96];
	enum idf_kw k;

	if (idf_dist_sets_gaps(tg->dist) || (idf_has(tg, IDF_KW_dist) &&
					     !(ok & IDF_KW_BIT(IDF_KW_dist))))
		return;
	if (idf_has(tg, IDF_KW_thro) && tg->pkts != IDF_PKTS_COMPUTED) {
		/* the gap, len * 8 / thro s, against wire * 8 / 800e9 s */
		if (!(ok & IDF_KW_BIT(IDF_KW_thro)) ||
		    (unsigned __int128)len2 * IDF_WIRE_GBPS * 1000000000ULL >=
		    (unsigned __int128)wire2 * tg->thro_req)
			return;
		k = IDF_KW_thro;
		snprintf(by, sizeof(by), "'thro' %llu bit/s",
			 (unsigned long long)tg->thro_req);
		snprintf(tail, sizeof(tail), "'thro' can be %llu bit/s at most",
			 (unsigned long long)((unsigned __int128)len2 *
			 IDF_WIRE_GBPS * 1000000000ULL / wire2));
	} else {
		/* the gap, gap2 / 2 ns, against wire * 8 / 800 ns */
		gap2 = (unsigned __int128)tg->inta_min + tg->inta_max;
		if (!(ok & IDF_KW_BIT(IDF_KW_inta)) || !gap2 ||
		    gap2 * IDF_WIRE_GBPS >= (unsigned __int128)wire2 * 8)
			return;
		k = IDF_KW_inta;
		snprintf(by, sizeof(by), "'inta'%s",
			 tg->inta_min != tg->inta_max ? ", on average" : "");
		snprintf(tail, sizeof(tail), "'inta' must be %.6g ns at least",
			 wire_ns);
	}
	if (!idf_len_drawn(tg))
		snprintf(len_s, sizeof(len_s), "a %u-byte frame", tg->len_max);
	else
		snprintf(len_s, sizeof(len_s), "a frame of %.6g bytes on average",
			 len2 / 2.0);
	error_loc(f, &tg->loc[k],
		  "TG %u: %s every %.9g ns (%s) is faster than any link carries: a frame is %.6g bytes on the wire (+ FCS 4, preamble 8, inter-frame gap 12), %.6g ns at %u Gbit/s, the fastest Ethernet; %s",
		  tg->id, len_s, gap_ns(gap_asked(tg)), by,
		  wire2 / 2.0, wire_ns, IDF_WIRE_GBPS, tail);
}

/*
 * meter rtt: a reflector sends a frame back only while its slot is 0, so
 * a probe of the run must not write that slot; and a round trip is of one
 * station's frames.
 */
static void check_rtt(struct idf_file *f, const struct idf_tg *tg)
{
	const struct idf_loc *at = &tg->loc[IDF_KW_meter];
	size_t i;

	if (idf_has(tg, IDF_KW_addr) && tg->addr == IDF_ADDR_BROADCAST)
		error_loc(f, at, "TG %u: 'meter rtt' measures round trips to one station: not with 'addr broadcast'",
			  tg->id);
	/* the echo is a kernel's, or D-ITG's payload sent back: no slot */
	if (tg->proto == IDF_PROTO_ICMP || tg->header == IDF_HEADER_DITG)
		return;
	for (i = 0; i < f->nprobes; i++)
		if (f->probes[i].slot == tg->rtt_slot)
			error_loc(f, at, "TG %u: 'meter rtt' has the reflector stamp slot %u, which the probe on %s (line %u) writes: a reflector sends back only frames whose slot is 0 (give 'meter rtt slot K')",
				  tg->id, tg->rtt_slot, f->probes[i].dev,
				  f->probes[i].loc.line);
}

/*
 * header ditg: D-ITG's header has room for a flow id, a sequence number
 * and a time, nothing else mtg's header carries. Its round trips are
 * D-ITG's: the far end sends each payload back as it came (ITGRecv's
 * -m rttm, or any UDP echo), which mtgctl recv's reflector does not.
 */
static void check_ditg(struct idf_file *f, const struct idf_tg *tg)
{
	const struct idf_loc *at = &tg->loc[IDF_KW_header];
	size_t i;

	if (tg->keep)
		error_loc(f, at, "TG %u: 'header ditg' has no flags to ask receivers to keep anything: not with 'keep'",
			  tg->id);
	if (tg->meter == IDF_METER_RTT && idf_has(tg, IDF_KW_rcvr) &&
	    !tg->rcvr_ditg)
		error_loc(f, at, "TG %u: 'header ditg' with 'meter rtt' and an mtgctl recv: its reflector sends back MTG headers only; an ITGRecv ('rcvr ditg') sends D-ITG's payloads back, as does any UDP echo at 'dst' (no 'rcvr')",
			  tg->id);
	for (i = 0; i < f->nctrls; i++)
		if (&f->tgs[f->ctrls[i].tg] == tg) {
			error_loc(f, &f->ctrls[i].loc, "TG %u: 'ctrl' needs the MTG header, which says a packet is a control message: not with 'header ditg'",
				  tg->id);
			break;
		}
}

/*
 * proto icmp: echo requests, which the destination's kernel answers with
 * the MTG header inside: a round trip, recorded where the reply arrives.
 */
static void check_icmp(struct idf_file *f, struct idf_tg *tg)
{
	const struct idf_loc *at = &tg->loc[IDF_KW_proto];
	size_t i;

	if (idf_has(tg, IDF_KW_meter) && !(tg->bad & IDF_KW_BIT(IDF_KW_meter)) &&
	    tg->meter != IDF_METER_RTT)
		error_loc(f, &tg->loc[IDF_KW_meter], "TG %u: 'proto icmp' is measured where its echoes come back: 'meter rtt' (its default), not 'meter owd'",
			  tg->id);
	tg->meter = IDF_METER_RTT;
	if (tg->header == IDF_HEADER_DITG)
		error_loc(f, at, "TG %u: 'proto icmp' carries the MTG header in its echoes: not with 'header ditg'",
			  tg->id);
	if (idf_has(tg, IDF_KW_rcvr))
		error_loc(f, &tg->loc[IDF_KW_rcvr], "TG %u: 'proto icmp' needs no receiver: the destination's kernel answers the echoes",
			  tg->id);
	if (idf_has(tg, IDF_KW_addr) && tg->addr == IDF_ADDR_MYSELF)
		error_loc(f, &tg->loc[IDF_KW_addr], "TG %u: 'proto icmp' is answered by the destination's kernel: not with 'addr myself'",
			  tg->id);
	if (idf_has(tg, IDF_KW_dst) && tg->dst.port)
		warn_loc(f, &tg->loc[IDF_KW_dst], "TG %u: the port of 'dst' is ignored: an ICMP echo has none (its identifier is the source port, %u)",
			 tg->id, idf_src_port(tg));
	for (i = 0; i < f->nctrls; i++)
		if (&f->tgs[f->ctrls[i].tg] == tg) {
			error_loc(f, &f->ctrls[i].loc, "TG %u: 'ctrl' goes to a receiver, and an ICMP TG's echoes come back to itself: not with 'proto icmp'",
				  tg->id);
			break;
		}
}

/*
 * proto tcp|sctp|dccp: messages over a connection the module opens, to
 * whatever listens at dst. Nothing of mtg's receiving side reads them
 * yet: no receiver to agree with, no round trips, no control messages,
 * nothing for a receiver to keep; the run's own listening does not see
 * them.
 */
static void check_connected(struct idf_file *f, const struct idf_tg *tg)
{
	const struct idf_loc *at = &tg->loc[IDF_KW_proto];
	const char *name = idf_proto_name(tg->proto);
	size_t i;

	if (tg->header == IDF_HEADER_DITG)
		error_loc(f, at, "TG %u: 'proto %s' carries the MTG header: not with 'header ditg'",
			  tg->id, name);
	if (idf_has(tg, IDF_KW_rcvr))
		error_loc(f, &tg->loc[IDF_KW_rcvr], "TG %u: 'proto %s' connects to whatever listens at 'dst'; no receiver agrees its flows yet: not with 'rcvr'",
			  tg->id, name);
	if (tg->meter == IDF_METER_RTT)
		error_loc(f, &tg->loc[IDF_KW_meter], "TG %u: 'proto %s' measures one way (its messages' lateness at the socket): not with 'meter rtt'",
			  tg->id, name);
	if (idf_has(tg, IDF_KW_addr) && tg->addr != IDF_ADDR_STATION)
		error_loc(f, &tg->loc[IDF_KW_addr], "TG %u: 'proto %s' is a connection to one station: not with 'addr %s'",
			  tg->id, name, tg->addr == IDF_ADDR_MYSELF ? "myself" :
			  "broadcast");
	if (tg->keep)
		error_loc(f, at, "TG %u: 'proto %s': no receiver of mtg reads its messages to keep anything: not with 'keep'",
			  tg->id, name);
	for (i = 0; i < f->nctrls; i++)
		if (&f->tgs[f->ctrls[i].tg] == tg) {
			error_loc(f, &f->ctrls[i].loc, "TG %u: 'ctrl' is a packet beside the flow; a connection carries the timetable's messages only: not with 'proto %s'",
				  tg->id, name);
			break;
		}
}

static void validate_tg(struct idf_file *f, struct idf_tg *tg)
{
	const struct idf_loc *at = &tg->loc[IDF_KW_tgid];
	uint32_t min_len;
	bool v6;

	/* addr myself: our own address, of src's family if src gives one */
	if (idf_has(tg, IDF_KW_addr) && tg->addr == IDF_ADDR_MYSELF &&
	    tg->src.family)
		tg->dst.family = tg->src.family;
	v6 = tg->dst.family == AF_INET6;
	min_len = idf_min_len(tg);

#define KNOWN(k)	(tg->set & ~tg->bad & IDF_KW_BIT(IDF_KW_##k))
#define GIVEN(k)	idf_has(tg, IDF_KW_##k)
	/* given in the TG's own section (globals come before every tgid) */
#define OWN(k)		(tg->own & IDF_KW_BIT(IDF_KW_##k))
	if (GIVEN(dst) && GIVEN(addr))
		error_loc(f, &tg->loc[IDF_KW_addr],
			  "TG %u: 'addr' and 'dst' both name the destination: give one",
			  tg->id);
	else if (!GIVEN(dst) && !GIVEN(addr))
		error_loc(f, at, "TG %u has no 'dst' (the destination ADDR:PORT)",
			  tg->id);
	if (KNOWN(rcvr) && tg->rcvr_ditg && tg->header != IDF_HEADER_DITG)
		error_loc(f, &tg->loc[IDF_KW_rcvr],
			  "TG %u: 'rcvr ditg' is an ITGRecv, which reads D-ITG's header only: give 'header ditg'",
			  tg->id);
	if (KNOWN(rcvr) && !tg->rcvr_ditg && !f->key)
		error_loc(f, &tg->loc[IDF_KW_rcvr],
			  "TG %u: 'rcvr' needs the global 'key FILE', the key the receiver checks (Documentation/tsp.rst)",
			  tg->id);
	if (KNOWN(rcvr) && KNOWN(addr) && tg->addr != IDF_ADDR_STATION)
		error_loc(f, &tg->loc[IDF_KW_rcvr],
			  "TG %u: 'rcvr' agrees a flow to one station: not with 'addr %s'",
			  tg->id, tg->addr == IDF_ADDR_MYSELF ? "myself" :
			  "broadcast");
	if (tg->proto == IDF_PROTO_ICMP)
		check_icmp(f, tg);
	else if (KNOWN(dst) && !tg->dst.port && (KNOWN(proto) || !GIVEN(proto)))
		error_loc(f, &tg->loc[IDF_KW_dst],
			  "TG %u: 'dst' has no port: a %s flow goes to ADDR:PORT (IPv6 in brackets: [2001:db8::1]:5000); only 'proto icmp' has none",
			  tg->id, tg->proto == IDF_PROTO_UDP ? "UDP" :
			  idf_proto_name(tg->proto));
	if (idf_proto_connected(tg->proto))
		check_connected(f, tg);
	if ((KNOWN(meter) || tg->proto == IDF_PROTO_ICMP) &&
	    tg->meter == IDF_METER_RTT)
		check_rtt(f, tg);
	if (KNOWN(header) && tg->header == IDF_HEADER_DITG)
		check_ditg(f, tg);
	if (KNOWN(addr) && tg->addr == IDF_ADDR_MYSELF) {
		if (!GIVEN(mac))
			error_loc(f, &tg->loc[IDF_KW_addr],
				  "TG %u: 'addr myself' needs 'mac', the first hop of the network that brings the packets back",
				  tg->id);
	}
	if (!GIVEN(dev))
		error_loc(f, at, "TG %u has no 'dev' (the interface to send from)",
			  tg->id);
	/* a model given with an error may be one that sets the lengths */
	if (!GIVEN(pkts) && !idf_dist_sets_lengths(tg->dist) &&
	    !(GIVEN(dist) && !KNOWN(dist)))
		error_loc(f, at, "TG %u has no 'pkts' (the packet length)",
			  tg->id);
	if (KNOWN(pkts) && tg->pkts == IDF_PKTS_COMPUTED)
		compute_len(f, tg, min_len);
	if (KNOWN(pkts) && tg->pkts == IDF_PKTS_LAW && !tg->len_within)
		tg->len_min = min_len;
	if (GIVEN(dist) && !KNOWN(dist)) {
		/* reported; which model it was to be is unknown */
	} else if (idf_dist_sets_gaps(tg->dist)) {
		/* a rate in the globals is for the other TGs: no warning */
		if (OWN(thro) && tg->pkts != IDF_PKTS_COMPUTED)
			warn_loc(f, &tg->loc[IDF_KW_thro],
				 "TG %u: 'thro' is ignored: 'dist %s' sets the gaps",
				 tg->id, idf_dist_name(tg->dist));
		if (OWN(inta))
			warn_loc(f, &tg->loc[IDF_KW_inta],
				 "TG %u: 'inta' is ignored: 'dist %s' sets the gaps",
				 tg->id, idf_dist_name(tg->dist));
		if (OWN(pkts) && idf_dist_sets_lengths(tg->dist))
			warn_loc(f, &tg->loc[IDF_KW_pkts],
				 "TG %u: 'pkts' is ignored: 'dist %s' sets the lengths",
				 tg->id, idf_dist_name(tg->dist));
	} else if (!GIVEN(thro) && !GIVEN(inta)) {
		error_loc(f, at, "TG %u has neither 'thro' nor 'inta': nothing sets its rate",
			  tg->id);
	}
	if (KNOWN(src) && KNOWN(dst) && tg->src.family &&
	    tg->src.family != tg->dst.family)
		error_loc(f, &tg->loc[IDF_KW_src],
			  "TG %u: 'src' is %s but 'dst' is %s", tg->id,
			  v6 ? "IPv4" : "IPv6", v6 ? "IPv6" : "IPv4");
	if (KNOWN(pkts) && tg->len_min < min_len)
		error_loc(f, &tg->loc[IDF_KW_pkts],
			  "TG %u: 'pkts'%s %u is below the smallest %s frame, %u bytes (Ethernet 14 + %s + %s 8 + %s header %u)",
			  tg->id, tg->pkts == IDF_PKTS_LAW ? " within MIN" : "",
			  tg->len_min, v6 ? "IPv6" : "IPv4", min_len,
			  v6 ? "IPv6 40" : "IPv4 20",
			  tg->proto == IDF_PROTO_ICMP ? "ICMP" : "UDP",
			  tg->header == IDF_HEADER_DITG ? "D-ITG" : "MTG",
			  min_len - idf_l4_over(tg));
	if (KNOWN(pkts) && tg->len_min >= min_len)
		check_wire_rate(f, tg);
	if (idf_dist_sets_gaps(tg->dist) || (GIVEN(dist) && !KNOWN(dist))) {
		/* warned above */
	} else if (GIVEN(thro) && GIVEN(pkts) && GIVEN(inta) &&
		   tg->pkts != IDF_PKTS_COMPUTED) {
		warn_loc(f, &tg->loc[IDF_KW_inta],
			 "TG %u: 'inta' is ignored: 'pkts' and 'thro' set the gap",
			 tg->id);
	} else if (KNOWN(inta)) {
		if (!tg->inta_min)
			error_loc(f, &tg->loc[IDF_KW_inta],
				  "TG %u: 'inta' must be above 0", tg->id);
		else if (tg->dist == IDF_DIST_FIXED &&
			 tg->inta_min != tg->inta_max)
			error_loc(f, &tg->loc[IDF_KW_inta],
				  "TG %u: with 'dist fixed', 'inta' MIN must equal MAX",
				  tg->id);
	}
	if (GIVEN(tos) && GIVEN(cos))
		error_loc(f, &tg->loc[IDF_KW_cos],
			  "TG %u: 'cos' and 'tos' both set the TOS byte (cos N is tos 4 * N): give one",
			  tg->id);
	else if (KNOWN(data) && !GIVEN(tos) && !GIVEN(cos))
		tg->tos = idf_data_dscp(tg->data) << 2;
	if (GIVEN(rpol) && !GIVEN(thro))
		error_loc(f, &tg->loc[IDF_KW_rpol],
			  "TG %u: 'rpol' is a share of 'thro' MIN .. REQ, and the TG has no 'thro'",
			  tg->id);
	if (tg->dist == IDF_DIST_FGN && KNOWN(dist) && KNOWN(pkts) &&
	    (KNOWN(thro) || KNOWN(inta)) &&
	    tg->dist_param[2] < gap_ns(gap_asked(tg)))
		error_loc(f, &tg->loc[IDF_KW_dist],
			  "TG %u: 'dist fgn' SLOT %.0f ns holds less than one packet on average (the mean gap is %.0f ns): make it longer",
			  tg->id, tg->dist_param[2], gap_ns(gap_asked(tg)));
#undef KNOWN
#undef GIVEN
#undef OWN
}

int idf_validate(struct idf_file *f)
{
	size_t i;

	if (!f->ntgs && !f->nerrors)
		error_at(f, 0, 0, "no 'tgid': the file describes no traffic generator");
	validate_behaviours(f);
	validate_hosts(f);
	for (i = 0; i < f->ntgs; i++)
		if (!(f->tgs[i].bad & (IDF_KW_BIT(IDF_KW_tgid)))) {
			validate_tg(f, &f->tgs[i]);
			validate_behaviour_tg(f, &f->tgs[i]);
		}
	sort_diags(f);
	return f->nerrors ? -1 : 0;
}
