# SPDX-License-Identifier: GPL-2.0-or-later
"""Dependencies point one way. The bench, the demo and the scripts take
no code from tests/: what they share with the tests (the witness:
scripts/mtgwitness) lives outside it. The witness takes nothing from the
product, only Python's standard library, so that what the tests check
mtgctl and mtgsap against is not mtgctl or mtgsap; and mtgsap takes
nothing from the tests or the witness."""

import ast
import pathlib
import re
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]


def tracked(*folders):
    out = subprocess.run(["git", "-C", ROOT, "ls-files", "-z", *folders],
                         check=True, capture_output=True, text=True).stdout
    return [ROOT / p for p in out.split("\0") if p]


def imports(path):
    """The top-level names of the modules a Python file imports (not the
    relative imports of its own package)."""
    names = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            names |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0:
            names.add(node.module.split(".")[0])
    return names


def test_nothing_outside_tests_takes_code_from_it():
    # An import of the tests' helpers, or tests/ put where Python or a
    # shell looks for code.
    into_tests = re.compile(r"\bmtgtest\b|sys\.path\.\w+\(.*\btests\b|"
                            r"PYTHONPATH=\S*\btests\b")
    files = tracked("bench", "examples", "scripts", "analysis")
    assert any(p.name == "analyze.py" for p in files)
    wrong = []
    for p in files:
        try:
            text = p.read_text()
        except UnicodeDecodeError:
            continue                    # not code
        wrong += [f"{p.relative_to(ROOT)}:{n}: {line.strip()}"
                  for n, line in enumerate(text.splitlines(), 1)
                  if into_tests.search(line)]
    assert not wrong, "\n".join(wrong)


def test_the_witness_takes_nothing_from_the_product():
    files = sorted((ROOT / "scripts/mtgwitness").glob("*.py"))
    assert {p.name for p in files} >= {"abi.py", "wire.py", "capture.py"}
    allowed = set(sys.stdlib_module_names)
    for p in files:
        assert imports(p) <= allowed, (p.name, imports(p) - allowed)


def test_mtgsap_takes_nothing_from_the_tests_or_the_witness():
    files = sorted((ROOT / "analysis/mtgsap").glob("**/*.py"))
    assert files
    for p in files:
        assert not imports(p) & {"mtgtest", "mtgwitness"}, p.name
