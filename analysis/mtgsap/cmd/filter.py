# SPDX-License-Identifier: GPL-2.0-or-later
"""mtgsap filter: the records a condition selects, to a new recording or
CSV."""

from ..common import (add_json, add_selection, open_input, selected,
                      tg_list, wrote)
from ..recording import extra_counts, select_extras, write


def configure(parser):
    parser.add_argument("recording")
    add_selection(parser)
    parser.add_argument("-o", "--output", required=True,
                        help="the new recording, or CSV (by the .csv "
                             "extension or --format)")
    parser.add_argument("--format", choices=("rec", "csv"))
    parser.add_argument("--force", action="store_true",
                        help="overwrite the output if it exists")
    add_json(parser)


def command(args):
    with open_input(args) as rec:
        mask = selected(rec, args)
        fmt = args.format or ("csv" if args.output.endswith(".csv")
                              else "rec")
        if fmt == "csv":
            from ..export import write_csv
            write_csv(rec, mask, args.output, force=args.force)
        else:
            meta = dict(rec.meta)
            meta["filtered"] = dict(source=rec.path, tg=args.tg,
                                    start=args.start, end=args.end,
                                    where=args.where)
            h = rec.header
            tgs = tg_list(args)
            write(args.output, meta, rec.records[mask],
                  ring_drops=h["ring_drops"], not_written=h["not_written"],
                  end_ns=h["end_ns"], ifaces_lost=h["ifaces_lost"],
                  force=args.force,
                  extras=select_extras(rec.extras, mask,
                                       None if tgs is None else set(tgs)),
                  **extra_counts(rec))
        n = int(mask.sum())
        wrote(args, f"mtgsap: {n} of {len(rec)} records to {args.output}",
              records=n, of=len(rec), output=args.output, format=fmt)
    return 0
