# SPDX-License-Identifier: GPL-2.0-or-later
"""The recording Documentation/analysis.rst's examples run on: loop.rec,
built with fixed seeds as a loop-back run would record it.

- TG 1: 100 packets/s of 1000 payload bytes for 90 s, over a path of
  5 ms ± 0.5 ms: 0.05% lost, 0.1% duplicated; bit errors now and then,
  and a burst of severe ones from 30 s to 44 s;
- TG 2: a Poisson process of mean inter-departure 32 ms (64 kbit/s of
  256-byte payloads, MTG's Fig. 6) for 90 s, over 8 ms ± 1 ms;
- 3 records whose header failed its CRC.

path.rec (path_recording): a run through two probes, for `segments`."""

import numpy as np

from mtgsap import write
from mtgsap.recording import F_CSUM_BAD, F_HDR_CORRUPT, empty

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


def write_run(path, flows, corrupt_s, payload, end_s, dst, tg_meta=None):
    """The records of flows (TGs 1 and 2, sent from 10.0.0.1 to dst) and a
    record whose header failed its CRC at each of corrupt_s (seconds
    after T0), by arrival, written to path as a loop-back run ending
    end_s after T0 (tg_meta: more of each TG's metadata, by id). Returns
    the records."""
    bad = empty(len(corrupt_s))
    bad["flags"] = 1 | F_HDR_CORRUPT
    bad["ttl"] = 63
    bad["iface"] = 1
    bad["rx_ns"] = T0 + np.array(corrupt_s) * S
    bad["len"] = payload + HEADERS
    recs = np.concatenate([*flows, bad])
    recs = recs[np.argsort(recs["rx_ns"], kind="stable")]
    meta = run_meta(
        ring_records=65536, passthrough=False,
        tgs=[{"id": tg, "dev": "la0", "netns": "lab-tx",
              "src": f"10.0.0.1:500{tg}", "dst": f"{dst}:900{tg}",
              **(tg_meta or {}).get(tg, {})}
             for tg in (1, 2)])
    write(path, meta, recs, end_ns=T0 + end_s * S)
    return recs


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
    return write_run(path, [r1, r2], (20, 50, 70), 1000, 92, "10.0.1.2")


def path_recording(path):
    """path.rec: a run over two routers with a probe each (slots 0 and 1),
    as Documentation/analysis.rst's `segments` shows it.

    - TG 1: 100 packets/s for 20 s; 2 ms ± 0.1 ms from the sender to the
      first probe, 3 ms to the second, 1 ms to the receiver; every 50th
      packet missed the second probe (its slot is 0), every 97th arrived
      with a wrong UDP checksum (its stamps are not to be trusted);
    - TG 2: 50 packets/s over 5 ms, through no probe;
    - 2 records whose header failed its CRC."""
    rng = np.random.default_rng(19)
    r1 = flow(rng, 1, T0 + S + np.arange(2000) * (S // 100), 200, 6, 0.1)
    hops = [rng.normal(ms * MS, 0.1 * MS, len(r1)).astype(np.uint64)
            for ms in (2, 3, 1)]
    r1["tp_ns"][:, 0] = r1["tx_ns"] + hops[0]
    r1["tp_ns"][:, 1] = r1["tp_ns"][:, 0] + hops[1]
    r1["rx_ns"] = r1["tp_ns"][:, 1] + hops[2]
    r1["tp_ns"][::50, 1] = 0
    r1["flags"][::97] |= F_CSUM_BAD
    r2 = flow(rng, 2, T0 + S + np.arange(1000) * (S // 50), 200, 5, 0.2)
    return write_run(path, [r1, r2], (5, 15), 200, 22, "10.0.3.2")


def reflect_recording(path):
    """reflect.rec: what a sender records of its frames an XDP reflector
    sent back, the reflection stamped in slot 3 and, by a probe on the
    reflector's host, the arrival there in slot 0.

    - TG 1: 100 packets/s for 20 s; 4 ms ± 0.1 ms to the reflector's
      host, 0.05 ms ± 0.01 ms in it, 6 ms ± 0.1 ms back; every 40th record
      has no reflection stamp, every 97th arrived with a wrong UDP
      checksum (its stamps are not to be trusted);
    - TG 2: 50 packets/s over 5 ms, reflected by nothing.
    TG 1 is a `meter rtt` TG (slot 3) in the metadata, TG 2 a one-way one."""
    rng = np.random.default_rng(29)
    r1 = flow(rng, 1, T0 + S + np.arange(2000) * (S // 100), 200, 10, 0.1)
    fwd, dwell, back = (rng.normal(ms * MS, sd * MS, len(r1)).astype(np.uint64)
                        for ms, sd in ((4, 0.1), (0.05, 0.01), (6, 0.1)))
    r1["tp_ns"][:, 0] = r1["tx_ns"] + fwd
    r1["tp_ns"][:, 3] = r1["tp_ns"][:, 0] + dwell
    r1["rx_ns"] = r1["tp_ns"][:, 3] + back
    r1["tp_ns"][::40, 3] = 0
    r1["flags"][::97] |= F_CSUM_BAD
    r2 = flow(rng, 2, T0 + S + np.arange(1000) * (S // 50), 200, 5, 0.2)
    return write_run(path, [r1, r2], (5,), 200, 22, "10.0.3.2",
                     {1: {"meter": "rtt", "rtt_slot": 3},
                      2: {"meter": "owd", "rtt_slot": None}})
