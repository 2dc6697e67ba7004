# SPDX-License-Identifier: GPL-2.0-or-later
"""Per-flow accounting (the meter of mtgctl, offline): what was received, lost, duplicated and reordered,
bit errors and BER, the G.821 analysis and D-ITG's windows.

The definitions are mtgctl's (Documentation/mtgctl.rst, ctl/rx/meter.h), so
the two agree on the same packets; mtgsap has the whole file, so it needs
no sliding window to tell a duplicate:

- a flow is a (run id, TG id); records whose header failed its CRC belong
  to none (their ids cannot be trusted) and are counted apart;
- received: distinct sequence numbers; duplicates: the other copies;
- reordered (RFC 4737): a first arrival below the highest sequence number
  received before it, plus one;
- lost: the sequence numbers from 0 to the highest received that never
  came (mtgsap does not know how many were sent after the last one
  received; mtgctl's summary does, when it sent them);
- bit errors and bits: of every record with a sound header, duplicates
  included; BER is their ratio;
- implausible: records whose sound header has a sequence number of 2^63
  or more (SEQ_LIMIT), which no sender reaches. They count in `records`
  and here, and nowhere else: their packet is as if it never came.

The analyses of time (G.821, windows) refuse to make more than MAX_BINS
seconds or windows (one wild stamp can stretch the interval to centuries).
"""

import dataclasses

import numpy as np

from .fields import column, since
from .recording import F_DITG, F_HDR_CORRUPT, SEQ_LIMIT
from .stats import AnalysisError, MAX_BINS, TooManyBins, bins_needed

__all__ = ["AnalysisError", "Flow", "G821", "MAX_BINS", "SEQ_LIMIT",
           "TooManyBins", "ber_windows", "expected", "flows", "g821",
           "plausible", "sound", "windows"]

SECOND = 1_000_000_000


@dataclasses.dataclass
class Flow:
    run_id: int
    tg_id: int
    records: int
    received: int
    duplicates: int
    reordered: int
    lost: int
    bit_errors: int
    bits: int
    bytes: int
    first_rx_ns: int
    last_rx_ns: int
    implausible: int        # records with a sequence number >= SEQ_LIMIT
    # its other records, in arrival order, as indices into `source`, the
    # records flows() was given
    index: np.ndarray = dataclasses.field(repr=False)
    source: np.ndarray = dataclasses.field(default=None, repr=False,
                                           compare=False)

    @property
    def ber(self):
        return self.bit_errors / self.bits if self.bits else 0.0

    @property
    def ber_sd(self):
        """Standard deviation of the BER estimate: binomial, each bit in
        error independently with probability BER."""
        p = self.ber
        return float(np.sqrt(p * (1 - p) / self.bits)) if self.bits else 0.0


def sound(records):
    return (records["flags"] & F_HDR_CORRUPT) == 0


def compared_len(records):
    """Payload bytes compared against the pattern: none of D-ITG's, whose
    filler follows no pattern."""
    return np.where((records["flags"] & F_DITG) != 0, 0,
                    records["payload_len"])


def plausible(records):
    """Records whose sequence number a sender can have reached."""
    return records["seq"] < SEQ_LIMIT


def own(records, flow):
    """flow.index points into records: the array flows() was given (or
    a view of the same memory, alike), else AnalysisError."""
    src = flow.source
    if src is None or records is src:
        return
    if (isinstance(records, np.ndarray) and records.dtype == src.dtype and
            records.shape == src.shape and
            records.strides == src.strides and
            records.__array_interface__["data"][0] ==
            src.__array_interface__["data"][0]):
        return
    raise AnalysisError(f"TG {flow.tg_id}: the flow was found in other "
                        f"records than these (its index points into the "
                        f"array given to flows())")


