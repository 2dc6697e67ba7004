# SPDX-License-Identifier: GPL-2.0-or-later
"""mtgsap info: what a recording holds: its header, clock, flows."""

import numpy as np

from .. import meter as fl
from ..common import add_json, answer, open_input
from ..recording import (EXTRA_CTRL, EXTRA_PAYLOAD, EXTRA_WRONG_BITS,
                         STAMP_MASK, STAMP_NAMES)


def configure(parser):
    parser.add_argument("recording")
    add_json(parser)


def command(args):
    with open_input(args) as rec:
        h, m = rec.header, rec.meta
        data = dict(path=rec.path, version=h["version"],
                    complete=rec.complete, records=len(rec),
                    partial_bytes=rec.partial_bytes,
                    not_written=h["not_written"], ring_drops=h["ring_drops"],
                    ifaces_lost=h["ifaces_lost"], command=m.get("command"), run_id=m.get("run_id"),
                    start_ns=rec.start_ns, end_ns=h["end_ns"],
                    host=(m.get("host") or {}).get("name"),
                    clock=m.get("clock"),
                    interfaces=m.get("interfaces") or [],
                    tgs=[t.get("id") for t in m.get("tgs") or []])
        r = rec.records
        stamps = {STAMP_NAMES[k]: int(n) for k, n in enumerate(
            np.bincount(r["flags"] & STAMP_MASK, minlength=3)) if n}
        data["stamps"] = stamps
        data["hdr_corrupt"] = int((~fl.sound(r)).sum())
        x = rec.extras_header
        if x:
            kinds = np.bincount([e.type for e in rec.extras],
                                minlength=4) if rec.extras else [0] * 4
            data["extras"] = dict(
                entries=len(rec.extras), ctrl=int(kinds[EXTRA_CTRL]),
                payloads=int(kinds[EXTRA_PAYLOAD]),
                wrong_bit_lists=int(kinds[EXTRA_WRONG_BITS]),
                not_written=x["extras_lost"], ctrl_drops=x["ctrl_drops"],
                keep_drops=x["keep_drops"])
        data["rate_changes"] = [
            dict(run_id=e.run_id, tg_id=e.tg_id, at_ns=e.rx_ns,
                 t=(e.rx_ns - rec.start_ns) / 1e9, num=num, den=den,
                 factor=num / den, by=by)
            for e in rec.rate_changes() for num, den, by in [e.rate]]
        if args.json:
            answer(args, data)
            return 0
        shown = dict(data, rate_changes=[
            f"tg {c['tg_id']} x{c['num']}/{c['den']} from {c['t']:.6g} s "
            f"({c['by']})" for c in data["rate_changes"]])
        rows = [dict(k=k, v=v if not isinstance(v, (dict, list)) else
                     ", ".join(f"{a}={b}" for a, b in v.items())
                     if isinstance(v, dict) else
                     ", ".join(str(x.get("dev", x)) if isinstance(x, dict)
                               else str(x) for x in v))
                for k, v in shown.items()]
        answer(args, data, rows, [("k", "field"), ("v", "value")])
    return 0
