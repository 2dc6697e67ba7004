// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * mtgctl run: what the dashboard's keys, --commands on stdin and the IDF's
 * `ctrl` ask of the session: starts, kills, suspends, rates, control
 * messages, and what came of each (run.h).
 */
#include <errno.h>
#include <string.h>

#include "cmd/run.h"
#include "idf/units.h"

static struct run_tg *tg_by_id(struct run *r, uint32_t id)
{
	size_t i;

	for (i = 0; i < r->ntgs; i++)
		if (r->tgs[i].tg->id == id)
			return &r->tgs[i];
	return NULL;
}

static const char *ctrl_hint(int err)
{
	switch (err) {
	case ESRCH:
		return ": the TG was killed or failed";
	case ENOENT:
		return ": it has not started";
	case EMSGSIZE:
		return ": the frame would not fit the interface's MTU";
	}
	return "";
}

/* Send one control message now, say what came of it. 0 or -errno. */
static int ctrl_send(struct run *r, struct run_tg *t, const uint8_t *data,
		     size_t len, const char *what)
{
	FILE *f = events_out(r);
	char text[64];
	int err;

	err = mtg_dev_tg_ctrlmsg(&r->dev, t->tg->id, data, len);
	idf_data_str(data, len, text, sizeof(text));
	if (err)
		fprintf(f, "TG %u: control message %s (%s) not sent: %s%s\n",
			t->tg->id, text, what, strerror(-err), ctrl_hint(-err));
	else
		fprintf(f, "TG %u: control message %s sent (%s, %zu bytes)\n",
			t->tg->id, text, what, len);
	fflush(f);
	return err;
}

/* The IDF's `ctrl` messages that are due: sent, or counted as not. */
void ctrl_due(struct run *r, uint64_t now)
{
	char what[IDF_PATH_MAX + 32];
	size_t i;

	for (i = 0; i < r->ntgs; i++) {
		struct run_tg *t = &r->tgs[i];

		while (t->started && t->ctrl_next < t->nctrl &&
		       t->begin + t->ctrl[t->ctrl_next]->at <= now) {
			const struct idf_ctrl *c = t->ctrl[t->ctrl_next++];

			snprintf(what, sizeof(what), "%s:%u",
				 idf_source_name(&r->f, c->loc.src),
				 c->loc.line);
			if (ctrl_send(r, t, c->data, c->len, what))
				t->ctrl_unsent++;
		}
	}
}

/* When the next `ctrl` message is due; UINT64_MAX: none. */
uint64_t ctrl_next_due(const struct run *r)
{
	uint64_t due = UINT64_MAX;
	size_t i;

	for (i = 0; i < r->ntgs; i++) {
		const struct run_tg *t = &r->tgs[i];

		if (t->started && t->ctrl_next < t->nctrl &&
		    t->begin + t->ctrl[t->ctrl_next]->at < due)
			due = t->begin + t->ctrl[t->ctrl_next]->at;
	}
	return due;
}

/* A TG that ended but can still send a `ctrl` message keeps the run on. */
bool ctrl_pending(const struct run *r)
{
	size_t i;

	for (i = 0; i < r->ntgs; i++) {
		const struct run_tg *t = &r->tgs[i];

		if (t->started && t->ctrl_next < t->nctrl &&
		    t->st.state != MTG_TG_STATE_KILLED && t->st.state != MTG_TG_STATE_FAILED)
			return true;
	}
	return false;
}

/* The end: the messages never sent (their TG was killed first). */
void ctrl_end(struct run *r)
{
	size_t i;

	for (i = 0; i < r->ntgs; i++) {
		struct run_tg *t = &r->tgs[i];
		size_t left = t->nctrl - t->ctrl_next;

		if (!left)
			continue;
		fprintf(r->say, "TG %u: %zu control message%s not sent: the TG %s first\n",
			t->tg->id, left, left == 1 ? "" : "s",
			t->started ? "ended" : "never started");
		t->ctrl_unsent += left;
		t->ctrl_next = t->nctrl;
	}
}

/*
 * 's' and the `start` command: the TG goes now, whatever it was doing
 * (Documentation/mtgctl.rst, "The dashboard"). Waiting for the operator:
 * it starts. Waiting for its start time: it is stopped before it sent
 * anything and starts now. Suspended: it resumes. Ended (finished,
 * killed, failed): it starts again, its sequence numbers going on.
 */
