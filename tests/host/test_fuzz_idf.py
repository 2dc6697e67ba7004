# SPDX-License-Identifier: GPL-2.0-or-later
"""The IDF parser under libFuzzer (tests/fuzz/idf_fuzz.c, built by `make
tools` with ASan and UBSan) for a bounded time, from a seed corpus of
every IDF the project holds (examples, golden tables, the bad-IDF
corpus) and a dictionary of the language's words: no crash, no leak, no
input slower than 10 s. A fixed -seed makes the run repeatable on one
build."""

import pathlib
import shutil
import subprocess

ROOT = pathlib.Path(__file__).resolve().parents[2]
FUZZ = ROOT / "tests" / "fuzz"
SECONDS = 60


def test_idf_parser_fuzzing(tmp_path):
    subprocess.run(["make", "-s", "-C", ROOT, "tests/fuzz/idf_fuzz"],
                   check=True, stdout=subprocess.DEVNULL)
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    seeds = [*ROOT.glob("examples/*.idf"), *(ROOT / "tests/golden").glob("*.idf"),
             *(ROOT / "tests/golden/bad").glob("*.idf")]
    assert len(seeds) > 10
    for path in seeds:
        shutil.copy(path, corpus / path.name)
    res = subprocess.run(
        [FUZZ / "idf_fuzz", f"-max_total_time={SECONDS}", "-seed=1",
         "-max_len=4096", "-timeout=10", "-rss_limit_mb=2048",
         f"-artifact_prefix={tmp_path}/", f"-dict={FUZZ / 'idf.dict'}",
         corpus], capture_output=True, text=True, timeout=SECONDS + 120)
    crashes = list(tmp_path.glob("crash-*")) + list(tmp_path.glob("leak-*")) \
        + list(tmp_path.glob("timeout-*"))
    assert res.returncode == 0 and not crashes, \
        (crashes, res.stderr[-4000:])
    assert "Done" in res.stderr
