# SPDX-License-Identifier: GPL-2.0-or-later
"""ctl/tsp through tests/tools/tsp_tool (the library itself, built by
`make tools`): decode bytes, encode messages, and one sample of every
message type from each end that sends it."""

import json
import pathlib
import subprocess

ROOT = pathlib.Path(__file__).resolve().parents[2]
TOOL = ROOT / "tests" / "tools" / "tsp_tool"


def build():
    subprocess.run(["make", "-s", "-C", ROOT, "tests/tools/tsp_tool"],
                   check=True, stdout=subprocess.DEVNULL)


def decode(data, frm="sender", passive=False, split=0):
    """The messages of the bytes (hex or bytes) and the error, if any:
    (list of dicts, dict or None)."""
    if isinstance(data, (bytes, bytearray)):
        data = data.hex()
    args = [TOOL, "decode", "--from", frm, "--split", str(split)]
    if passive:
        args.append("--passive")
    res = subprocess.run([*args, "-"], input=data, capture_output=True,
                         text=True, timeout=60)
    assert res.returncode in (0, 1), res.stderr
    lines = [json.loads(x) for x in res.stdout.splitlines()]
    if res.returncode:
        assert "error" in lines[-1]
        return lines[:-1], lines[-1]["error"]
    return lines, None


def encode(msgs, frm="sender"):
    """Each message's bytes, or the encoder's error (a dict)."""
    res = subprocess.run([TOOL, "encode", "--from", frm],
                         input="".join(json.dumps(m) + "\n" for m in msgs),
                         capture_output=True, text=True, timeout=60)
    assert res.returncode in (0, 1), res.stderr
    out = res.stdout.splitlines()
    if res.returncode:
        return json.loads(out[-1])["error"]
    return [bytes.fromhex(x) for x in out]


def flow(**kw):
    """D-ITG's TSP_SEND_FLOW as ITGSend fills it by default."""
    m = {"type": 3, "flow_id": 1, "l4_proto": 2, "l7_proto": 0, "meter": 1,
         "ds_byte": 0, "l3_proto": 4, "payload_type": 0,
         "serial": "noSerial", "port": 8999, "addr": "127.0.0.1"}
    m.update(kw)
    return m


TG = json.dumps({"id": 3, "proto": "udp", "rate_pps": 1000.0,
                 "dst": {"addr": "10.0.0.2", "port": 9000},
                 "note": "caf\u00e9"})

