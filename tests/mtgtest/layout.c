// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Prints the layout of kmod/uapi/mtg.h as the C compiler sees it, one
 * "name value" per line, for tests/host/test_abi_layout.py to compare with
 * the Python mirror (tests/mtgtest/abi.py).
 */
#include <stddef.h>
#include <stdio.h>

#include "../../kmod/uapi/mtg.h"

#define SIZE(s) printf("sizeof %s %zu\n", #s, sizeof(struct s))
#define OFF(s, f) printf("offsetof %s.%s %zu\n", #s, #f, offsetof(struct s, f))
#define CMD(c) printf("cmd %s %lu\n", #c, (unsigned long)(c))

int main(void)
{
	SIZE(mtg_version); SIZE(mtg_alloc); SIZE(mtg_region);
	SIZE(mtg_mmap_offsets); SIZE(mtg_stats); SIZE(mtg_status);
	SIZE(mtg_iface_add); SIZE(mtg_iface_info);
	OFF(mtg_version, max_session_bytes); OFF(mtg_version, max_ifaces);
	OFF(mtg_alloc, reserved2); OFF(mtg_region, flags);
	OFF(mtg_stats, flags); OFF(mtg_stats, ifaces_lost); OFF(mtg_stats, events);
	OFF(mtg_status, seq); OFF(mtg_status, stats);
	OFF(mtg_iface_add, id); OFF(mtg_iface_info, netns_cookie);
	OFF(mtg_iface_info, name);
	CMD(MTG_IOC_VERSION); CMD(MTG_IOC_ALLOC); CMD(MTG_IOC_MMAP_OFFSETS);
	CMD(MTG_IOC_STATS); CMD(MTG_IOC_IFACE_ADD); CMD(MTG_IOC_IFACE_DEL);
	CMD(MTG_IOC_IFACE_INFO);
	return 0;
}
