// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * mtgctl probe attach|detach|list: test-point probes (ebpf/tp.bpf.c) that
 * stamp the MTG frames passing an interface into a slot of their header.
 * Documentation/ebpf.rst says what they do; bpf/probe.c does it.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bpf/probe.h"
#include "cmd/cmd.h"
#include "idf/idf.h"
#include "util/jw.h"

static void list_text(const struct probe_info *info, size_t n)
{
	size_t i;

	if (!n)
		printf("no probes\n");
	for (i = 0; i < n; i++)
		probe_info_print(stdout, &info[i]);
}

static void list_json(const struct probe_info *info, size_t n)
{
	struct jw j;
	size_t i;

	jw_init(&j, stdout);
	jw_obj_begin(&j);
	jw_key(&j, "probes");
	jw_arr_begin(&j);
	for (i = 0; i < n; i++)
		probe_info_json(&j, &info[i]);
	jw_arr_end(&j);
	jw_obj_end(&j);
	printf("\n");
}

/* The options into want; 0, or -1 (reported). */
static int probe_where(const char *action, int nargs, char **devs,
		       const struct probe_opts *o, struct probe_id *want)
{
	struct idf_listen l;
	const char *why;

	memset(want, 0, sizeof(*want));
	want->egress = o->egress ? 1 : o->ingress ? 0 : PROBE_ANY;
	want->slot = o->slot == PROBE_SLOT_UNSET ? PROBE_ANY : (int)o->slot;
	if (o->ingress && o->egress) {
		pr_err("probe %s: --ingress or --egress, not both\n", action);
		return -1;
	}
	if (o->json && strcmp(action, "list")) {
		pr_err("probe %s: --json is for 'probe list'\n", action);
		return -1;
	}
	if (nargs > 1 || (!nargs && strcmp(action, "list"))) {
		pr_err("probe %s: %s (usage: mtgctl probe %s DEV[@NETNS] ...)\n",
		       action, nargs ? "one DEV at a time" : "no DEV given",
		       action);
		return -1;
	}
	if (!nargs)
		return 0;
	why = idf_parse_listen(devs[0], &l);
	if (why) {
		pr_err("probe %s: '%s' is not DEV or DEV@NETNS: expected %s\n",
		       action, devs[0], why);
		return -1;
	}
	strcpy(want->dev, l.dev);
	strcpy(want->netns, l.netns);
	return 0;
}

int cmd_probe(int nargs, char **args, const struct probe_opts *o)
{
	const char *action = args[0];
	struct probe_info *info;
	struct probe_id want;
	char name[64 + IDF_NETNS_MAX];
	size_t n;
	int err, done;

	if (strcmp(action, "attach") && strcmp(action, "detach") &&
	    strcmp(action, "list")) {
		pr_err("probe: no action '%s' (attach, detach or list)\n",
		       action);
		return EXIT_ERROR;
	}
	if (probe_where(action, nargs - 1, args + 1, o, &want))
		return EXIT_ERROR;
	if (geteuid()) {
		pr_err("probe %s: needs root (BPF programs, tc filters, pins in /sys/fs/bpf)\n",
		       action);
		return EXIT_ERROR;
	}
	if (!strcmp(action, "attach")) {
		if (want.slot == PROBE_ANY) {
			pr_err("probe attach: --slot K needed: the header's test-point slot the probe writes, 0 to %d\n",
			       PROBE_SLOTS - 1);
			return EXIT_ERROR;
		}
		if (want.egress == PROBE_ANY)
			want.egress = 0;
		if (probe_attach(&want))
			return EXIT_ERROR;
		printf("attached %s\n", probe_name(&want, name, sizeof(name)));
		return EXIT_OK;
	}
	if (!strcmp(action, "detach")) {
		err = probe_detach(&want, &done);
		if (err == -ENOENT)
			pr_err("probe detach: no probe of mtg on %s%s%s%s (mtgctl probe list)\n",
			       want.dev, want.netns[0] ? "@" : "", want.netns,
			       want.egress == PROBE_ANY ? "" :
			       want.egress ? " egress" : " ingress");
		else
			printf("detached %d probe%s\n", done, done == 1 ? "" : "s");
		return err ? EXIT_ERROR : EXIT_OK;
	}
	if (probe_list(&want, &info, &n))
		return EXIT_ERROR;
	if (o->json)
		list_json(info, n);
	else
		list_text(info, n);
	free(info);
	return EXIT_OK;
}
