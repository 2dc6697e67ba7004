# SPDX-License-Identifier: GPL-2.0-or-later
"""Shared by every test: the project's paths and the test helpers' packages
(tests/mtgtest, and the witness the bench and the demo use too,
scripts/mtgwitness)."""

import os
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))
sys.path.insert(0, str(ROOT / "tests"))
CACHE = pathlib.Path(os.environ.get("MTG_CACHE",
                                    pathlib.Path.home() / ".cache" / "mtg"))
