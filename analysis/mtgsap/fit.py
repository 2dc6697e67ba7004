# SPDX-License-Identifier: GPL-2.0-or-later
"""mtgsap fit: does a TG send as its model says? (MTG's Figs. 6-7 and the
chi-square test of its section 6), and the Hurst parameter of the traffic.

The sending process of a TG is its inter-departure times: the differences
of the TX stamps (or of the scheduled departures) of consecutive sequence
numbers, for the pairs seq, seq + 1 both received with sound stamps, each
packet counted once (its first copy).

The model is a distribution of the inter-departure time: the one the
recording's metadata gives the TG (`dist` and `dist_params` of `mtgctl
check --json`) or one given as NAME:PARAM=VALUE,... (parse_model). Families are scipy.stats
frozen distributions; a constant (`dist fixed`) is degenerate, so for it
the deviations from the constant are reported instead of a test.

Tests:

- chi-square on k bins of equal probability under the model (interior
  edges at the model's quantiles i/k); k by the rule of Mann and Wald
  (1942), k = 4 (2 (n - 1)^2 / c^2)^(1/5) with c the (1 - alpha) quantile
  of the standard normal, at most n / 5 so that every expected count is at
  least 5; degrees of freedom k - 1 - (parameters estimated from the
  sample); parameters the IDF or --model give are not estimated;
- Kolmogorov-Smirnov (scipy.stats.kstest) against the model's CDF.

Hurst parameter of the counts of packets sent per bin:

- aggregated variance: the variance s2(m) of the means of non-overlapping
  blocks of m counts falls as m^(2H - 2). Over a finite series the sample
  variance is taken around the series' own mean, so E s2(m) =
  sigma^2 (m^(2H-2) - N_m^(2H-2)) with N_m = m floor(n / m) (exact for
  fractional Gaussian noise); H is the value whose curve fits log s2(m)
  best in least squares (sigma^2 free), searched on a grid of step 1e-4
  in (0, 1). The plain slope estimate 1 + slope/2 is reported too. Scales:
  20 log-spaced m from 1 to n / 50 (at least 50 blocks each);
- rescaled range (R/S): for blocks of m counts, R is the range of the
  cumulative deviations from the block's mean, S the block's standard
  deviation (divided by m); R/S averaged over the blocks grows as m^H; H
  is the slope of log R/S against log m. Scales: 20 log-spaced m from 8 to
  n / 2. Classical R/S is biased towards the middle over short series (for
  4096 points of fGn, H = 0.5 reads 0.54 +- 0.02 and H = 0.8 reads
  0.78 +- 0.03).
"""

import dataclasses
import math
import os

import numpy as np
from scipy import stats as sps

from .common import UsageError, tg_list
from .fields import FieldError, column, parse_duration
from .recording import F_HDR_CORRUPT, SEQ_LIMIT
from .stats import bins_needed


class FitError(UsageError):
    """A model that cannot be had or a sample too small for the test; the
    message says what to do instead."""


# --- units -------------------------------------------------------------------

TIME_UNITS = (("s", 1e9), ("ms", 1e6), ("us", 1e3), ("ns", 1.0))


def time_unit(ns):
    """The unit (name, ns per unit) in which a typical magnitude `ns` reads
    as at least 1."""
    a = abs(float(ns)) if ns is not None and math.isfinite(ns) else 0.0
    for name, f in TIME_UNITS:
        if a >= f:
            return name, f
    return "ns", 1.0


def fmt_duration(ns):
    name, f = time_unit(ns)
    return f"{ns / f:.6g} {name}"


# --- the sample ----------------------------------------------------------------

FIELDS = ("tx", "sched")


