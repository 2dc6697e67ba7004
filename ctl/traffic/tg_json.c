// SPDX-License-Identifier: GPL-2.0-or-later
/* A TG as JSON (tg_json.h). */
#include <ctype.h>
#include <stdio.h>
#include <sys/socket.h>

#include "traffic/behave.h"
#include "traffic/gap.h"
#include "traffic/lengths.h"
#include "traffic/models.h"
#include "traffic/tg_json.h"

static void json_addr(struct jw *j, const char *key, const struct idf_addr *a,
		      uint16_t port)
{
	char addr[64];

	jw_key(j, key);
	jw_obj_begin(j);
	if (a->family) {
		idf_addr_str(a, addr, sizeof(addr));
		jw_kstr(j, "addr", addr);
	} else {
		jw_knull(j, "addr");
	}
	jw_ku64(j, "port", port);
	jw_obj_end(j);
}

static void json_pair(struct jw *j, const char *key, const char *ka,
		      uint64_t a, const char *kb, uint64_t b)
{
	if (key)
		jw_key(j, key);
	jw_obj_begin(j);
	jw_ku64(j, ka, a);
	jw_ku64(j, kb, b);
	jw_obj_end(j);
}

/*
 * The model's parameters as mtgsap fit reads them: lower-case names,
 * times as NAME_ns.
 */
static void json_dist_params(struct jw *j, const struct idf_tg *tg)
{
	unsigned int i, n = idf_dist_nparams(tg->dist);
	char key[40];
	bool is_time;

	jw_key(j, "dist_params");
	jw_obj_begin(j);
	/* the models without parameters of their own: what the rate gives */
	switch (tg->dist) {
	case IDF_DIST_FIXED:
		jw_kdouble(j, "value_ns", gap_ns(gap_asked(tg)));
		break;
	case IDF_DIST_EXPONENTIAL:
		jw_kdouble(j, "mean_ns", gap_ns(gap_asked(tg)));
		break;
	case IDF_DIST_UNIFORM:
		jw_kdouble(j, "min_ns", idf_has(tg, IDF_KW_thro) ? 0 :
			   (double)tg->inta_min);
		jw_kdouble(j, "max_ns", idf_has(tg, IDF_KW_thro) ?
			   2 * gap_ns(gap_asked(tg)) : (double)tg->inta_max);
		break;
	case IDF_DIST_VOIP:
		jw_kstr(j, "codec", idf_codecs[(int)tg->dist_param[0]].name);
		jw_kstr(j, "header", tg->dist_param[1] == 2 ? "crtp" : "rtp");
		jw_kbool(j, "vad", tg->dist_param[2] < 1);
		break;
	default:
		break;
	}
	if (tg->dist == IDF_DIST_TRACE || tg->dist == IDF_DIST_PCAP)
		jw_kstr(j, "file", tg->dist_file);
	for (i = 0; i < n; i++) {
		const char *name = idf_dist_param(tg->dist, i, &is_time);
		size_t k;

		for (k = 0; name[k] && k < 32; k++)
			key[k] = (char)tolower((unsigned char)name[k]);
		snprintf(key + k, sizeof(key) - k, "%s", is_time ? "_ns" : "");
		jw_kdouble(j, key, tg->dist_param[i]);
	}
	if (tg->dist == IDF_DIST_FGN)
		jw_kstr(j, "method", tg->fgn_method == IDF_FGN_RMD ?
			"rmd" : "exact");
	jw_obj_end(j);
}

static void json_pkts(struct jw *j, const struct idf_tg *tg)
{
	jw_key(j, "pkts");
	jw_obj_begin(j);
	jw_kstr(j, "kind", idf_pkts_name(tg->pkts));
	jw_ku64(j, "max", tg->len_max);
	jw_ku64(j, "min", tg->pkts == IDF_PKTS_LAW ? len_lowest(tg) :
		tg->len_min);
	if (tg->pkts == IDF_PKTS_LAW) {
		unsigned int i;
		char key[16];

		jw_kstr(j, "law", idf_len_law_name(tg->len_law));
		jw_key(j, "params");
		jw_obj_begin(j);
		for (i = 0; i < idf_len_law_nparams(tg->len_law); i++) {
			const char *name = idf_len_law_param(tg->len_law, i);
			size_t k;

			for (k = 0; name[k] && k < sizeof(key) - 1; k++)
				key[k] = (char)tolower((unsigned char)name[k]);
			key[k] = 0;
			jw_kdouble(j, key, tg->len_param[i]);
		}
		jw_obj_end(j);
		jw_ku64(j, "plus", tg->len_plus);
		jw_kdouble(j, "mean", len_mean(tg));
	}
	jw_obj_end(j);
}

