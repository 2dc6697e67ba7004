// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * mtgctl built without eBPF (ebpf/Makefile found something missing: see
 * `make -C ebpf missing`): the probes say so. Built instead of probe.c.
 */
#include <errno.h>

#include "bpf/probe.h"
#include "util/log.h"

#ifndef MTG_BPF_MISSING
#define MTG_BPF_MISSING "what ebpf/Makefile needs"
#endif

static int none(void)
{
	pr_err("probe: this mtgctl was built without eBPF: missing " MTG_BPF_MISSING " (make deps, then make tools)\n");
	return -EOPNOTSUPP;
}

int probe_attach(const struct probe_id *p)
{
	(void)p;
	return none();
}

int probe_detach(const struct probe_id *p, int *n)
{
	(void)p;
	*n = 0;
	return none();
}

int probe_list(const struct probe_id *p, struct probe_info **out, size_t *n)
{
	(void)p;
	*out = NULL;
	*n = 0;
	return none();
}
