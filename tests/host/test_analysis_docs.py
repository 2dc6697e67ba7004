# SPDX-License-Identifier: GPL-2.0-or-later
"""Documentation/analysis.rst's examples run as written, on the recording
the page describes (tests/mtgtest/sample.py: loop.rec, path.rec for
`segments`, reflect.rec for `rtt`): every `$ mtgsap` command
succeeds, and the output the page shows is the output it gives."""

import contextlib
import io
import pathlib
import shlex

import pytest

from mtgsap import cli
from mtgtest.sample import loop_recording, path_recording, reflect_recording

PAGE = pathlib.Path(__file__).resolve().parents[2] / \
    "Documentation/analysis.rst"


def blocks(kind):
    """The bodies of the page's `.. code-block:: kind` blocks, dedented."""
    out = []
    lines = PAGE.read_text().splitlines()
    for i, line in enumerate(lines):
        if line.strip() != f".. code-block:: {kind}":
            continue
        body = []
        for text in lines[i + 1:]:
            if text and not text.startswith("   "):
                break
            body.append(text[3:])
        out.append("\n".join(body).strip("\n"))
    return out


def commands():
    """(command line, the output shown after it) of the console blocks."""
    out = []
    for block in blocks("console"):
        for chunk in block.split("$ ")[1:]:
            line, _, shown = chunk.partition("\n")
            out.append((line, shown.rstrip("\n")))
    return out


@pytest.fixture
def workdir(tmp_path, monkeypatch):
    loop_recording(tmp_path / "loop.rec")
    path_recording(tmp_path / "path.rec")
    reflect_recording(tmp_path / "reflect.rec")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def run(line):
    argv = shlex.split(line)
    assert argv[0] == "mtgsap", line
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = cli.main(argv[1:])
    return code, out.getvalue(), err.getvalue()


def test_page_has_examples():
    assert len(commands()) >= 10 and blocks("python")


def test_console_examples(workdir):
    wrong = []
    for line, shown in commands():
        code, out, err = run(line)
        assert code == 0, f"{line}: {err}"
        got = "\n".join(x.rstrip() for x in out.rstrip("\n").splitlines())
        if shown and got != shown:
            wrong.append(f"$ {line}\n--- the page shows\n{shown}\n"
                         f"--- it prints\n{got}")
    assert not wrong, "\n\n".join(wrong)


def test_python_example(workdir):
    printed = []
    for code in blocks("python"):
        exec(compile(code, str(PAGE), "exec"),
             {"print": lambda *a, **k: printed.append(a)})
    assert printed and printed[-1][0] == {1: 8999 * 1130, 2: 2834 * 386}