def flows(records, mask=None):
    """The flows of the records (of those in mask), by (run id, TG id)."""
    keep = sound(records)
    if mask is not None:
        keep &= mask
    idx = np.flatnonzero(keep)
    r = records[idx]
    # Stable: arrival order within a flow is kept.
    order = np.lexsort((r["tg_id"], r["run_id"]))
    idx, r = idx[order], r[order]
    key = (r["run_id"].astype(np.uint64) << np.uint64(32)) | r["tg_id"]
    bounds = np.flatnonzero(np.diff(key)) + 1
    out = []
    for lo, hi in zip(np.r_[0, bounds], np.r_[bounds, len(r)]):
        if lo == hi:
            continue
        out.append(_flow(records, idx[lo:hi]))
    return out


def first_arrivals(seq):
    """Mask of the first copy of each sequence number, in arrival order."""
    first = np.zeros(len(seq), bool)
    _, where = np.unique(seq, return_index=True)
    first[where] = True
    return first


def _flow(records, index):
    whole = records[index]
    ok = plausible(whole)
    index = index[ok]
    r = whole[ok]
    seq = r["seq"]
    first = first_arrivals(seq)
    received = int(first.sum())
    prev_max = np.maximum.accumulate(seq)
    reordered = int((first[1:] & (seq[1:] < prev_max[:-1] + 1)).sum())
    return Flow(run_id=int(whole["run_id"][0]), tg_id=int(whole["tg_id"][0]),
                records=len(whole), received=received,
                duplicates=len(r) - received, reordered=reordered,
                lost=int(seq.max()) + 1 - received if len(r) else 0,
                bit_errors=int(r["wrong_bits"].sum(dtype=np.uint64)),
                bits=int(compared_len(r).sum(dtype=np.uint64)) * 8,
                bytes=int(r["len"].sum(dtype=np.uint64)),
                first_rx_ns=int(whole["rx_ns"].min()),
                last_rx_ns=int(whole["rx_ns"].max()),
                implausible=len(whole) - len(r), index=index,
                source=records)


def ber_windows(records, flow, window_ns, start_ns):
    """BER of a flow over windows of arrival time: (window start ns after
    start_ns, bits, bit errors) per window that holds records."""
    own(records, flow)
    r = records[flow.index]
    w = since(r["rx_ns"], start_ns) // window_ns
    wins, inv = np.unique(w, return_inverse=True)
    bits = np.bincount(inv, compared_len(r).astype(np.float64) * 8)
    errs = np.bincount(inv, r["wrong_bits"].astype(np.float64))
    return wins * window_ns, bits.astype(np.int64), errs.astype(np.int64)


# --- the expected packets: what G.821 and the loss over windows stand on ----

def expected(records, flow):
    """Every packet the flow sent up to its highest sequence number, as
    arrays over sequence numbers 0..max: scheduled departure (uint64 ns;
    for a packet never received, interpolated linearly in sequence number
    between the received packets around it, or the nearest one's beyond
    the ends), payload bits (a lost packet's: the median of the flow's),
    wrong bits (a lost packet: all of its bits) and whether it was
    received. Only a packet's first copy counts."""
    own(records, flow)
    r = records[flow.index]
    if not len(r):
        return (np.zeros(0, np.uint64), np.zeros(0, np.int64),
                np.zeros(0, np.int64), np.zeros(0, bool))
    first = first_arrivals(r["seq"])
    # Below SEQ_LIMIT (flows() left the rest out): int64 holds them.
    seq = r["seq"][first].astype(np.int64)
    order = np.argsort(seq)
    seq = seq[order]
    sched = r["sched_ns"][first][order]
    n = int(seq[-1]) + 1
    if n > 16 * len(seq) + (1 << 20):
        raise AnalysisError(f"TG {flow.tg_id}: sequence numbers up to "
                            f"{n - 1} but {len(seq)} received: too few to "
                            f"place the lost ones")
    got = np.zeros(n, bool)
    got[seq] = True
    all_seq = np.arange(n)
    # Interpolate the offsets from the first departure in float (exact
    # below 2^53 ns, 104 days); as delay() takes them, modulo 2^64, so
    # a wild stamp cannot overflow.
    off = since(sched, sched[0])
    t = np.interp(all_seq, seq, off.astype(np.float64))
    t = np.rint(np.clip(t, -2.0**63, 2.0**63 - 1024)).astype(np.int64)
    t[seq] = off
    t = t.view(np.uint64) + sched[0]
    pbits = compared_len(r)[first][order].astype(np.int64) * 8
    bits = np.full(n, int(np.median(pbits)) if len(pbits) else 0, np.int64)
    bits[seq] = pbits
    wrong = bits.copy()
    wrong[seq] = r["wrong_bits"][first][order].astype(np.int64)
    return t, bits, wrong, got


