# SPDX-License-Identifier: GPL-2.0-or-later
"""Round trips through an XDP reflector (ebpf/reflect.bpf.c): the sender
records the frames that come back, each with the sender's own stamp (tx),
the reflector's in test-point slot K (tpK) and the receive stamp (rx),
the last on the sender's clock like the first. So the round trip rx − tx
needs no shared clock; its split into forward (tpK − tx) and return
(rx − tpK) does, and is given only when the caller says the reflector's
clock is the sender's (one host, or clocks synchronised: PTP). The
reflector's dwell is known where a test point J stamped the frame on its
arrival at the reflector's host (a probe on the egress of the link's far
end, on the same host): tpK − tpJ, one clock. Records without the
reflection stamp, or without tpJ, are counted, not dropped silently.

Echoes are round trips too, from a far end that stamps nothing: an ICMP
TG's echo replies (`proto icmp`, the record flag icmp), answered by the
destination's kernel, and a `header ditg` TG's payloads sent back as they
came (ITGRecv's -m rttm, or a UDP echo; the record flag ditg, tx to the
microsecond): rx − tx, never split."""

import dataclasses

import numpy as np

from .fields import delay, point
from .meter import flows
from .recording import F_DITG, F_ICMP


@dataclasses.dataclass
class RoundTrips:
    run_id: int
    tg_id: int
    records: int           # of the flow (sound headers)
    reflected: np.ndarray  # indices of the records with the slot stamped
    delays: dict           # "rtt", "forward", "return", "dwell" -> int64 ns

    @property
    def unreflected(self):
        return self.records - len(self.reflected)


def round_trips(records, slot, arrival=None, shared_clock=False, mask=None):
    """A RoundTrips per flow of the records in mask. slot: the reflector's
    test-point slot, or None for echoes (ICMP's replies, D-ITG's payloads
    sent back: the round trip alone, arrival and shared_clock aside); arrival: the slot stamped on arrival
    at the reflector (or None); shared_clock: the reflector's clock is the
    sender's."""
    out = []
    for f in flows(records, mask):
        r = records[f.index]
        if slot is None:
            have = point(r, "tx")[1] & (r["flags"] & (F_ICMP | F_DITG) != 0)
        else:
            tp = f"tp{slot}"
            have = point(r, "tx")[1] & point(r, tp)[1]
        idx = f.index[have]
        rec = records[idx]
        d = {"rtt": delay(rec, "tx", "rx")[0]}
        if slot is not None and shared_clock:
            d["forward"] = delay(rec, "tx", tp)[0]
            d["return"] = delay(rec, tp, "rx")[0]
        if slot is not None and arrival is not None:
            dw, k = delay(rec, f"tp{arrival}", tp)
            d["dwell"] = dw[k]
        out.append(RoundTrips(f.run_id, f.tg_id, len(f.index), idx, d))
    return out
