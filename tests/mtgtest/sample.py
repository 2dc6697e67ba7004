# SPDX-License-Identifier: GPL-2.0-or-later
"""The recording Documentation/analysis.rst's examples run on: loop.rec,
built with fixed seeds as a loop-back run would record it.

- TG 1: 100 packets/s of 1000 payload bytes for 90 s, over a path of
  5 ms ± 0.5 ms: 0.05% lost, 0.1% duplicated; bit errors now and then,
  and a burst of severe ones from 30 s to 44 s;
- TG 2: a Poisson process of mean inter-departure 32 ms (64 kbit/s of
  256-byte payloads, MTG's Fig. 6) for 90 s, over 8 ms ± 1 ms;
- 3 records whose header failed its CRC."""

import numpy as np

from mtgsap import write
from mtgsap.recording import F_HDR_CORRUPT, empty

T0 = 1_800_000_000 * 10**9
S = 10**9
MS = 10**6
HEADERS = 14 + 20 + 8 + 88      # Ethernet, IPv4, UDP, MTG


def flow(rng, tg, sched, payload, owd_ms, owd_sd_ms, lost=0.0, dup=0.0):
    n = len(sched)
    r = empty(n)
    r["seq"] = np.arange(n)
    r["run_id"], r["tg_id"] = 7, tg
    r["sched_ns"] = sched
    r["tx_ns"] = sched + rng.integers(500, 3000, n)
    owd = rng.normal(owd_ms * MS, owd_sd_ms * MS, n).astype(np.int64)
    r["rx_ns"] = r["tx_ns"] + np.maximum(owd, MS)
    r["payload_len"] = payload
    r["len"] = payload + HEADERS
    r["flags"] = 1              # software receive stamps
    r["iface"] = 1
    r["ttl"] = 63
    keep = rng.random(n) >= lost
    copies = np.flatnonzero(keep & (rng.random(n) < dup))
    r = np.concatenate([r[keep], r[copies]])
    r["rx_ns"][len(r) - len(copies):] += 50_000
    return r


def run_meta(**changes):
    """The metadata of a loop-back run, as mtgctl writes it: run 7 from
    T0, received on lr0 in lab-rx; `changes` replace or add keys (tgs)."""
    return dict(dict(
        command="run", mtgctl="0.1.0", run_id=7, start_ns=T0,
        host={"name": "lab-1", "kernel": "6.1.0-56-amd64",
              "machine": "x86_64"},
        clock={"id": "CLOCK_TAI", "synchronised": True, "tai_offset_s": 37},
        interfaces=[{"id": 1, "dev": "lr0", "netns": "lab-rx",
                     "ifindex": 7}],
        idf={"file": "loop.idf", "text": "listen lr0@lab-rx\n"}), **changes)


def loop_recording(path):
    rng = np.random.default_rng(2026)
    n1 = 9000
    r1 = flow(rng, 1, T0 + S + np.arange(n1) * (S // 100), 1000, 5, 0.5,
               lost=0.0005, dup=0.001)
    errors = rng.random(len(r1)) < 0.003
    r1["wrong_bits"][errors] = rng.integers(1, 4, errors.sum())
    sec = (r1["sched_ns"] - T0) // S
    burst = (sec >= 30) & (sec < 45)
    r1["wrong_bits"][burst] = rng.integers(10, 40, burst.sum())
    gaps = rng.exponential(32 * MS, 2900).astype(np.int64)
    sched2 = T0 + S + np.cumsum(gaps)
    r2 = flow(rng, 2, sched2[sched2 < T0 + 91 * S], 256, 8, 1)
    bad = empty(3)
    bad["flags"] = 1 | F_HDR_CORRUPT
    bad["ttl"] = 63
    bad["iface"] = 1
    bad["rx_ns"] = T0 + np.array([20, 50, 70]) * S
    bad["len"] = 1000 + HEADERS
    recs = np.concatenate([r1, r2, bad])
    recs = recs[np.argsort(recs["rx_ns"], kind="stable")]
    meta = run_meta(
        ring_records=65536, passthrough=False,
        tgs=[{"id": 1, "dev": "la0", "netns": "lab-tx",
              "src": "10.0.0.1:5001", "dst": "10.0.1.2:9001"},
             {"id": 2, "dev": "la0", "netns": "lab-tx",
              "src": "10.0.0.1:5002", "dst": "10.0.1.2:9002"}])
    write(path, meta, recs, end_ns=T0 + 92 * S)
    return recs
