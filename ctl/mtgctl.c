// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * mtgctl: the mtg controller. `mtgctl COMMAND [OPTIONS] FILE`; every
 * command's options are declared in one table (DEFINE_OPTION), from which
 * both the parser and the help are made.
 */
#include <getopt.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "../kmod/uapi/mtg.h"
#include "idf.h"
#include "mtgctl.h"

enum opt_type {
	OPT_BOOL,		/* a flag */
	OPT_STRING,		/* an argument kept as given */
	OPT_SECONDS,		/* a time, seconds or with a unit, into ns */
};

struct prog_option {
	const char *name;
	enum opt_type type;
	size_t offset;		/* of the field in the command's options */
	const char *metavar;
	const char *help;
};

#define DEFINE_OPTION(_name, _type, _struct, _field, ...)		\
	{ .name = (_name), .type = (_type),				\
	  .offset = offsetof(_struct, _field), __VA_ARGS__ }
#define END_OPTIONS	{ .name = NULL }

static const struct check_opts check_defaults = { .json = false };

static const struct prog_option check_options[] = {
	DEFINE_OPTION("json", OPT_BOOL, struct check_opts, json,
		      .help = "print the resolved TGs and their timetables as JSON"),
	END_OPTIONS
};

static const struct run_opts run_defaults = {
	.start_delay = 1000000000ULL,
	.device = MTG_DEVICE_PATH,
};

static const struct prog_option run_options[] = {
	DEFINE_OPTION("batch", OPT_BOOL, struct run_opts, batch,
		      .help = "plain progress lines, no dashboard (implied when stdout is not a terminal)"),
	DEFINE_OPTION("json", OPT_STRING, struct run_opts, json,
		      .metavar = "SUMMARY.json",
		      .help = "write the run's summary there (atomically)"),
	DEFINE_OPTION("start-delay", OPT_SECONDS, struct run_opts, start_delay,
		      .metavar = "TIME",
		      .help = "T0 is now plus TIME (seconds, or ns/us/ms/s); default 1"),
	DEFINE_OPTION("device", OPT_STRING, struct run_opts, device,
		      .metavar = "PATH",
		      .help = "the module's device; default " MTG_DEVICE_PATH),
	END_OPTIONS
};

struct command {
	const char *name;
	const char *args;		/* the grammar after the name */
	const char *doc;
	const struct prog_option *options;
	const void *defaults;
	size_t size;			/* of the options structure */
	int (*run)(const char *file, const void *opts);
};

static int run_check(const char *file, const void *opts)
{
	return cmd_check(file, opts);
}

static int run_run(const char *file, const void *opts)
{
	return cmd_run(file, opts);
}

static const struct command commands[] = {
	{ "check", "FILE.idf [--json]",
	  "Parse and validate FILE (no module needed); print its TGs as resolved.",
	  check_options, &check_defaults, sizeof(struct check_opts),
	  run_check },
	{ "run", "FILE.idf --batch [--json SUMMARY.json] [--start-delay TIME] [--device PATH]",
	  "Run the TGs of FILE on mtg.ko until they end or SIGINT/SIGTERM.",
	  run_options, &run_defaults, sizeof(struct run_opts), run_run },
	{ NULL, NULL, NULL, NULL, NULL, 0, NULL }
};

static const struct command *find_command(const char *name)
{
	const struct command *c;

	for (c = commands; c->name; c++)
		if (!strcmp(c->name, name))
			return c;
	return NULL;
}

static void command_help(FILE *out, const struct command *c)
{
	const struct prog_option *o;
	char left[64];

	fprintf(out, "Usage: mtgctl %s %s\n\n%s\n", c->name, c->args, c->doc);
	if (c->options[0].name)
		fprintf(out, "\nOptions:\n");
	for (o = c->options; o->name; o++) {
		snprintf(left, sizeof(left), "--%s%s%s", o->name,
			 o->metavar ? " " : "", o->metavar ? o->metavar : "");
		fprintf(out, "  %-26s %s\n", left, o->help);
	}
}

