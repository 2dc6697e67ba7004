// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * mtgctl built without eBPF (ebpf/Makefile found something missing: see
 * `make -C ebpf missing`): the probes, reflectors and the XDP receiver
 * say so. Built instead of probe.c, reflector.c and xdprx.c.
 */
#include <errno.h>
#include <stdlib.h>

#include "bpf/probe.h"
#include "bpf/reflector.h"
#include "bpf/xdprx.h"
#include "util/log.h"

#ifndef MTG_BPF_MISSING
#define MTG_BPF_MISSING "what ebpf/Makefile needs"
#endif

static int none(const char *what)
{
	pr_err("%s: this mtgctl was built without eBPF: missing " MTG_BPF_MISSING " (make deps, then make tools)\n",
	       what);
	return -EOPNOTSUPP;
}

int probe_attach(const struct probe_id *p)
{
	(void)p;
	return none("probe");
}

int probe_detach(const struct probe_id *p, int *n)
{
	(void)p;
	*n = 0;
	return none("probe");
}

int probe_list(const struct probe_id *p, struct probe_info **out, size_t *n)
{
	(void)p;
	*out = NULL;
	*n = 0;
	return none("probe");
}

int reflect_attach(const struct reflect_id *r)
{
	(void)r;
	return none("reflect");
}

int reflect_detach(const struct reflect_id *r, int *n)
{
	(void)r;
	*n = 0;
	return none("reflect");
}

int reflect_list(const struct reflect_id *r, struct reflect_info **out,
		 size_t *n)
{
	(void)r;
	*out = NULL;
	*n = 0;
	return none("reflect");
}

void reflect_info_free(struct reflect_info *info, size_t n)
{
	(void)n;
	free(info);
}

int reflect_agree(const struct reflect_id *r, uint32_t run_id,
		  uint32_t tg_id, bool add)
{
	(void)r;
	(void)run_id;
	(void)tg_id;
	(void)add;
	return none("reflect");
}

int xdp_rx_open(struct xdp_rx **out, struct listen_dev *devs, size_t n,
		uint32_t run_id, bool pass, uint64_t records, xdp_rx_take take,
		void *arg)
{
	(void)devs, (void)n, (void)run_id, (void)pass, (void)records;
	(void)take, (void)arg;
	*out = NULL;
	return none("listen --xdp");
}

/* Never called: xdp_rx_open made none. */
int64_t xdp_rx_poll(struct xdp_rx *x)
{
	(void)x;
	return -EOPNOTSUPP;
}

void xdp_rx_stats(const struct xdp_rx *x, struct mtg_rx_stats *st,
		  struct xdp_rx_passed *passed)
{
	(void)x, (void)st, (void)passed;
}

const char *xdp_rx_stamp(const struct xdp_rx *x)
{
	(void)x;
	return "tai";
}

void xdp_rx_close(struct xdp_rx *x)
{
	(void)x;
}
