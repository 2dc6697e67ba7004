// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * mtgctl show: the sessions of this network namespace and their TGs, with
 * every counter and the lateness histogram, from the module's generic
 * netlink family (nl/family.h), as `ip -s link` shows links; or as JSON.
 *
 *	show [session [ID]]	every session (or one), each with its TGs
 *	show tg [SID[:TG]]	the TGs alone: every one, a session's, one
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <netlink/errno.h>

#include "cmd/cmd.h"
#include "nl/family.h"
#include "nl/format.h"
#include "util/jw.h"

#define SHOW_USAGE	"mtgctl show [session [ID] | tg [SESSION[:TG]]] [--json] [--ids]"

struct show {
	struct mtg_nl *nl;
	bool json;
	struct jw j;
};

static int tg_shown(const struct mtg_nl_tg *t, void *arg)
{
	struct show *sh = arg;

	if (sh->json) {
		jw_obj_begin(&sh->j);
		nl_tg_json(&sh->j, t);
		jw_obj_end(&sh->j);
	} else {
		nl_tg_text(stdout, t, "    ", false);
	}
	return 0;
}

/* As tg_shown, a TG below its session's block. */
static int tg_in_session(const struct mtg_nl_tg *t, void *arg)
{
	struct show *sh = arg;

	if (sh->json)
		return tg_shown(t, arg);
	fputs("    ", stdout);
	nl_tg_text(stdout, t, "        ", false);
	return 0;
}

static int show_sessions(struct show *sh, uint64_t id)
{
	struct mtg_nl_session *s = NULL;
	size_t n = 0, i;
	int err;

	err = mtg_nl_sessions(sh->nl, id, &s, &n);
	if (err == -NLE_OBJ_NOTFOUND && id != MTG_NL_ALL) {
		pr_err("show: no session %llu in this network namespace\n",
		       (unsigned long long)id);
		return EXIT_ERROR;
	}
	if (err) {
		mtg_nl_perror("show", "session-get", err);
		return EXIT_ERROR;
	}
	if (sh->json)
		jw_arr_begin(&sh->j);
	for (i = 0; i < n && !err; i++) {
		if (sh->json) {
			jw_obj_begin(&sh->j);
			nl_session_json(&sh->j, &s[i], true);
			jw_key(&sh->j, "tg");
			jw_arr_begin(&sh->j);
		} else {
			nl_session_text(stdout, &s[i], true, false);
		}
		err = mtg_nl_tgs(sh->nl, s[i].id, MTG_NL_ALL, tg_in_session,
				 sh);
		if (sh->json) {
			jw_arr_end(&sh->j);
			jw_obj_end(&sh->j);
		}
	}
	if (sh->json)
		jw_arr_end(&sh->j);
	mtg_nl_sessions_free(s, n);
	if (err) {
		mtg_nl_perror("show", "tg-get", err);
		return EXIT_ERROR;
	}
	return EXIT_OK;
}

static int show_tgs(struct show *sh, uint64_t sid, uint64_t tg)
{
	int err;

	if (sh->json)
		jw_arr_begin(&sh->j);
	err = mtg_nl_tgs(sh->nl, sid, tg, tg_shown, sh);
	if (sh->json)
		jw_arr_end(&sh->j);
	if (err == -NLE_OBJ_NOTFOUND && tg != MTG_NL_ALL) {
		pr_err("show: no traffic generator %llu:%llu in this network namespace\n",
		       (unsigned long long)sid, (unsigned long long)tg);
		return EXIT_ERROR;
	}
	if (err) {
		mtg_nl_perror("show", "tg-get", err);
		return EXIT_ERROR;
	}
	return EXIT_OK;
}

/* A decimal id up to max, all of s. */
static int parse_id(const char *s, uint64_t max, uint64_t *v)
{
	char *end;

	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	*v = strtoull(s, &end, 10);
	return errno || *end || *v > max ? -1 : 0;
}

/* The object and its ids from the words after show; -1: said why. */
static int parse_what(int nargs, char **args, bool *tgs, uint64_t *sid,
		      uint64_t *tg)
{
	char buf[48], *colon;

	*tgs = nargs > 0 && !strcmp(args[0], "tg");
	*sid = *tg = MTG_NL_ALL;
	if (nargs > 0 && !*tgs && strcmp(args[0], "session")) {
		pr_err("show: unknown object '%s': session or tg (usage: %s)\n",
		       args[0], SHOW_USAGE);
		return -1;
	}
	if (nargs > 2) {
		pr_err("show: '%s' after %s %s (usage: %s)\n", args[2],
		       args[0], args[1], SHOW_USAGE);
		return -1;
	}
	if (nargs < 2)
		return 0;
	snprintf(buf, sizeof(buf), "%s", args[1]);
	colon = *tgs ? strchr(buf, ':') : NULL;
	if (colon)
		*colon = '\0';
	if (strlen(args[1]) >= sizeof(buf) ||
	    parse_id(buf, MTG_NL_ALL - 1, sid) ||
	    (colon && parse_id(colon + 1, UINT32_MAX, tg))) {
		pr_err("show: %s expects %s, got '%s' (usage: %s)\n", args[0],
		       *tgs ? "SESSION or SESSION:TG (numbers)" :
		       "a session id (a number)", args[1], SHOW_USAGE);
		return -1;
	}
	return 0;
}

int cmd_show(int nargs, char **args, const struct show_opts *o)
{
	struct show sh = { .json = o->json };
	uint64_t sid, tg;
	bool tgs;
	int err, ret;

	if (parse_what(nargs, args, &tgs, &sid, &tg))
		return EXIT_ERROR;
	if (o->ids) {
		if (nargs || o->json) {
			pr_err("show: --ids takes nothing else (usage: mtgctl show --ids)\n");
			return EXIT_ERROR;
		}
		mtg_nl_print_ids(stdout);
		return EXIT_OK;
	}
	err = mtg_nl_open(&sh.nl, false);
	if (err) {
		mtg_nl_perror("show", "open", err);
		return EXIT_ERROR;
	}
	if (sh.json)
		jw_init_compact(&sh.j, stdout);
	ret = tgs ? show_tgs(&sh, sid, tg) : show_sessions(&sh, sid);
	mtg_nl_close(sh.nl);
	if (fflush(stdout) || ferror(stdout)) {
		pr_err("show: writing to standard output: %s\n",
		       strerror(errno));
		return EXIT_ERROR;
	}
	return ret;
}
