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

#include "idf.h"
#include "json.h"
#include "mtgctl.h"
#include "tables.h"

static void endpoint_str(const struct idf_addr *a, uint16_t port, char *buf,
			 size_t size)
{
	char addr[64];

	idf_addr_str(a, addr, sizeof(addr));
	if (!a->family)
		snprintf(buf, size, "(from dev):%u", port);
	else if (a->family == AF_INET6)
		snprintf(buf, size, "[%s]:%u", addr, port);
	else
		snprintf(buf, size, "%s:%u", addr, port);
}

static void print_tg(const struct idf_file *f, const struct idf_tg *tg,
		     const struct tt *tt)
{
	char src[80], dst[80];

	endpoint_str(&tg->src, idf_src_port(tg), src, sizeof(src));
	endpoint_str(&tg->dst, tg->dst.port, dst, sizeof(dst));
	printf("tgid %" PRIu32 " (%s:%u)\n", tg->id, f->name,
	       tg->loc[IDF_KW_tgid].line);
	printf("  dev %s  netns %s  cpu ", tg->dev,
	       tg->netns[0] ? tg->netns : "(ours)");
	if (idf_has(tg, IDF_KW_cpu))
		printf("%" PRIu32 "\n", tg->cpu);
	else
		printf("(spread)\n");
	printf("  src %s  dst %s  %s  tos %u  ttl %u\n", src, dst,
	       tg->dst.family == AF_INET6 ? "IPv6" : "IPv4", tg->tos,
	       tg->ttl);
	printf("  dist %s  pkts %" PRIu32 " bytes  ", idf_dist_name(tg->dist),
	       tg->len_max);
	if (idf_has(tg, IDF_KW_thro))
		printf("thro %" PRIu64 " bit/s\n", tg->thro_req);
	else
		printf("inta %" PRIu64 " ns\n", tg->inta_min);
	printf("  start %" PRIu64 " ns  duration ", tg->start);
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
	printf("  table: %s, %zu entr%s, period %" PRIu64 " ns, mean gap %" PRIu64,
	       tt->stream ? "stream" : "loop", tt->len,
	       tt->len == 1 ? "y" : "ies", tt->period_ns, tt->mean_num);
	if (tt->mean_den != 1)
		printf("/%" PRIu64, tt->mean_den);
	printf(" ns%s\n", tt->exact ? "" : " (rate within 0.5 ns a table)");
}

static void json_addr(struct json *j, const char *key, const struct idf_addr *a,
		      uint16_t port)
{
	char addr[64];

	json_key(j, key);
	json_obj_begin(j);
	if (a->family) {
		idf_addr_str(a, addr, sizeof(addr));
		json_kstr(j, "addr", addr);
	} else {
		json_knull(j, "addr");
	}
	json_ku64(j, "port", port);
	json_obj_end(j);
}

static void json_pair(struct json *j, const char *key, const char *ka,
		      uint64_t a, const char *kb, uint64_t b)
{
	if (key)
		json_key(j, key);
	json_obj_begin(j);
	json_ku64(j, ka, a);
	json_ku64(j, kb, b);
	json_obj_end(j);
}

static void json_table(struct json *j, const struct tt *tt)
{
	size_t i;

	json_key(j, "table");
	json_obj_begin(j);
	json_kstr(j, "mode", tt->stream ? "stream" : "loop");
	json_ku64(j, "len", tt->len);
	json_ku64(j, "period_ns", tt->period_ns);
	json_pair(j, "mean_gap_ns", "num", tt->mean_num, "den", tt->mean_den);
	json_kbool(j, "exact", tt->exact);
	json_key(j, "entries");
	json_arr_begin(j);
	for (i = 0; i < tt->len; i++)
		json_pair(j, NULL, "gap_ns", tt->entries[i].gap_ns, "len",
			  tt->entries[i].len);
	json_arr_end(j);
	json_obj_end(j);
}

