# SPDX-License-Identifier: GPL-2.0-or-later
"""Fixtures of the host tests (no root, no module)."""

import pathlib
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def mtgctl():
    """ctl/mtgctl, built."""
    subprocess.run(["make", "-s", "-C", ROOT / "ctl"], check=True,
                   stdout=subprocess.DEVNULL)
    return ROOT / "ctl" / "mtgctl"
