# SPDX-License-Identifier: GPL-2.0-or-later
"""D-ITG's own programs in tests: ITGDec's summary of a log, read as its
users read it."""

import os
import re
import shutil
import subprocess

import pytest

NUMBER = r"\s*=\s*(-?[0-9.]+)"


def need(*tools):
    """Fail (not skip) when D-ITG is missing: scripts/deps installs it."""
    for tool in tools:
        if not shutil.which(tool):
            pytest.fail("D-ITG is not installed (scripts/deps installs "
                        "d-itg)")


def itgdec(path):
    """ITGDec's summary of a log: ({(from, to): the flow's figures},
    the totals), each figure by its name in ITGDec's output."""
    need("ITGDec")
    text = subprocess.run(["ITGDec", str(path)], check=True,
                          capture_output=True, text=True,
                          cwd=os.path.dirname(path)).stdout
    flows, totals = {}, {}
    head, _, tail = text.partition("TOTAL RESULTS")
    for block in head.split("Flow number: ")[1:]:
        m = re.search(r"From (\S+)\s+To\s+(\S+)", block)
        figures = {k.strip(): float(v) for k, v in
                   re.findall(r"^([A-Za-z -]+?)" + NUMBER, block, re.M)}
        figures["flow"] = int(block.split()[0])
        flows[(m.group(1), m.group(2))] = figures
    for k, v in re.findall(r"^([A-Za-z -]+?)" + NUMBER, tail, re.M):
        totals[k.strip()] = float(v)
    assert totals["Error lines"] == 0
    return flows, totals
