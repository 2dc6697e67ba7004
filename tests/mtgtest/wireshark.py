# SPDX-License-Identifier: GPL-2.0-or-later
"""tshark with mtg's dissector (scripts/wireshark/mtg.lua) against the wire
decoder the tests trust (scripts/mtgwitness/wire.py): every field of every
frame, and the frames display filters select. Shared by
tests/host/test_wireshark.py (hand-made pcaps) and tests/vm/test_wireshark.py
(captures of real runs)."""

import dataclasses
import os
import pathlib
import shutil
import subprocess
import tempfile
import xml.etree.ElementTree as ET

from mtgwitness import abi, wire

ROOT = pathlib.Path(__file__).resolve().parents[2]
PLUGIN = ROOT / "scripts" / "wireshark" / "mtg.lua"
TSHARK = shutil.which("tshark")

# Checksum status as the dissector gives it (Wireshark's own values).
BAD, GOOD, UNVERIFIED, NOT_PRESENT, ILLEGAL = 0, 1, 2, 3, 4


def _udp_segment(f):
    return (f.sport.to_bytes(2, "big") + f.dport.to_bytes(2, "big") +
            f.udp_len.to_bytes(2, "big") + f.udp_csum.to_bytes(2, "big") +
            f.payload)


def _udp_status(f):
    if f.udp_csum == 0:
        return NOT_PRESENT if f.ip_version == 4 else ILLEGAL
    return BAD if "bad UDP checksum" in f.errors else GOOD


def expected(f):
    """What each dissector field must show for frame f (a wire.Frame with
    an MTG header, whole): {field: int or bytes}; a field missing from the
    dict must be missing from the dissection."""
    h = f.mtg
    out = {
        "mtg.magic": h.magic, "mtg.version": h.version, "mtg.flags": h.flags,
        "mtg.flags.ctrl": h.flags & 1, "mtg.flags.keep_payload":
        h.flags >> 1 & 1, "mtg.flags.keep_bits": h.flags >> 2 & 1,
        "mtg.flags.reserved": h.flags >> 3, "mtg.hdr_len": h.hdr_len,
        "mtg.run": h.run_id, "mtg.tg": h.tg_id, "mtg.seq": h.seq,
        "mtg.sched": h.sched_ns, "mtg.nut": h.nut,
        "mtg.patt.kind": h.patt_kind, "mtg.patt.value": h.patt_value,
        "mtg.patt.seed": h.patt_seed, "mtg.crc": h.crc,
        "mtg.crc.computed": wire.crc32c(h.raw[:44]),
        "mtg.crc.status": GOOD if h.crc_ok else BAD, "mtg.tx": h.tx_ns,
        "mtg.udp_checksum.status": _udp_status(f),
    }
    for i, tp in enumerate(h.tp_ns):
        out[f"mtg.tp{i}"] = tp
    if h.tx_ns:
        # TX minus scheduled, as a signed 64-bit number.
        out["mtg.late"] = (h.tx_ns - h.sched_ns + (1 << 63)) % (1 << 64) \
            - (1 << 63)
    if out["mtg.udp_checksum.status"] != NOT_PRESENT:
        out["mtg.udp_checksum.computed"] = wire.udp_checksum(
            f.src.packed, f.dst.packed, _udp_segment(f))
    if f.body:
        out["mtg.ctrl.data" if h.ctrl else "mtg.payload"] = f.body
    return out


# Every field of the dissector (Documentation/wireshark.rst lists them).
FIELDS = ("mtg.magic", "mtg.version", "mtg.flags", "mtg.flags.ctrl",
          "mtg.flags.keep_payload", "mtg.flags.keep_bits",
          "mtg.flags.reserved", "mtg.hdr_len", "mtg.run", "mtg.tg", "mtg.seq",
          "mtg.sched", "mtg.nut", "mtg.patt.kind", "mtg.patt.value",
          "mtg.patt.seed", "mtg.crc", "mtg.crc.computed", "mtg.crc.status",
          "mtg.tx", "mtg.late", "mtg.tp0", "mtg.tp1", "mtg.tp2", "mtg.tp3",
          "mtg.udp_checksum.computed", "mtg.udp_checksum.status",
          "mtg.ctrl.data", "mtg.payload")


class TsharkError(AssertionError):
    pass


