# SPDX-License-Identifier: GPL-2.0-or-later
"""Reproducibility and errors, as files: the timetables of
tests/golden/models.idf (every model, both generators) hash to what
tests/golden/models.sha256 holds, on every run and machine with this
build; and every file of the bad-IDF corpus tests/golden/bad/ gives
exactly the messages of its .expected file, exit status 1 and nothing on
stdout (a file with an error starts nothing)."""

import hashlib
import pathlib
import subprocess

import pytest

GOLDEN = pathlib.Path(__file__).resolve().parents[1] / "golden"
BAD = sorted((GOLDEN / "bad").glob("*.idf"))


def golden_hashes():
    lines = (GOLDEN / "models.sha256").read_text().splitlines()
    return dict(line.split() for line in lines if not line.startswith("#"))


def test_every_model_has_a_golden_table():
    text = (GOLDEN / "models.idf").read_text()
    for model in ("fixed", "uniform", "exponential", "mmpp", "voice", "fgn",
                  "rmd", "pareto", "cauchy", "normal", "gamma", "weibull",
                  "lognormal", "lehmer", "variable", "computed", "jitt",
                  "time poisson", "table stream", "trace", "voip", "telnet",
                  "dns", "quake3", "csa", "csi", "pkts exponential",
                  "pkts poisson", "pkts cauchy"):
        assert model in text, model


@pytest.mark.parametrize("tg", sorted(golden_hashes(), key=int))
def test_golden_table_bytes(mtgctl, tg):
    """Twice, the same bytes, and the committed ones."""
    args = [mtgctl, "table", "models.idf", "--tg", tg, "--count", "2000",
            "--format", "bin"]
    first = subprocess.run(args, cwd=GOLDEN, capture_output=True, check=True)
    again = subprocess.run(args, cwd=GOLDEN, capture_output=True, check=True)
    assert first.stdout == again.stdout
    assert len(first.stdout) == 2000 * 24
    assert hashlib.sha256(first.stdout).hexdigest() == golden_hashes()[tg], \
        ("the timetable changed: if the model was changed on purpose, run "
         "tests/golden/regenerate and say why in the commit")


@pytest.mark.parametrize("idf", BAD, ids=[p.stem for p in BAD])
@pytest.mark.parametrize("command", ["check", "table", "run"])
def test_bad_idf_corpus(mtgctl, idf, command):
    res = subprocess.run([mtgctl, command, idf.name], cwd=idf.parent,
                         capture_output=True, text=True)
    assert res.returncode == 1
    assert res.stdout == ""
    # run says so before it would have touched the module
    tail = f"{idf.name}: nothing started\n" if command == "run" else ""
    assert res.stderr == idf.with_suffix(".expected").read_text() + tail


def test_table_example_of_the_manual(mtgctl, tmp_path):
    """Documentation/mtgctl.rst's `mtgctl table` example, as shown."""
    text = (GOLDEN.parents[1] / "Documentation" / "mtgctl.rst").read_text()
    block = text.split("$ cat poisson.idf\n", 1)[1].split("\n\n", 1)[0]
    idf, shown = block.split("$ mtgctl table poisson.idf --count 3\n")
    dedent = [line.strip() for line in idf.splitlines()]
    (tmp_path / "poisson.idf").write_text("\n".join(dedent) + "\n")
    res = subprocess.run([mtgctl, "table", "poisson.idf", "--count", "3"],
                         cwd=tmp_path, capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    assert res.stdout.splitlines() == [line.strip()
                                       for line in shown.splitlines()]
