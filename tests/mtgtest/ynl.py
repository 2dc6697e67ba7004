# SPDX-License-Identifier: GPL-2.0-or-later
"""The kernel's own ynl library, driving the mtg family from its YAML spec.

scripts/deps puts ynl (tools/net/ynl and the netlink schemas, from Debian's
linux-source-6.12) under $MTG_CACHE/ynl.
"""

import os
import pathlib
import sys
import time

import yaml

ROOT = pathlib.Path(__file__).resolve().parents[2]
SPEC = ROOT / "Documentation/netlink/specs/mtg.yaml"
YNL = pathlib.Path(os.environ.get(
    "MTG_CACHE", pathlib.Path.home() / ".cache/mtg")) / "ynl"
# The schema of the spec's level (its protocol: genetlink-legacy).
SCHEMA = YNL / "Documentation/netlink" / (
    yaml.safe_load(SPEC.read_text())["protocol"] + ".yaml")
CLI = YNL / "tools/net/ynl/cli.py"


def _lib():
    """ynl's lib package, or a RuntimeError saying how to get it."""
    if not CLI.exists():
        raise RuntimeError(f"ynl is not installed under {YNL}: run 'make deps'")
    if str(YNL / "tools/net/ynl") not in sys.path:
        sys.path.insert(0, str(YNL / "tools/net/ynl"))
    import lib  # noqa: E402  (found only at run time)
    return lib


def spec_family():
    """The spec parsed and validated against the kernel's schema (no kernel)."""
    return _lib().SpecFamily(str(SPEC), str(SCHEMA))


def family():
    """A YnlFamily for mtg: talks to the loaded module."""
    lib = _lib()
    # ynl caches family ids per process: a reloaded module has a new one.
    lib.ynl.genl_family_name_to_id = None
    return lib.YnlFamily(str(SPEC), str(SCHEMA))


def nl_error():
    return _lib().NlError


def notifications(nl, done, name=None, seconds=20):
    """The notifications nl (subscribed) receives, in order, as ynl gives
    them ({"name", "msg", ...}; only those called name if given), gathered
    until done(the list) holds or seconds pass."""
    got, deadline = [], time.monotonic() + seconds
    while not done(got) and time.monotonic() < deadline:
        nl.check_ntf()
        while nl.async_msg_queue:
            item = nl.async_msg_queue.pop(0)
            if name is None or item["name"] == name:
                got.append(item)
        time.sleep(0.05)
    return got