# (from, message): every type of D-ITG 2.8.1 that is on the wire and of
# mtg, from each end that sends it
SAMPLES = [
    ("sender", {"type": 1}),
    ("sender", flow()),
    ("sender", flow(flow_id=7, l4_proto=1, l7_proto=3, meter=2, ds_byte=184,
                    l3_proto=6, payload_type=1, serial="ttyS0",
                    port=65535, addr="2001:db8::1")),
    ("sender", {"type": 4, "flow_id": 0xFFFFFFFF}),
    ("sender", {"type": 9}),
    ("sender", {"type": 11}),
    ("sender", {"type": 12, "family": 2, "addr": "192.0.2.7", "port": 9002,
                "log_proto": 2, "log_name": "/tmp/recv.log"}),
    ("sender", {"type": 12, "family": 10, "addr": "::1", "port": 0,
                "log_proto": 1, "log_name": "x"}),
    ("sender", {"type": 14}),
    ("sender", {"type": 17, "flow_id": 3}),
    ("sender", {"type": 19, "log_name": "/tmp/ITGRecv.log"}),
    ("receiver", {"type": 2}),
    ("receiver", {"type": 5, "flow_id": 2, "port": 19101}),
    ("receiver", {"type": 6, "flow_id": 2}),
    ("receiver", {"type": 7}),
    ("receiver", {"type": 8}),
    ("receiver", {"type": 13}),
    ("receiver", {"type": 15, "flow_id": 1}),
    ("receiver", {"type": 16, "flow_id": 1}),
    ("receiver", {"type": 18}),
    ("receiver", {"type": 21}),
    ("receiver", {"type": 22, "flow_id": 9}),
    ("sender", {"type": 0x80, "major": 1, "minor": 0}),
    ("receiver", {"type": 0x80, "major": 1, "minor": 999}),
    ("receiver", {"type": 0x81, "nonce": "ab" * 32, "lifetime_ms": 10000}),
    ("sender", {"type": 0x82, "nonce": "01" * 32, "mac": "fe" * 32}),
    ("receiver", {"type": 0x83, "mac": "00" * 32}),
    ("sender", {"type": 0x84, "flow_id": 3, "run_id": 77, "l4_proto": 2,
                "l3_proto": 4, "port": 9000, "src_port": 40000,
                "addr": "10.0.0.2", "bit_rate": 8_000_000,
                "pkt_rate_milli": 1_000_000, "duration_ns": 10**10,
                "tg_json": TG}),
    ("sender", {"type": 0x84, "flow_id": 4, "run_id": 0, "l4_proto": 1,
                "l3_proto": 6, "port": 1, "src_port": 0, "addr": "fe80::2",
                "bit_rate": 0, "pkt_rate_milli": 0, "duration_ns": 0,
                "tg_json": ""}),
    ("receiver", {"type": 0x85, "flow_id": 3, "code": 0, "port": 9000,
                  "reason": ""}),
    ("receiver", {"type": 0x85, "flow_id": 4, "code": 3, "port": 0,
                  "reason": "rate 8 Mbit/s over this receiver's 1 Mbit/s \u2014 refus\u00e9"}),
    ("receiver", {"type": 0x86, "flow_id": 3, "flags": 3, "received": 9990,
                  "lost": 10, "duplicates": 1, "reordered": 2,
                  "bytes": 9990 * 64, "owd_min_ns": -1500,
                  "owd_mean_ns": 20000, "owd_max_ns": 2**62,
                  "jitter_ns": 300, "first_rx_ns": 1, "last_rx_ns": 2**63 - 1}),
    ("receiver", {"type": 0x87, "code": 1, "about": 0x80,
                  "text": "TSP 2.0 here; 1.0 asked"}),
    ("sender", {"type": 0x87, "code": 8, "about": 0, "text": ""}),
    ("sender", {"type": 0x88, "run_id": 0xFFFFFFFF,
                "start_ns": 1_790_000_000_000_000_000,
                "offset_ns": -5_000_123, "uncertainty_ns": 41_000}),
    ("sender", {"type": 0x88, "run_id": 1, "start_ns": 0, "offset_ns": 0,
                "uncertainty_ns": 0}),
    ("sender", {"type": 0x89, "t1": 1_790_000_000_000_000_001}),
    ("receiver", {"type": 0x8A, "t1": 1, "t2": 2**63 - 1, "t3": 3}),
    ("sender", {"type": 0x8B, "run_id": 7, "transport": 1, "host": "host-a",
                "meta": '{"format":"mtg-recording","version":1}'}),
    ("sender", {"type": 0x8B, "run_id": 0, "transport": 2,
                "host": "a" * 64, "meta": "{\"h\u00f4te\":1}"}),
    ("receiver", {"type": 0x8C, "log_id": 1, "udp_port": 0}),
    ("receiver", {"type": 0x8C, "log_id": 0xFFFFFFFF, "udp_port": 9001}),
    ("sender", {"type": 0x8D, "log_id": 3, "seq": 0, "first": 0, "count": 1,
                "records": bytes(range(96)).hex()}),
    ("sender", {"type": 0x8D, "log_id": 3, "seq": 2**63 - 1,
                "first": 2**62, "count": 2,
                "records": (bytes(96) + b"\xff" * 96).hex()}),
    ("sender", {"type": 0x8E, "records": 500, "batches": 36, "not_sent": 0,
                "ring_drops": 2, "end_ns": 1_790_000_000_000_000_000}),
    ("receiver", {"type": 0x8F, "records": 486, "lost": 14,
                  "batches_lost": 1, "late": 0, "file": "7-host-a.mtgrec"}),
    ("receiver", {"type": 0x87, "code": 9, "about": 0x8B,
                  "text": "run 8 here, not 7"}),
]

# (from, message): the manager's and daemons' messages (mtgctl manage and
# mtgctl daemon; types 0x90..0x96), the manager being the "sender"
JOB_SAMPLES = [
    ("sender", {"type": 0x90, "run_id": 77, "idf_len": 4096,
                "host": "alpha", "file": "two-hosts.idf"}),
    ("sender", {"type": 0x90, "run_id": 0xFFFFFFFF, "idf_len": 16 << 20,
                "host": "h" * 64, "file": "caf\u00e9.idf"}),
    ("sender", {"type": 0x91, "kind": 1, "piece_offset": 0,
                "data": b"host alpha 10.0.0.1\n".hex()}),
    ("sender", {"type": 0x91, "kind": 1, "piece_offset": 2**32 - 1,
                "data": (b"\xff" * 16384).hex()}),
    ("receiver", {"type": 0x91, "kind": 2, "piece_offset": 16384,
                  "data": b'{"format":"mtg-summary"}'.hex()}),
    ("receiver", {"type": 0x92, "run_id": 77, "tgs": 3}),
    ("sender", {"type": 0x93, "run_id": 77,
                "start_ns": 1_790_000_000_000_000_000}),
    ("receiver", {"type": 0x94, "run_id": 77, "elapsed_ns": 2 * 10**9,
                  "rows": []}),
    ("receiver", {"type": 0x94, "run_id": 77, "elapsed_ns": 3 * 10**9,
                  "rows": [{"tgid": 1, "state": 1, "sent": 300,
                            "bytes": 60000, "late_p99_ns": 120_000},
                           {"tgid": 2**32 - 1, "state": 5, "sent": 0,
                            "bytes": 0, "late_p99_ns": 2**63 - 1}]}),
    ("receiver", {"type": 0x95, "run_id": 77, "status": 0, "flags": 0,
                  "summary_len": 16408, "why": ""}),
    ("receiver", {"type": 0x95, "run_id": 77, "status": 143, "flags": 1,
                  "summary_len": 0,
                  "why": "dropped by the manager: the manager got SIGINT"}),
    ("sender", {"type": 0x96, "run_id": 77,
                "why": "another host is not ready"}),
]