def _stamps(records, field, tgs=None, mask=None, index=False):
    """The first copy of each packet with a sound stamp of `field`: its
    run id, TG id, sequence number and stamp (int64 ns), ordered by run,
    TG and sequence number (implausible ones, SEQ_LIMIT, left out); with
    index, their records' indexes too."""
    if field not in FIELDS:
        raise FitError(f"--field {field}: tx (the TX stamps) or sched (the "
                       f"scheduled departures)")
    col = column(records, f"{field}_ns")
    keep = col.valid & ((records["flags"] & F_HDR_CORRUPT) == 0) & \
        (records["seq"] < SEQ_LIMIT)
    if tgs is not None:
        keep &= np.isin(records["tg_id"], list(tgs))
    if mask is not None:
        keep &= mask
    idx = np.flatnonzero(keep)
    r = records[idx]
    # lexsort is stable: among copies of a packet, the first recorded wins.
    order = np.lexsort((r["seq"], r["tg_id"], r["run_id"]))
    run, tg = r["run_id"][order], r["tg_id"][order]
    seq = r["seq"][order]
    t = col.values[idx][order].astype(np.int64)
    first = np.ones(len(seq), bool)
    first[1:] = ((seq[1:] != seq[:-1]) | (tg[1:] != tg[:-1]) |
                 (run[1:] != run[:-1]))
    if index:
        return run[first], tg[first], seq[first], t[first], \
            idx[order][first]
    return run[first], tg[first], seq[first], t[first]


def interdepartures(records, tg_id, field="tx", mask=None):
    """The inter-departure times (int64 ns) of TG tg_id: stamp(seq + 1) -
    stamp(seq) for every pair of consecutive sequence numbers of one run
    both received (first copies) with sound stamps of `field` ("tx": the
    TX stamps; "sched": the scheduled departures), of the records in mask."""
    return interdepartures_at(records, tg_id, field, mask)[0]


def interdepartures_at(records, tg_id, field="tx", mask=None):
    """interdepartures(), with when each gap began and ended: (gaps, and
    the TX stamps of seq and seq + 1, int64 ns; the stamps of `field`
    where a TX stamp is not sound). The module scales a gap by the rate
    it has when it sends the gap's first packet: at its TX stamp, however
    late that is after the schedule."""
    run, _, seq, t, idx = _stamps(records, field, (tg_id,), mask, True)
    pair = (run[1:] == run[:-1]) & (seq[1:] == seq[:-1] + 1)
    tx = column(records, "tx_ns")
    when = np.where(tx.valid[idx], tx.values[idx].astype(np.int64), t)
    return (t[1:] - t[:-1])[pair], when[:-1][pair], when[1:][pair]


def sent_counts(records, bin_ns, tgs=None, field="tx", mask=None):
    """Packets sent per bin of bin_ns (their first copies' `field` stamps),
    of the TGs tgs (None: all), from the first stamp's time; the last,
    incomplete bin is left out. Returns (counts, start ns of bin 0).
    Packets never received are not counted (their stamps are unknown)."""
    _, _, _, t = _stamps(records, field, tgs, mask)
    if not len(t):
        return np.zeros(0, np.int64), 0
    t0, span = int(t.min()), int(t.max()) - int(t.min())
    n = bins_needed(span // int(bin_ns),                    # complete bins
                    f"bins of {fmt_duration(bin_ns)} over "
                    f"{fmt_duration(span)}",
                    "a longer bin, or --from and --to for fewer")
    b = (t - t0) // int(bin_ns)
    return np.bincount(b[b < n], minlength=n).astype(np.int64), t0


# --- models --------------------------------------------------------------------

D, N = "duration", "number"


def _mle_pareto(x):
    scale = float(x.min())
    return dict(shape=len(x) / float(np.log(x / scale).sum()), scale=scale)


def _mle_lognormal(x):
    lx = np.log(x)
    return dict(sigma=float(lx.std()), median=float(np.exp(lx.mean())))


def _scipy_fit(dist, names):
    def fit(x):
        shape, _, scale = dist.fit(x, floc=0)
        return {names[0]: float(shape), names[1]: float(scale)}
    return fit


@dataclasses.dataclass(frozen=True)
class Family:
    name: str
    params: tuple           # (name, D or N) pairs
    make: object            # params -> frozen scipy distribution (None)
    mle: object             # sample (float64 ns) -> params
    positive: bool = True   # the MLE needs a positive sample
    help: str = ""


