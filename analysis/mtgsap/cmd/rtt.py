# SPDX-License-Identifier: GPL-2.0-or-later
"""mtgsap rtt: per TG, the round trips of frames an XDP reflector sent
back (`mtgctl reflect`): round-trip time, its forward and return parts
when the clocks are shared, the reflector's dwell where an arrival stamp
tells it; and of the TGs whose far end echoes what it gets (an ICMP
TG's echo replies, a `header ditg` TG's payloads sent back as D-ITG's
-m rttm does), the round trip alone."""

import numpy as np

from .. import stats as st
from ..common import UsageError, add_input, answer, open_input, selected
from ..rtt import round_trips


def configure(parser):
    add_input(parser)
    parser.add_argument("--slot", type=int, metavar="K",
                        help="the test-point slot the reflector stamps "
                             "(mtgctl reflect attach --slot K); default: "
                             "the slot of the recording's 'meter rtt' TGs, "
                             "which are then the TGs shown")
    parser.add_argument("--arrival-slot", type=int, metavar="J",
                        help="a slot stamped on arrival at the reflector's "
                             "host (a probe there): the dwell tpK - tpJ")
    parser.add_argument("--shared-clock", action="store_true",
                        help="the reflector's clock is the sender's (one "
                             "host, or synchronised): split the round trip "
                             "into forward and return")


def echo_of(t):
    """What answers a `meter rtt` TG without a reflector: "icmp" (a
    kernel's echo replies), "ditg" (D-ITG's payloads sent back), or None
    (a reflector, which stamps its slot)."""
    if t.get("proto") == "icmp":
        return "icmp"
    if t.get("header") == "ditg":
        return "ditg"
    return None


def rtt_tgs(rec):
    """The recording's `meter rtt` TGs (mtgctl run's): {tg id: slot}, the
    slot None for those echoed without a reflector (echo_of())."""
    return {t["id"]: None if echo_of(t) else t.get("rtt_slot")
            for t in rec.meta.get("tgs") or []
            if isinstance(t, dict) and t.get("meter") == "rtt"}


def groups(rec, args):
    """[(slot, records to take)]: --slot's, or the recording's `meter rtt`
    TGs by their one reflector slot, and its echoed TGs (slot None)."""
    mask = selected(rec, args)
    if args.slot is not None:
        return [(args.slot, mask)]
    tgs = rtt_tgs(rec)
    slots = sorted({s for s in tgs.values() if s is not None})
    if not tgs:
        raise UsageError("--slot K is needed: the recording has no 'meter "
                         "rtt' TG to take the reflector's slot from")
    if len(slots) > 1:
        raise UsageError(f"--slot K is needed: the recording's 'meter rtt' "
                         f"TGs have the slots {slots}")
    out = []
    for slot in slots + ([None] if None in tgs.values() else []):
        ids = [i for i, s in tgs.items() if s == slot]
        mine = np.isin(rec.records["tg_id"], ids)
        out.append((slot, mine if mask is None else mask & mine))
    return out


def command(args):
    for name, k in (("--slot", args.slot), ("--arrival-slot",
                                             args.arrival_slot)):
        if k is not None and not 0 <= k <= 3:
            raise UsageError(f"{name} {k}: a test-point slot, 0 to 3")
    with open_input(args) as rec:
        todo = groups(rec, args)
        slot = next((s for s, _ in todo if s is not None), None)
        if slot is not None and args.arrival_slot == slot:
            raise UsageError(f"--arrival-slot {slot}: the reflector's own "
                             "slot (--slot)")
        echo = {t["id"]: echo_of(t) for t in rec.meta.get("tgs") or []
                if isinstance(t, dict) and "id" in t}
        rows, tgs = [], []
        for k, mask in todo:
            for t in round_trips(rec.records, k, args.arrival_slot,
                                 args.shared_clock, mask):
                parts = {}
                for what, v in t.delays.items():
                    d = st.describe(v, (50, 99))
                    parts[what] = dict(records=d["count"],
                                       mean=d.get("mean"), min=d.get("min"),
                                       p50=d.get("p50"), p99=d.get("p99"),
                                       max=d.get("max"))
                    rows.append(dict(tg=t.tg_id, what=what, **parts[what]))
                tgs.append(dict(run_id=t.run_id, tg=t.tg_id,
                                echo=echo.get(t.tg_id) if k is None else
                                None, records=t.records,
                                reflected=len(t.reflected),
                                unreflected=t.unreflected, **parts))
        answer(args, dict(slot=slot, arrival_slot=args.arrival_slot,
                          shared_clock=args.shared_clock, tgs=tgs), rows,
               [("tg", "tg"), ("what", "what"), ("records", "records"),
                ("mean", "mean ns"), ("min", "min"), ("p50", "p50"),
                ("p99", "p99"), ("max", "max")])
        if not args.json:
            for t in tgs:
                if t["echo"] == "icmp":
                    print(f"TG {t['tg']}: {t['reflected']} of "
                          f"{t['records']} records are echo replies (ICMP: "
                          "the round trip alone, answered by a kernel that "
                          "stamps nothing)")
                elif t["echo"] == "ditg":
                    print(f"TG {t['tg']}: {t['reflected']} of "
                          f"{t['records']} records are D-ITG's payloads "
                          "sent back (the round trip alone, its send time "
                          "in microseconds; the far end stamps nothing)")
                else:
                    print(f"TG {t['tg']}: {t['reflected']} of "
                          f"{t['records']} records have the reflection "
                          f"stamp tp{slot} (and a right UDP checksum)")
            if not args.shared_clock and any(not t["echo"] for t in tgs):
                print("forward and return: not without --shared-clock "
                      "(the reflector's clock may not be the sender's)")
    return 0
