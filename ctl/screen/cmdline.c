// SPDX-License-Identifier: GPL-2.0-or-later
/* Commands on standard input (cmdline.h). */
#include <ctype.h>
#include <errno.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "idf/units.h"
#include "screen/cmdline.h"

void cmd_input_open(struct cmd_input *in, int fd)
{
	memset(in, 0, sizeof(*in));
	in->fd = fd;
}

/* More bytes if some are waiting; at the end (or an error), close. */
static void fill(struct cmd_input *in)
{
	struct pollfd p = { .fd = in->fd, .events = POLLIN };
	ssize_t n;

	if (in->fd < 0 || in->len == CMD_LINE_MAX || poll(&p, 1, 0) <= 0)
		return;
	n = read(in->fd, in->buf + in->len, CMD_LINE_MAX - in->len);
	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return;
	if (n <= 0) {
		in->fd = -1;	/* not ours to close: standard input */
		return;
	}
	in->len += (size_t)n;
}

static const struct {
	const char *name;
	enum dash_act act;
} commands[] = {
	{ "ctrl", DASH_CTRLMSG },
	{ "start", DASH_START },
	{ "kill", DASH_KILL },
	{ "suspend", DASH_SUSPEND },
	{ "resume", DASH_RESUME },
	{ "rate", DASH_RATE },
	{ "quit", DASH_QUIT },
};

/* A power of two from 1 to 65536 (the module's bound on num and den). */
static bool rate_term(const char *s, char **end, unsigned long *v)
{
	errno = 0;
	*v = isdigit((unsigned char)*s) ? strtoul(s, end, 10) : 0;
	return !errno && *v && *v <= 65536 && !(*v & (*v - 1));
}

/*
 * `rate TG FACTOR`: the throughput FACTOR times the timetable's, as the
 * dashboard's +, -, = make it: N or 1/N, N a power of two up to 65536.
 */
static void parse_rate(const char *s, struct dash_action *a, char *why,
		       size_t why_size)
{
	unsigned long num, den = 1;
	char *end;

	if (!rate_term(s, &end, &num) ||
	    (*end == '/' && !rate_term(end + 1, &end, &den)) ||
	    *end || (num > 1 && den > 1)) {
		snprintf(why, why_size,
			 "'rate' expects a factor N or 1/N after the TG number, N a power of two from 1 to 65536, got '%.40s'",
			 s);
		return;
	}
	a->act = DASH_RATE;
	a->factor = (double)num / (double)den;
}

/* One line (NUL-terminated, no newline) into *a. */
static void parse(struct cmd_input *in, char *s, struct dash_action *a,
		  char *why, size_t why_size)
{
	const char *data_why;
	unsigned long long id;
	size_t i, n;
	char *word, *end;

	while (isspace((unsigned char)*s))
		s++;
	n = strlen(s);
	while (n && isspace((unsigned char)s[n - 1]))
		s[--n] = '\0';
	if (!*s || *s == '#')
		return;
	word = s;
	while (*s && !isspace((unsigned char)*s))
		s++;
	if (*s)
		*s++ = '\0';
	while (isspace((unsigned char)*s))
		s++;
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(word, commands[i].name))
			break;
	if (i == sizeof(commands) / sizeof(commands[0])) {
		snprintf(why, why_size,
			 "unknown command '%.40s' (ctrl, start, kill, suspend, resume, rate, quit)",
			 word);
		return;
	}
	if (commands[i].act == DASH_QUIT) {
		if (*s)
			snprintf(why, why_size, "'quit' takes nothing, got '%.40s'",
				 s);
		else
			a->act = DASH_QUIT;
		return;
	}
	errno = 0;
	id = isdigit((unsigned char)*s) ? strtoull(s, &end, 10) : 0;
	if (!id || errno || id > UINT32_MAX ||
	    (*end && !isspace((unsigned char)*end))) {
		snprintf(why, why_size, "'%s' expects a TG number, got '%.40s'",
			 word, s);
		return;
	}
	while (isspace((unsigned char)*end))
		end++;
	if (commands[i].act == DASH_RATE) {
		parse_rate(end, a, why, why_size);
		a->tg_id = (uint32_t)id;
		return;
	}
	if (commands[i].act != DASH_CTRLMSG) {
		if (*end)
			snprintf(why, why_size,
				 "'%s' takes a TG number only, got '%.40s' after it",
				 word, end);
		else
			a->act = commands[i].act;
		a->tg_id = (uint32_t)id;
		return;
	}
	if (!*end) {
		snprintf(why, why_size, "'ctrl' expects a message after the TG number");
		return;
	}
	if (idf_parse_data(end, in->data, sizeof(in->data), &a->len,
			   &data_why)) {
		snprintf(why, why_size, "'ctrl': the message %s", data_why);
		return;
	}
	a->act = DASH_CTRLMSG;
	a->tg_id = (uint32_t)id;
	a->data = in->data;
}

int cmd_input_next(struct cmd_input *in, struct dash_action *a, char *why,
		   size_t why_size)
{
	char *nl;
	size_t n;

	memset(a, 0, sizeof(*a));
	a->act = DASH_NONE;
	why[0] = '\0';
	for (;;) {
		nl = memchr(in->buf, '\n', in->len);
		if (nl)
			break;
		if (in->fd < 0 && in->len) {	/* a last line without '\n' */
			nl = in->buf + in->len++;
			break;
		}
		if (in->len == CMD_LINE_MAX) {
			/* Too long: said once, skipped to its end. */
			in->len = 0;
			if (!in->overlong) {
				in->overlong = true;
				in->line++;
				snprintf(why, why_size,
					 "longer than %d bytes: skipped",
					 CMD_LINE_MAX);
				return 1;
			}
		}
		n = in->len;
		fill(in);
		if (in->len == n)
			return 0;
	}
	*nl = '\0';
	n = (size_t)(nl - in->buf) + 1;
	if (in->overlong) {
		in->overlong = false;
	} else {
		in->line++;
		parse(in, in->buf, a, why, why_size);
	}
	memmove(in->buf, in->buf + n, in->len - n);
	in->len -= n;
	return 1;
}