def _tshark(*args):
    """tshark with the plugin and args; its standard output. The user's
    own Wireshark configuration (a copy of the plugin in a plugin folder,
    preferences) is kept out: HOME is an empty folder."""
    if TSHARK is None:
        raise TsharkError("tshark not found: run 'make deps'")
    with tempfile.TemporaryDirectory(prefix="mtg-tshark-") as home:
        env = {k: v for k, v in os.environ.items()
               if not k.startswith(("XDG_", "WIRESHARK_"))}
        env["HOME"] = home
        res = subprocess.run([TSHARK, *args], env=env, capture_output=True,
                             text=True, timeout=600)
    if res.returncode != 0 or "Lua" in res.stderr:
        raise TsharkError(f"tshark {' '.join(args)}: exit "
                          f"{res.returncode}\n{res.stderr}")
    return res.stdout


def tshark(pcap, *args):
    """tshark -r pcap with the plugin and args; its standard output."""
    return _tshark("-n", "-X", f"lua_script:{PLUGIN}", "-r", str(pcap), *args)


def glossary(report):
    """tshark -G report (fields, defaultprefs…) with the plugin loaded."""
    return _tshark("-G", report, "-X", f"lua_script:{PLUGIN}")


def dissect(pcap, *args):
    """Every frame's dissection: [{field: str}], the fields it has (an
    occurrence each: a field twice in a frame is an error)."""
    names = ["frame.number", "frame.protocols", "_ws.lua.error", "_ws.short",
             *FIELDS]
    cmd = ["-T", "fields", "-E", "separator=\t", "-E", "occurrence=a",
           "-E", "aggregator=\x01", *args]
    for n in names:
        cmd += ["-e", n]
    out = []
    for line in tshark(pcap, *cmd).splitlines():
        values = line.split("\t")
        assert len(values) == len(names), line
        row = {n: v for n, v in zip(names, values) if v != ""}
        twice = [n for n, v in row.items() if "\x01" in v]
        assert not twice, f"frame {row['frame.number']}: twice: {twice}"
        assert int(row["frame.number"]) == len(out) + 1
        out.append(row)
    return out


def value(field, text):
    """A dissected field's text as expected() gives it."""
    if field in ("mtg.nut", "mtg.ctrl.data", "mtg.payload"):
        return bytes.fromhex(text.replace(":", ""))
    if text in ("True", "False"):
        return int(text == "True")
    return int(text, 0)


# What the wire decoder may find wrong in a frame that Wireshark then
# dissects down to the same UDP payload: damage inside a checksum's reach.
# Damage to the frame's structure (a length, a fragment offset, a protocol
# number: netem corrupts anywhere) sends the two decoders different ways.
SAME_PATH_ERRORS = ("bad IPv4 header checksum", "bad UDP checksum",
                    "bad MTG header CRC", "MTG header version",
                    "MTG frame without UDP checksum",
                    "UDP over IPv6 without checksum")


def comparable(f):
    return all(e.startswith(SAME_PATH_ERRORS) for e in f.errors)


def check_fields(pcap, frames, *args, skip=()):
    """Frame by frame (but the numbers in skip): an MTG frame of the wire
    decoder is dissected as MTG, every field equal to what the decoder
    reads; any other frame has no MTG in it. No frame met a Lua error.
    The dissections."""
    rows = dissect(pcap, *args)
    assert len(rows) == len(frames)
    for i, (row, f) in enumerate(zip(rows, frames), 1):
        assert "_ws.lua.error" not in row, (i, row["_ws.lua.error"])
        if i in skip:
            continue
        protos = row["frame.protocols"].split(":")
        if f.mtg is None:
            assert "mtg" not in protos and \
                not [n for n in row if n.startswith("mtg.")], (i, row)
            continue
        assert protos[-2:] == ["udp", "mtg"], (i, protos)
        got = {n: value(n, v) for n, v in row.items() if n.startswith("mtg.")}
        assert got == expected(f), f"frame {i}"
    return rows


def selected(pcap, display_filter, *args):
    """Frame numbers (from 1) that a display filter selects."""
    out = tshark(pcap, "-Y", display_filter, "-T", "fields", "-e",
                 "frame.number", *args)
    return [int(n) for n in out.split()]


def numbers(frames, pred):
    """Frame numbers (from 1) of the MTG frames for which pred(frame)."""
    return [i for i, f in enumerate(frames, 1) if f.mtg and pred(f)]