static void start_now(struct run *r, struct run_tg *t, FILE *f)
{
	uint64_t now = now_tai();
	int err;

	if (stop_signal || r->quits) {
		fprintf(f, "TG %u: not started: the run is ending\n", t->tg->id);
		return;
	}
	if (!t->started) {
		if (!start_tg(r, t))	/* else it said why */
			fprintf(f, "TG %u started\n", t->tg->id);
		return;
	}
	switch (t->st.state) {
	case MTG_TG_STATE_SUSPENDED:
		err = mtg_dev_tg_resume(&r->dev, t->tg->id);
		if (err)
			fprintf(f, "TG %u: resume refused: %s\n", t->tg->id,
				strerror(-err));
		else
			fprintf(f, "TG %u resumed\n", t->tg->id);
		return;
	case MTG_TG_STATE_RUNNING:
		if (now >= t->start.start_ns || t->st.next_seq) {
			fprintf(f, "TG %u is running already\n", t->tg->id);
			return;
		}
		/* Its start time has not come: stopped, it goes at once. */
		err = mtg_dev_tg_kill(&r->dev, t->tg->id);
		if (err) {
			fprintf(f, "TG %u: kill refused: %s\n", t->tg->id,
				strerror(-err));
			return;
		}
		t->begin = 0;
		if (!restart_tg(r, t)) {
			t->starts--;	/* it had not started sending */
			t->begin = t->start.start_ns - t->tt.first_ns;
			fprintf(f, "TG %u started now, before its start time\n",
				t->tg->id);
		} else {
			t->st.state = MTG_TG_STATE_KILLED;
		}
		return;
	default:
		if (!restart_tg(r, t))
			fprintf(f, "TG %u started again: sequence numbers go on from %llu\n",
				t->tg->id, (unsigned long long)t->st.next_seq);
		return;
	}
}

/* What a key asked for; what came of it goes to the event pane. */
void carry_out(struct run *r, const struct dash_action *a)
{
	struct run_tg *t = tg_by_id(r, a->tg_id);
	FILE *f = events_out(r);
	const char *name = NULL, *done = NULL;
	uint32_t num, den;
	int err = 0;

	if (a->act == DASH_QUIT) {
		r->quits++;
		fprintf(f, "quit: every TG killed, finishing%s\n",
			r->listening ? " the recording" : "");
	} else if (a->act == DASH_START_USER) {
		fprintf(f, start_all(r, true) ?
			"the TGs waiting for the operator could not start\n" :
			"the TGs waiting for the operator started\n");
	}
	if (!t)
		goto out;
	switch (a->act) {
	case DASH_START:
		start_now(r, t, f);
		break;
	case DASH_KILL:
		name = "kill";
		done = "killed";
		err = mtg_dev_tg_kill(&r->dev, t->tg->id);
		break;
	case DASH_SUSPEND:
		name = "suspend";
		done = "suspended";
		err = mtg_dev_tg_suspend(&r->dev, t->tg->id);
		break;
	case DASH_RESUME:
		name = "resume";
		done = "resumed";
		err = mtg_dev_tg_resume(&r->dev, t->tg->id);
		break;
	case DASH_CTRLMSG:
		ctrl_send(r, t, a->data, a->len,
			  r->dash_on ? "from the keyboard" : "command");
		break;
	case DASH_RATE:
		name = "throughput change";
		/* factors are powers of two: exact as a fraction */
		num = a->factor >= 1 ? (uint32_t)a->factor : 1;
		den = a->factor >= 1 ? 1 : (uint32_t)(1.0 / a->factor);
		err = mtg_dev_tg_set_rate(&r->dev, t->tg->id, num, den);
		if (!err) {
			rate_record(r, t, num, den, r->dash_on ?
				    REC_RATE_BY_KEY : REC_RATE_BY_COMMAND);
			t->rate_factor = a->factor;
			fprintf(f, "TG %u: throughput x%g of the requested\n",
				t->tg->id, a->factor);
		}
		break;
	default:
		break;
	}
	if (err)
		fprintf(f, "TG %u: %s refused: %s%s\n", t->tg->id, name,
			strerror(-err), t->started ? "" : " (it has not started)");
	else if (done)
		fprintf(f, "TG %u %s\n", t->tg->id, done);
out:
	fflush(f);
}

/* --commands: the lines waiting on standard input, carried out as keys. */
void take_commands(struct run *r)
{
	struct dash_action a;
	char why[160];
	FILE *f = events_out(r);

	while (cmd_input_next(&r->cmds, &a, why, sizeof(why)) > 0) {
		if (why[0])
			fprintf(f, "commands:%u: %s\n", r->cmds.line, why);
		else if (a.act != DASH_NONE && a.act != DASH_QUIT &&
			 !tg_by_id(r, a.tg_id))
			fprintf(f, "commands:%u: no TG %u in %s\n", r->cmds.line,
				a.tg_id, r->file);
		else if (a.act != DASH_NONE)
			carry_out(r, &a);
		fflush(f);
	}
}
