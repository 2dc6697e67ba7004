# SPDX-License-Identifier: GPL-2.0-or-later
"""The Python of the project (tests, helpers, examples) has no undefined
names, unused imports or other mistakes pyflakes finds."""

import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]


def test_pyflakes():
    files = sorted(str(p) for p in ROOT.glob("**/*.py")
                   if not {".venv", ".vm-out"} & set(p.parts))
    assert files
    res = subprocess.run([sys.executable, "-m", "pyflakes", *files],
                         capture_output=True, text=True)
    assert res.returncode == 0, res.stdout + res.stderr
