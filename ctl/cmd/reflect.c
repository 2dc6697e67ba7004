// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * mtgctl reflect attach|detach|list|agree|forget: the XDP reflector
 * (ebpf/reflect.bpf.c) that sends the MTG frames arriving on an interface
 * back, stamped, for round trips: all of them, or only the flows agreed. Documentation/ebpf.rst says what it does; bpf/reflector.c
 * does it.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bpf/reflector.h"
#include "cmd/cmd.h"
#include "util/jw.h"

static const char *where(const struct reflect_id *r, char *buf, size_t size)
{
	snprintf(buf, size, "%s%s%s", r->dev, r->netns[0] ? "@" : "", r->netns);
	return buf;
}

static void list_text(const struct reflect_info *info, size_t n)
{
	char name[IDF_DEVNAME_MAX + IDF_NETNS_MAX + 2];
	const struct reflect_flow_info *f;
	size_t i;
	int k;

	if (!n)
		printf("no reflectors\n");
	for (i = 0; i < n; i++) {
		printf("%s slot %d%s: %s", where(&info[i].id, name, sizeof(name)),
		       info[i].id.slot, info[i].id.agreed_only ?
		       " agreed flows only" : "",
		       probe_state_name(info[i].state));
		for (k = 0; k < REFLECT_COUNTERS; k++)
			printf(", %s %" PRIu64, reflect_counter_names[k],
			       info[i].counters[k]);
		printf("\n");
		for (f = info[i].flows; f < info[i].flows + info[i].nflows; f++)
			if (f->run_id == REFLECT_DITG_RUN)
				printf("  D-ITG port %" PRIu32 " reflected %" PRIu64 "\n",
				       f->tg_id, f->reflected);
			else
				printf("  flow %" PRIu32 ":%" PRIu32 " reflected %" PRIu64 "\n",
				       f->run_id, f->tg_id, f->reflected);
	}
}

static void list_json(const struct reflect_info *info, size_t n)
{
	const struct reflect_flow_info *f;
	struct jw j;
	size_t i;
	int k;

	jw_init(&j, stdout);
	jw_obj_begin(&j);
	jw_key(&j, "reflectors");
	jw_arr_begin(&j);
	for (i = 0; i < n; i++) {
		jw_obj_begin(&j);
		jw_kstr(&j, "dev", info[i].id.dev);
		if (info[i].id.netns[0])
			jw_kstr(&j, "netns", info[i].id.netns);
		else
			jw_knull(&j, "netns");
		jw_ku64(&j, "slot", (uint64_t)info[i].id.slot);
		jw_kstr(&j, "state", probe_state_name(info[i].state));
		jw_ku64(&j, "prog_id", info[i].prog_id);
		jw_key(&j, "counters");
		jw_obj_begin(&j);
		for (k = 0; k < REFLECT_COUNTERS; k++)
			jw_ku64(&j, reflect_counter_names[k],
				info[i].counters[k]);
		jw_obj_end(&j);
		jw_kbool(&j, "agreed_only", info[i].id.agreed_only);
		jw_key(&j, "flows");
		jw_arr_begin(&j);
		for (f = info[i].flows; f < info[i].flows + info[i].nflows;
		     f++) {
			jw_obj_begin(&j);
			jw_ku64(&j, "run_id", f->run_id);
			jw_ku64(&j, "tg_id", f->tg_id);
			jw_ku64(&j, "reflected", f->reflected);
			jw_obj_end(&j);
		}
		jw_arr_end(&j);
		jw_obj_end(&j);
	}
	jw_arr_end(&j);
	jw_obj_end(&j);
	printf("\n");
}

#define FLOWS_MAX	64	/* on one command line */

/*
 * --flows RUN:TG[,RUN:TG...] into ids (pairs run, tg), at most FLOWS_MAX;
 * how many, or -1 (reported).
 */
static int parse_flows(const char *action, const char *s, uint32_t ids[][2])
{
	unsigned long long run, tg;
	const char *p = s;
	char *end;
	int n = 0;

	do {
		if (n == FLOWS_MAX) {
			pr_err("reflect %s: --flows names more than %d flows: give them in several commands\n",
			       action, FLOWS_MAX);
			return -1;
		}
		errno = 0;
		if (!isdigit((unsigned char)*p))
			goto bad;
		run = strtoull(p, &end, 10);
		if (errno || run > UINT32_MAX || *end != ':' ||
		    !isdigit((unsigned char)end[1]))
			goto bad;
		tg = strtoull(end + 1, &end, 10);
		if (errno || !tg || tg > UINT32_MAX || (*end && *end != ','))
			goto bad;
		ids[n][0] = (uint32_t)run;
		ids[n][1] = (uint32_t)tg;
		n++;
		p = end + 1;
	} while (*end);
	return n;
bad:
	pr_err("reflect %s: --flows expects RUN:TG[,RUN:TG...] (a run id 0 to 4294967295, a TG id 1 to 4294967295), got '%s'\n",
	       action, s);
	return -1;
}

/* agree or forget (add) each flow of ids on want; 0, or -1 (reported). */
static int agree_each(const struct reflect_id *want, uint32_t ids[][2], int n,
		      bool add)
{
	int i;

	for (i = 0; i < n; i++)
		if (reflect_agree(want, ids[i][0], ids[i][1], add))
			return -1;
	return 0;
}

