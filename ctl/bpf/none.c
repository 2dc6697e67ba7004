// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * mtgctl built without eBPF (ebpf/Makefile found something missing: see
 * `make -C ebpf missing`): the probes and reflectors say so. Built instead of probe.c and
 * reflector.c.
 */
#include <errno.h>

#include "bpf/probe.h"
#include "bpf/reflector.h"
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
