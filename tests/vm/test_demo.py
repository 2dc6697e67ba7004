# SPDX-License-Identifier: GPL-2.0-or-later
"""`make demo`'s experiment (examples/demo.sh, what it runs in the VM lane)
from a module not loaded: it loads mtg.ko, runs examples/demo.idf through a
forwarding namespace with netem, records what comes back, and its summary
agrees with the wire; afterwards it has unloaded the module and removed
its namespaces."""

import os
import re
import shutil

from mtgtest.system import (DEBUG_KERNEL, ROOT, load_module, module_loaded,
                            run, unload_module)

HEAD = re.compile(r"mtgctl exit status (\d+); capture: (\d+) frames, "
                  r"(\d+) dropped by the capture; recording: (\d+) records, "
                  r"(\d+) ring drops")
ROW = re.compile(r"^\s*(\d+)\s+(\d+)\s+(\d+) us\s+(\d+)\s+(\d+)\s+"
                 r"([\d.]+) ms \|\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)$", re.M)
NETEM_DELAY_MS = 5      # examples/demo.sh
SENT = 2000             # examples/demo.idf: 1000 packets/s for 2 s, each TG


def test_demo(mtg_module):
    unload_module()
    try:
        # The debug kernel starts slowly and its receive path lags seconds
        # behind (tests/vm/test_mtgctl_rx.py's DRAIN).
        env = dict(os.environ, MTG_DEMO_RUN_OPTS="--start-delay 10 "
                   "--drain 30") if DEBUG_KERNEL else None
        res = run(ROOT / "examples/demo.sh", check=False, timeout=1800,
                  env=env)
        out = res.stdout + res.stderr
        assert res.returncode == 0, out
        assert not module_loaded(), "the demo left mtg.ko loaded"
        netns = os.listdir("/run/netns") if os.path.isdir("/run/netns") \
            else []
        left = {"demo-tx", "demo-nut", "demo-rx"} & set(netns)
        assert not left, f"the demo left namespaces {left}"
    finally:
        load_module()
    for step in ("load mtg.ko", "the recording", "mtgsap on the recording",
                 "summary:"):
        assert f"== {step}" in out, f"no step '{step}':\n{out}"
    head = HEAD.search(out)
    assert head, out
    status, frames, cap_dropped, records, ring_drops = map(int, head.groups())
    assert (status, cap_dropped, ring_drops) == (0, 0, 0), head.group(0)
    rows = {int(r[0]): r for r in ROW.findall(out)}
    assert sorted(rows) == [1, 2], out
    received_total = 0
    for tg, row in rows.items():
        (sent, late_p99_us, received, lost, owd_p50_ms, seen, missing, bad,
         bits) = (float(x) if "." in x else int(x) for x in row[1:])
        assert sent == SENT, row
        assert received + lost == sent, row
        # The capture is on the interface mtg records from, behind netem's
        # loss: what it misses is exactly what mtgctl counts lost.
        assert (seen, missing) == (received, lost), row
        assert (bad, bits) == (0, 0), row
        assert owd_p50_ms >= NETEM_DELAY_MS, row
        assert late_p99_us >= 0
        received_total += received
    assert records == received_total == frames


def test_failed_demo_keeps_its_files(mtg_module):
    """A demo that fails keeps what it made in .demo-failed/ (shared with
    the host in the VM lane): here mtgctl run refuses an option, and its
    output is kept."""
    kept = ROOT / ".demo-failed"
    before = set(kept.iterdir()) if kept.exists() else set()
    env = dict(os.environ, MTG_DEMO_RUN_OPTS="--no-such-option")
    res = run(ROOT / "examples/demo.sh", check=False, timeout=600, env=env)
    assert res.returncode != 0
    new = set(kept.iterdir()) - before
    assert len(new) == 1, res.stdout + res.stderr
    folder, = new
    try:
        assert f"its files are kept in {folder}" in res.stderr
        assert "--no-such-option" in (folder / "run.txt").read_text()
    finally:
        shutil.rmtree(folder)
        if not any(kept.iterdir()):
            kept.rmdir()
