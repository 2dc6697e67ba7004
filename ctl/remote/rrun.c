// SPDX-License-Identifier: GPL-2.0-or-later
/* A run received for a remote sender (rrun.h). */
#include <errno.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "module/iface.h"
#include "remote/rrun.h"
#include "rx/summary.h"
#include "util/clock.h"
#include "util/log.h"

struct rrun *rrun_new(const struct rrun_cfg *c, uint32_t run_id, char *why,
		      size_t len)
{
	struct rrun *run = calloc(1, sizeof(*run));
	int err;

	if (!run) {
		snprintf(why, len, "out of memory");
		return NULL;
	}
	run->run_id = run_id;
	run->dev.fd = -1;
	err = mtg_dev_open(&run->dev, c->device);
	if (!err)
		err = mtg_dev_alloc(&run->dev, 0, c->ring, 0);
	if (err) {
		snprintf(why, len, "the receive path could not be opened: %s: %s",
			 c->device, strerror(-err));
		mtg_dev_close(&run->dev);
		free(run);
		return NULL;
	}
	return run;
}

/*
 * What the TG measures: *slot -1 (one way: "meter" "owd", or none, as an
 * mtg before round trips sends) or the reflector's slot; 0, or -1 (why).
 */
static int meter_of(json_t *o, int *slot, char *why, size_t len)
{
	json_t *meter = json_object_get(o, "meter");
	json_t *s = json_object_get(o, "rtt_slot");

	*slot = -1;
	if (!meter || (json_is_string(meter) &&
		       !strcmp(json_string_value(meter), "owd")))
		return 0;
	if (!json_is_string(meter) || strcmp(json_string_value(meter), "rtt")) {
		snprintf(why, len, "the TG's JSON has a \"meter\" other than \"owd\" or \"rtt\"");
		return -1;
	}
	if (!json_is_integer(s) || json_integer_value(s) < 0 ||
	    json_integer_value(s) >= IDF_PROBE_SLOTS) {
		snprintf(why, len, "the TG's JSON has \"meter\" \"rtt\" without an \"rtt_slot\" of 0 to %d",
			 IDF_PROBE_SLOTS - 1);
		return -1;
	}
	*slot = (int)json_integer_value(s);
	return 0;
}

/* The header the TG's packets carry: 0, or -1 (why). */
static int header_of(json_t *o, const struct tsp_flow_req *r,
		     struct rflow_how *how, char *why, size_t len)
{
	json_t *h = json_object_get(o, "header");

	how->ditg_port = 0;
	if (!h || (json_is_string(h) && !strcmp(json_string_value(h), "mtg")))
		return 0;
	if (!json_is_string(h) || strcmp(json_string_value(h), "ditg")) {
		snprintf(why, len, "the TG's JSON has a \"header\" other than \"mtg\" or \"ditg\"");
		return -1;
	}
	how->ditg_port = r->port;
	return 0;
}

int rrun_tg_check(const struct tsp_flow_req *r, uint32_t flow_id,
		  char **compact, struct rflow_how *how, char *why,
		  size_t len)
{
	json_error_t jerr;
	json_t *o, *id, *port;
	int ret = -1;

	*compact = NULL;
	*how = (struct rflow_how){ .rtt_slot = -1 };
	o = json_loads(r->tg_json ? r->tg_json : "", 0, &jerr);
	if (!o) {
		snprintf(why, len, "the TG's JSON does not parse: %s (byte %d)",
			 jerr.text, jerr.position);
		return -1;
	}
	id = json_object_get(o, "id");
	port = json_object_get(json_object_get(o, "dst"), "port");
	if (!json_is_object(o))
		snprintf(why, len, "the TG's JSON is not an object");
	else if (!json_is_integer(id) || json_integer_value(id) != flow_id)
		snprintf(why, len, "the TG's JSON has an \"id\" other than the flow id %u",
			 flow_id);
	else if (!json_is_integer(port) || json_integer_value(port) != r->port)
		snprintf(why, len, "the TG's JSON has a \"dst\" port other than the request's %u",
			 r->port);
	else if (meter_of(o, &how->rtt_slot, why, len) ||
		 header_of(o, r, how, why, len))
		;
	else if (!(*compact = json_dumps(o, JSON_COMPACT | JSON_ENSURE_ASCII)))
		snprintf(why, len, "out of memory");
	else
		ret = 0;
	json_decref(o);
	return ret;
}

