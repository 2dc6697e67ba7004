// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * mtgctl check: parse and validate an IDF, print its TGs as mtgctl
 * resolved them (globals applied, defaults filled in, timetables built).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "cmd/cmd.h"
#include "idf/idf.h"
#include "idf/units.h"
#include "traffic/lengths.h"
#include "traffic/tables.h"
#include "traffic/tg_json.h"
#include "util/jw.h"
#include "util/text.h"

/* A name from the file, as it is safe to print (text.h). */
#define SHOWN(s)	shown((char[IDF_PATH_MAX + 1]){ 0 }, (s))

static const char *shown(char buf[IDF_PATH_MAX + 1], const char *s)
{
	text_escape(buf, IDF_PATH_MAX + 1, s);
	return buf;
}

/* A behaviour's name and each category's share of the time. */
static void print_behaviour(const struct idf_behaviour *b)
{
	unsigned int c;

	printf(" %s (", b->name);
	for (c = 0; c < b->ncat; c++)
		printf("%s%s %.1f%%", c ? ", " : "", SHOWN(b->cat[c].name),
		       100 * b->share[c]);
	printf(" of the time)");
}

static void print_dist_params(const struct idf_tg *tg)
{
	unsigned int i, n = idf_dist_nparams(tg->dist);
	bool is_time;

	for (i = 0; i < n; i++) {
		idf_dist_param(tg->dist, i, &is_time);
		if (is_time)
			printf(" %.9gms", tg->dist_param[i] / 1e6);
		else
			printf(" %.9g", tg->dist_param[i]);
	}
	if (tg->dist == IDF_DIST_FGN)
		printf(" %s", tg->fgn_method == IDF_FGN_RMD ? "rmd" : "exact");
	if (tg->dist == IDF_DIST_TRACE || tg->dist == IDF_DIST_PCAP)
		printf(" %s", SHOWN(tg->dist_file));
	if (tg->dist == IDF_DIST_BEHAVIOUR)
		print_behaviour(tg->beh);
	if (tg->dist == IDF_DIST_VOIP)
		printf(" %s %s%s", idf_codecs[(int)tg->dist_param[0]].name,
		       tg->dist_param[1] == 2 ? "crtp" : "rtp",
		       tg->dist_param[2] < 1 ? " vad" : "");
}

/*
 * pkts LAW: the law, the bounds, the mean as sent, and how many of the
 * table's lengths were clamped to the bounds.
 */
static void print_len_law(const struct idf_tg *tg, const struct tt *tt)
{
	unsigned int i, n = idf_len_law_nparams(tg->len_law);

	printf("  pkts %s", idf_len_law_name(tg->len_law));
	for (i = 0; i < n; i++)
		printf(" %.9g", tg->len_param[i]);
	if (tg->len_plus)
		printf(" plus %" PRIu32, tg->len_plus);
	printf(" within %" PRIu32 " %" PRIu32 ", mean %.1f bytes",
	       len_lowest(tg), tg->len_max, len_mean(tg));
	printf(", %" PRIu64 " of %zu clamped (%.2f%%)\n  ", tt->len_clamped,
	       tt->len, tt->len ? 100.0 * (double)tt->len_clamped /
	       (double)tt->len : 0);
}

/*
 * pkts and thro or inta; where the model draws the lengths or the gaps
 * itself (trace, pcap, D-ITG's), what its table holds instead.
 */
static void print_lengths_and_gaps(const struct idf_tg *tg,
				   const struct tt *tt)
{
	uint32_t lo = UINT32_MAX, hi = 0;
	double sum = 0;
	size_t i;

	if (!idf_dist_sets_lengths(tg->dist) && tg->pkts == IDF_PKTS_LAW) {
		print_len_law(tg, tt);
	} else if (!idf_dist_sets_lengths(tg->dist)) {
		if (tg->pkts == IDF_PKTS_VARIABLE)
			printf("  pkts %" PRIu32 "..%" PRIu32 " bytes  ",
			       tg->len_min, tg->len_max);
		else
			printf("  pkts %" PRIu32 " bytes  ", tg->len_max);
	} else {
		for (i = 0; i < tt->len; i++) {
			lo = tt->entries[i].len < lo ? tt->entries[i].len : lo;
			hi = tt->entries[i].len > hi ? tt->entries[i].len : hi;
			sum += tt->entries[i].len;
		}
		if (lo == hi)
			printf("  pkts %" PRIu32 " bytes  ", lo);
		else
			printf("  pkts %" PRIu32 "..%" PRIu32 " bytes, mean %.1f  ",
			       lo, hi, sum / (double)tt->len);
	}
	if (idf_dist_sets_gaps(tg->dist))
		printf("gaps mean %.0f ns", (double)tt->period_ns /
		       (double)tt->len);
	else if (idf_has(tg, IDF_KW_thro))
		printf("thro %" PRIu64 " bit/s", tg->thro_req);
	else
		printf("inta %" PRIu64 " ns", tg->inta_min);
	printf("%s\n", idf_dist_sets_gaps(tg->dist) ? " (in the table)" : "");
}