FAMILIES = {f.name: f for f in (
    Family("constant", (("value", D),), lambda p: None,
           lambda x: dict(value=float(x.mean())), False,
           "every gap the same (dist fixed)"),
    Family("exponential", (("mean", D),),
           lambda p: sps.expon(scale=p["mean"]),
           lambda x: dict(mean=float(x.mean())), False,
           "a Poisson process"),
    Family("uniform", (("min", D), ("max", D)),
           lambda p: sps.uniform(loc=p["min"], scale=p["max"] - p["min"]),
           lambda x: dict(min=float(x.min()), max=float(x.max())), False,
           "between min and max"),
    Family("normal", (("mean", D), ("sd", D)),
           lambda p: sps.norm(loc=p["mean"], scale=p["sd"]),
           lambda x: dict(mean=float(x.mean()), sd=float(x.std())), False,
           "Gaussian"),
    Family("pareto", (("shape", N), ("scale", D)),
           lambda p: sps.pareto(p["shape"], scale=p["scale"]),
           _mle_pareto, True, "P(X > x) = (scale / x)^shape, x >= scale"),
    Family("lognormal", (("sigma", N), ("median", D)),
           lambda p: sps.lognorm(p["sigma"], scale=p["median"]),
           _mle_lognormal, True, "log X normal, sd sigma"),
    Family("gamma", (("shape", N), ("scale", D)),
           lambda p: sps.gamma(p["shape"], scale=p["scale"]),
           _scipy_fit(sps.gamma, ("shape", "scale")), True, ""),
    Family("weibull", (("shape", N), ("scale", D)),
           lambda p: sps.weibull_min(p["shape"], scale=p["scale"]),
           _scipy_fit(sps.weibull_min, ("shape", "scale")), True, ""),
    Family("cauchy", (("median", D), ("scale", D)),
           lambda p: sps.cauchy(loc=p["median"], scale=p["scale"]),
           lambda x: dict(zip(("median", "scale"),
                              map(float, sps.cauchy.fit(x)))), False, ""),
)}

# The IDF's `dist` names (MTG's and D-ITG's; ctl/idf/names.c) and the family of
# their inter-departure times. A new distribution of mtgctl slots in here;
# its parameters come from the TG's `dist_params` in the metadata, which
# mtgctl writes (ctl/traffic/tg_json.c: the models that take their gap from the
# rate have it there too).
IDF_DISTS = {"fixed": "constant", "poisson": "exponential",
             "exponential": "exponential", "random": "uniform",
             "uniform": "uniform", "normal": "normal", "pareto": "pareto",
             "lognormal": "lognormal", "gamma": "gamma",
             "weibull": "weibull", "cauchy": "cauchy"}
# Distributions whose inter-departure times are not independent draws of
# one distribution: no goodness-of-fit test of them applies.
PROCESSES = {"markov": "a Markov-modulated Poisson process",
             "mmpp": "a Markov-modulated Poisson process",
             "fractal": "fractional Gaussian noise (see --hurst)",
             "fgn": "fractional Gaussian noise (see --hurst)",
             "voice": "talk and silence periods",
             "file": "times read from a file", "trace": "a trace",
             "pcap": "the timing of a capture",
             "voip": "D-ITG's VoIP preset (a fixed rate)",
             "dns": "D-ITG's DNS preset (a fixed rate)",
             "telnet": "D-ITG's Telnet preset", "quake3": "D-ITG's Quake 3 "
             "preset (a mixture)", "csa": "D-ITG's Counter-Strike preset",
             "csi": "D-ITG's Counter-Strike preset"}


@dataclasses.dataclass
class Model:
    """A family and its parameters (durations in ns); source says where
    they come from; estimated counts the parameters estimated from the
    sample (0 when given). No parameters yet: to be estimated (fitted())."""
    family: str
    params: dict
    source: str = "--model"
    estimated: int = 0

    @property
    def dist(self):
        """The scipy.stats frozen distribution (None for a constant)."""
        return FAMILIES[self.family].make(self.params)

    @property
    def constant(self):
        return self.family == "constant"

    def fitted(self, sample):
        """The model with every parameter estimated from the sample
        (maximum likelihood, location 0 where the family has one)."""
        fam = FAMILIES[self.family]
        x = np.asarray(sample, np.float64)
        if len(x) < 2:
            raise FitError(f"{self.family}: {len(x)} inter-departure times "
                           f"are too few to estimate parameters")
        if fam.positive and (x <= 0).any():
            raise FitError(f"{self.family}: the sample has gaps <= 0; its "
                           f"parameters cannot be estimated")
        params = fam.mle(x)
        _check(self.family, params, "the sample")
        return Model(self.family, params, f"{self.source}, estimated from "
                     f"the sample", len(fam.params))

    def text(self):
        fam = FAMILIES[self.family]
        if not self.params:
            return f"{self.family} (parameters to estimate)"
        parts = [f"{p}={fmt_duration(self.params[p])}" if kind == D else
                 f"{p}={self.params[p]:.6g}" for p, kind in fam.params]
        return f"{self.family}({', '.join(parts)})"

    def as_dict(self):
        fam = FAMILIES[self.family]
        return dict(name=self.family, text=self.text(), source=self.source,
                    estimated=self.estimated,
                    params={(p + "_ns" if kind == D else p): self.params[p]
                            for p, kind in fam.params if p in self.params})