static void json_tg(struct json *j, const struct idf_tg *tg,
		    const struct tt *tt)
{
	char mac[18];

	json_obj_begin(j);
	json_ku64(j, "id", tg->id);
	json_ku64(j, "line", tg->loc[IDF_KW_tgid].line);
	json_kstr(j, "dev", tg->dev);
	json_kstr(j, "netns", tg->netns[0] ? tg->netns : NULL);
	if (idf_has(tg, IDF_KW_cpu))
		json_ku64(j, "cpu", tg->cpu);
	else
		json_knull(j, "cpu");
	json_kstr(j, "family", tg->dst.family == AF_INET6 ? "ipv6" : "ipv4");
	json_addr(j, "src", &tg->src, idf_src_port(tg));
	json_addr(j, "dst", &tg->dst, tg->dst.port);
	json_ku64(j, "tos", tg->tos);
	json_ku64(j, "ttl", tg->ttl);
	json_kstr(j, "dist", idf_dist_name(tg->dist));
	json_pair(j, "pkts", "max", tg->len_max, "min", tg->len_min);
	if (idf_has(tg, IDF_KW_thro))
		json_pair(j, "thro", "req", tg->thro_req, "min", tg->thro_min);
	else
		json_knull(j, "thro");
	if (idf_has(tg, IDF_KW_inta))
		json_pair(j, "inta_ns", "min", tg->inta_min, "max",
			  tg->inta_max);
	else
		json_knull(j, "inta_ns");
	json_ku64(j, "start_ns", tg->start);
	json_ku64(j, "duration_ns", tg->duration);
	json_ku64(j, "count", tg->count);
	json_key(j, "patt");
	json_obj_begin(j);
	json_kstr(j, "kind", idf_patt_name(tg->patt));
	json_ku64(j, "value", tg->patt_value);
	json_ku64(j, "seed", idf_patt_seed(tg));
	json_obj_end(j);
	json_ku64(j, "seed", idf_seed(tg));
	json_kstr(j, "path", idf_path_name(tg->path));
	json_kstr(j, "mode", idf_mode_name(tg->mode));
	json_kstr(j, "late", idf_late_name(tg->late));
	if (idf_has(tg, IDF_KW_mac)) {
		snprintf(mac, sizeof(mac), "%02x:%02x:%02x:%02x:%02x:%02x",
			 tg->mac[0], tg->mac[1], tg->mac[2], tg->mac[3],
			 tg->mac[4], tg->mac[5]);
		json_kstr(j, "mac", mac);
	} else {
		json_knull(j, "mac");
	}
	json_ku64(j, "threshold_ns", tg->threshold);
	json_table(j, tt);
	json_obj_end(j);
}

static void json_diags(struct json *j, const struct idf_file *f, bool warning)
{
	size_t i;

	json_key(j, warning ? "warnings" : "errors");
	json_arr_begin(j);
	for (i = 0; i < f->ndiags; i++) {
		const struct idf_diag *d = &f->diags[i];

		if (d->warning != warning)
			continue;
		json_obj_begin(j);
		json_ku64(j, "line", d->loc.line);
		json_ku64(j, "col", d->loc.col);
		json_kstr(j, "message", d->msg);
		json_obj_end(j);
	}
	json_arr_end(j);
}

int cmd_check(const char *file, const struct check_opts *o)
{
	struct idf_file f;
	struct tt *tts = NULL;
	struct json j;
	char err[128];
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
				pr_err("%s: TG %u: %s\n", file,
				       f.tgs[built].id, err);
				goto out;
			}
		}
	}
	if (o->json) {
		json_init(&j, stdout);
		json_obj_begin(&j);
		json_kstr(&j, "format", "mtgctl-check");
		json_ku64(&j, "version", 1);
		json_kstr(&j, "file", file);
		json_kbool(&j, "valid", !ret);
		json_diags(&j, &f, false);
		json_diags(&j, &f, true);
		json_key(&j, "tgs");
		json_arr_begin(&j);
		for (i = 0; i < built; i++)
			json_tg(&j, &f.tgs[i], &tts[i]);
		json_arr_end(&j);
		json_obj_end(&j);
	} else if (!ret) {
		for (i = 0; i < built; i++)
			print_tg(&f, &f.tgs[i], &tts[i]);
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