/* A TG's host: its name and its daemon's address (mtgctl manage). */
static void print_host(const struct idf_file *f, const struct idf_tg *tg)
{
	const struct idf_host *h = idf_host_find(f, tg->host);
	char a[80];

	idf_endpoint_str(&h->addr, h->addr.port ? h->addr.port :
			 IDF_HOST_PORT, a, sizeof(a));
	printf("  host %s (mtgctl daemon at %s)\n", tg->host, a);
}

static void print_tg(const struct idf_file *f, const struct idf_tg *tg,
		     const struct tt *tt)
{
	char src[80], dst[80];

	idf_endpoint_str(&tg->src, idf_src_port(tg), src, sizeof(src));
	/* a connection's port is the kernel's choice unless src gives one */
	if (idf_proto_connected(tg->proto) && !tg->src.port)
		strcpy(strrchr(src, ':') + 1, "any");
	if (tg->proto == IDF_PROTO_ICMP)	/* an echo has no port */
		idf_addr_str(&tg->dst, dst, sizeof(dst));
	else if (tg->addr == IDF_ADDR_STATION)
		idf_endpoint_str(&tg->dst, tg->dst.port, dst, sizeof(dst));
	else
		snprintf(dst, sizeof(dst), "(%s):%u",
			 tg->addr == IDF_ADDR_BROADCAST ? "broadcast of dev" :
			 "myself", tg->dst.port);
	printf("tgid %" PRIu32 " (%s:%u", tg->id, f->name,
	       tg->loc[IDF_KW_tgid].line);
	if (tg->range_lo)
		printf(", range %" PRIu32 "-%" PRIu32, tg->range_lo,
		       tg->range_hi);
	printf(")\n");
	printf("  dev %s  netns %s  cpu ", SHOWN(tg->dev),
	       tg->netns[0] ? SHOWN(tg->netns) : "(ours)");
	if (idf_has(tg, IDF_KW_cpu))
		printf("%" PRIu32 "\n", tg->cpu);
	else
		printf("(spread)\n");
	printf("  src %s  dst %s  %s  tos %u  ttl %u\n", src, dst,
	       tg->dst.family == AF_INET6 ? "IPv6" : "IPv4", tg->tos,
	       tg->ttl);
	printf("  dist %s", idf_dist_name(tg->dist));
	print_dist_params(tg);
	print_lengths_and_gaps(tg, tt);
	if (tg->time == IDF_TIME_ABSOLUTE)
		printf("  start at %" PRIu64 " ns (CLOCK_REALTIME)",
		       tg->start_abs);
	else if (tg->time == IDF_TIME_POISSON)
		printf("  calls: idle %" PRIu64 " ns, call %" PRIu64 " ns (means)",
		       tg->call_idle, tg->call_len);
	else
		printf("  start %" PRIu64 " ns", tg->start);
	if (tg->jitter)
		printf("  jitt %" PRIu64 " ns", tg->jitter);
	printf("  duration ");
	if (tg->duration)
		printf("%" PRIu64 " ns", tg->duration);
	else
		printf("(no limit)");
	if (tg->count)
		printf("  count %" PRIu64 "\n", tg->count);
	else
		printf("  count (no limit)\n");
	printf("  patt %s %u  seed %" PRIu32 "  patt_seed %" PRIu32 "\n",
	       idf_patt_name(tg->patt), tg->patt_value, idf_seed(tg),
	       idf_patt_seed(tg));
	printf("  path %s  mode %s  late %s  threshold ",
	       idf_path_name(tg->path), idf_mode_name(tg->mode),
	       idf_late_name(tg->late));
	if (tg->threshold)
		printf("%" PRIu64 " ns", tg->threshold);
	else
		printf("(none)");
	if (idf_has(tg, IDF_KW_mac))
		printf("  mac %02x:%02x:%02x:%02x:%02x:%02x\n", tg->mac[0],
		       tg->mac[1], tg->mac[2], tg->mac[3], tg->mac[4],
		       tg->mac[5]);
	else
		printf("  mac (resolved)\n");
	if (idf_has(tg, IDF_KW_rcvr)) {
		char a[80];

		idf_endpoint_str(&tg->rcvr, tg->rcvr.port ? tg->rcvr.port :
				 IDF_TSP_PORT, a, sizeof(a));
		printf("  rcvr %s (agreed over %s)\n", a, tg->rcvr_ditg ?
		       "D-ITG's signalling: an ITGRecv, no key" : "TSP");
	}
	if (tg->header == IDF_HEADER_DITG)
		printf("  header ditg: D-ITG's (flow id %u, its sequence numbers and send times), no MTG header\n",
		       tg->id);
	if (idf_proto_connected(tg->proto))
		printf("  proto %s: a message per slot over a connection to what listens at %s, from %s: the MTG header and the pattern a UDP datagram of the slot's length would carry%s\n",
		       idf_proto_name(tg->proto), dst,
		       tg->src.port ? "the port of 'src'" :
		       "a port the kernel picks",
		       tg->proto == IDF_PROTO_TCP ?
		       ", each after its length (2 bytes)" : "");
	else if (tg->proto == IDF_PROTO_ICMP)
		printf("  proto icmp: echo requests (identifier %u), the destination's replies recorded on %s%s%s: round trips\n",
		       idf_src_port(tg), tg->dev, tg->netns[0] ? "@" : "",
		       tg->netns);
	else if (tg->meter == IDF_METER_RTT && tg->header == IDF_HEADER_DITG)
		printf("  meter rtt: D-ITG's payloads sent back to port %u as they came (%s), recorded on %s%s%s\n",
		       idf_src_port(tg), tg->rcvr_ditg ? "ITGRecv's -m rttm" :
		       "a UDP echo at the destination", tg->dev,
		       tg->netns[0] ? "@" : "", tg->netns);
	else if (tg->meter == IDF_METER_RTT)
		printf("  meter rtt: reflected back, stamped in slot %u, recorded on %s%s%s\n",
		       tg->rtt_slot, tg->dev, tg->netns[0] ? "@" : "",
		       tg->netns);
	if (tg->host[0])
		print_host(f, tg);
	if (tg->keep)
		printf("  keep%s%s\n", tg->keep & IDF_KEEP_PAYLOAD ? " payload" : "",
		       tg->keep & IDF_KEEP_BITS ? " wrongbits" : "");
	printf("  table: %s, %zu entr%s, period %" PRIu64 " ns",
	       tt->stream ? "stream" : "loop", tt->len,
	       tt->len == 1 ? "y" : "ies", tt->period_ns);
	if (!tt->mean_den) {
		printf(", drawn (%s, seed %" PRIu32 ", samplers %d)\n",
		       idf_rng_name(tg->rng), idf_seed(tg), idf_samplers(tg));
		return;
	}
	printf(", mean gap %" PRIu64, tt->mean_num);
	if (tt->mean_den != 1)
		printf("/%" PRIu64, tt->mean_den);
	printf(" ns%s\n", tt->exact ? "" : " (rate within 0.5 ns a table)");
}

