# SPDX-License-Identifier: GPL-2.0-or-later
"""mtgsap export: CSV, JSON, Parquet, pcapng, D-ITG's binary log (the
formats: mtgsap/export.py, mtgsap/ditg.py)."""

import os

from ..common import (add_json, add_selection, open_input, selected,
                      wrote)
from ..ditg import left_out
from ..export import FORMATS, WRITERS, format_of
from ..recording import RecordingError


def configure(parser):
    parser.add_argument("recording")
    parser.add_argument("-o", "--output", required=True, metavar="FILE",
                        help="the file to write; its extension (.csv, "
                             ".json, .parquet, .pcapng, .ditg) gives the "
                             "format")
    parser.add_argument("--format", choices=FORMATS,
                        help="the format, whatever the extension")
    parser.add_argument("--force", action="store_true",
                        help="overwrite the output if it exists")
    add_selection(parser)
    add_json(parser)


def command(args):
    fmt = format_of(args.output, args.format)
    with open_input(args) as rec:
        mask = selected(rec, args)
        if os.path.exists(args.output) and not args.force:
            raise RecordingError(f"{args.output}: exists (--force to "
                                 f"overwrite)")
        picked = {k: getattr(args, v, None) for k, v in
                  (("tg", "tg"), ("start", "start"), ("end", "end"),
                   ("where", "where"))}
        meta = dict(rec.meta)
        if any(v is not None for v in picked.values()):
            meta["filtered"] = dict(source=rec.path, **picked)
        n = WRITERS[fmt](rec, mask, args.output, force=args.force,
                         meta=meta)
        extra, said = {}, ""
        if fmt == "ditg":
            # What D-ITG's log cannot say: counted, said.
            _, extra["left_out"] = left_out(rec.records, mask)
            left = [f"{v} {k}" for k, v in extra["left_out"].items() if v]
            if left:
                said = f"; left out, as damaged: {', '.join(left)}"
        wrote(args, f"mtgsap: {n} of {len(rec)} records to {args.output} "
              f"({fmt}){said}", records=n, of=len(rec), output=args.output,
              format=fmt, **extra)
    return 0
