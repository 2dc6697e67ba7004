// SPDX-License-Identifier: GPL-2.0
/*
 * A session's shared memory: zeroed pages charged to the caller's memory
 * cgroup, mapped contiguously into the kernel (vmap) and region by region
 * into userspace. Layout: the status page first, then the timetable area,
 * then (when asked for) the receive rings and the page of their consumer
 * counts. What the kernel relies on (the layout, the rings' counts) lives
 * in struct mtg_session; the shared memory has copies for userspace to
 * read, and the consumer counts, which the kernel checks before use.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include "compat.h"
#include "mtg.h"

static void mtg_shm_set_region(struct mtg_shm *shm, unsigned int idx,
			       unsigned long first_page, unsigned long pages,
			       u32 flags)
{
	shm->region[idx].offset = (u64)first_page << PAGE_SHIFT;
	shm->region[idx].size = (u64)pages << PAGE_SHIFT;
	shm->region[idx].flags = flags;
}

/* What MTG_IOC_ALLOC asks for, before anything is allocated. */
int mtg_shm_check(const struct mtg_alloc *req)
{
	if (req->flags || req->reserved)
		return -EINVAL;
	if (!req->table_bytes && !req->rx_records)
		return -EINVAL;
	if (req->rx_records && (req->rx_records < MTG_RX_RECORDS_MIN ||
				req->rx_records > MTG_RX_RECORDS_MAX ||
				!is_power_of_2(req->rx_records)))
		return -EINVAL;
	/* The keep ring belongs to the receive path. */
	if (req->keep_bytes && (!req->rx_records ||
				req->keep_bytes < MTG_KEEP_BYTES_MIN ||
				req->keep_bytes > MTG_KEEP_BYTES_MAX ||
				!is_power_of_2(req->keep_bytes)))
		return -EINVAL;
	return 0;
}

int mtg_shm_alloc(struct mtg_session *s, const struct mtg_alloc *req)
{
	u64 max_bytes = (u64)mtg_max_session_mb << 20;
	struct mtg_shm *shm = &s->shm;
	unsigned long table_pages, rx_pages = 0, nr, i;
	struct page **pages;
	void *vaddr;
	int err;

	lockdep_assert_held(&s->lock);
	/* Checked before rounding so that the rounding cannot overflow. */
	if (req->table_bytes > max_bytes - PAGE_SIZE)
		return -E2BIG;
	table_pages = DIV_ROUND_UP_ULL(req->table_bytes, PAGE_SIZE);
	/* The rings (at most MTG_RX_RECORDS_MAX records, MTG_KEEP_BYTES_MAX
	 * bytes), their counts.
	 */
	if (req->rx_records)
		rx_pages = (mtg_rx_region_bytes(req->rx_records,
						req->keep_bytes) >> PAGE_SHIFT) + 1;
	nr = 1 + table_pages + rx_pages;
	if ((u64)nr << PAGE_SHIFT > max_bytes)
		return -E2BIG;

	pages = kvcalloc(nr, sizeof(*pages), GFP_KERNEL_ACCOUNT);
	if (!pages)
		return -ENOMEM;
	for (i = 0; i < nr; i++) {
		if (fatal_signal_pending(current)) {
			err = -EINTR;
			goto err_free_pages;
		}
		/* RETRY_MAYFAIL: over the cgroup's limit, fail with ENOMEM
		 * instead of waking the OOM killer.
		 */
		pages[i] = alloc_page(GFP_KERNEL_ACCOUNT | __GFP_ZERO |
				      __GFP_NOWARN | __GFP_RETRY_MAYFAIL);
		if (!pages[i]) {
			err = -ENOMEM;
			goto err_free_pages;
		}
		cond_resched();
	}
	vaddr = vmap(pages, nr, VM_MAP, PAGE_KERNEL);
	if (!vaddr) {
		err = -ENOMEM;
		goto err_free_pages;
	}

	shm->pages = pages;
	shm->nr_pages = nr;
	shm->vaddr = vaddr;
	mtg_shm_set_region(shm, MTG_REGION_STATUS, 0, 1, 0);
	mtg_shm_set_region(shm, MTG_REGION_TABLES, 1, table_pages,
			   MTG_REGION_F_WRITABLE);
	if (rx_pages) {
		unsigned long rx = 1 + table_pages, cons = nr - 1;

		mtg_shm_set_region(shm, MTG_REGION_RX, rx, rx_pages - 1, 0);
		mtg_shm_set_region(shm, MTG_REGION_RX_CONS, cons, 1,
				   MTG_REGION_F_WRITABLE);
		mtg_rx_setup(s, vaddr + (rx << PAGE_SHIFT), req->rx_records,
			     req->keep_bytes,
			     vaddr + (cons << PAGE_SHIFT));
	}

	s->status = vaddr;
	s->status->magic = MTG_STATUS_MAGIC;
	s->status->abi_major = MTG_ABI_MAJOR;
	return 0;

err_free_pages:
	while (i--)
		__free_page(pages[i]);
	kvfree(pages);
	return err;
}

void mtg_shm_free(struct mtg_shm *shm)
{
	unsigned long i;

	if (!shm->pages)
		return;
	vunmap(shm->vaddr);
	/* Pages still mapped somewhere keep their own reference. */
	for (i = 0; i < shm->nr_pages; i++)
		__free_page(shm->pages[i]);
	kvfree(shm->pages);
	memset(shm, 0, sizeof(*shm));
}

/* The region that holds [off, off + len) whole, or NULL. */
static const struct mtg_region *mtg_shm_region(const struct mtg_shm *shm,
					       u64 off, u64 len)
{
	unsigned int i;

	for (i = 0; i < MTG_REGION_MAX; i++) {
		const struct mtg_region *r = &shm->region[i];

		if (r->size && off >= r->offset && len <= r->size &&
		    off - r->offset <= r->size - len)
			return r;
	}
	return NULL;
}

int mtg_shm_mmap(struct mtg_session *s, struct vm_area_struct *vma)
{
	u64 len = vma->vm_end - vma->vm_start;
	const struct mtg_region *r;
	u64 off;

	lockdep_assert_held(&s->lock);
	if (!s->shm.pages)
		return -ENODATA;
	if (vma->vm_pgoff > (U64_MAX >> PAGE_SHIFT))
		return -EINVAL;
	off = (u64)vma->vm_pgoff << PAGE_SHIFT;
	r = mtg_shm_region(&s->shm, off, len);
	if (!r)
		return -EINVAL;
	/* A private mapping would copy on write and hide changes. */
	if (!(vma->vm_flags & VM_SHARED))
		return -EINVAL;
	if (!(r->flags & MTG_REGION_F_WRITABLE)) {
		if (vma->vm_flags & VM_WRITE)
			return -EPERM;
		/* and mprotect() may not make it writable later */
		vm_flags_clear(vma, VM_MAYWRITE);
	}
	vm_flags_set(vma, VM_DONTCOPY | VM_DONTEXPAND | VM_DONTDUMP);
	return vm_map_pages(vma, s->shm.pages, s->shm.nr_pages);
}
