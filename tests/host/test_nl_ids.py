# SPDX-License-Identifier: GPL-2.0-or-later
"""mtgctl speaks the netlink family as its YAML spec says (issue 23): every
name of the family mtgctl uses (command, attribute and its type, value and
the word shown for it, group) has the number the spec gives it.

`mtgctl show --ids` prints what the built binary uses, numbers as compiled;
the numbers expected are worked out here from
Documentation/netlink/specs/mtg.yaml alone, as ynl numbers them (not read
from the generated header, so a stale header is caught too); and every
name of the family that ctl/'s sources mention must be among those printed,
so that nothing mtgctl uses escapes the check."""

import re
import subprocess

import pytest
import yaml

from test_mtgctl_idf import ROOT

SPEC = ROOT / "Documentation/netlink/specs/mtg.yaml"
HEADER = ROOT / "kmod/uapi/linux/mtg_netlink.h"


def c_name(*parts):
    return "_".join(p.upper().replace("-", "_") for p in parts)


def expected(spec):
    """{C name: (kind, number, what)}: what is the type of an attribute,
    the word of a value (the spec's name, '_' for '-'), the string of the
    family's name and group."""
    fam = spec["name"]
    out = {c_name(fam, "family-name"): ("family", fam),
           c_name(fam, "family-version"): ("family",
                                           str(spec.get("version", 1)))}
    for grp in spec["mcast-groups"]["list"]:
        out[c_name(fam, "mcgrp", grp["name"])] = ("group", grp["name"])
    for aset in spec["attribute-sets"]:
        val = 1
        for attr in aset["attributes"]:
            val = attr.get("value", val)
            out[c_name(fam, "a", aset["name"], attr["name"])] = (
                "attr", str(val), attr["type"])
            val += 1
        out[c_name(fam, "a", aset["name"], "max")] = ("max", str(val - 1))
    val = 1
    for op in spec["operations"]["list"]:
        val = op.get("value", val)
        out[c_name(fam, "cmd", op["name"])] = ("cmd", str(val))
        val += 1
    for d in spec["definitions"]:
        if d["type"] not in ("enum", "flags"):
            continue
        val = d.get("value-start", 0)
        for entry in d["entries"]:
            name = entry if isinstance(entry, str) else entry["name"]
            num = 1 << val if d["type"] == "flags" else val
            out[c_name(fam, d["name"], name)] = (
                "value", str(num), name.replace("-", "_"))
            val += 1
    return out


def used(text):
    """{C name: (kind, number, what)} from `mtgctl show --ids`."""
    out = {}
    for line in text.splitlines():
        kind, name, *rest = line.split()
        assert name not in out, f"{name} printed twice"
        out[name] = (kind, *rest)
    return out


def mismatches(spec, ids):
    want = expected(spec)
    return [f"{name}: mtgctl {got}, the spec {want.get(name)}"
            for name, got in ids.items() if want.get(name) != got]


@pytest.fixture(scope="module")
def ids(mtgctl):
    res = subprocess.run([mtgctl, "show", "--ids"], capture_output=True,
                         text=True)
    assert (res.returncode, res.stderr) == (0, "")
    return used(res.stdout)


@pytest.fixture(scope="module")
def spec():
    return yaml.safe_load(SPEC.read_text())


def test_every_id_mtgctl_uses_is_the_specs(spec, ids):
    assert not mismatches(spec, ids)
    # what show and monitor cannot do without
    assert {"MTG_CMD_SESSION_GET", "MTG_CMD_TG_GET", "MTG_CMD_TG_EVENT_NTF",
            "MTG_A_TG_LATENESS_HIST", "MTG_MCGRP_EVENTS"} <= set(ids)


def test_every_family_name_in_ctl_is_printed(ids):
    """A name of the generated header mentioned anywhere in ctl/ (a
    command, an attribute, a value, an array's size) is one --ids prints,
    and so one the first test checks."""
    header = set(re.findall(r"\b(MTG_\w+)\b", HEADER.read_text()))
    header -= {"MTG_TG_FLAGS_MASK"}     # never used in ctl/
    mentioned = {}
    for path in sorted((ROOT / "ctl").rglob("*.[ch]")):
        for name in set(re.findall(r"\b(MTG_\w+)\b", path.read_text())):
            if name in header:
                mentioned.setdefault(name, path.relative_to(ROOT))
    assert len(mentioned) > 50
    missing = {n: str(p) for n, p in mentioned.items() if n not in ids}
    assert not missing


def test_a_changed_spec_is_seen(spec, ids):
    """The check can fail: with two attributes of the tg set swapped, an
    attribute's type changed and a flag's name changed in a copy of the
    spec, each is reported."""
    changed = yaml.safe_load(yaml.safe_dump(spec))
    attrs = next(a for a in changed["attribute-sets"]
                 if a["name"] == "tg")["attributes"]
    sent, nbytes = (next(i for i, a in enumerate(attrs) if a["name"] == n)
                    for n in ("sent", "bytes"))
    attrs[sent], attrs[nbytes] = attrs[nbytes], attrs[sent]
    next(a for a in attrs if a["name"] == "cpu")["type"] = "u64"
    flags = next(d for d in changed["definitions"]
                 if d["name"] == "tg-flags")
    flags["entries"][2]["name"] = "skip-late"
    found = sorted(m.split(":")[0] for m in mismatches(changed, ids))
    assert found == ["MTG_A_TG_BYTES", "MTG_A_TG_CPU", "MTG_A_TG_SENT",
                     "MTG_TG_FLAGS_LATE_SKIP"], found
