# SPDX-License-Identifier: GPL-2.0-or-later
"""`mtgctl logd` across a lossy link (Documentation/tsp.rst, The log
server): the loop's receiver (`mtgctl listen` in its own namespace, the
module receiving) logs every record to a logd in the middle namespace,
through netem dropping 10% of what goes to logd's port. Over UDP, the
loss logd reports, in batches, is what netem's own counter says it
dropped, and in records what is missing from logd's file against the
receiver's own recording; over TCP, netem's drops are retransmitted and
nothing is lost. (The host's kernel has no netem: the rest of logd is
tests/host/test_logd.py's.)"""

import json
import re
import signal
import subprocess
import time

import pytest

from mtgsap.recording import Recording
from mtgtest import tspd
from mtgtest.ctl import MTGCTL, mtgctl_run, write_idf
from mtgtest.system import run
import test_mtgctl_rx
from test_mtgctl_rx import START_DELAY, dst, globals_idf

make_loop = test_mtgctl_rx.make_loop    # the loop's fixture, shared

pytestmark = pytest.mark.vm

PACKETS = 3000          # 1 ms apart: some 220 datagrams of 14 records
LOSS = "10%"            # P(netem drops none of them) < 1e-9


def in_ns(ns, *cmd):
    return run("ip", "netns", "exec", ns, *cmd)


def netem_dropped(ns, dev):
    """What netem (handle 30:) on dev counts as dropped."""
    out = in_ns(ns, "tc", "-s", "qdisc", "show", "dev", dev).stdout
    m = re.search(r"qdisc netem 30:.*?\n\s*Sent \d+ bytes \d+ pkt "
                  r"\(dropped (\d+),", out, re.S)
    assert m, out
    return int(m.group(1))


@pytest.mark.parametrize("transport", ["udp", "tcp"])
def test_logd_over_a_lossy_link(make_loop, tmp_path, transport):
    loop = make_loop(4)
    key = tmp_path / "log.key"
    tspd.key_file(key)
    out = tmp_path / "logs"
    out.mkdir()
    logd_addr = loop.dst.rsplit(".", 1)[0] + ".1"     # c, the middle's
    udp = transport == "udp"
    logd = tspd.Logd(key, out, "--bind", logd_addr, *(["--udp"] if udp
                                                       else []),
                     netns=loop.ns_n)
    # netem on r's way out, for what goes to logd's port only
    proto = "17" if udp else "6"
    in_ns(loop.ns_r, "tc", "qdisc", "add", "dev", loop.r, "root", "handle",
          "1:", "prio")
    in_ns(loop.ns_r, "tc", "qdisc", "add", "dev", loop.r, "parent", "1:3",
          "handle", "30:", "netem", "loss", LOSS)
    in_ns(loop.ns_r, "tc", "filter", "add", "dev", loop.r, "parent", "1:",
          "protocol", "ip", "prio", "1", "u32", "match", "ip", "protocol",
          proto, "0xff", "match", "ip", "dport", str(logd.port), "0xffff",
          "flowid", "1:3")
    listener = subprocess.Popen(
        ["ip", "netns", "exec", loop.ns_r, MTGCTL, "listen", loop.r,
         "--batch", "-o", "local.rec", "--json", "listen.json", "--log",
         f"{logd_addr}:{logd.port}", "--log-key", key, "--log-name",
         "receiver", *(["--log-udp"] if udp else [])],
        cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        text=True)
    try:
        first = listener.stdout.readline()
        assert first.startswith("listening on 1 interface"), \
            first + listener.stderr.read()
        write_idf(tmp_path, globals_idf(loop, PACKETS, 200, listen=False) +
                  f"tgid 1 dst {dst(loop, 9001)}\n")
        res = mtgctl_run(tmp_path, "--start-delay", START_DELAY)
        assert res.returncode == 0, res.stdout + res.stderr
        time.sleep(1)
        listener.send_signal(signal.SIGINT)
        lout, lerr = listener.communicate(timeout=120)
    finally:
        if listener.poll() is None:
            listener.kill()
            listener.wait()
        rc, log = logd.stop()
    assert rc == 0, log
    dropped = netem_dropped(loop.ns_r, loop.r)
    assert dropped > 0, "netem dropped nothing: the test shows nothing"

    local = Recording(tmp_path / "local.rec")
    logged = Recording(out / "all-receiver.mtgrec")
    assert len(local) == PACKETS
    ld = logged.meta["logd"]
    summary = json.loads((tmp_path / "listen.json").read_text())["log"]
    assert ld["complete"] and summary["done"], log
    assert (summary["sent"], summary["not_sent"]) == (PACKETS, 0)
    # what logd has is the receiver's, in its order, less what was lost
    want = {bytes(r): i for i, r in enumerate(local.records.tobytes()[
        k:k + 96] for k in range(0, PACKETS * 96, 96))}
    at = [want[logged.records.tobytes()[k:k + 96]]
          for k in range(0, len(logged) * 96, 96)]
    assert at == sorted(at)
    assert ld["lost"] == len(local) - len(logged) == summary["lost"]
    assert ld["late"] == 0
    if udp:
        assert listener.returncode == 2, lout + lerr   # counted: lost
        assert ld["batches_lost"] == dropped == summary["batches_lost"]
        assert ld["lost"] > 0
        assert f"{ld['lost']} lost on the way ({dropped} batches)" in lout
    else:
        assert listener.returncode == 0, lout + lerr
        assert (ld["lost"], ld["batches_lost"]) == (0, 0)
        assert logged.records.tobytes() == local.records.tobytes()