def scaled(model, num, den):
    """The model of a TG sending at num/den times its timetable's
    throughput: every gap times den/num, so each duration parameter
    (mean, scale, median, ...) times den/num, the others (shapes) as they
    are. A model still to be estimated stays so."""
    if num == den or not model.params:
        return model
    kinds = dict(FAMILIES[model.family].params)
    params = {k: v * den / num if kinds[k] == D else v
              for k, v in model.params.items()}
    return Model(model.family, params,
                 f"{model.source}, its gaps x{den}/{num}", model.estimated)


def _check(family, p, where):
    bad = None
    if family == "constant" and p["value"] < 0:
        bad = "value must not be negative"
    elif family == "uniform" and not p["min"] < p["max"]:
        bad = "min must be below max"
    elif family == "normal" and not p["sd"] > 0:
        bad = "sd must be above 0"
    elif family == "exponential" and not p["mean"] > 0:
        bad = "mean must be above 0"
    elif family in ("pareto", "gamma", "weibull") and \
            not (p["shape"] > 0 and p["scale"] > 0):
        bad = "shape and scale must be above 0"
    elif family == "lognormal" and not (p["sigma"] > 0 and p["median"] > 0):
        bad = "sigma and median must be above 0"
    elif family == "cauchy" and not p["scale"] > 0:
        bad = "scale must be above 0"
    if bad or not all(math.isfinite(v) for v in p.values()):
        raise FitError(f"{where}: {family}: {bad or 'parameters not finite'}")


def models_help():
    return "; ".join(
        f"{f.name}:" + ",".join(f"{p}={'DURATION' if k == D else 'X'}"
                                for p, k in f.params)
        for f in FAMILIES.values())


def parse_model(spec):
    """A model from its text: NAME[:PARAM=VALUE[,PARAM=VALUE...]], e.g.
    exponential:mean=32ms, uniform:min=1ms,max=3ms, pareto:shape=1.5,
    scale=10ms, constant:value=1ms. Durations take a unit (ns, us, ms, s,
    min; a bare number is ns). The IDF's names (poisson, fixed, random)
    are accepted for their families. NAME alone: every parameter to be
    estimated from the sample (Model.fitted)."""
    what = f"--model {spec}"
    name, _, rest = str(spec).strip().partition(":")
    name = name.strip().lower()
    family = name if name in FAMILIES else IDF_DISTS.get(name)
    if family is None:
        raise FitError(f"{what}: unknown model '{name}'; models: "
                       f"{models_help()}")
    fam = FAMILIES[family]
    kinds = dict(fam.params)
    params = {}
    for item in filter(None, (x.strip() for x in rest.split(","))):
        key, eq, value = item.partition("=")
        key = key.strip().lower()
        if not eq or not value.strip():
            raise FitError(f"{what}: parameters as NAME=VALUE separated by "
                           f"commas, e.g. {models_help().split('; ')[1]}")
        if key not in kinds:
            raise FitError(f"{what}: {family} takes "
                           f"{', '.join(kinds)}, not '{key}'")
        if key in params:
            raise FitError(f"{what}: {key} given twice")
        try:
            params[key] = float(parse_duration(value, key)) \
                if kinds[key] == D else float(value)
        except (FieldError, ValueError) as e:
            msg = str(e) if isinstance(e, FieldError) else \
                f"{key} '{value}': a number"
            raise FitError(f"{what}: {msg}") from None
    if params and len(params) != len(kinds):
        raise FitError(f"{what}: give every parameter of {family} "
                       f"({', '.join(kinds)}) or none, to estimate them "
                       f"from the sample")
    if params:
        _check(family, params, what)
    return Model(family, params, "--model")