def check_filters(pcap, frames, skip=()):
    """mtg.tg == N for every TG, mtg.run == 0x... for every run, mtg.seq
    (present; equal to a value; in a range), mtg.flags.ctrl == 1 and the
    expert items of a bad CRC, a bad or absent UDP checksum, an unknown
    version or length select exactly
    the frames the wire decoder selects (but the numbers in skip). The
    filters it tried, with the frames they selected."""
    mtg = [f for f in frames if f.mtg]
    assert mtg, "no MTG frame to filter"
    tried = {"mtg": numbers(frames, lambda f: True),
             "mtg.seq": numbers(frames, lambda f: True),
             "mtg.flags.ctrl == 1": numbers(frames, lambda f: f.mtg.ctrl),
             "mtg.crc.bad": numbers(frames, lambda f: not f.mtg.crc_ok),
             "mtg.crc.status == \"Bad\"":
             numbers(frames, lambda f: not f.mtg.crc_ok),
             "mtg.udp_checksum.bad":
             numbers(frames, lambda f: _udp_status(f) in (BAD, ILLEGAL)),
             "mtg.udp_checksum.absent":
             numbers(frames, lambda f: _udp_status(f) == NOT_PRESENT),
             "mtg.version.unknown":
             numbers(frames, lambda f: (f.mtg.version, f.mtg.hdr_len) !=
                     (abi.HDR_VERSION, abi.HDR_LEN))}
    for tg in sorted({f.mtg.tg_id for f in mtg}):
        tried[f"mtg.tg == {tg}"] = numbers(frames, lambda f: f.mtg.tg_id == tg)
    for run in sorted({f.mtg.run_id for f in mtg}):
        tried[f"mtg.run == {run:#x}"] = \
            numbers(frames, lambda f: f.mtg.run_id == run)
    seqs = sorted({f.mtg.seq for f in mtg})
    mid = seqs[len(seqs) // 2]
    tried[f"mtg.seq == {mid}"] = numbers(frames, lambda f: f.mtg.seq == mid)
    tried[f"mtg.seq >= {mid} && mtg.seq < {mid + 5}"] = \
        numbers(frames, lambda f: mid <= f.mtg.seq < mid + 5)
    for flt, want in tried.items():
        got = [i for i in selected(pcap, flt) if i not in skip]
        assert got == [i for i in want if i not in skip], flt
    return tried


# --- TSP (mtgtsp), the signalling over TCP ---------------------------------

class TcpConnection:
    """The frames of one TCP connection, for a hand-made pcap: the
    handshake, the segments given (each end's sequence numbers following
    its bytes), the close."""

    def __init__(self, client, server, cport, sport):
        self.ends = ((client, cport), (server, sport))
        self.seq = [1000, 5000]
        self.frames = []
        self._send(0, wire.TCP_SYN, b"")
        self.seq[0] += 1
        self._send(1, wire.TCP_SYN | wire.TCP_ACK, b"")
        self.seq[1] += 1
        self._send(0, wire.TCP_ACK, b"")

    def _send(self, side, flags, payload):
        (src, sp), (dst, dp) = self.ends[side], self.ends[1 - side]
        ack = self.seq[1 - side] if flags & wire.TCP_ACK else 0
        self.frames.append(wire.build_tcp_frame(src, dst, sp, dp,
                                                self.seq[side], ack, flags,
                                                payload))

    def send(self, from_server, payload):
        """One segment of payload from the server (the receiver) or the
        client (the sender)."""
        side = 1 if from_server else 0
        self._send(side, wire.TCP_PSH | wire.TCP_ACK, payload)
        self.seq[side] += len(payload)

    def close(self):
        for side in (0, 1):
            self._send(side, wire.TCP_FIN | wire.TCP_ACK, b"")
            self.seq[side] += 1
        self._send(0, wire.TCP_ACK, b"")


def write_frames(path, frames):
    path.write_bytes(wire.write_pcap([wire.Record(1_700_000_000 * 10**9 +
                                                  i * 1000, len(d), d)
                                      for i, d in enumerate(frames)]))


# The dissector's expert items (Documentation/wireshark.rst).
TSP_EXPERTS = ("mtgtsp.unknown_type", "mtgtsp.wrong_end",
               "mtgtsp.bad_length", "mtgtsp.bad_value", "mtgtsp.ditg",
               "mtgtsp.refused", "mtgtsp.error_sent", "mtgtsp.cut_short")


@dataclasses.dataclass
class TspMsg:
    """One mtgtsp tree of a dissection: a message."""
    frame: int
    stream: int                 # tcp.stream
    size: int                   # the bytes the message takes
    fields: dict                # name: (show, value)
    experts: list               # expert names on it


def tsp_dissect(pcap, *args):
    """Every mtgtsp message of a capture as tshark shows it (PDML), in
    frame order; no Lua error in any frame."""
    out = tshark(pcap, "-T", "pdml", *args)
    msgs = []
    for packet in ET.fromstring(out).iter("packet"):
        num = stream = None
        for f in packet.iter("field"):
            if f.get("name") == "frame.number":
                num = int(f.get("show"))
            elif f.get("name") == "tcp.stream":
                stream = int(f.get("show"))
            assert f.get("name") != "_ws.lua.error", \
                (num, f.get("showname"))
        for proto in packet.iter("proto"):
            if proto.get("name") != "mtgtsp":
                continue
            fields, experts = {}, []
            for f in proto.iter("field"):
                name = f.get("name")
                if name in TSP_EXPERTS:
                    experts.append(name)
                elif name.startswith("mtgtsp.job.row"):
                    # a TSP_JOB_PROGRESS's rows: each field once a row
                    fields.setdefault(name, []).append(
                        (f.get("show"), f.get("value", "")))
                elif name.startswith("mtgtsp."):
                    assert name not in fields, (num, name)
                    fields[name] = (f.get("show"), f.get("value", ""))
            msgs.append(TspMsg(num, stream, int(proto.get("size")), fields,
                               experts))
    return msgs


# tsp_tool's keys (tests/tools/tsp_json.c) as the dissector names them,
# where not mtgtsp.KEY; addresses are mtgtsp.addr or .addr6 by version.
TSP_NAMES = {"flow_id": "mtgtsp.flow", "run_id": "mtgtsp.run",
             "major": "mtgtsp.hello.major", "minor": "mtgtsp.hello.minor",
             "family": "mtgtsp.log.family", "log_proto": "mtgtsp.log.proto",
             "log_name": "mtgtsp.log.name"}
TSP_SKIP = ("type", "name", "offset", "len", "passive", "code_name",
            "serial_hex", "log_name_hex")
# the log server's messages (0x8b..0x8f): mtgtsp.log.KEY, but these
TSP_LOG_NAMES = {"run_id": "mtgtsp.log.run", "records": "mtgtsp.log.records",
                 "host": "mtgtsp.log.name"}
# the manager's and daemons' (0x90..0x96): mtgtsp.job.KEY, but these
TSP_JOB_NAMES = {"run_id": "mtgtsp.run", "start_ns": "mtgtsp.start_ns",
                 "piece_offset": "mtgtsp.job.offset"}


def job_expected(out, t, key, v, name):
    """A job message's field (0x90..0x96) into out, as tsp_expected."""
    if key == "data":
        out[name] = ("hex", v)
        out["mtgtsp.job.len"] = ("int", len(v) // 2)
    elif key in ("file", "why"):
        out[name] = ("text", v)
        out["mtgtsp.text_len"] = ("int", len(v.encode()))
    elif key == "host":
        out[name] = ("show", v)
        out["mtgtsp.job.host_len"] = ("int", len(v))
    elif key == "rows":
        out["mtgtsp.job.count"] = ("int", len(v))
        if v:
            out["mtgtsp.job.row"] = ("rows", len(v))
            out["mtgtsp.job.row.reserved"] = ("ints", [0] * len(v))
        for k in ("tgid", "state", "sent", "bytes", "late_p99_ns"):
            if v:
                out["mtgtsp.job.row." + k.replace("_p99_ns", "")] = \
                    ("ints", [r[k] for r in v])
    elif key == "flags":
        out[name] = ("int", v)
        out["mtgtsp.job.flags.killed"] = ("int", v & 1)
    else:
        out[name] = ("int", v)
    if t in (0x91, 0x94, 0x95):
        out["mtgtsp.reserved"] = ("int", 0)


def tsp_expected(m, frm):
    """What the dissector must show of message m (tsp_tool's decoding of
    it, from frm): {field: (kind, value)}, kind telling how the field's
    PDML is read (tsp_value)."""
    t = m["type"]
    out = {"mtgtsp.type": ("int", t), "mtgtsp.from": ("show", frm)}
    if t >= 0x80:
        out["mtgtsp.marker"] = ("int", 0x4D)
        out["mtgtsp.len"] = ("int", m["len"] - 6)
    for key, v in m.items():
        if key in TSP_SKIP:
            continue
        name = TSP_NAMES.get(key, "mtgtsp." + key)
        if 0x8B <= t <= 0x8F:
            name = TSP_LOG_NAMES.get(key, "mtgtsp.log." + key)
        if 0x90 <= t <= 0x96:
            name = TSP_JOB_NAMES.get(key, "mtgtsp.job." + key)
        if 0x90 <= t <= 0x96:
            job_expected(out, t, key, v, name)
        elif t == 0x8D and key == "records":
            out["mtgtsp.log.recs"] = ("hex", v)
        elif key == "host":
            out[name] = ("show", v)
        elif key in ("meta", "file"):
            out[name] = ("text", v)
            out["mtgtsp.log.meta_len" if key == "meta"
                else "mtgtsp.text_len"] = ("int", len(v.encode()))
        elif key == "addr":
            name = ("mtgtsp.log.addr" if t == 12 else "mtgtsp.addr") + \
                ("6" if ":" in v else "")
            out[name] = ("show", v)
        elif key == "port" and t == 12:
            out["mtgtsp.log.port"] = ("int", v)
        elif key == "code":
            out["mtgtsp.refusal" if t == 0x85 else "mtgtsp.error"] = \
                ("int", v)
        elif key in ("serial", "log_name"):
            out[name] = ("name", m[key + "_hex"])
        elif key in ("nonce", "mac"):
            out[name] = ("hex", v)
        elif key in ("tg_json", "reason", "text"):
            out[name] = ("text", v)
            out["mtgtsp.tg_json_len" if key == "tg_json"
                else "mtgtsp.text_len"] = ("int", len(v.encode()))
        else:
            out[name] = ("int", v)
    if t == 0x80:
        role = "S" if frm == "sender" else "R"
        out["mtgtsp.hello"] = ("show", "MTG-TSP %03d.%03d%s" % (
            m["major"], m["minor"], role))
        out["mtgtsp.hello.magic"] = ("show", "MTG-TSP ")
        out["mtgtsp.hello.role"] = ("show", role)
    if t == 0x8B:
        out["mtgtsp.log.name_len"] = ("int", len(m["host"]))
    if t in (0x84, 0x87, 0x8B, 0x8D):
        out["mtgtsp.reserved"] = ("int", 0)
    if t == 0x86:
        out["mtgtsp.flags.incomplete"] = ("int", m["flags"] & 1)
        out["mtgtsp.flags.no_owd"] = ("int", m["flags"] >> 1 & 1)
    return out


def tsp_value(kind, show, value=None):
    """A field's PDML (show, value) read as tsp_expected's kind says (a
    row's fields: a list of them, "ints" and "rows")."""
    if kind == "ints":
        return [int(s, 0) for s, _ in show]
    if kind == "rows":
        return len(show)
    if kind == "int":
        return int(show == "True") if show in ("True", "False") \
            else int(show, 0)
    if kind == "hex":
        return value
    if kind == "text":
        # an empty text is shown on its length field's bytes
        return bytes.fromhex(value).decode() if show else ""
    if kind == "name":
        # a fixed-size name: its bytes up to the last non-zero one
        raw = bytes.fromhex(value)
        return raw.rstrip(b"\0").hex()
    return show


def tsp_check(msgs, decoded, frm):
    """The dissector's messages of one direction of one connection equal,
    one by one and field by field, tsp_tool's decoding of its bytes
    (a list from tsp.decode, from frm); none is flagged."""
    got_types = [int(m.fields["mtgtsp.type"][0], 0) for m in msgs]
    assert got_types == [d["type"] for d in decoded], frm
    for got, want in zip(msgs, decoded):
        exp = tsp_expected(want, frm)
        assert set(got.fields) == set(exp), (want["name"],
                                            set(got.fields) ^ set(exp))
        for name, (kind, v) in exp.items():
            f = got.fields[name]
            assert (tsp_value(kind, f) if kind in ("ints", "rows") else
                    tsp_value(kind, *f)) == v, \
                (got.frame, want["name"], name, got.fields[name], v)
        assert got.size == want["len"], (want["name"], got.size)
        flagged = set(got.experts) - {"mtgtsp.ditg", "mtgtsp.refused",
                                      "mtgtsp.error_sent"}
        assert not flagged, (got.frame, want["name"], got.experts)
