# SPDX-License-Identifier: GPL-2.0-or-later
"""mtgsap flows: per TG: received, lost, duplicates, reordered, bit
errors, one-way delay."""

from .. import meter as fl
from .. import stats as st
from ..common import add_input, answer, open_input, selected
from ..fields import column


def configure(parser):
    add_input(parser)


def command(args):
    with open_input(args) as rec:
        mask = selected(rec, args)
        flows = fl.flows(rec.records, mask)
        rows = []
        for f in flows:
            owd = column(rec.records[f.index], "owd")
            d = st.describe(owd.taken(), (50, 99))
            rows.append(dict(run_id=f.run_id, tg=f.tg_id, records=f.records,
                             received=f.received, lost=f.lost,
                             duplicates=f.duplicates, reordered=f.reordered,
                             bit_errors=f.bit_errors, bits=f.bits, ber=f.ber,
                             bytes=f.bytes, implausible=f.implausible,
                             owd_mean=d.get("mean"),
                             owd_p50=d.get("p50"), owd_p99=d.get("p99"),
                             owd_max=d.get("max")))
        corrupt = int((~fl.sound(rec.records) & mask).sum())
        data = dict(flows=rows, hdr_corrupt=corrupt,
                    ring_drops=rec.header["ring_drops"],
                    not_written=rec.header["not_written"])
        # Implausible sequence numbers, when a flow has some.
        odd = [("implausible", "implausible")] \
            if any(f.implausible for f in flows) else []
        answer(args, data, rows,
               [("tg", "tg"), ("received", "received"), ("lost", "lost"),
                ("duplicates", "dup"), ("reordered", "reord")] + odd +
               [("bit_errors", "bit errors"), ("ber", "BER"),
                ("owd_mean", "owd mean ns"), ("owd_p50", "p50"),
                ("owd_p99", "p99"), ("owd_max", "max")])
        if not args.json:
            print(f"header-corrupt records: {corrupt}; ring drops: "
                  f"{data['ring_drops']}; not written: {data['not_written']}")
    return 0
