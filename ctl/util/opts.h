/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A command's options, declared in one table (DEFINE_OPTION, after
 * xdp-tools'), from which mtgctl.c makes both the parser and the help.
 */
#ifndef MTGCTL_OPTS_H
#define MTGCTL_OPTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum opt_type {
	OPT_BOOL,		/* a flag */
	OPT_STRING,		/* an argument kept as given */
	OPT_SECONDS,		/* a time, seconds or with a unit, into ns */
	OPT_COUNT,		/* a number, suffixes k, M, G (uint64_t) */
};

struct prog_option {
	const char *name;
	char short_name;	/* 0: none */
	enum opt_type type;
	size_t offset;		/* of the field in the command's options */
	const char *metavar;
	const char *help;
	uint64_t min, max;	/* OPT_COUNT's range */
	bool pow2;		/* OPT_COUNT: a power of two */
};

#define DEFINE_OPTION(_name, _type, _struct, _field, ...)		\
	{ .name = (_name), .type = (_type),				\
	  .offset = offsetof(_struct, _field), __VA_ARGS__ }
#define END_OPTIONS	{ .name = NULL }

/* A command: its grammar, its options and what runs it. */
struct command {
	const char *name;
	const char *args;		/* the grammar after the name */
	const char *doc;
	const struct prog_option *options;
	const void *defaults;
	size_t size;			/* of the options structure */
	const char *arg_name;		/* of the positional arguments */
	int min_args, max_args;		/* how many; max -1: any */
	int (*run)(int nargs, char **args, const void *opts);
};

/* The command's usage, doc and a line per option. */
void opts_command_help(FILE *out, const struct command *c);
/*
 * Parse argv (argv[0] is the command) into opts, from the command's
 * defaults; the positional arguments are what is left from *first on.
 * 0, or -1 (said why). --help prints the help and exits.
 */
int opts_parse(const struct command *c, int argc, char **argv, void *opts,
	       int *first);
/*
 * A command that takes another tool's options (itgsend: ITGSend's, all
 * single-dash): mtgctl's own --long ones are parsed as opts_parse() does,
 * the rest go to the command as they are, in their order. Its exit status.
 */
int opts_run_foreign(const struct command *c, int argc, char **argv,
		     void *opts);

#endif /* MTGCTL_OPTS_H */