/*
 * dist behaviour: its categories, their models and the chain, exactly
 * (doubles as %.17g), for mtgsap to work the categories out again.
 */
static void json_behaviour(struct jw *j, const struct idf_tg *tg)
{
	const struct idf_behaviour *b = tg->beh;
	unsigned int c, k;

	jw_key(j, "behaviour");
	jw_obj_begin(j);
	jw_kstr(j, "name", b->name);
	jw_key(j, "categories");
	jw_arr_begin(j);
	for (c = 0; c < b->ncat; c++) {
		const struct idf_tg *m = &b->cat[c].model;
		/* as the TG draws it: of the TG's family (beh_init()) */
		struct idf_tg drawn = *m;

		drawn.dst.family = tg->dst.family;
		jw_obj_begin(j);
		jw_kstr(j, "name", b->cat[c].name);
		jw_ku64(j, "mean_ns", b->cat[c].mean);
		jw_kdouble(j, "share", b->share[c]);
		jw_kdouble(j, "mean_gap_ns", model_typical_gap(m));
		jw_kstr(j, "dist", idf_dist_name(m->dist));
		json_dist_params(j, m);
		json_pkts(j, &drawn);
		jw_key(j, "next");
		jw_arr_begin(j);
		for (k = 0; k < b->ncat; k++)
			jw_double(j, b->next[c][k]);
		jw_arr_end(j);
		jw_obj_end(j);
	}
	jw_arr_end(j);
	/* the categories' Lehmer stream: the TG's seed, BEH_JUMP steps on */
	jw_ku64(j, "chain_seed", beh_chain_seed(idf_seed(tg)));
	jw_obj_end(j);
}

static void json_table(struct jw *j, const struct tt *tt, bool entries)
{
	size_t i;

	jw_key(j, "table");
	jw_obj_begin(j);
	jw_kstr(j, "mode", tt->stream ? "stream" : "loop");
	jw_ku64(j, "len", tt->len);
	jw_ku64(j, "period_ns", tt->period_ns);
	json_pair(j, "mean_gap_ns", "num", tt->mean_num, "den", tt->mean_den);
	jw_kbool(j, "exact", tt->exact);
	jw_ku64(j, "first_ns", tt->first_ns);
	jw_ku64(j, "clipped", tt->clipped);
	jw_ku64(j, "negative_counts", tt->negative);
	jw_ku64(j, "len_clamped", tt->len_clamped);
	if (entries) {
		jw_key(j, "entries");
		jw_arr_begin(j);
		for (i = 0; i < tt->len; i++)
			json_pair(j, NULL, "gap_ns", tt->entries[i].gap_ns,
				  "len", tt->entries[i].len);
		jw_arr_end(j);
	}
	jw_obj_end(j);
}

