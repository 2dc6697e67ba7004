# SPDX-License-Identifier: GPL-2.0-or-later
"""Descriptive statistics of a sample: MTGSAP's minimum, maximum, mean,
variance, PMF and CDF, with percentiles."""

import math

import numpy as np

PERCENTILES = (1, 5, 25, 50, 75, 95, 99, 99.9)
# The most bins, windows or seconds an analysis makes: more would be work
# (and memory) that the records do not bound, as a tiny window or one wild
# time stamp asks.
MAX_BINS = 1 << 20
# Records basic() takes at a time: few enough (1.5 MiB of them) that the
# fields it reads one after the other come from the CPU's cache, so the
# records cross the memory bus once.
CHUNK = 16384
# A field with at most this many distinct values gets an exact PMF;
# otherwise the values are binned.
EXACT_PMF_VALUES = 64


class AnalysisError(ValueError):
    """Records an analysis cannot be made of; the message says why."""


class TooManyBins(AnalysisError):
    """More than MAX_BINS bins, windows or seconds."""


def bins_needed(n, what, hint=None):
    """n bins (what they are, in words), or TooManyBins when n is more than
    MAX_BINS; hint says what to do instead."""
    if n > MAX_BINS:
        raise TooManyBins(f"{n} {what}, more than {MAX_BINS}" +
                          (f": {hint}" if hint else ""))
    return n


def describe(values, percentiles=PERCENTILES):
    """count, min, max, mean, variance (the unbiased sample variance, n − 1),
    sd and the percentiles (numpy's linear interpolation) of a sample."""
    v = np.asarray(values)
    out = dict(count=int(v.size))
    if not v.size:
        return out
    f = v.astype(np.float64)
    out.update(min=v.min().item(), max=v.max().item(), mean=float(f.mean()),
               variance=float(f.var(ddof=1)) if v.size > 1 else 0.0)
    out["sd"] = float(np.sqrt(out["variance"]))
    for p, q in zip(percentiles, np.percentile(f, percentiles)):
        out[f"p{p:g}"] = float(q)
    return out


def basic(records, name, mask=None, start_ns=0):
    """describe()'s count, min, max, mean, variance and sd of the field
    `name` (fields.column) of the records in mask, in one pass over the
    records, a slice at a time, with no percentiles (they need the whole
    sample): close to the speed of reading the records. Each slice's mean
    and sum of squared deviations are merged exactly as Chan, Golub and
    LeVeque do, so the variance does not suffer from large values. A
    jitter needs all the records at once and goes through describe()."""
    from .fields import column
    if name.startswith("jitter_"):
        return describe(column(records, name, start_ns).taken(mask), ())
    n, mean, m2, lo, hi = 0, 0.0, 0.0, None, None
    for i in range(0, len(records), CHUNK):
        c = column(records[i:i + CHUNK], name, start_ns)
        keep = c.valid if mask is None else c.valid & mask[i:i + CHUNK]
        v = c.values if keep.all() else c.values[keep]
        if not v.size:
            continue
        f = v.astype(np.float64)
        m_b = f.mean()
        f -= m_b
        n_b, m2_b = f.size, float(f @ f)
        a, b = v.min().item(), v.max().item()
        lo, hi = (a, b) if lo is None else (min(lo, a), max(hi, b))
        delta, total = m_b - mean, n + n_b
        mean += delta * n_b / total
        m2 += m2_b + delta * delta * n * n_b / total
        n = total
    out = dict(count=n)
    if n:
        out.update(min=lo, max=hi, mean=float(mean),
                   variance=float(m2 / (n - 1)) if n > 1 else 0.0)
        out["sd"] = float(np.sqrt(out["variance"]))
    return out


def pmf(values, bins=None, width=None):
    """The probability mass function: (value or bin start, bin width,
    probability, cumulative probability). Exact values when there are few
    distinct ones and no binning is asked for; else `bins` equal bins
    (default 50) or bins of `width`, from the minimum."""
    v = np.asarray(values)
    if not v.size:
        return np.zeros(0), np.zeros(0), np.zeros(0), np.zeros(0)
    if bins is None and width is None:
        uniq, counts = np.unique(v, return_counts=True)
        if len(uniq) <= EXACT_PMF_VALUES:
            p = counts / v.size
            return uniq, np.zeros(len(uniq)), p, np.cumsum(p)
        bins = 50
    lo, hi = float(v.min()), float(v.max())
    if width is not None:
        if not width > 0:
            raise AnalysisError(f"bins of {width:g}: the width must be "
                                f"positive")
        n = bins_needed(max(math.floor((hi - lo) / width) + 1, 1),
                        f"bins of {width:g} from {lo:g} to {hi:g}")
        edges = lo + np.arange(n + 1) * width
    else:
        if bins < 1:
            raise AnalysisError(f"{bins} bins: at least 1")
        bins_needed(bins, "bins")
        edges = np.linspace(lo, hi if hi > lo else lo + 1, bins + 1)
    counts, edges = np.histogram(v.astype(np.float64), edges)
    p = counts / v.size
    return edges[:-1], np.diff(edges), p, np.cumsum(p)


def cdf_at(values, x):
    """The empirical CDF of the sample at the points x."""
    v = np.sort(np.asarray(values))
    return np.searchsorted(v, x, side="right") / max(len(v), 1)
