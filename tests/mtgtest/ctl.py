# SPDX-License-Identifier: GPL-2.0-or-later
"""Running ctl/mtgctl from the VM tests: an IDF in the test's directory,
`mtgctl run run.idf --batch` there (so messages say run.idf), the JSON
summary it wrote."""

import json
import subprocess

from mtgtest.system import ROOT

MTGCTL = ROOT / "ctl/mtgctl"


def write_idf(tmp_path, text):
    (tmp_path / "run.idf").write_text(text)


def mtgctl_run(tmp_path, *extra, summary="summary.json", timeout=600):
    """mtgctl run run.idf --batch in tmp_path (so messages say run.idf)."""
    args = [MTGCTL, "run", "run.idf", "--batch"]
    if summary:
        args += ["--json", summary]
    return subprocess.run(args + list(extra), cwd=tmp_path,
                          capture_output=True, text=True, timeout=timeout)


def mtgctl_commands(tmp_path, *extra):
    """mtgctl run run.idf --commands in tmp_path, recording run.rec and
    its summary, its standard input a pipe for the commands."""
    return subprocess.Popen(
        [MTGCTL, "run", "run.idf", "--commands", "--json", "summary.json",
         "-o", "run.rec", *extra], cwd=tmp_path, stdin=subprocess.PIPE,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def mtgctl_start(tmp_path, *extra):
    return subprocess.Popen([MTGCTL, "run", "run.idf", "--batch", "--json",
                             "summary.json", *extra], cwd=tmp_path,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)


def act_when(proc, ready, act, timeout=300):
    """Reads proc's output until a line `ready` accepts, calls act(), then
    waits for proc to end: (all of its stdout, its stderr). proc is killed
    if anything goes wrong on the way."""
    try:
        seen = [proc.stdout.readline()]
        while seen[-1] and not ready(seen[-1]):
            seen.append(proc.stdout.readline())
        assert seen[-1], "".join(seen) + proc.stderr.read()
        act()
        out, err = proc.communicate(timeout=timeout)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    return "".join(seen) + out, err


def summary_of(tmp_path):
    return json.loads((tmp_path / "summary.json").read_text())


def witnessed_run(tmp_path, capture, *extra):
    """mtgctl_run while capture (a mtgwitness.capture.Capture) is the
    witness: the run must succeed and the capture lose nothing. (the
    completed run, the capture, the summary)."""
    with capture as cap:
        res = mtgctl_run(tmp_path, *extra)
    assert res.returncode == 0, res.stdout + res.stderr
    assert cap.lossless, cap.stderr
    return res, cap, summary_of(tmp_path)
