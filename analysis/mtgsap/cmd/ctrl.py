# SPDX-License-Identifier: GPL-2.0-or-later
"""mtgsap ctrl: the control messages received, as recorded."""

from ..common import add_json, answer, check_tgs, open_input


def configure(parser):
    parser.add_argument("recording")
    parser.add_argument("--tg", metavar="ID[,ID...]",
                        help="only these TGs' (default: all)")
    add_json(parser)


def _text(data, limit=60):
    """Bytes as mtgctl shows them: printable ASCII, escapes for the rest."""
    out = []
    for b in data[:limit]:
        c = chr(b)
        out.append("\\" + c if c in '"\\' else "\\n" if c == "\n" else
                   c if 0x20 <= b < 0x7f else f"\\x{b:02x}")
    return '"' + "".join(out) + ('"...' if len(data) > limit else '"')


def command(args):
    with open_input(args) as rec:
        tgs = check_tgs(rec, args, {e.tg_id for e in rec.extras})
        msgs = rec.control_messages(None if tgs is None else set(tgs))
        rows = [dict(run_id=m.run_id, tg=m.tg_id, seq=m.seq,
                     t=(m.rx_ns - rec.start_ns) / 1e9, rx_ns=m.rx_ns,
                     tx_ns=m.tx_ns, iface=m.iface, flags=m.rx_flags,
                     len=len(m.data), hex=m.data.hex(), text=_text(m.data))
                for m in msgs]
        x = rec.extras_header or {}
        data = dict(ctrl=[{k: v for k, v in r.items() if k != "text"}
                          for r in rows],
                    ctrl_drops=x.get("ctrl_drops", 0))
        answer(args, data, rows,
               [("tg", "tg"), ("seq", "seq"), ("t", "s after T0"),
                ("len", "bytes"), ("text", "message")])
        if not args.json:
            print(f"{len(rows)} control messages; the module's queue lost "
                  f"{data['ctrl_drops']}" +
                  ("" if rec.header["version"] >= 2 else
                   " (a version 1 recording: none were kept)"))
    return 0
