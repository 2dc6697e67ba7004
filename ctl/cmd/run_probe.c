// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A run's test-point probes (IDF `probe`): attached before T0, so that no
 * packet of the run passes a probe's interface unstamped; read and
 * detached when the run ends, whichever way it ends. The probe itself
 * (bpf/probe.c) and its command (cmd/probe.c) are the same as
 * `mtgctl probe attach`'s (Documentation/ebpf.rst).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "bpf/probe.h"
#include "cmd/cmd.h"
#include "cmd/run.h"
#include "util/jw.h"
#include "util/text.h"

/* Where the IDF's probe is: a probe without @NETNS is in the global
 * `netns` when there is one, as `listen` is. */
static void probe_where_in(const struct run *r, const struct idf_probe *pr,
			   struct probe_id *id)
{
	memset(id, 0, sizeof(*id));
	strcpy(id->dev, pr->dev);
	strcpy(id->netns, pr->netns[0] ? pr->netns : r->f.globals.netns);
	id->slot = (int)pr->slot;
	id->egress = pr->egress;
}

int probes_attach(struct run *r)
{
	char name[IDF_PATH_MAX + 1];
	const struct idf_probe *pr;
	size_t i;

	if (!r->f.nprobes)
		return 0;
	r->probes = calloc(r->f.nprobes, sizeof(*r->probes));
	if (!r->probes) {
		pr_err("out of memory\n");
		return -ENOMEM;
	}
	for (i = 0; i < r->f.nprobes; i++) {
		pr = &r->f.probes[i];
		probe_where_in(r, pr, &r->probes[i].id);
		if (probe_attach(&r->probes[i].id)) {
			text_escape(name, sizeof(name),
				    idf_source_name(&r->f, pr->loc.src));
			fprintf(stderr, "%s:%u:%u: error: this 'probe' could not be attached (above)\n",
				name, pr->loc.line, pr->loc.col);
			return -1;
		}
		r->probes[i].state = PROBE_ATTACHED;
		r->nprobes = i + 1;
	}
	return 0;
}

void probes_detach(struct run *r)
{
	struct probe_info *now;
	size_t i, n;
	int done;

	if (!r->nprobes)
		return;		/* none attached, or detached already */
	for (i = 0; i < r->nprobes; i++) {
		struct probe_info *p = &r->probes[i];

		/* the last counters first: the report and the summary show them */
		if (!probe_list(&p->id, &now, &n)) {
			if (n == 1)
				*p = now[0];
			else
				p->state = PROBE_DETACHED;
			free(now);
		}
		if (probe_detach(&p->id, &done) && p->state == PROBE_ATTACHED)
			pr_warn("probe: %s%s%s slot %d left attached: mtgctl probe detach removes it\n",
				p->id.dev, p->id.netns[0] ? "@" : "",
				p->id.netns, p->id.slot);
	}
	r->nprobes_read = r->nprobes;
	r->nprobes = 0;
}

void probes_report(const struct run *r, FILE *f)
{
	size_t i;

	for (i = 0; i < r->nprobes_read; i++) {
		fprintf(f, "probe ");
		probe_info_print(f, &r->probes[i]);
	}
}

void probes_summary(struct jw *j, const void *arg)
{
	const struct run *r = arg;
	size_t i;

	jw_key(j, "probes");
	jw_arr_begin(j);
	for (i = 0; i < r->nprobes_read; i++)
		probe_info_json(j, &r->probes[i]);
	jw_arr_end(j);
}
