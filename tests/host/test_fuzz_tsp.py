# SPDX-License-Identifier: GPL-2.0-or-later
"""The TSP decoder under libFuzzer (tests/fuzz/tsp_fuzz.c, built by `make
tools` with ASan and UBSan) for a bounded number of inputs, from a seed
corpus of real messages: every sample of every type from each end (the
manager's and daemons' too), each
end's messages as one stream, and the session D-ITG 2.8.1's ITGSend and
ITGRecv had on loopback (Documentation/tsp.rst). No crash, no leak, no
message that decodes but does not encode back to its bytes, no
difference between decoding a stream whole and a byte at a time. A fixed
-seed makes the run repeatable on one build."""

import pathlib
import subprocess

from mtgtest import tsp

ROOT = pathlib.Path(__file__).resolve().parents[2]
FUZZ = ROOT / "tests" / "fuzz"
RUNS = 300_000

# ITGSend's and ITGRecv's bytes, captured (test_tsp_wire's session)
DITG_SENDER = bytes.fromhex(
    "01" "13" + "2f746d702f782e6c6f67".ljust(400, "0") +
    "03010001200400000002006e6f53657269616c0000a2737f000001"
    "03020001000400000001006e6f53657269616c0000a1737f000001"
    "0400000002" "0400000001" "0b")
DITG_RECEIVER = bytes.fromhex(
    "02" "12" "050000000273a2" "050000000173a1" "0600000002" "0600000001"
    "07")


def test_tsp_decoder_fuzzing(tmp_path):
    subprocess.run(["make", "-s", "-C", ROOT, "tests/fuzz/tsp_fuzz"],
                   check=True, stdout=subprocess.DEVNULL)
    tsp.build()
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    streams = {"sender": b"", "receiver": b""}
    for i, (frm, msg) in enumerate(tsp.SAMPLES + tsp.JOB_SAMPLES):
        (data,) = tsp.encode([msg], frm)
        (corpus / f"{i:02}-{frm}-{msg['type']:#x}").write_bytes(data)
        streams[frm] += data
    for frm, data in streams.items():
        (corpus / f"all-{frm}").write_bytes(data)
    (corpus / "ditg-sender").write_bytes(DITG_SENDER)
    (corpus / "ditg-receiver").write_bytes(DITG_RECEIVER)
    # the captured session decodes as it is (the seeds are real)
    assert tsp.decode(DITG_SENDER, "sender")[1] is None
    assert tsp.decode(DITG_RECEIVER, "receiver")[1] is None
    res = subprocess.run(
        [FUZZ / "tsp_fuzz", f"-runs={RUNS}", "-seed=1", "-max_len=8192",
         "-timeout=10", "-rss_limit_mb=2048",
         f"-artifact_prefix={tmp_path}/", corpus],
        capture_output=True, text=True, timeout=900)
    crashes = list(tmp_path.glob("crash-*")) + list(tmp_path.glob("leak-*")) \
        + list(tmp_path.glob("timeout-*"))
    assert res.returncode == 0 and not crashes, \
        (crashes, res.stderr[-4000:])
    assert f"Done {RUNS} runs" in res.stderr
