# SPDX-License-Identifier: GPL-2.0-or-later
"""The path of a TG's packets, segment by segment (MTG's paper, §3.3: the
delay "at several different test points of the system on trial"): the
sender's stamp (tx), the test points the probes on the path stamped
(tp0..tp3, in slot order: number the probes along the path), and the
receiver's (rx). Each segment's delay is taken over the same records,
those that have every stamp of the path, so that per record the segments
add up to its one-way delay; the records that miss a stamp are counted,
not dropped silently (a probe the packet did not pass, a stamp the UDP
checksum does not vouch for)."""

import dataclasses

import numpy as np

from .fields import TIME_POINTS, delay, point
from .meter import flows

TEST_POINTS = tuple(p for p in TIME_POINTS if p.startswith("tp"))


@dataclasses.dataclass
class Path:
    run_id: int
    tg_id: int
    points: tuple          # ("tx", "tp0", ..., "rx"): the stamps it has
    records: int           # of the flow (sound headers)
    complete: np.ndarray   # indices of the records with every stamp
    delays: dict           # (a, b) -> int64 ns per complete record

    @property
    def partial(self):
        """Records of the flow that miss a stamp of the path."""
        return self.records - len(self.complete)

    @property
    def segments(self):
        return list(zip(self.points[:-1], self.points[1:]))


def paths(records, mask=None):
    """A Path per flow (run id, TG id) of the records in mask: its points
    are tx, each test point at least one of its records has, and rx."""
    out = []
    for f in flows(records, mask):
        r = records[f.index]
        have = {p: point(r, p)[1] for p in ("tx",) + TEST_POINTS}
        points = ("tx",) + tuple(p for p in TEST_POINTS if have[p].any()) \
            + ("rx",)
        every = np.logical_and.reduce([have[p] for p in points[:-1]])
        complete = f.index[every]
        delays = {}
        for a, b in zip(points[:-1], points[1:]):
            d, _ = delay(records[complete], a, b)
            delays[(a, b)] = d
        delays[("tx", "rx")] = delay(records[complete], "tx", "rx")[0]
        out.append(Path(f.run_id, f.tg_id, points, len(f.index), complete,
                        delays))
    return out