# --- CCITT G.821 -------------------------------------------------------------

G821_EDITION = ("CCITT Rec. G.821, Blue Book (1988), which keeps the Red "
                "Book's (1984) degraded minutes")
SES_BER = 1e-3        # a severely errored second: BER at least 1e-3
DM_BER = 1e-6         # a degraded minute: BER worse than 1e-6
UNAVAIL_RUN = 10      # consecutive SES that start (or non-SES that end)
                      # unavailable time


@dataclasses.dataclass
class G821:
    run_id: int
    tg_id: int
    start_s: int           # first second analysed, after T0
    seconds: int           # the interval analysed
    available: int         # seconds of available time
    unavailable: int
    es: int                # errored seconds in available time
    ses: int               # severely errored seconds in available time
    minutes: int           # one-minute blocks formed for degraded minutes
    dm: int                # degraded minutes

    def pct(self, n, of):
        return 100.0 * n / of if of else 0.0

    @property
    def es_pct(self):
        return self.pct(self.es, self.available)

    @property
    def ses_pct(self):
        return self.pct(self.ses, self.available)

    @property
    def dm_pct(self):
        return self.pct(self.dm, self.minutes)


def unavailable_seconds(ses):
    """Which seconds are unavailable (G.821 Annex A): unavailable time
    begins at the onset of UNAVAIL_RUN consecutive SES, which are part of
    it, and ends at the onset of UNAVAIL_RUN consecutive seconds that are
    not SES, which are available time."""
    out = np.zeros(len(ses), bool)
    unavailable = False
    run = 0         # seconds in a row of the kind that changes the state
    for i, s in enumerate(ses):
        run = run + 1 if s != unavailable else 0
        if run == UNAVAIL_RUN:
            # The run started the new state UNAVAIL_RUN - 1 seconds ago.
            unavailable = not unavailable
            out[i - UNAVAIL_RUN + 1:i + 1] = unavailable
            run = 0
        else:
            out[i] = unavailable
    return out


def g821_seconds(bits, wrong):
    """The G.821 analysis of per-second bit and error counts."""
    errored = wrong > 0
    ber = np.divide(wrong, bits, out=np.zeros(len(bits)), where=bits > 0)
    ses = ber >= SES_BER
    unavailable = unavailable_seconds(ses)
    avail = ~unavailable
    # Degraded minutes: the available seconds that are not SES, grouped in
    # order into blocks of 60; an incomplete last block is not a minute.
    keep = avail & ~ses
    kb, kw = bits[keep], wrong[keep]
    minutes = len(kb) // 60
    mb = kb[:minutes * 60].reshape(minutes, 60).sum(axis=1)
    mw = kw[:minutes * 60].reshape(minutes, 60).sum(axis=1)
    dm = int((mw > DM_BER * mb).sum())
    return dict(seconds=len(bits), available=int(avail.sum()),
                unavailable=int(unavailable.sum()),
                es=int((errored & avail).sum()), ses=int((ses & avail).sum()),
                minutes=minutes, dm=dm)


