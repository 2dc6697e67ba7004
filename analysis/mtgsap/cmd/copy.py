# SPDX-License-Identifier: GPL-2.0-or-later
"""mtgsap copy: copy a recording safely, checking it."""

from ..common import add_json, wrote
from ..recording import copy


def configure(parser):
    parser.add_argument("recording")
    parser.add_argument("dest")
    parser.add_argument("--force", action="store_true",
                        help="overwrite DEST if it exists")
    parser.add_argument("--partial", action="store_true",
                        help="copy the whole records of a recording the "
                             "recorder did not finish")
    add_json(parser)


def command(args):
    n = copy(args.recording, args.dest, force=args.force,
             partial=args.partial)
    wrote(args, f"mtgsap: copied {n} records to {args.dest}",
          records=n, output=args.dest)
    return 0
