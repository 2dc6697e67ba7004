# SPDX-License-Identifier: GPL-2.0-or-later
"""mtgsap kept: the payloads and wrong bits' positions kept (the IDF's
keep)."""

from ..common import add_json, answer, check_tgs, open_input
from ..recording import EXTRA_PAYLOAD, EXTRA_WRONG_BITS, F_KEEP_LOST


def configure(parser):
    parser.add_argument("recording")
    parser.add_argument("--tg", metavar="ID[,ID...]",
                        help="only these TGs' (default: all)")
    add_json(parser)


def command(args):
    with open_input(args) as rec:
        tgs = check_tgs(rec, args, {e.tg_id for e in rec.extras})
        tgs = None if tgs is None else set(tgs)
        rows = []
        for kind, name in ((EXTRA_PAYLOAD, "payload"),
                           (EXTRA_WRONG_BITS, "wrong_bits")):
            for index, e in rec.kept(kind, tgs).items():
                row = dict(record=index, run_id=e.run_id, tg=e.tg_id,
                           seq=e.seq, kind=name, count=e.count)
                if kind == EXTRA_PAYLOAD:
                    row["hex"] = e.data.hex()
                    row["shown"] = e.data[:16].hex() + \
                        ("..." if len(e.data) > 16 else "")
                else:
                    row["positions"] = [int(p) for p in e.positions]
                    row["cut"] = e.cut
                    row["shown"] = " ".join(str(p) for p in
                                            row["positions"][:8]) + \
                        (" ..." if len(row["positions"]) > 8 or e.cut
                         else "")
                rows.append(row)
        rows.sort(key=lambda r: (r["record"], r["kind"]))
        x = rec.extras_header or {}
        lost = int(((rec.records["flags"] & F_KEEP_LOST) != 0).sum()) \
            if len(rec) else 0
        data = dict(kept=[{k: v for k, v in r.items() if k != "shown"}
                          for r in rows],
                    keep_drops=x.get("keep_drops", 0), records_lost=lost)
        answer(args, data, rows,
               [("record", "record"), ("tg", "tg"), ("seq", "seq"),
                ("kind", "kept"), ("count", "bytes/bits"),
                ("shown", "data (hex) / positions")])
        if not args.json:
            print(f"{len(rows)} kept; the module had no room for "
                  f"{data['keep_drops']} (records marked: {lost})")
    return 0