def g821(records, flow, start_ns, start=None, end=None):
    """G.821 for a flow: its expected packets (expected()) by the second of
    their scheduled departure, counted from T0 (start_ns); the interval is
    [start, end) ns after T0, by default the seconds from the first
    packet's to the last's."""
    t, bits, wrong, _ = expected(records, flow)
    sec = since(t, start_ns) // SECOND
    first = start // SECOND if start is not None else \
        int(sec.min()) if len(sec) else 0
    last = -(-end // SECOND) if end is not None else \
        int(sec.max()) + 1 if len(sec) else first
    n = bins_needed(max(last - first, 0),
                    f"seconds of TG {flow.tg_id}, from {first} s to {last} s "
                    f"after T0",
                    "--from and --to choose fewer")
    inside = (sec >= first) & (sec < last)
    b = np.bincount(sec[inside] - first, bits[inside], minlength=n)
    w = np.bincount(sec[inside] - first, wrong[inside], minlength=n)
    res = g821_seconds(b.astype(np.int64), w.astype(np.int64))
    return G821(run_id=flow.run_id, tg_id=flow.tg_id, start_s=first, **res)


# --- D-ITG's windows ---------------------------------------------------------

def windows(records, flow_list, window_ns, start_ns, start=None, end=None):
    """ITGDec's outputs over windows of window_ns, for the flows together:
    per window (from T0 + start): packets and bytes received and throughput
    (bit/s of L2 bytes) by arrival time; mean one-way delay and mean jitter
    (|IPDV| of consecutive packets) of the packets that arrived in it;
    packets lost whose scheduled departure (as expected() has it) falls in
    it. Returns a dict of equal-length arrays."""
    if not flow_list:
        return {k: np.zeros(0) for k in ("start_ns", "packets", "bytes",
                                          "bps", "delay_ns", "jitter_ns",
                                          "lost")}
    for f in flow_list:
        own(records, f)
    idx = np.concatenate([f.index for f in flow_list])
    r = records[idx]
    rt = since(r["rx_ns"], start_ns)
    lost_t = []
    for f in flow_list:
        t, _, _, got = expected(records, f)
        lost_t.append(since(t[~got], start_ns))
    lost_t = np.concatenate(lost_t)
    every = np.concatenate([rt, lost_t])
    lo = start if start is not None else \
        int(every.min()) if len(every) else 0
    hi = end if end is not None else \
        int(every.max()) + 1 if len(every) else lo
    lo = lo // window_ns * window_ns
    n = bins_needed(max(-(-(hi - lo) // window_ns), 0),
                    f"windows from {lo / 1e9:.9g} s to {hi / 1e9:.9g} s "
                    f"after T0", "a longer --window, or --from and --to "
                    "for fewer")
    # Python's integers for the bounds: a wild stamp does not overflow.
    inside = (rt >= lo) & (rt < lo + n * window_ns)
    w = np.zeros(len(rt), np.int64)
    w[inside] = (rt[inside] - lo) // window_ns
    w_in = w[inside]
    packets = np.bincount(w_in, minlength=n)
    nbytes = np.bincount(w_in, r["len"][inside].astype(np.float64),
                         minlength=n).astype(np.int64)
    owd = column(r, "owd")
    ok = owd.valid & inside
    dsum = np.bincount(w[ok], owd.values[ok].astype(np.float64), minlength=n)
    dcnt = np.bincount(w[ok], minlength=n)
    jit = column(r, "jitter_owd")
    ok = jit.valid & inside
    jsum = np.bincount(w[ok], np.abs(jit.values[ok]).astype(np.float64),
                       minlength=n)
    jcnt = np.bincount(w[ok], minlength=n)
    lin = (lost_t >= lo) & (lost_t < lo + n * window_ns)
    lost = np.bincount((lost_t[lin] - lo) // window_ns, minlength=n)
    with np.errstate(invalid="ignore", divide="ignore"):
        return dict(start_ns=lo + np.arange(n) * window_ns, packets=packets,
                    bytes=nbytes, bps=nbytes * 8 * SECOND // window_ns,
                    delay_ns=np.where(dcnt > 0, dsum / dcnt, np.nan),
                    jitter_ns=np.where(jcnt > 0, jsum / jcnt, np.nan),
                    lost=lost)
