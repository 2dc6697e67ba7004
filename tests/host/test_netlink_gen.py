# SPDX-License-Identifier: GPL-2.0-or-later
"""The netlink family's code is generated from its YAML spec by the kernel's
ynl-gen-c, and the module is built from it: the tree holds, byte for byte,
what scripts/ynl-regen makes of Documentation/netlink/specs/mtg.yaml (after
a change of the spec: make regen)."""

import os
import re
import subprocess
import sys

import pytest

from mtgtest import ynl

ROOT = ynl.ROOT
REGEN = ROOT / "scripts/ynl-regen"
GENERATED = ("kmod/uapi/linux/mtg_netlink.h", "kmod/mtg_nl_gen.h",
             "kmod/mtg_nl_gen.c")
# mtgctl's netlink client (libnl), the one file of ctl/ with policies.
USER_POLICIES = "ctl/nl/family.c"


def sources():
    """Every C file of the module and of mtgctl, by its path in the tree."""
    for top in ("kmod", "ctl"):
        for path in sorted((ROOT / top).rglob("*.[ch]")):
            if not path.name.endswith(".mod.c"):
                yield str(path.relative_to(ROOT)), path.read_text()


@pytest.fixture(scope="module")
def regenerated(tmp_path_factory):
    out = tmp_path_factory.mktemp("regen")
    subprocess.run([REGEN, "-o", out], check=True, capture_output=True,
                   env={**os.environ, "PYTHON": sys.executable})
    return out


@pytest.mark.parametrize("path", GENERATED)
def test_tree_holds_what_the_generator_makes(regenerated, path):
    made = (regenerated / path).read_bytes()
    assert b"/* Do not edit directly, auto-generated from: */" in made
    assert (ROOT / path).read_bytes() == made, \
        f"{path} is not what ynl-gen-c makes of the spec: run 'make regen'"


def test_every_generated_file_is_regenerated():
    """A generated file the list forgets would go stale unnoticed."""
    marked = {path for path, text in sources()
              if re.search(r"^/\* YNL-GEN ", text, re.M)}
    assert marked == set(GENERATED)


def test_the_module_uses_the_generated_code():
    """The netlink unit compiles the generated policies, ops table and
    groups in, and nothing else defines what the spec defines."""
    netlink = (ROOT / "kmod/mtg_netlink.c").read_text()
    assert re.search(r'^#include "mtg_nl_gen\.c"$', netlink, re.M)
    assert re.search(r"\.ops = mtg_nl_ops,", netlink)
    assert re.search(r"\.mcgrps = mtg_nl_mcgrps,", netlink)
    for path, text in sources():
        if path in GENERATED:
            continue
        if path == USER_POLICIES:
            # mtgctl's libnl policies check the replies it reads (not
            # requests); test_nl_ids.py checks each entry against the spec.
            text = re.sub(r"static struct nla_policy \w+_policy\[", "",
                          text)
        assert not re.search(r"\bMTG_(CMD|A)_\w+\s*=|MTG_FAMILY_NAME\s+\"|"
                             r"struct (nla_policy|genl_ops|genl_multicast_group)\s+\w+\[",
                             text), path


def test_a_missing_generator_is_said(tmp_path):
    out = tmp_path / "out"
    res = subprocess.run([REGEN, "-o", out], capture_output=True, text=True,
                         env={**os.environ, "MTG_CACHE": str(tmp_path / "none")})
    assert res.returncode == 1
    assert "ynl-gen-c.py is missing: run 'make deps'" in res.stderr
    assert not out.exists()