/* The arguments and options into want; 0, or -1 (reported). */
static int reflect_where(const char *action, int nargs, char **devs,
			 const struct reflect_opts *o, struct reflect_id *want)
{
	struct idf_listen l;
	const char *why;

	memset(want, 0, sizeof(*want));
	want->slot = o->slot == PROBE_SLOT_UNSET ? PROBE_ANY : (int)o->slot;
	if (o->json && strcmp(action, "list")) {
		pr_err("reflect %s: --json is for 'reflect list'\n", action);
		return -1;
	}
	if (o->flows && !strcmp(action, "detach")) {
		pr_err("reflect detach: --flows is for attach, agree and forget (detach takes the reflector with its flows)\n");
		return -1;
	}
	if (o->flows && !strcmp(action, "list")) {
		pr_err("reflect list: --flows is for attach, agree and forget (list shows every flow)\n");
		return -1;
	}
	if (!o->flows && (!strcmp(action, "agree") ||
			  !strcmp(action, "forget"))) {
		pr_err("reflect %s: --flows RUN:TG[,RUN:TG...] needed: the flows to %s\n",
		       action, action[0] == 'a' ? "send back" : "no longer send back");
		return -1;
	}
	if (want->slot != PROBE_ANY && strcmp(action, "attach")) {
		pr_err("reflect %s: --slot is for 'reflect attach' (one reflector per interface)\n",
		       action);
		return -1;
	}
	if (nargs > 1 || (!nargs && strcmp(action, "list"))) {
		pr_err("reflect %s: %s (usage: mtgctl reflect %s DEV[@NETNS] ...)\n",
		       action, nargs ? "one DEV at a time" : "no DEV given",
		       action);
		return -1;
	}
	if (!nargs)
		return 0;
	why = idf_parse_listen(devs[0], &l);
	if (why) {
		pr_err("reflect %s: '%s' is not DEV or DEV@NETNS: expected %s\n",
		       action, devs[0], why);
		return -1;
	}
	strcpy(want->dev, l.dev);
	strcpy(want->netns, l.netns);
	return 0;
}

int cmd_reflect(int nargs, char **args, const struct reflect_opts *o)
{
	char name[IDF_DEVNAME_MAX + IDF_NETNS_MAX + 2];
	const char *action = args[0];
	uint32_t ids[FLOWS_MAX][2];
	struct reflect_info *info;
	struct reflect_id want;
	int err, done, nflows = 0;
	size_t n;

	if (strcmp(action, "attach") && strcmp(action, "detach") &&
	    strcmp(action, "list") && strcmp(action, "agree") &&
	    strcmp(action, "forget")) {
		pr_err("reflect: no action '%s' (attach, detach, list, agree or forget)\n",
		       action);
		return EXIT_ERROR;
	}
	if (reflect_where(action, nargs - 1, args + 1, o, &want))
		return EXIT_ERROR;
	if (o->flows) {
		nflows = parse_flows(action, o->flows, ids);
		if (nflows < 0)
			return EXIT_ERROR;
		want.agreed_only = true;
	}
	if (geteuid()) {
		pr_err("reflect %s: needs root (BPF programs, XDP, pins in /sys/fs/bpf)\n",
		       action);
		return EXIT_ERROR;
	}
	if (!strcmp(action, "attach")) {
		if (want.slot == PROBE_ANY) {
			pr_err("reflect attach: --slot K needed: the header's test-point slot the reflection time goes to, 0 to %d\n",
			       PROBE_SLOTS - 1);
			return EXIT_ERROR;
		}
		if (reflect_attach(&want))
			return EXIT_ERROR;
		/* all its flows, or no reflector */
		if (agree_each(&want, ids, nflows, true)) {
			reflect_detach(&want, &done);
			return EXIT_ERROR;
		}
		printf("attached a reflector to %s, slot %d",
		       where(&want, name, sizeof(name)), want.slot);
		if (nflows)
			printf(", %d flow%s agreed", nflows,
			       nflows == 1 ? "" : "s");
		printf("\n");
		return EXIT_OK;
	}
	if (!strcmp(action, "agree") || !strcmp(action, "forget")) {
		if (agree_each(&want, ids, nflows, action[0] == 'a'))
			return EXIT_ERROR;
		printf("%s %d flow%s on %s\n",
		       action[0] == 'a' ? "agreed" : "forgot", nflows,
		       nflows == 1 ? "" : "s", where(&want, name, sizeof(name)));
		return EXIT_OK;
	}
	if (!strcmp(action, "detach")) {
		err = reflect_detach(&want, &done);
		if (err == -ENOENT)
			pr_err("reflect detach: no reflector of mtg on %s (mtgctl reflect list)\n",
			       where(&want, name, sizeof(name)));
		else
			printf("detached %d reflector%s\n", done,
			       done == 1 ? "" : "s");
		return err ? EXIT_ERROR : EXIT_OK;
	}
	if (reflect_list(&want, &info, &n))
		return EXIT_ERROR;
	if (o->json)
		list_json(info, n);
	else
		list_text(info, n);
	reflect_info_free(info, n);
	return EXIT_OK;
}
