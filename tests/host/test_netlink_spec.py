# SPDX-License-Identifier: GPL-2.0-or-later
"""The netlink uapi header (generated: tests/host/test_netlink_gen.py) and
the ioctl header give session flags and TG states, errors and flags the
same numbers."""

import re

from mtgtest import ynl

UAPI = ynl.ROOT / "kmod/uapi/linux/mtg_netlink.h"


def header_values():
    """Every enumerator of the header with its value, as C assigns them."""
    values = {}
    for body in re.findall(r"enum\s*\w*\s*{(.*?)}", UAPI.read_text(), re.S):
        nxt = 0
        for item in body.split(","):
            item = re.sub(r"/\*.*?\*/", "", item, flags=re.S).strip()
            if not item:
                continue
            name, _, value = (s.strip() for s in item.partition("="))
            nxt = eval(value, {}, values) if value else nxt  # noqa: S307
            values[name] = nxt
            nxt += 1
    return values


def test_flags_match_ioctl_abi():
    """The netlink session flags and the ioctl ones are the same bits."""
    text = (ynl.ROOT / "kmod/uapi/mtg.h").read_text()
    values = header_values()
    for flag in ("ALLOCATED", "ENDED"):
        shift = int(re.search(rf"MTG_SESSION_F_{flag}\s+\(1U << (\d+)\)", text)[1])
        assert values[f"MTG_SESSION_FLAGS_{flag}"] == 1 << shift


def test_tg_enums_match_ioctl_abi():
    """TG states, errors and flags are the same numbers over netlink and ioctl."""
    text = (ynl.ROOT / "kmod/uapi/mtg.h").read_text()
    values = header_values()
    for kind, nl_prefix, ioc_prefix in (("state", "MTG_TG_STATE_", "MTG_TG_"),
                                        ("error", "MTG_TG_ERROR_", "MTG_TG_ERR_")):
        names = [n for n in values if n.startswith(nl_prefix)]
        assert names, kind
        for name in names:
            ioc = ioc_prefix + name[len(nl_prefix):]
            assert int(re.search(rf"#define {ioc}\s+(\d+)", text)[1]) == values[name], ioc
    assert int(re.search(r"#define MTG_TG_F_ALL\s+(0x[0-9a-f]+)U", text)[1], 16) \
        == values["MTG_TG_FLAGS_MASK"]
    for name in [n for n in values if n.startswith("MTG_TG_FLAGS_") and n != "MTG_TG_FLAGS_MASK"]:
        ioc = "MTG_TG_F_" + name[len("MTG_TG_FLAGS_"):]
        shift = int(re.search(rf"#define {ioc}\s+\(1U << (\d+)\)", text)[1])
        assert values[name] == 1 << shift, ioc
