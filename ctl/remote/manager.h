/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The manager's side of TSP's jobs (Documentation/tsp.rst "The manager
 * and its daemons"): one connection per host's `mtgctl daemon`, its part
 * offered (the file's text, the host's name, the run id), its readiness
 * awaited, its start sent, its progress and summary taken as they come.
 * What is shown and merged is mtgctl manage's.
 */
#ifndef MTGCTL_REMOTE_MANAGER_H
#define MTGCTL_REMOTE_MANAGER_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "idf/idf.h"
#include "tsp/conn.h"

#define MGR_DIAL_MS	5000	/* connect and authenticate */
#define MGR_READY_MS	120000	/* a part prepared: tables, module */
#define MGR_SEND_MS	5000

enum mhost_state {
	MH_IDLE,		/* not contacted */
	MH_OFFERED,		/* its part sent, readiness awaited */
	MH_READY,		/* prepared and held */
	MH_RUNNING,		/* started */
	MH_ENDED,		/* TSP_JOB_END came */
	MH_FAILED,		/* refused, unreachable, or lost */
};

struct mhost_tg {
	uint32_t tgid;
	struct tsp_job_row row;	/* the last progress; tgid 0: none yet */
};

struct mhost {
	const struct idf_host *h;
	/*
	 * Its part's run id: the manager's plus its index (0 skipped). A
	 * receiver's module gives a run's packets to one session, so two
	 * hosts sending one run to one receiver would have one of them see
	 * nothing of its flows.
	 */
	uint32_t run_id;
	char addr[TSP_PEER_NAME];	/* its daemon's ADDR:PORT */
	struct tsp_conn c;
	enum mhost_state state;
	bool was_running;	/* failed after its start: lost mid-run */
	bool said;		/* its loss said */
	char why[TSP_MAX_TEXT + 200];
	uint32_t tgs;		/* its TGs, as its daemon counted them */
	struct mhost_tg *rows;	/* its TGs, as the file has them */
	size_t nrows;
	uint64_t elapsed_ns;	/* its last progress's */
	int status;		/* its run's exit status, once ended */
	bool killed;		/* its daemon ended the run (dropped) */
	char *summary;		/* its run's summary, NUL-terminated */
	uint32_t sum_len, sum_got;
};

struct mgr {
	struct tsp_key key;
	uint32_t run_id;	/* the first host's; the others' follow it */
	struct mhost *hosts;	/* the hosts some TG names, in the file's order */
	size_t nhosts;
};

/*
 * The hosts f's TGs name, each with its TGs; the key loaded. 0, or -1
 * with why.
 */
int mgr_init(struct mgr *m, const struct idf_file *f, uint32_t run_id,
	     char *why, size_t len);
void mgr_free(struct mgr *m);

/*
 * Every host dialled and offered its part (file's text, named name);
 * then their answers awaited until each is ready or failed, or *stop is
 * set (a signal). true when every host is ready.
 */
bool mgr_prepare(struct mgr *m, const struct idf_file *f, const char *name,
		 const volatile sig_atomic_t *stop);
/* Every host not failed told to drop its part (why), its connection closed. */
void mgr_drop(struct mgr *m, const char *why);
/* TSP_JOB_START to every ready host: 0, or -1 (a host failed: h->why). */
int mgr_start(struct mgr *m, uint64_t t0);
/*
 * One turn: each running host's messages, waiting up to ms. The hosts
 * that failed in it are in state MH_FAILED with why.
 */
void mgr_poll(struct mgr *m, int ms);
/* Every host ended or failed. */
bool mgr_done(const struct mgr *m);
/* "ready", "running", ... */
const char *mhost_state_name(enum mhost_state s);

#endif /* MTGCTL_REMOTE_MANAGER_H */