int rrun_add(struct rrun *run, uint32_t id, char *json, const char *dev,
	     const struct rflow_how *how)
{
	struct rflow *n = realloc(run->flows, (run->nflows + 1) * sizeof(*n));

	if (!n)
		return -1;
	run->flows = n;
	n = &run->flows[run->nflows++];
	memset(n, 0, sizeof(*n));
	n->id = id;
	n->json = json;
	n->how = *how;
	snprintf(n->dev, sizeof(n->dev), "%s", dev);
	return 0;
}

struct rflow *rrun_flow(struct rrun *run, uint32_t id)
{
	size_t i;

	for (i = 0; i < run->nflows; i++)
		if (run->flows[i].id == id)
			return &run->flows[i];
	return NULL;
}

/* DIR/run-ID-SENDER.mtgrec, SENDER's address with '-' for ':', and a
 * number if that is taken: never another run's file. */
static int pick_paths(const struct rrun_cfg *c, struct rrun *run,
		      const char *sender, char *why, size_t len)
{
	char who[64], *p;
	unsigned int n;

	snprintf(who, sizeof(who), "%s", sender[0] == '[' ? sender + 1 : sender);
	p = strrchr(who, sender[0] == '[' ? ']' : ':');
	if (p)
		*p = '\0';
	for (p = who; *p; p++)
		if (*p == ':')
			*p = '-';
	for (n = 1; n < 1000; n++) {
		char sfx[16] = "";

		if (n > 1)
			snprintf(sfx, sizeof(sfx), ".%u", n);
		snprintf(run->path, sizeof(run->path), "%s/run-%u-%s%s.mtgrec",
			 c->dir, run->run_id, who, sfx);
		snprintf(run->summary, sizeof(run->summary),
			 "%s/run-%u-%s%s.json", c->dir, run->run_id, who, sfx);
		if (access(run->path, F_OK) && access(run->summary, F_OK))
			return 0;
	}
	snprintf(why, len, "%s/run-%u-%s.mtgrec and 998 others exist", c->dir,
		 run->run_id, who);
	return -1;
}

int rrun_start(const struct rrun_cfg *c, struct rrun *run,
	       const struct tsp_start *st, const char *sender, char *why,
	       size_t len)
{
	struct idf_listen *want = calloc(run->nflows, sizeof(*want));
	const char **raw = calloc(run->nflows, sizeof(*raw));
	struct netns_cache nc = { 0 };
	struct rec_meta mi = {
		.command = "recv",
		.run_id = run->run_id,
		.start_ns = st->start_ns,
		.ring_records = c->ring,
		.tsp_sender = sender,
		.tsp_key = c->key_path,
		.tsp_offset_ns = st->offset_ns,
		.tsp_uncertainty_ns = st->uncertainty_ns,
	};
	size_t i, j, n = 0;
	bool oom = false;
	int ret = -1;

	if (!want || !raw) {
		snprintf(why, len, "out of memory");
		goto out;
	}
	for (i = 0; i < run->nflows; i++) {
		raw[i] = run->flows[i].json;
		for (j = 0; j < n && strcmp(want[j].dev, run->flows[i].dev); j++)
			;
		if (j == n)
			snprintf(want[n++].dev, sizeof(want->dev), "%s",
				 run->flows[i].dev);
	}
	if (listening_resolve(&run->ls, want, n, "", &nc)) {
		snprintf(why, len, "an interface of the run's flows went away");
		goto out;
	}
	for (i = 0; i < run->nflows; i++) {
		uint16_t port = run->flows[i].how.ditg_port;
		/* a round trip's datagrams go back at XDP: none to record */
		int err = port && !run->flows[i].how.ditg_rtt ?
			mtg_dev_rx_ditg(&run->dev, port, run->run_id, true) : 0;

		if (err) {
			snprintf(why, len, "D-ITG's packets to port %u cannot be recorded: %s",
				 port, strerror(-err == EEXIST ? EADDRINUSE :
						 -err));
			goto out;
		}
	}
	if (pick_paths(c, run, sender, why, len))
		goto out;
	if (listening_create(&run->ls, run->path, false)) {
		snprintf(why, len, "cannot create the recording %s", run->path);
		goto out;
	}
	if (listening_attach(&run->ls, &run->dev, run->run_id, false,
			     now_tai())) {
		snprintf(why, len, "cannot listen on the flows' interfaces");
		goto out_abandon;
	}
	run->ls.rx.events = c->say;
	run->ls.rx.clock_shift_ns = c->clock_shift_ns;
	for (i = 0; i < run->nflows && !oom; i++)
		run->flows[i].m = meter_find(&run->ls.rx.meters, run->run_id,
					     run->flows[i].id, true, &oom);
	mi.devs = run->ls.devs;
	mi.ndevs = run->ls.ndevs;
	mi.tg_raw = raw;
	mi.nraw = run->nflows;
	run->ls.log_cfg = c->log;
	if (oom || listening_begin(&run->ls, &mi)) {
		snprintf(why, len, "cannot begin the recording %s", run->path);
		goto out_abandon;
	}
	listening_commit(&run->ls);
	run->t0 = st->start_ns;
	run->offset_ns = st->offset_ns;
	run->uncertainty_ns = st->uncertainty_ns;
	run->started = true;
	ret = 0;
	goto out;
out_abandon:
	listening_abandon(&run->ls);
out:
	netns_cache_close(&nc);
	free(want);
	free(raw);
	return ret;
}

