/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The generic netlink family "mtg" (Documentation/netlink.rst), through
 * libnl-genl-3: the family looked up by name, its sessions and TGs got or
 * dumped, its events group heard. The command, attribute and value names
 * are the generated uapi's (uapi/linux/mtg_netlink.h, from the YAML spec);
 * the attributes mtgctl reads, their types and the words it shows for the
 * values are listed once, in family.c and names.c, and `mtgctl show --ids`
 * prints them for tests/host/test_nl_ids.py to check against the spec.
 */
#ifndef MTGCTL_NL_FAMILY_H
#define MTGCTL_NL_FAMILY_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "uapi/mtg.h"

#define MTG_NL_ALL	UINT64_MAX	/* a session or TG id: every one */
#define MTG_NL_TEXT_MAX	64		/* comm and interface names, NUL too */

/* An interface a session holds or lost (attribute set iface). */
struct mtg_nl_iface {
	uint32_t id;
	uint32_t ifindex;
	uint32_t state;			/* MTG_IFACE_STATE_* */
	uint64_t netns_cookie;
	char name[MTG_NL_TEXT_MAX];
};

/* A session (attribute set session); iface-lost-ntf fills id and iface. */
struct mtg_nl_session {
	uint64_t id;
	uint32_t pid;
	char comm[MTG_NL_TEXT_MAX];
	uint32_t flags;			/* MTG_SESSION_FLAGS_* */
	uint64_t mem_bytes;
	uint32_t ifaces, ifaces_lost;
	uint64_t events;		/* notifications raised */
	uint32_t tgs;			/* TGs started */
	struct mtg_nl_iface *iface;	/* n_iface of them, malloc'd */
	size_t n_iface;
};

/*
 * A TG (attribute set tg): its state, error, CPU and counters in the
 * ioctl's structure (st.tg_id is its id), the rest beside.
 */
struct mtg_nl_tg {
	uint64_t session_id;
	uint32_t flags;			/* MTG_TG_FLAGS_* */
	uint32_t ifindex;
	uint32_t run_id;
	uint32_t event;			/* tg-event-ntf: MTG_TG_EVENT_*, else 0 */
	struct mtg_tg_stats st;
};

/* A notification of the events group: cmd is MTG_CMD_*_NTF. */
struct mtg_nl_event {
	uint8_t cmd;
	const struct mtg_nl_session *session;	/* session-*, iface-lost */
	const struct mtg_nl_tg *tg;		/* tg-event */
};

struct mtg_nl;

/*
 * A socket on the family of this network namespace; events: one that
 * hears the events group instead (mtg_nl_events). 0 or -NLE_* (the
 * family absent: -NLE_OBJ_NOTFOUND); mtg_nl_perror says it.
 */
int mtg_nl_open(struct mtg_nl **nl, bool events);
void mtg_nl_close(struct mtg_nl *nl);
/* "CMD: what failed: why", on stderr; the family absent said as such. */
void mtg_nl_perror(const char *cmd, const char *what, int err);

/*
 * Session id (session-get do), or every session (MTG_NL_ALL: dump), into
 * *out (n of them, mtg_nl_sessions_free). 0 or -NLE_* (no such session:
 * -NLE_OBJ_NOTFOUND).
 */
int mtg_nl_sessions(struct mtg_nl *nl, uint64_t id,
		    struct mtg_nl_session **out, size_t *n);
void mtg_nl_sessions_free(struct mtg_nl_session *s, size_t n);

/*
 * TG tg of session sid (tg-get do), or the TGs of session sid, or of every
 * session (tg MTG_NL_ALL; sid MTG_NL_ALL: dump), each handed to cb as it
 * comes; a non-zero return of cb stops and is returned. 0 or -NLE_*.
 */
int mtg_nl_tgs(struct mtg_nl *nl, uint64_t sid, uint64_t tg,
	       int (*cb)(const struct mtg_nl_tg *t, void *arg), void *arg);

/* The socket to poll (events). */
int mtg_nl_fd(const struct mtg_nl *nl);
/*
 * Every notification waiting (without blocking), each handed to cb in
 * order. 0 when none is left, MTG_NL_OVERRUN when the socket's buffer
 * overran (the kernel dropped notifications: count them), or -NLE_*.
 */
#define MTG_NL_OVERRUN	1
int mtg_nl_events(struct mtg_nl *nl,
		  void (*cb)(const struct mtg_nl_event *e, void *arg),
		  void *arg);

/* The names and numbers mtgctl uses of the family, one a line (--ids). */
void mtg_nl_print_ids(FILE *f);

/* names.c: the words shown for the family's values (the spec's, '_' for '-'). */
const char *mtg_nl_iface_state_name(uint32_t state);
/* The words of the bits set in flags, sep between, to f; "-" for none. */
void mtg_nl_print_session_flags(FILE *f, uint32_t flags, const char *sep);
void mtg_nl_print_tg_flags(FILE *f, uint32_t flags, const char *sep);
void mtg_nl_print_tg_events(FILE *f, uint32_t events, const char *sep);

struct jw;
/* The same as JSON arrays of strings. */
void mtg_nl_session_flags_json(struct jw *j, uint32_t flags);
void mtg_nl_tg_flags_json(struct jw *j, uint32_t flags);
void mtg_nl_tg_events_json(struct jw *j, uint32_t events);
/* The value lists of names.c, for mtg_nl_print_ids. */
void mtg_nl_print_value_ids(FILE *f);

#endif /* MTGCTL_NL_FAMILY_H */
