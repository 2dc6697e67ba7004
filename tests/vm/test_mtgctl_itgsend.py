# SPDX-License-Identifier: GPL-2.0-or-later
"""`mtgctl itgsend` run for real: an ITGSend command line, unchanged but for
mtgctl's own long options, sends through the module to a `mtgctl listen`
in a namespace the test makes. What arrives is what the options ask:
-z packets, -c bytes of UDP payload each, -b and -f in the IP header, one
packet every 1000/-C ms by the schedule each packet carries (the header's
scheduled time, so nothing here is timed), the interface found by the
route to -a."""

import json
import signal
import subprocess

import numpy as np

from mtgsap.recording import Recording
from mtgtest.ctl import MTGCTL

IPV4 = 14 + 20 + 8


def test_itgsend_command_line_to_listen(mtg, make_link, tmp_path):
    link = make_link(4)
    listener = subprocess.Popen(
        [MTGCTL, "listen", f"{link.b}@{link.ns}", "--batch", "-o", "rx.rec",
         "--json", "rx.json"], cwd=tmp_path, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True)
    try:
        first = listener.stdout.readline()
        assert first.startswith("listening on 1 interface"), \
            first + listener.stderr.read()
        # ITGSend's options; the interface is the route's to -a (link.a)
        res = subprocess.run(
            [MTGCTL, "itgsend", "-a", link.b_addr, "-rp", "9001",
             "-sp", "5000", "-C", "200", "-c", "300", "-z", "400",
             "-b", "0x28", "-f", "33", "--batch", "--json", "tx.json"],
            cwd=tmp_path, capture_output=True, text=True, timeout=600)
        assert res.returncode == 0, res.stdout + res.stderr
        listener.send_signal(signal.SIGINT)
        out, err = listener.communicate(timeout=120)
    finally:
        if listener.poll() is None:
            listener.kill()
            listener.wait()
    assert listener.returncode == 0, out + err
    sent = json.loads((tmp_path / "tx.json").read_text())
    (tg,) = sent["tgs"]
    assert (tg["id"], tg["sent"]) == (1, 400)
    assert sent["file"] == "itgsend"
    got = json.loads((tmp_path / "rx.json").read_text())
    assert [(t["run_id"], t["id"], t["received"], t["lost"])
            for t in got["tgs"]] == [(sent["run_id"], 1, 400, 0)]
    rec = Recording(tmp_path / "rx.rec")
    r = rec.records
    assert len(r) == 400
    assert sorted(r["seq"].tolist()) == list(range(400))
    assert set(r["len"].tolist()) == {300 + IPV4}
    assert (set(r["tos"].tolist()), set(r["ttl"].tolist())) == ({0x28}, {33})
    # 200 packets/s: every scheduled time 5 ms after the one before
    sched = np.sort(r["sched_ns"].astype(np.int64))
    assert set(np.diff(sched).tolist()) == {5_000_000}


def test_itgsend_size_law_to_listen(mtg, make_link, tmp_path):
    """-e 400 (payloads 400 * Exp(1), as ITGSend draws them): each packet
    arrives with the length its timetable entry gives (`mtgctl table` of
    the IDF itgsend prints, entry k for sequence number k), clamped to
    88 .. 1472 bytes of payload."""
    link = make_link(4)
    args = ["-a", link.b_addr, "-rp", "9001", "-C", "500", "-e", "400",
            "-z", "300"]
    idf = subprocess.run([MTGCTL, "itgsend", *args, "--idf"], cwd=tmp_path,
                         capture_output=True, text=True, check=True).stdout
    (tmp_path / "e.idf").write_text(idf)
    table = subprocess.run([MTGCTL, "table", "e.idf", "--count", "300"],
                           cwd=tmp_path, capture_output=True, text=True,
                           check=True).stdout.splitlines()[1:]
    want = [int(line.split(",")[4]) for line in table]
    listener = subprocess.Popen(
        [MTGCTL, "listen", f"{link.b}@{link.ns}", "--batch", "-o", "rx.rec"],
        cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        text=True)
    try:
        first = listener.stdout.readline()
        assert first.startswith("listening on 1 interface"), \
            first + listener.stderr.read()
        res = subprocess.run([MTGCTL, "itgsend", *args, "--batch"],
                             cwd=tmp_path, capture_output=True, text=True,
                             timeout=600)
        assert res.returncode == 0, res.stdout + res.stderr
        listener.send_signal(signal.SIGINT)
        out, err = listener.communicate(timeout=120)
    finally:
        if listener.poll() is None:
            listener.kill()
            listener.wait()
    assert listener.returncode == 0, out + err
    r = Recording(tmp_path / "rx.rec").records
    r = r[np.argsort(r["seq"])]
    assert r["seq"].tolist() == list(range(300))
    assert r["len"].tolist() == want
    assert min(want) == 88 + IPV4 and max(want) <= 1472 + IPV4
    assert len(set(want)) > 100
