// SPDX-License-Identifier: GPL-2.0-or-later
/* A receiver's round trips through the XDP reflector (rtt.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bpf/reflector.h"
#include "remote/rtt.h"
#include "tsp/wire.h"

static struct rtt_dev *find(const struct rtt_set *s, const char *dev)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		if (!strcmp(s->devs[i].dev, dev))
			return &s->devs[i];
	return NULL;
}

/* The reflector of dev in this receiver's namespace. */
static void id_of(struct reflect_id *id, const struct rtt_dev *d)
{
	memset(id, 0, sizeof(*id));
	snprintf(id->dev, sizeof(id->dev), "%s", d->dev);
	id->slot = (int)d->slot;
	id->agreed_only = d->agreed_only;
}

/*
 * mtg's reflector already on dev (`mtgctl reflect attach`, or one left by
 * a receiver that died): 1 with *id and *state, 0 none, -1 unreadable.
 */
static int existing(const char *dev, struct reflect_id *id,
		    enum probe_state *state)
{
	struct reflect_id want = { .slot = PROBE_ANY };
	struct reflect_info *info;
	size_t n;

	snprintf(want.dev, sizeof(want.dev), "%s", dev);
	if (reflect_list(&want, &info, &n))
		return -1;
	if (n) {
		*id = info[0].id;
		*state = info[0].state;
	}
	reflect_info_free(info, n);
	return n ? 1 : 0;
}

/* d has no flow of ours left: detach it if we attached it, and drop it. */
static void release(struct rtt_set *s, struct rtt_dev *d)
{
	struct reflect_id id;
	int n;

	if (d->flows)
		return;
	if (d->ours) {
		id_of(&id, d);
		reflect_detach(&id, &n);
	}
	*d = s->devs[--s->n];
}

/* The reflector of dev, found or attached, added to s: 0, or a refusal. */
static uint16_t take_dev(struct rtt_set *s, const char *dev,
			 unsigned int slot, struct rtt_dev **out, char *why,
			 size_t len)
{
	struct rtt_dev d = { .slot = slot, .agreed_only = true }, *grown;
	enum probe_state state = PROBE_DETACHED;
	struct reflect_id id;
	int k;

	snprintf(d.dev, sizeof(d.dev), "%s", dev);
	k = existing(dev, &id, &state);
	if (k < 0) {
		snprintf(why, len, "the reflectors of this host cannot be read");
		return TSP_REFUSE_BIND;
	}
	if (k && state != PROBE_ATTACHED) {
		snprintf(why, len, "%s has mtg's reflector pinned but %s (mtgctl reflect detach %s)",
			 dev, probe_state_name(state), dev);
		return TSP_REFUSE_BIND;
	}
	if (k && !id.agreed_only) {
		snprintf(why, len, "%s has mtg's reflector for every flow, which counts no flow of its own (mtgctl reflect attach --flows)",
			 dev);
		return TSP_REFUSE_BIND;
	}
	if (k) {
		d.slot = (unsigned int)id.slot;
	} else {
		id_of(&id, &d);
		if (reflect_attach(&id)) {
			snprintf(why, len, "the XDP reflector could not be attached to %s (the receiver's log says why)",
				 dev);
			return TSP_REFUSE_BIND;
		}
		d.ours = true;
	}
	grown = realloc(s->devs, (s->n + 1) * sizeof(*grown));
	if (!grown) {
		if (d.ours)
			reflect_detach(&id, &k);
		snprintf(why, len, "out of memory");
		return TSP_REFUSE_BIND;
	}
	s->devs = grown;
	s->devs[s->n] = d;
	*out = &s->devs[s->n++];
	return TSP_ACCEPTED;
}

uint16_t rtt_reflect(struct rtt_set *s, const char *dev, int slot,
		     uint32_t run_id, uint32_t tg_id, char *why, size_t len)
{
	struct rtt_dev *d = find(s, dev);
	struct reflect_id id;
	uint16_t code;
	int err;

	if (!d) {
		/* stamped nowhere: a reflector of its own stamps the default */
		code = take_dev(s, dev, slot < 0 ? IDF_RTT_SLOT :
				(unsigned int)slot, &d, why, len);
		if (code)
			return code;
	}
	if (slot >= 0 && d->slot != (unsigned int)slot) {
		snprintf(why, len, "the reflector on %s stamps slot %u, not the slot %u the TG asks for (meter rtt slot K)",
			 dev, d->slot, slot);
		release(s, d);
		return TSP_REFUSE_TG;
	}
	id_of(&id, d);
	err = reflect_agree(&id, run_id, tg_id, true);
	if (!err) {
		d->flows++;
		return TSP_ACCEPTED;
	}
	if (err == -EEXIST && run_id == REFLECT_DITG_RUN) {
		snprintf(why, len, "D-ITG's datagrams to port %u are sent back on %s already",
			 tg_id, dev);
		code = TSP_REFUSE_PORT;
	} else if (err == -EEXIST) {
		snprintf(why, len, "flow %u:%u is reflected on %s already",
			 run_id, tg_id, dev);
		code = TSP_REFUSE_FLOW_ID;
	} else if (err == -E2BIG) {
		snprintf(why, len, "the reflector on %s has the most flows it takes",
			 dev);
		code = TSP_REFUSE_BUSY;
	} else {
		snprintf(why, len, "the reflector on %s cannot take the flow: %s",
			 dev, strerror(-err));
		code = TSP_REFUSE_BIND;
	}
	release(s, d);
	return code;
}

uint64_t rtt_reflected(const struct rtt_set *s, const char *dev,
		       uint32_t run_id, uint32_t tg_id)
{
	const struct rtt_dev *d = find(s, dev);
	struct reflect_info *info;
	struct reflect_id id;
	uint64_t count = 0;
	size_t n, i;

	if (!d)
		return 0;
	id_of(&id, d);
	id.slot = PROBE_ANY;
	if (reflect_list(&id, &info, &n))
		return 0;
	for (i = 0; n && i < info[0].nflows; i++)
		if (info[0].flows[i].run_id == run_id &&
		    info[0].flows[i].tg_id == tg_id)
			count = info[0].flows[i].reflected;
	reflect_info_free(info, n);
	return count;
}

void rtt_forget(struct rtt_set *s, const char *dev, uint32_t run_id,
		uint32_t tg_id)
{
	struct rtt_dev *d = find(s, dev);
	struct reflect_id id;

	if (!d || !d->flows)
		return;
	id_of(&id, d);
	reflect_agree(&id, run_id, tg_id, false);
	d->flows--;
	release(s, d);
}

void rtt_free(struct rtt_set *s)
{
	while (s->n) {
		s->devs[s->n - 1].flows = 0;
		release(s, &s->devs[s->n - 1]);
	}
	free(s->devs);
	s->devs = NULL;
}