static void usage(FILE *out)
{
	const struct command *c;

	fprintf(out,
		"Usage: mtgctl COMMAND [OPTIONS] FILE.idf\n"
		"       mtgctl { help [COMMAND] | --version }\n"
		"\n"
		"COMMAND := { check | run }\n");
	for (c = commands; c->name; c++)
		fprintf(out, "  mtgctl %s %s\n        %s\n", c->name, c->args,
			c->doc);
	fprintf(out,
		"\n"
		"FILE.idf is an experiment description (Documentation/idf.rst).\n"
		"'mtgctl help COMMAND' lists a command's options.\n"
		"\n"
		"Exit status: 0 valid / every TG finished cleanly; 1 bad input or\n"
		"could not run; 2 ran, but errors were counted or a TG failed;\n"
		"128+N interrupted by signal N (130 SIGINT, 143 SIGTERM).\n"
		"\n"
		"Examples:\n"
		"  mtgctl check examples/demo.idf\n"
		"  mtgctl check examples/demo.idf --json | jq '.tgs[0].table.len'\n"
		"  sudo mtgctl run examples/demo.idf --batch --json demo.json\n"
		"  sudo mtgctl run many.idf --batch --start-delay 5\n");
}

/* Parse argv (argv[0] is the command) into opts; the FILE into *file. */
static int parse_options(const struct command *c, int argc, char **argv,
			 void *opts, const char **file)
{
	struct option longopts[16];
	const struct prog_option *o;
	const char *why;
	int n = 0, ch, idx;

	memcpy(opts, c->defaults, c->size);
	for (o = c->options; o->name && n < 14; o++, n++) {
		longopts[n].name = o->name;
		longopts[n].has_arg = o->type == OPT_BOOL ? no_argument :
			required_argument;
		longopts[n].flag = NULL;
		longopts[n].val = 256 + n;
	}
	longopts[n++] = (struct option){ "help", no_argument, NULL, 'h' };
	longopts[n] = (struct option){ NULL, 0, NULL, 0 };

	opterr = 0;
	optind = 1;
	while ((ch = getopt_long(argc, argv, ":h", longopts, &idx)) != -1) {
		if (ch == 'h') {
			command_help(stdout, c);
			exit(EXIT_OK);
		}
		if (ch == ':') {
			pr_err("%s: option '%s' needs a value (see 'mtgctl help %s')\n",
			       c->name, argv[optind - 1], c->name);
			return -1;
		}
		if (ch == '?' || ch < 256) {
			pr_err("%s: unknown option '%s' (see 'mtgctl help %s')\n",
			       c->name, argv[optind - 1], c->name);
			return -1;
		}
		o = &c->options[ch - 256];
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
		}
	}
	if (optind != argc - 1) {
		pr_err("%s: %s (usage: mtgctl %s %s)\n", c->name,
		       optind >= argc ? "no FILE given" : "more than one FILE given",
		       c->name, c->args);
		return -1;
	}
	*file = argv[optind];
	return 0;
}

int main(int argc, char **argv)
{
	const struct command *c;
	union {
		struct check_opts check;
		struct run_opts run;
	} opts;
	const char *file;

	if (argc < 2) {
		usage(stderr);
		return EXIT_ERROR;
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "version")) {
		printf("mtgctl %s (mtg ABI %u.%u)\n", MTGCTL_VERSION,
		       MTG_ABI_MAJOR, MTG_ABI_MINOR);
		return EXIT_OK;
	}
	if (!strcmp(argv[1], "help") || !strcmp(argv[1], "--help") ||
	    !strcmp(argv[1], "-h")) {
		if (argc > 2) {
			c = find_command(argv[2]);
			if (!c) {
				pr_err("no command '%s' (commands: check, run)\n",
				       argv[2]);
				return EXIT_ERROR;
			}
			command_help(stdout, c);
		} else {
			usage(stdout);
		}
		return EXIT_OK;
	}
	c = find_command(argv[1]);
	if (!c) {
		pr_err("unknown command '%s' (see 'mtgctl help')\n", argv[1]);
		return EXIT_ERROR;
	}
	if (parse_options(c, argc - 1, argv + 1, &opts, &file))
		return EXIT_ERROR;
	return c->run(file, &opts);
}
