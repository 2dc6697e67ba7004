# SPDX-License-Identifier: GPL-2.0-or-later
"""The categories of a `dist behaviour` TG (Documentation/idf.rst,
"Behaviours"), worked out again from its parameters in a recording's
metadata: the categories follow each other by a Markov chain drawn from a
Lehmer stream of their own (the metadata's `chain_seed`), independent of
the packets, so the category of every moment of the TG's run, and of
every packet by its scheduled departure, is known without mtgctl.

The arithmetic is ctl/traffic/behave.c's, step for step, in the same
doubles and libm's log: the same machine gives the same nanoseconds."""

import math

import numpy as np

from .stats import AnalysisError

LEHMER_MODULUS = 2147483647
LEHMER_MULTIPLIER = 950706376


class Timeline:
    """The categories of one TG from its start: interval i is
    [starts[i], starts[i + 1]) ns after the TG's start, in category
    cats[i] (an index of names)."""

    def __init__(self, tg):
        b = tg.get("behaviour")
        if not b:
            raise AnalysisError(f"TG {tg.get('id')}: not a 'dist behaviour' "
                                f"TG (its dist is {tg.get('dist')!r})")
        cats = b["categories"]
        self.name = b["name"]
        self.names = [c["name"] for c in cats]
        self.means = [int(c["mean_ns"]) for c in cats]
        self.shares = [float(c["share"]) for c in cats]
        self.next = [[float(p) for p in c["next"]] for c in cats]
        self.mean_gaps = [float(c["mean_gap_ns"]) for c in cats]
        self._x = int(b["chain_seed"])
        cat = self._pick(self.shares)
        self.starts, self.cats = [0], [cat]
        self._end = self._sojourn(cat)

    def _uniform(self):
        self._x = self._x * LEHMER_MULTIPLIER % LEHMER_MODULUS
        return self._x / LEHMER_MODULUS

    def _pick(self, p):
        u, acc, last = self._uniform(), 0.0, 0
        for j, pj in enumerate(p):
            if not pj > 0:
                continue
            last = j
            acc += pj
            if u < acc:
                return j
        return last

    def _sojourn(self, cat):
        u = self._uniform()
        return math.floor(-float(self.means[cat]) * math.log(u) + 0.5)

    def until(self, t):
        """Intervals drawn until one holds time t (ns after the start)."""
        while self._end <= t:
            cat = self._pick(self.next[self.cats[-1]])
            self.starts.append(self._end)
            self.cats.append(cat)
            self._end += self._sojourn(cat)
        return self

    def at(self, t):
        """The category index at each time of the array t (ns, >= 0)."""
        t = np.asarray(t, dtype=np.int64)
        if len(t):
            self.until(int(t.max()))
        i = np.searchsorted(np.asarray(self.starts, dtype=np.int64), t,
                            side="right") - 1
        return np.asarray(self.cats, dtype=np.int64)[i]

    def time_in(self, t_end):
        """Nanoseconds spent in each category over [0, t_end)."""
        self.until(t_end)
        ends = self.starts[1:] + [self._end]
        out = [0] * len(self.names)
        for s, e, c in zip(self.starts, ends, self.cats):
            if s >= t_end:
                break
            out[c] += min(e, t_end) - s
        return out


def tg_begin(rec, tg):
    """When the TG's time 0 is, CLOCK_TAI ns: T0 + its `time relative`
    start. Other starts are not in the metadata (AnalysisError)."""
    if tg.get("time", "relative") != "relative":
        raise AnalysisError(
            f"TG {tg['id']}: 'time {tg.get('time')}': its start is not in "
            f"the metadata, so its categories' times are unknown")
    if rec.meta.get("command") != "run" or not rec.meta.get("start_ns"):
        raise AnalysisError(
            f"TG {tg['id']}: the recording has no run's T0 (a 'listen' "
            f"recording): its categories' times are unknown")
    changes = rec.rate_changes(tg["id"])
    if changes:
        raise AnalysisError(
            f"TG {tg['id']}: its throughput changed during the run "
            f"({len(changes)} changes, the first by "
            f"{changes[0].rate[2]}): its departures left the timetable's "
            f"times, so their categories cannot be told")
    return int(rec.meta["start_ns"]) + int(tg.get("start_ns", 0))


def categories(rec, tg_id, records):
    """(Timeline, category index of each record) for TG tg_id's records
    (all of that TG, their headers sound)."""
    tg = rec.tg_meta(tg_id)
    if tg is None:
        raise AnalysisError(f"TG {tg_id}: not in the recording's metadata")
    line = Timeline(tg)
    begin = tg_begin(rec, tg)
    rel = records["sched_ns"].astype(np.int64) - begin
    if len(rel) and rel.min() < 0:
        raise AnalysisError(
            f"TG {tg_id}: a packet scheduled before the TG's start: the "
            f"metadata is not that of the run that sent it")
    return line, line.at(rel)
