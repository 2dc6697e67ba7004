# SPDX-License-Identifier: GPL-2.0-or-later
"""The netlink YAML spec is valid for the kernel's ynl tooling, and the uapi
header the module is built from numbers everything as the spec does."""

import re

import pytest
import yaml

from mtgtest import ynl

UAPI = ynl.ROOT / "kmod/uapi/mtg_netlink.h"


@pytest.fixture(scope="module")
def spec():
    return yaml.safe_load(ynl.SPEC.read_text())


def c_name(*parts):
    return "_".join(p.upper().replace("-", "_") for p in parts)


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


def test_spec_validates_against_the_kernel_schema():
    family = ynl.spec_family()  # validated with jsonschema, then parsed
    assert set(family.msgs) == {"session-get", "session-end", "session-new-ntf",
                                "session-end-ntf", "iface-lost-ntf", "tg-get",
                                "tg-event-ntf"}


def test_attributes_match_header(spec):
    values = header_values()
    for attr_set in spec["attribute-sets"]:
        for i, attr in enumerate(attr_set["attributes"], start=1):
            assert values[c_name("mtg_a", attr_set["name"], attr["name"])] == i


def test_commands_match_header(spec):
    values = header_values()
    for i, op in enumerate(spec["operations"]["list"], start=1):
        assert values[c_name("mtg_cmd", op["name"])] == i, op["name"]


def test_definitions_match_header(spec):
    values = header_values()
    for d in spec["definitions"]:
        for i, entry in enumerate(d["entries"]):
            name = c_name("mtg", d["name"], entry["name"])
            want = (1 << i) if d["type"] == "flags" else d.get("value-start", 0) + i
            assert values[name] == want, name


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
    for name in [n for n in values if n.startswith("MTG_TG_FLAGS_")]:
        ioc = "MTG_TG_F_" + name[len("MTG_TG_FLAGS_"):]
        shift = int(re.search(rf"#define {ioc}\s+\(1U << (\d+)\)", text)[1])
        assert values[name] == 1 << shift, ioc
