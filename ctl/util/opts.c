// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A command's options from its table (opts.h): the parser, and the help
 * made from the same table, so that the two never disagree.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "idf/units.h"
#include "util/log.h"
#include "util/opts.h"

void opts_command_help(FILE *out, const struct command *c)
{
	const struct prog_option *o;
	char left[64];

	fprintf(out, "Usage: mtgctl %s %s\n\n%s\n", c->name, c->args, c->doc);
	if (c->options[0].name)
		fprintf(out, "\nOptions:\n");
	for (o = c->options; o->name; o++) {
		char shorter[8] = "";

		if (o->short_name)
			snprintf(shorter, sizeof(shorter), "-%c, ",
				 o->short_name);
		snprintf(left, sizeof(left), "%s--%s%s%s", shorter, o->name,
			 o->metavar ? " " : "", o->metavar ? o->metavar : "");
		fprintf(out, "  %-30s %s\n", left, o->help);
	}
}

/*
 * Parse argv (argv[0] is the command) into opts; the positional arguments
 * are what is left from *first on.
 */
int opts_parse(const struct command *c, int argc, char **argv,
			 void *opts, int *first)
{
	const struct prog_option *o;
	int n = 0, ch, idx, nargs, count = 0;
	const char *why;
	uint64_t v;

	for (o = c->options; o->name; o++)
		count++;
	/* each option, --help and the end; ':', 'h', two a short one, NUL */
	struct option longopts[count + 2];
	char shorts[2 * count + 3];

	strcpy(shorts, ":h");
	memcpy(opts, c->defaults, c->size);
	for (o = c->options; o->name; o++, n++) {
		longopts[n].name = o->name;
		longopts[n].has_arg = o->type == OPT_BOOL ? no_argument :
			required_argument;
		longopts[n].flag = NULL;
		longopts[n].val = 256 + n;
		if (o->short_name) {
			size_t k = strlen(shorts);

			shorts[k] = o->short_name;
			shorts[k + 1] = o->type == OPT_BOOL ? '\0' : ':';
			shorts[k + 2] = '\0';
		}
	}
	longopts[n++] = (struct option){ "help", no_argument, NULL, 'h' };
	longopts[n] = (struct option){ NULL, 0, NULL, 0 };

	opterr = 0;
	optind = 1;
	while ((ch = getopt_long(argc, argv, shorts, longopts, &idx)) != -1) {
		if (ch == 'h') {
			opts_command_help(stdout, c);
			exit(EXIT_OK);
		}
		if (ch == ':') {
			pr_err("%s: option '%s' needs a value (see 'mtgctl help %s')\n",
			       c->name, argv[optind - 1], c->name);
			return -1;
		}
		if (ch == '?') {
			pr_err("%s: unknown option '%s' (see 'mtgctl help %s')\n",
			       c->name, argv[optind - 1], c->name);
			return -1;
		}
		if (ch < 256) {
			for (o = c->options; o->short_name != ch; o++)
				;
		} else {
			o = &c->options[ch - 256];
		}
		switch (o->type) {
		case OPT_BOOL:
			*(bool *)((char *)opts + o->offset) = true;
			break;
		case OPT_STRING:
			*(const char **)((char *)opts + o->offset) = optarg;
			break;
		case OPT_SECONDS:
			if (idf_parse_time(optarg, 9,
					   (uint64_t *)((char *)opts + o->offset),
					   &why)) {
				pr_err("%s: --%s expects a time (seconds, or ns/us/ms/s), got '%s' (%s)\n",
				       c->name, o->name, optarg, why);
				return -1;
			}
			break;
		case OPT_COUNT:
			why = NULL;
			if (idf_parse_count(optarg, &v, &why) || v < o->min ||
			    v > o->max || (o->pow2 && (v & (v - 1)))) {
				pr_err("%s: --%s expects a %s from %llu to %llu, got '%s'%s%s%s\n",
				       c->name, o->name,
				       o->pow2 ? "power of two" : "number",
				       (unsigned long long)o->min,
				       (unsigned long long)o->max, optarg,
				       why ? " (" : "", why ? why : "",
				       why ? ")" : "");
				return -1;
			}
			*(uint64_t *)((char *)opts + o->offset) = v;
			break;
		}
	}
	nargs = argc - optind;
	if (nargs < c->min_args || (c->max_args >= 0 && nargs > c->max_args)) {
		pr_err("%s: %s %s given (usage: mtgctl %s %s)\n", c->name,
		       nargs < c->min_args ? "no" : "more than one",
		       c->arg_name, c->name, c->args);
		return -1;
	}
	*first = optind;
	return 0;
}

/*
 * A command that takes another tool's options (itgsend: ITGSend's, all
 * single-dash): mtgctl's own are the --long ones (with the value after
 * those that take one), parsed as any command's; the rest go on as they
 * are, in their order.
 */
int opts_run_foreign(const struct command *c, int argc, char **argv,
		       void *opts)
{
	const struct prog_option *o;
	char **own, **rest;
	int i, nown = 1, nrest = 0, first, ret = EXIT_ERROR;
	size_t len;

	own = calloc((size_t)argc + 1, sizeof(*own));
	rest = calloc((size_t)argc + 1, sizeof(*rest));
	if (!own || !rest) {
		pr_err("out of memory\n");
		goto out;
	}
	own[0] = argv[0];
	for (i = 1; i < argc; i++) {
		if (strncmp(argv[i], "--", 2) || !argv[i][2]) {
			rest[nrest++] = argv[i];
			continue;
		}
		own[nown++] = argv[i];
		len = strcspn(argv[i] + 2, "=");
		for (o = c->options; o->name; o++)
			if (strlen(o->name) == len &&
			    !strncmp(o->name, argv[i] + 2, len))
				break;
		if (o->name && o->type != OPT_BOOL && !argv[i][2 + len] &&
		    i + 1 < argc)
			own[nown++] = argv[++i];
	}
	if (!opts_parse(c, nown, own, opts, &first))
		ret = c->run(nrest, rest, opts);
out:
	free(own);
	free(rest);
	return ret;
}
