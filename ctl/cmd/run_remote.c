// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Inside `mtgctl run`: the TGs with a `rcvr`, agreed with their remote
 * receivers over TSP before anything is sent (remote/sender.h), stopped
 * when their receiver goes away, and reported with the receiver's
 * figures (run.h).
 */
#include <errno.h>
#include <string.h>

#include "cmd/run.h"
#include "rx/summary.h"

/* The receivers, each once (an ITGRecv has a connection a flow). */
static size_t hosts_of(const struct rsend *s)
{
	size_t i, k, n = 0;

	for (i = 0; i < s->nrcvrs; i++) {
		for (k = 0; k < i && strcmp(s->rcvrs[k].name, s->rcvrs[i].name);
		     k++)
			;
		n += k == i;
	}
	return n;
}

int remote_agree(struct run *r)
{
	size_t i;
	int err;

	for (i = 0; i < r->ntgs; i++) {
		const struct run_tg *t = &r->tgs[i];

		if (!idf_has(t->tg, IDF_KW_rcvr))
			continue;
		if (rsend_add(&r->remote, t->tg, &t->tt, &t->dst,
			      idf_src_port(t->tg), t->req_bps, t->req_pps)) {
			pr_err("out of memory\n");
			return -ENOMEM;
		}
	}
	if (!r->remote.nflows)
		return 0;
	err = rsend_agree(&r->remote, r->f.key, r->run_id);
	/* what was learnt of the clocks, even when a flow was refused */
	for (i = 0; i < r->remote.nrcvrs; i++) {
		const struct rsend_rcvr *c = &r->remote.rcvrs[i];

		if (c->setup.valid)
			fprintf(r->say, "receiver %s: its clock %+lld ns from ours, +- %llu ns (best of %u exchanges)\n",
				c->name, (long long)c->setup.offset_ns,
				(unsigned long long)c->setup.uncertainty_ns,
				c->setup.samples);
	}
	if (err)
		return -EPERM;
	fprintf(r->say, "%zu TG%s agreed with %zu receiver%s over TSP\n",
		r->remote.nflows, r->remote.nflows == 1 ? "" : "s",
		hosts_of(&r->remote), hosts_of(&r->remote) == 1 ? "" : "s");
	return 0;
}

/* A receiver went away: its TGs stop (nothing may go to it now). */
void remote_watch(struct run *r)
{
	size_t i, k;
	int err;

	if (!r->remote.nflows || !rsend_poll(&r->remote))
		return;
	r->remote_lost = true;
	for (k = 0; k < r->remote.nflows; k++) {
		const struct rsend_flow *f = &r->remote.flows[k];

		if (!f->rcvr->lost || f->rcvr->up)
			continue;
		for (i = 0; i < r->ntgs && r->tgs[i].tg != f->tg; i++)
			;
		if (i == r->ntgs || !r->tgs[i].started ||
		    mtg_tg_ended(r->tgs[i].st.state))
			continue;
		err = mtg_dev_tg_kill(&r->dev, f->tg->id);
		fprintf(events_out(r), "TG %u stopped: its receiver %s went away: %s%s%s\n",
			f->tg->id, f->rcvr->name, f->rcvr->why,
			err && err != -ENOENT ? "; the kill failed: " : "",
			err && err != -ENOENT ? strerror(-err) : "");
	}
	fflush(events_out(r));
}

static const struct rsend_flow *flow_of(const struct run *r,
					const struct idf_tg *tg)
{
	size_t i;

	for (i = 0; i < r->remote.nflows; i++)
		if (r->remote.flows[i].tg == tg)
			return &r->remote.flows[i];
	return NULL;
}

void remote_report(const struct run *r, FILE *f)
{
	size_t i;

	for (i = 0; i < r->ntgs; i++) {
		const struct run_tg *t = &r->tgs[i];
		const struct rsend_flow *rf = flow_of(r, t->tg);
		const struct tsp_result *res;

		if (!rf)
			continue;
		res = &rf->res;
		fprintf(f, "TG %u at %s: ", t->tg->id, rf->rcvr->name);
		if (!rf->have_result) {
			fprintf(f, "no figures: %s\n", rf->why);
			continue;
		}
		if (t->tg->meter == IDF_METER_RTT) {
			/* the round trips are the run's own (its report) */
			fprintf(f, "%llu reflected, %llu lost on the way there%s\n",
				(unsigned long long)res->received,
				(unsigned long long)(t->st.sent > res->received ?
						     t->st.sent - res->received : 0),
				res->flags & TSP_RESULT_INCOMPLETE ?
				" (incomplete)" : "");
			continue;
		}
		fprintf(f, "%llu received, %llu lost, %llu duplicates, %llu reordered",
			(unsigned long long)res->received,
			(unsigned long long)(t->st.sent > res->received ?
					     t->st.sent - res->received : 0),
			(unsigned long long)res->duplicates,
			(unsigned long long)res->reordered);
		if (!(res->flags & TSP_RESULT_NO_OWD))
			fprintf(f, ", owd min %lld mean %lld max %lld ns, jitter %llu ns",
				(long long)res->owd_min_ns,
				(long long)res->owd_mean_ns,
				(long long)res->owd_max_ns,
				(unsigned long long)res->jitter_ns);
		if (!(res->flags & TSP_RESULT_NO_OWD) && rf->rcvr->setup.valid)
			fprintf(f, " (mean %lld ns with its clock brought to ours)",
				(long long)(res->owd_mean_ns -
					    rf->rcvr->setup.offset_ns));
		fprintf(f, "%s\n", res->flags & TSP_RESULT_INCOMPLETE ?
			" (incomplete)" : "");
	}
}

void remote_summary(const struct run *r, const struct run_tg *t,
		    struct summary_tg *out)
{
	const struct rsend_flow *rf = flow_of(r, t->tg);

	if (!rf)
		return;
	out->rcvr = rf->rcvr->name;
	out->remote = rf->have_result ? &rf->res : NULL;
	out->remote_why = rf->why;
	out->remote_ditg = rf->rcvr->ditg;
	out->remote_closed = rf->closed;
	out->clock_setup = &rf->rcvr->setup;
	out->clock_teardown = &rf->rcvr->teardown;
}