void rrun_poll(struct rrun *run, uint64_t now)
{
	if (run->started)
		listening_poll(&run->ls, now);
}

void rrun_result(const struct rrun_cfg *c, const struct rrun *run,
		 const struct rflow *f, bool incomplete,
		 struct tsp_result *out)
{
	const struct meter *m = f->m;

	memset(out, 0, sizeof(*out));
	out->flags = incomplete ? TSP_RESULT_INCOMPLETE : 0;
	if (f->how.rtt_slot >= 0) {
		/* the round trips are the sender's to measure */
		out->received = rtt_reflected(c->rtt, f->dev, run->run_id,
					      f->id);
		out->flags |= TSP_RESULT_NO_OWD;
		return;
	}
	if (!run->started || !m) {
		out->flags |= TSP_RESULT_NO_OWD;
		return;
	}
	out->received = m->received;
	out->lost = meter_lost(m, -1);
	out->duplicates = m->duplicates;
	out->reordered = m->reordered;
	out->bytes = m->bytes;
	if (m->owd_count) {
		out->owd_min_ns = (int64_t)m->owd_min;
		out->owd_mean_ns = (int64_t)(m->owd_sum / m->owd_count);
		out->owd_max_ns = (int64_t)m->owd_max;
		out->jitter_ns = (uint64_t)m->jitter_ns;
	} else {
		out->flags |= TSP_RESULT_NO_OWD;
	}
	out->first_rx_ns = m->first_rx_ns;
	out->last_rx_ns = m->last_rx_ns;
}

bool rrun_all_closed(const struct rrun *run)
{
	size_t i;

	for (i = 0; i < run->nflows; i++)
		if (!run->flows[i].closed)
			return false;
	return true;
}

void rrun_end(const struct rrun_cfg *c, struct rrun *run, bool incomplete,
	      const char *sender, const char *why)
{
	uint64_t end = now_tai();
	size_t i;

	if (run->started) {
		int err;

		listening_end(&run->ls, end);
		/* the flows' meters, made in the flows' order at the start */
		err = listening_summary_write(&run->ls, run->summary, "recv",
					      run->run_id, run->t0, end,
					      incomplete);
		if (err)
			pr_err("cannot write the summary %s: %s\n",
			       run->summary, strerror(-err));
		fprintf(c->say, "run %u from %s: %s, %llu records in %s%s%s\n",
			run->run_id, sender, incomplete ? "incomplete" :
			"complete", (unsigned long long)run->ls.rec.written,
			run->path, why ? ": " : "", why ? why : "");
	} else {
		listening_abandon(&run->ls);
		fprintf(c->say, "run %u from %s: never started, nothing recorded%s%s\n",
			run->run_id, sender, why ? ": " : "", why ? why : "");
	}
	for (i = 0; i < run->nflows; i++) {
		const struct rflow *f = &run->flows[i];

		if (f->how.rtt_slot >= 0) {
			rtt_forget(c->rtt, f->dev, run->run_id, f->id);
		} else if (f->how.ditg_rtt) {
			fprintf(c->say, "run %u: D-ITG flow %u: %llu datagrams sent back on %s\n",
				run->run_id, f->id, (unsigned long long)
				rtt_reflected(c->rtt, f->dev, REFLECT_DITG_RUN,
					      f->how.ditg_port), f->dev);
			rtt_forget(c->rtt, f->dev, REFLECT_DITG_RUN,
				   f->how.ditg_port);
		}
	}
	fflush(c->say);
	mtg_dev_close(&run->dev);
	listening_free(&run->ls);
	for (i = 0; i < run->nflows; i++)
		free(run->flows[i].json);
	free(run->flows);
	free(run);
}