def model_from_meta(tg_meta):
    """The model of a TG from its entry in the recording's metadata (the
    TG as `mtgctl check --json` shows it). `dist` names the distribution
    (IDF_DISTS maps it to a family); `dist_params` gives its parameters,
    and nothing else does: an object of the family's parameters, durations
    as PARAM_ns in ns (as mtgctl writes them) or PARAM with a unit. A TG
    without them (a recording of an mtgctl older than its traffic models)
    needs --model."""
    if not tg_meta:
        raise FitError("the TG is not in the recording's metadata (a "
                       "'listen' recording has none): give the model with "
                       "--model")
    tid = tg_meta.get("id", "?")
    dist = tg_meta.get("dist")
    if dist is None:
        raise FitError(f"TG {tid}: the metadata names no distribution "
                       f"('dist'); give the model with --model")
    family = IDF_DISTS.get(str(dist).lower())
    if family is None:
        if dist in PROCESSES:
            raise FitError(f"TG {tid}: 'dist {dist}' is {PROCESSES[dist]}, "
                           f"not independent gaps of one distribution: no "
                           f"goodness-of-fit test of its inter-departure "
                           f"times applies")
        raise FitError(f"TG {tid}: mtgsap has no model for 'dist {dist}' "
                       f"(it knows {', '.join(IDF_DISTS)}); give one with "
                       f"--model")
    fam = FAMILIES[family]
    given = tg_meta.get("dist_params")
    where = f"TG {tid}: the metadata's 'dist {dist}'"
    if not isinstance(given, dict):
        names = " and ".join(p + "_ns" if kind == D else p
                             for p, kind in fam.params)
        raise FitError(f"{where} comes without dist_params (its {names}); "
                       f"give the model with --model")
    params = {}
    for p, kind in fam.params:
        v = given.get(p + "_ns", given.get(p)) if kind == D \
            else given.get(p)
        if v is None:
            raise FitError(f"{where}: dist_params lacks '{p}'")
        try:
            params[p] = (float(parse_duration(v, p)) if kind == D and
                         isinstance(v, str) else float(v))
        except (FieldError, ValueError, TypeError):
            raise FitError(f"{where}: dist_params '{p}' is not a "
                           f"{'duration' if kind == D else 'number'}") \
                from None
    _check(family, params, where)
    return Model(family, params, "metadata")


# --- the tests -------------------------------------------------------------------

MIN_EXPECTED = 5


