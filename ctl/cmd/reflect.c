// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * mtgctl reflect attach|detach|list: the XDP reflector (ebpf/reflect.bpf.c)
 * that sends the MTG frames arriving on an interface back, stamped, for
 * round trips. Documentation/ebpf.rst says what it does; bpf/reflector.c
 * does it.
 */
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
	size_t i;
	int k;

	if (!n)
		printf("no reflectors\n");
	for (i = 0; i < n; i++) {
		printf("%s slot %d: %s", where(&info[i].id, name, sizeof(name)),
		       info[i].id.slot, probe_state_name(info[i].state));
		for (k = 0; k < REFLECT_COUNTERS; k++)
			printf(", %s %" PRIu64, reflect_counter_names[k],
			       info[i].counters[k]);
		printf("\n");
	}
}

static void list_json(const struct reflect_info *info, size_t n)
{
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
		jw_obj_end(&j);
	}
	jw_arr_end(&j);
	jw_obj_end(&j);
	printf("\n");
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
	struct reflect_info *info;
	struct reflect_id want;
	int err, done;
	size_t n;

	if (strcmp(action, "attach") && strcmp(action, "detach") &&
	    strcmp(action, "list")) {
		pr_err("reflect: no action '%s' (attach, detach or list)\n",
		       action);
		return EXIT_ERROR;
	}
	if (reflect_where(action, nargs - 1, args + 1, o, &want))
		return EXIT_ERROR;
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
		printf("attached a reflector to %s, slot %d\n",
		       where(&want, name, sizeof(name)), want.slot);
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
	free(info);
	return EXIT_OK;
}