/* The control messages of TG i (`ctrl`), as written. */
static void print_ctrl(const struct idf_file *f, size_t i)
{
	char text[96];
	size_t k;

	for (k = 0; k < f->nctrls; k++) {
		const struct idf_ctrl *c = &f->ctrls[k];

		if (c->tg != i)
			continue;
		idf_data_str(c->data, c->len, text, sizeof(text));
		printf("  ctrl at +%" PRIu64 " ns: %zu bytes %s\n", c->at,
		       c->len, text);
	}
}

static void json_ctrl(struct jw *j, const struct idf_file *f)
{
	char hex[2 * IDF_CTRL_MAX + 1];
	size_t k, b;

	jw_key(j, "ctrl");
	jw_arr_begin(j);
	for (k = 0; k < f->nctrls; k++) {
		const struct idf_ctrl *c = &f->ctrls[k];

		for (b = 0; b < c->len; b++)
			snprintf(hex + 2 * b, 3, "%02x", c->data[b]);
		hex[2 * c->len] = '\0';
		jw_obj_begin(j);
		jw_ku64(j, "tg", f->tgs[c->tg].id);
		jw_ku64(j, "at_ns", c->at);
		jw_ku64(j, "len", c->len);
		jw_kstr(j, "hex", hex);
		jw_ku64(j, "line", c->loc.line);
		jw_obj_end(j);
	}
	jw_arr_end(j);
}

static void json_diags(struct jw *j, const struct idf_file *f, bool warning)
{
	size_t i;

	jw_key(j, warning ? "warnings" : "errors");
	jw_arr_begin(j);
	for (i = 0; i < f->ndiags; i++) {
		const struct idf_diag *d = &f->diags[i];

		if (d->warning != warning)
			continue;
		jw_obj_begin(j);
		jw_ku64(j, "line", d->loc.line);
		jw_ku64(j, "col", d->loc.col);
		jw_kstr(j, "message", d->msg);
		jw_obj_end(j);
	}
	jw_arr_end(j);
}

/* DEV or DEV@NETNS: where a `listen` entry lives ("" for ours). */
static const char *listen_netns(const struct idf_file *f,
				const struct idf_listen *l)
{
	return l->netns[0] ? l->netns : f->globals.netns;
}