def chi2_bins(n, alpha=0.1):
    """Mann and Wald's number of equiprobable bins for n samples at level
    alpha, k = 4 (2 (n - 1)^2 / c^2)^(1/5), c = the (1 - alpha) quantile
    of the standard normal; at most n / 5 (every expected count >= 5)."""
    c = sps.norm.ppf(1 - alpha)
    k = int(4 * (2 * (n - 1) ** 2 / c ** 2) ** 0.2) if n > 1 else 0
    return max(min(k, n // MIN_EXPECTED), 0)


def _verdict(p, alpha):
    return "accepted" if p >= alpha else "rejected"


def chi_square(sample, dist, alpha=0.1, bins=None, estimated=0):
    """Pearson's chi-square goodness of fit of `sample` to the frozen
    distribution `dist`, on `bins` bins of equal probability (None:
    chi2_bins(n, alpha)); `estimated` parameters were estimated from the
    sample. Returns a dict: n, bins, edges (the k - 1 interior edges),
    observed, expected, statistic, df, p, alpha, verdict."""
    x = np.asarray(sample, np.float64)
    n = len(x)
    if not 0 < alpha < 1:
        raise FitError(f"--alpha {alpha}: between 0 and 1")
    k = chi2_bins(n, alpha) if bins is None else int(bins)
    if bins is not None and (k < 2 or n < MIN_EXPECTED * k):
        raise FitError(f"--bins {bins}: between 2 and n / {MIN_EXPECTED} = "
                       f"{n // MIN_EXPECTED} (every bin expects at least "
                       f"{MIN_EXPECTED} of the {n} values)")
    df = k - 1 - estimated
    if df < 1:
        raise FitError(f"chi-square: {n} values make {k} bins, which leave "
                       f"{df} degrees of freedom with {estimated} parameters "
                       f"estimated; at least "
                       f"{MIN_EXPECTED * (2 + estimated)} values are needed")
    edges = dist.ppf(np.arange(1, k) / k)
    observed = np.bincount(np.searchsorted(edges, x, side="right"),
                           minlength=k)
    expected = np.full(k, n / k)
    stat = float(((observed - expected) ** 2 / expected).sum())
    p = float(sps.chi2.sf(stat, df))
    return dict(test="chi2", n=n, bins=k, edges=edges, observed=observed,
                expected=expected, statistic=stat, df=df, p=p, alpha=alpha,
                verdict=_verdict(p, alpha),
                rule="given" if bins is not None else "Mann-Wald")


def ks(sample, dist, alpha=0.1):
    """The Kolmogorov-Smirnov test of `sample` against the frozen
    distribution `dist` (scipy.stats.kstest, two-sided). Its p-value
    assumes the parameters were not estimated from the sample."""
    x = np.asarray(sample, np.float64)
    if len(x) < 1:
        raise FitError("KS: no values")
    r = sps.kstest(x, dist.cdf)
    return dict(test="ks", n=len(x), statistic=float(r.statistic),
                p=float(r.pvalue), alpha=alpha,
                verdict=_verdict(r.pvalue, alpha))


def deviations(sample, value):
    """How far inter-departure times stray from a constant: their mean,
    standard deviation (n - 1), the mean deviation from the constant and
    the largest absolute one (ns)."""
    x = np.asarray(sample, np.float64)
    d = x - value
    return dict(n=len(x), value=float(value),
                mean=float(x.mean()) if len(x) else math.nan,
                sd=float(x.std(ddof=1)) if len(x) > 1 else math.nan,
                mean_deviation=float(d.mean()) if len(x) else math.nan,
                max_abs_deviation=float(np.abs(d).max()) if len(x)
                else math.nan)


# --- Hurst -------------------------------------------------------------------------

MIN_HURST_BINS = 400
SCALES = 20


def log_scales(lo, hi, k=SCALES):
    """k scales log-spaced from lo to hi, rounded, duplicates dropped."""
    return np.unique(np.round(np.logspace(np.log10(lo), np.log10(hi), k))
                     .astype(np.int64))


def _series(counts):
    x = np.asarray(counts, np.float64)
    if len(x) < MIN_HURST_BINS:
        raise FitError(f"Hurst: {len(x)} bins; at least {MIN_HURST_BINS} are "
                       f"needed (a shorter --bin or a longer interval)")
    if not x.var() > 0:
        raise FitError("Hurst: the counts never vary (a fixed rate "
                       "aligned with the bins?): no Hurst parameter")
    return x


def hurst_aggvar(counts, scales=None):
    """H by aggregated variance (the module's docstring): a dict with H
    (corrected for the series' own mean), H_slope (1 + slope / 2 of
    log s2(m) against log m), scales and the variances s2(m)."""
    x = _series(counts)
    n = len(x)
    ms = log_scales(1, n // 50) if scales is None else \
        np.asarray(scales, np.int64)
    v = np.array([x[:n // m * m].reshape(-1, m).mean(axis=1).var()
                  for m in ms])
    if (v <= 0).any():
        raise FitError("Hurst: a scale whose block means do not vary")
    lm, lv = np.log(ms), np.log(v)
    slope = np.polyfit(lm, lv, 1)[0]
    grid = np.arange(1, 10000) / 10000
    big_n = (ms * (n // ms)).astype(np.float64)
    e = 2 * grid[:, None] - 2
    g = np.log(np.exp(e * lm) - np.exp(e * np.log(big_n)))
    resid = lv - g
    resid -= resid.mean(axis=1, keepdims=True)
    h = float(grid[np.argmin((resid ** 2).sum(axis=1))])
    return dict(method="aggregated variance", H=h,
                H_slope=float(1 + slope / 2), scales=ms, values=v)


def hurst_rs(counts, scales=None):
    """H by rescaled range (the module's docstring): a dict with H (the
    slope of log R/S against log m), the scales and the mean R/S at
    each."""
    x = _series(counts)
    n = len(x)
    ms = log_scales(8, n // 2) if scales is None else \
        np.asarray(scales, np.int64)
    rs = []
    for m in ms:
        b = x[:n // m * m].reshape(-1, m)
        y = np.cumsum(b - b.mean(axis=1, keepdims=True), axis=1)
        r = np.maximum(y.max(axis=1), 0) - np.minimum(y.min(axis=1), 0)
        s = b.std(axis=1)
        ok = s > 0
        if not ok.any():
            raise FitError(f"Hurst: no block of {m} bins whose counts vary")
        rs.append(float((r[ok] / s[ok]).mean()))
    rs = np.array(rs)
    h = float(np.polyfit(np.log(ms), np.log(rs), 1)[0])
    return dict(method="rescaled range", H=h, scales=ms, values=rs)


# --- what fit and plot ask for ------------------------------------------------------

def tgs_present(rec, mask):
    sound = (rec.records["flags"] & F_HDR_CORRUPT) == 0
    return set(np.unique(rec.records["tg_id"][sound & mask]).tolist())


def narrowed(args):
    """' (with this selection)' when --from, --to or --where narrow it."""
    if any(getattr(args, k, None) is not None for k in
           ("start", "end", "where")):
        return " (with this selection)"
    return ""


@dataclasses.dataclass
class Stretch:
    """A stretch of a TG's sending between two of its rate changes (the
    recording's RATE entries): from from_ns to to_ns (CLOCK_TAI; None: the
    start, the end), at num/den of its timetable's throughput as `by`
    asked (None: as the run began); its inter-departure times x and the
    model scaled to that rate."""
    from_ns: object
    to_ns: object
    num: int
    den: int
    by: object
    x: np.ndarray
    model: Model


def stretches(rec, tg, field, mask, model):
    """The TG's inter-departure times cut at its rate changes, a Stretch
    each (one, the whole, without changes). A gap belongs to the stretch
    both its packets left in (their TX stamps, interdepartures_at()); a
    gap with a change between them (the one the module was in when it
    took the change) belongs to none: returns (stretches, such gaps)."""
    x, begin, end = interdepartures_at(rec.records, tg, field, mask)
    changes = rec.rate_changes(tg)
    if not changes:
        return [Stretch(None, None, 1, 1, None, x, model)], 0
    at = np.array([c.rx_ns for c in changes], np.int64)
    k = np.searchsorted(at, begin, side="right")
    across = k != np.searchsorted(at, end, side="right")
    out = []
    for i in range(len(changes) + 1):
        num, den, by = changes[i - 1].rate if i else (1, 1, None)
        out.append(Stretch(int(at[i - 1]) if i else None,
                           int(at[i]) if i < len(at) else None, num, den,
                           by, x[(k == i) & ~across],
                           scaled(model, num, den)))
    return out, int(across.sum())


def sample_and_model(rec, args, mask, estimate=True):
    """For fit and plot: the TG of --tg, its inter-departure times and its
    model (from --model or the metadata, fitted if need be; with estimate
    False, left to estimate when --model names a family alone)."""
    tgs = tg_list(args)
    if not tgs or len(tgs) != 1:
        raise UsageError("--tg ID: the TG whose sending to test (one)")
    tg = tgs[0]
    if tg not in tgs_present(rec, mask):
        raise UsageError(f"--tg {tg}: no records of TG {tg} in "
                         f"{os.path.basename(rec.path)}{narrowed(args)}")
    field = getattr(args, "field", None) or "tx"
    x = interdepartures(rec.records, tg, field, mask)
    if len(x) < 2:
        raise FitError(f"TG {tg}: {len(x)} inter-departure times (too few "
                       f"consecutive packets received)")
    model = parse_model(args.model) if getattr(args, "model", None) else \
        model_from_meta(rec.tg_meta(tg))
    if not model.params and estimate:
        model = model.fitted(x)
    return tg, field, x, model
