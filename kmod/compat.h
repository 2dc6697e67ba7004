/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel API differences between the releases mtg builds against (Debian's
 * 6.1 and 6.12 at least). Every version test lives here, nowhere else.
 */
#ifndef _MTG_COMPAT_H
#define _MTG_COMPAT_H

#include <linux/mm.h>
#include <linux/skbuff.h>
#include <linux/version.h>
#include <net/genetlink.h>

/* 6.3 made vm_flags read-only outside the vm_flags_*() helpers. */
#if KERNEL_VERSION(6, 3, 0) > LINUX_VERSION_CODE
static inline void vm_flags_set(struct vm_area_struct *vma, vm_flags_t flags)
{
	vma->vm_flags |= flags;
}

static inline void vm_flags_clear(struct vm_area_struct *vma, vm_flags_t flags)
{
	vma->vm_flags &= ~flags;
}
#endif

/* 6.2 moved a dump's parsed attributes into a struct genl_info. */
static inline struct nlattr *const *
mtg_genl_dump_attrs(struct netlink_callback *cb)
{
#if KERNEL_VERSION(6, 2, 0) > LINUX_VERSION_CODE
	return genl_dumpit_info(cb)->attrs;
#else
	return genl_info_dump(cb)->attrs;
#endif
}

/*
 * Whether skb->tstamp, when set, is a CLOCK_REALTIME receive stamp (and
 * not a delivery time on another clock): 6.11 replaced the one-bit
 * mono_delivery_time with tstamp_type.
 */
static inline bool mtg_skb_tstamp_is_real(const struct sk_buff *skb)
{
#if KERNEL_VERSION(6, 11, 0) > LINUX_VERSION_CODE
	return !skb->mono_delivery_time;
#else
	return skb->tstamp_type == SKB_CLOCK_REALTIME;
#endif
}

#endif /* _MTG_COMPAT_H */