static void print_listen(const struct idf_file *f)
{
	size_t i;

	if (!f->nlisten)
		return;
	printf("listen");
	for (i = 0; i < f->nlisten; i++) {
		const char *ns = listen_netns(f, &f->listen[i]);

		printf(" %s%s%s", SHOWN(f->listen[i].dev), ns[0] ? "@" : "",
		       SHOWN(ns));
	}
	printf("  out %s  passthrough %s\n", f->out ? SHOWN(f->out) : "(none)",
	       f->passthrough ? "yes" : "no");
}

static void json_listen(struct jw *j, const struct idf_file *f)
{
	size_t i;

	jw_key(j, "listen");
	jw_arr_begin(j);
	for (i = 0; i < f->nlisten; i++) {
		const char *ns = listen_netns(f, &f->listen[i]);

		jw_obj_begin(j);
		jw_kstr(j, "dev", f->listen[i].dev);
		jw_kstr(j, "netns", ns[0] ? ns : NULL);
		jw_obj_end(j);
	}
	jw_arr_end(j);
	jw_kstr(j, "out", f->out);
	jw_kbool(j, "passthrough", f->passthrough);
}

/* The run's test-point probes, where they are (the global netns too). */
static void print_probes(const struct idf_file *f)
{
	size_t i;

	for (i = 0; i < f->nprobes; i++) {
		const struct idf_probe *p = &f->probes[i];
		const char *ns = p->netns[0] ? p->netns : f->globals.netns;

		printf("probe %s%s%s slot %u %s (attached for the run)\n",
		       SHOWN(p->dev), ns[0] ? "@" : "", SHOWN(ns), p->slot,
		       p->egress ? "egress" : "ingress");
	}
}

static void json_probes(struct jw *j, const struct idf_file *f)
{
	size_t i;

	jw_key(j, "probes");
	jw_arr_begin(j);
	for (i = 0; i < f->nprobes; i++) {
		const struct idf_probe *p = &f->probes[i];
		const char *ns = p->netns[0] ? p->netns : f->globals.netns;

		jw_obj_begin(j);
		jw_kstr(j, "dev", p->dev);
		jw_kstr(j, "netns", ns[0] ? ns : NULL);
		jw_ku64(j, "slot", p->slot);
		jw_kstr(j, "direction", p->egress ? "egress" : "ingress");
		jw_obj_end(j);
	}
	jw_arr_end(j);
}

int cmd_check(const char *file, const struct check_opts *o)
{
	struct idf_file f;
	struct tt *tts = NULL;
	struct jw j;
	char err[256];
	size_t i, built = 0;
	int ret, rc = EXIT_ERROR;

	ret = idf_load(&f, file);
	if (ret && ret != -EINVAL) {
		pr_err("cannot read %s: %s\n", file, strerror(-ret));
		goto out;
	}
	idf_print_diags(&f, stderr);
	if (!ret) {
		tts = calloc(f.ntgs, sizeof(*tts));
		if (!tts) {
			pr_err("out of memory\n");
			goto out;
		}
		for (; built < f.ntgs; built++) {
			if (tt_build(&f.tgs[built], &tts[built], err,
				     sizeof(err))) {
				idf_print_tg_error(&f, &f.tgs[built], err,
						   stderr);
				goto out;
			}
		}
	}
	if (o->json) {
		jw_init(&j, stdout);
		jw_obj_begin(&j);
		jw_kstr(&j, "format", "mtgctl-check");
		jw_ku64(&j, "version", 1);
		jw_kstr(&j, "file", file);
		jw_kbool(&j, "valid", !ret);
		json_diags(&j, &f, false);
		json_diags(&j, &f, true);
		json_listen(&j, &f);
		json_probes(&j, &f);
		if (!ret)
			json_ctrl(&j, &f);
		jw_key(&j, "tgs");
		jw_arr_begin(&j);
		for (i = 0; i < built; i++)
			tg_json(&j, &f.tgs[i], &tts[i], true);
		jw_arr_end(&j);
		jw_obj_end(&j);
	} else if (!ret) {
		print_listen(&f);
		print_probes(&f);
		for (i = 0; i < built; i++) {
			print_tg(&f, &f.tgs[i], &tts[i]);
			print_ctrl(&f, i);
		}
		printf("%s: %zu TG%s, valid\n", file, f.ntgs,
		       f.ntgs == 1 ? "" : "s");
	}
	if (fflush(stdout)) {
		pr_err("cannot write the output: %s\n", strerror(errno));
		goto out;
	}
	rc = ret ? EXIT_ERROR : EXIT_OK;
out:
	for (i = 0; i < built; i++)
		tt_free(&tts[i]);
	free(tts);
	idf_free(&f);
	return rc;
}