void tg_json(struct jw *j, const struct idf_tg *tg, const struct tt *tt,
	     bool entries)
{
	char mac[18], hex[13];
	uint8_t nut[6];

	jw_obj_begin(j);
	jw_ku64(j, "id", tg->id);
	jw_ku64(j, "line", tg->loc[IDF_KW_tgid].line);
	if (tg->range_lo) {
		jw_key(j, "range");
		jw_arr_begin(j);
		jw_u64(j, tg->range_lo);
		jw_u64(j, tg->range_hi);
		jw_arr_end(j);
	}
	jw_kstr(j, "dev", tg->dev);
	jw_kstr(j, "netns", tg->netns[0] ? tg->netns : NULL);
	if (idf_has(tg, IDF_KW_cpu))
		jw_ku64(j, "cpu", tg->cpu);
	else
		jw_knull(j, "cpu");
	jw_kstr(j, "family", tg->dst.family == AF_INET6 ? "ipv6" : "ipv4");
	json_addr(j, "src", &tg->src, idf_src_port(tg));
	if (tg->addr == IDF_ADDR_STATION) {
		json_addr(j, "dst", &tg->dst, tg->dst.port);
	} else {
		struct idf_addr none = { 0 };

		json_addr(j, "dst", &none, tg->dst.port);
	}
	if (idf_has(tg, IDF_KW_rcvr)) {
		struct idf_addr rc = tg->rcvr;

		if (!rc.port)
			rc.port = IDF_TSP_PORT;
		json_addr(j, "rcvr", &rc, rc.port);
		/* an mtgctl recv, or an unmodified ITGRecv */
		jw_kstr(j, "rcvr_signalling", tg->rcvr_ditg ? "ditg" : "mtg");
	} else {
		jw_knull(j, "rcvr");
		jw_knull(j, "rcvr_signalling");
	}
	jw_kstr(j, "header", idf_header_name(tg->header));
	jw_kstr(j, "proto", idf_proto_name(tg->proto));
	/* what a receiver does with the flow: measure it, or reflect it */
	jw_kstr(j, "meter", idf_meter_name(tg->meter));
	/* ICMP's and D-ITG's echoes come back unstamped */
	if (tg->meter == IDF_METER_RTT && tg->proto != IDF_PROTO_ICMP &&
	    tg->header != IDF_HEADER_DITG)
		jw_ku64(j, "rtt_slot", tg->rtt_slot);
	else
		jw_knull(j, "rtt_slot");
	if (tg->host[0])
		jw_kstr(j, "host", tg->host);	/* mtgctl manage's */
	jw_kstr(j, "addr", tg->addr == IDF_ADDR_BROADCAST ? "broadcast" :
		tg->addr == IDF_ADDR_MYSELF ? "myself" : "station");
	jw_ku64(j, "tos", tg->tos);
	jw_ku64(j, "ttl", tg->ttl);
	jw_kstr(j, "dist", idf_dist_name(tg->dist));
	json_dist_params(j, tg);
	if (tg->dist == IDF_DIST_BEHAVIOUR && tg->beh)
		json_behaviour(j, tg);
	json_pkts(j, tg);
	if (idf_has(tg, IDF_KW_thro))
		json_pair(j, "thro", "req", tg->thro_req, "min", tg->thro_min);
	else
		jw_knull(j, "thro");
	if (idf_has(tg, IDF_KW_inta))
		json_pair(j, "inta_ns", "min", tg->inta_min, "max",
			  tg->inta_max);
	else
		jw_knull(j, "inta_ns");
	jw_kstr(j, "time", tg->time == IDF_TIME_POISSON ? "poisson" :
		tg->time == IDF_TIME_ABSOLUTE ? "absolute" : "relative");
	if (tg->time == IDF_TIME_ABSOLUTE)
		jw_ku64(j, "start_realtime_ns", tg->start_abs);
	jw_ku64(j, "start_ns", tg->start);
	jw_ku64(j, "duration_ns", tg->duration);
	if (tg->time == IDF_TIME_POISSON)
		json_pair(j, "calls_ns", "idle", tg->call_idle, "call",
			  tg->call_len);
	jw_ku64(j, "jitt_ns", tg->jitter);
	jw_kstr(j, "data", idf_has(tg, IDF_KW_data) ?
		idf_data_name(tg->data) : NULL);
	jw_ku64(j, "nowb", tg->nowb);
	jw_ku64(j, "qlen", tg->qlen);
	idf_nut(tg, nut);
	snprintf(hex, sizeof(hex), "%02x%02x%02x%02x%02x%02x", nut[0], nut[1],
		 nut[2], nut[3], nut[4], nut[5]);
	jw_kstr(j, "nut", hex);
	if (idf_has(tg, IDF_KW_rpol))
		json_pair(j, "rpol", "percent", tg->rpol, "request",
			  idf_rpol_request(tg));
	else
		jw_knull(j, "rpol");
	jw_ku64(j, "count", tg->count);
	jw_key(j, "patt");
	jw_obj_begin(j);
	jw_kstr(j, "kind", idf_patt_name(tg->patt));
	jw_ku64(j, "value", tg->patt_value);
	jw_ku64(j, "seed", idf_patt_seed(tg));
	jw_obj_end(j);
	jw_ku64(j, "seed", idf_seed(tg));
	jw_kstr(j, "rng", idf_rng_name(tg->rng));
	jw_ku64(j, "samplers", (uint64_t)idf_samplers(tg));
	jw_kstr(j, "path", idf_path_name(tg->path));
	jw_kstr(j, "mode", idf_mode_name(tg->mode));
	jw_kstr(j, "late", idf_late_name(tg->late));
	if (idf_has(tg, IDF_KW_mac)) {
		snprintf(mac, sizeof(mac), "%02x:%02x:%02x:%02x:%02x:%02x",
			 tg->mac[0], tg->mac[1], tg->mac[2], tg->mac[3],
			 tg->mac[4], tg->mac[5]);
		jw_kstr(j, "mac", mac);
	} else {
		jw_knull(j, "mac");
	}
	jw_ku64(j, "threshold_ns", tg->threshold);
	jw_key(j, "keep");
	jw_obj_begin(j);
	jw_kbool(j, "payload", tg->keep & IDF_KEEP_PAYLOAD);
	jw_kbool(j, "wrong_bits", tg->keep & IDF_KEEP_BITS);
	jw_obj_end(j);
	json_table(j, tt, entries);
	jw_obj_end(j);
}
