# SPDX-License-Identifier: GPL-2.0-or-later
"""The traffic models, tested statistically on the tables `mtgctl table`
prints (no module needed).

Every model is drawn with 20 fixed seeds (SEEDS) and at least 10,000
variates per seed. Where the gaps are independent draws of one law, a
Kolmogorov-Smirnov test at the 10% level (as MTG did) runs on each seed,
and the number of rejections must be consistent with Binomial(20, 0.1):
more than MAX_REJECTIONS has probability below ALPHA for a correct
model. Where they are not independent (mmpp, voice, fgn), the test is on
what the model declares: the marginal law of gaps far enough apart, the
means of the on and off periods, the Hurst parameter. Every check that a
random quantity falls in a range is two-sided at ALPHA unless it says
otherwise; the seeds are fixed, so a run either always passes or always
fails on a given build.
"""

import json
import math
import subprocess

import numpy as np
import pytest
import scipy.optimize
import scipy.stats as sps

SEEDS = range(1001, 1021)
LEVEL = 0.1                 # the KS test of each seed
ALPHA = 0.001               # of every check over the seeds
# The smallest k with P(Binomial(20, 0.1) >= k) < ALPHA: 8 (p = 0.00043).
MAX_REJECTIONS = int(sps.binom.isf(ALPHA, len(SEEDS), LEVEL))
MS = 1e6                    # ns

RECORD = np.dtype([("tg", "<u4"), ("len", "<u4"), ("departure_ns", "<u8"),
                   ("gap_ns", "<u8")])

# 200-byte frames at 1.6 Mbit/s: a mean gap of 1 ms.
BASE = "dev lo dst 127.0.0.1:9000 pkts 200 thro 1.6M\n"


def table(mtgctl, tmp_path, text, count, tg=None):
    """The records of `mtgctl table` on the IDF text, count per TG (the
    TGs' `count`, so that their tables hold that many entries: a table
    shorter than --count repeats)."""
    path = tmp_path / "m.idf"
    path.write_text(f"count {count}\n" + text)
    args = [mtgctl, "table", path, "--format", "bin", "--count", str(count)]
    if tg is not None:
        args += ["--tg", str(tg)]
    res = subprocess.run(args, capture_output=True)
    assert res.returncode == 0, res.stderr.decode()
    return np.frombuffer(res.stdout, RECORD)


def per_seed(mtgctl, tmp_path, model, count, extra="", base=BASE):
    """{seed: gaps in ns (float64)} of the model line, one TG per seed."""
    text = base + extra + "".join(f"tgid {i + 1} seed {s} {model}\n"
                                  for i, s in enumerate(SEEDS))
    recs = table(mtgctl, tmp_path, text, count)
    return {s: recs["gap_ns"][recs["tg"] == i + 1].astype(np.float64)
            for i, s in enumerate(SEEDS)}


def rejections(samples, cdf):
    """How many seeds' samples a KS test at LEVEL rejects, and the p-values."""
    ps = [sps.kstest(x, cdf).pvalue for x in samples.values()]
    return sum(p < LEVEL for p in ps), ps


def truncated(dist):
    """The CDF of dist truncated to [0, inf) (normal and Cauchy gaps are
    drawn again while below 0)."""
    f0 = dist.cdf(0)
    return lambda x: (dist.cdf(x) - f0) / (1 - f0)


# (dist line, extra keywords, the law of the gaps in ns)
IID_MODELS = [
    ("dist exponential", "", sps.expon(scale=MS).cdf),
    ("dist poisson rng lehmer", "", sps.expon(scale=MS).cdf),
    ("dist uniform", "", sps.uniform(0, 2 * MS).cdf),
    ("dist random rng lehmer", "", sps.uniform(1 * MS, 2 * MS).cdf),
    ("dist pareto 1.5 1ms", "", sps.pareto(1.5, scale=MS).cdf),
    ("dist pareto 0.8 2ms", "", sps.pareto(0.8, scale=2 * MS).cdf),
    ("dist cauchy 1ms 0.5ms", "", truncated(sps.cauchy(MS, 0.5 * MS))),
    ("dist normal 1ms 0.8ms", "", truncated(sps.norm(MS, 0.8 * MS))),
    ("dist gamma 2 0.5ms", "", sps.gamma(2, scale=0.5 * MS).cdf),
    ("dist gamma 0.5 2ms rng lehmer", "", sps.gamma(0.5, scale=2 * MS).cdf),
    ("dist weibull 1.5 1ms", "", sps.weibull_min(1.5, scale=MS).cdf),
    ("dist lognormal 1ms 0.5", "", sps.lognorm(0.5, scale=MS).cdf),
    # the laws whose samplers version 1 (GSL's) draws otherwise
    ("dist pareto 0.8 2ms samplers 1", "", sps.pareto(0.8, scale=2 * MS).cdf),
    ("dist lognormal 1ms 0.5 samplers 1", "", sps.lognorm(0.5, scale=MS).cdf),
    ("dist exponential samplers 1", "", sps.expon(scale=MS).cdf),
]


@pytest.mark.parametrize("model, extra, cdf", IID_MODELS,
                         ids=[m[0] for m in IID_MODELS])
def test_gaps_follow_the_law(mtgctl, tmp_path, model, extra, cdf):
    """KS at 10% on 10,000 gaps per seed; rejections as Binomial(20, 0.1)."""
    base = (BASE if "random" not in model else
            "dev lo dst 127.0.0.1:9000 pkts 200 inta 1ms 3ms\n")
    samples = per_seed(mtgctl, tmp_path, model, 10000, extra, base)
    r, ps = rejections(samples, cdf)
    assert r <= MAX_REJECTIONS, (r, ps)


@pytest.mark.parametrize("model, extra, mean, var", [
    ("dist exponential", "", MS, MS ** 2),
    ("dist uniform", "", MS, (2 * MS) ** 2 / 12),
    ("dist gamma 2 0.5ms", "", MS, 2 * (0.5 * MS) ** 2),
    ("dist weibull 1.5 1ms", "", MS * math.gamma(1 + 1 / 1.5),
     MS ** 2 * (math.gamma(1 + 2 / 1.5) - math.gamma(1 + 1 / 1.5) ** 2)),
    ("dist lognormal 1ms 0.5", "", MS * math.exp(0.125),
     MS ** 2 * (math.exp(0.25) - 1) * math.exp(0.25)),
])
def test_means_and_variances(mtgctl, tmp_path, model, extra, mean, var):
    """Over the 20 seeds' 200,000 gaps: the mean within its normal
    interval (the CLT; sd = sqrt(var / n)), the variance within 5%
    (its standard error here is below 1%)."""
    x = np.concatenate(list(per_seed(mtgctl, tmp_path, model, 10000,
                                     extra).values()))
    z = sps.norm.isf(ALPHA / 2)
    assert abs(x.mean() - mean) < z * math.sqrt(var / len(x)), x.mean()
    assert abs(x.var() / var - 1) < 0.05, x.var() / var


def test_heavy_tails_by_quantiles(mtgctl, tmp_path):
    """Cauchy, and Pareto with shape <= 2, have no variance (or mean):
    instead, over the 200,000 gaps, the number below each quartile of the
    law is within its binomial interval."""
    for model, cdf in (("dist cauchy 1ms 0.5ms",
                        truncated(sps.cauchy(MS, 0.5 * MS))),
                       ("dist pareto 1.5 1ms", sps.pareto(1.5, scale=MS).cdf),
                       ("dist pareto 0.8 2ms",
                        sps.pareto(0.8, scale=2 * MS).cdf)):
        u = cdf(np.concatenate(list(per_seed(mtgctl, tmp_path, model,
                                             10000).values())))
        for q in (0.25, 0.5, 0.75):
            lo, hi = sps.binom.interval(1 - ALPHA, len(u), q)
            assert lo <= (u <= q).sum() <= hi, (model, q)


def mmpp_cdf(high, low, ratio, mean):
    """The law of an MMPP's gaps between arrivals, in its stationary state
    (a phase-type law): F(t) = 1 - pi_a exp(D0 t) 1, D0 = Q - Lambda,
    pi_a the state at an arrival (seconds as given, any unit)."""
    q = np.array([[-1 / high, 1 / high], [1 / low, -1 / low]])
    rl = (high + low) / (mean * (ratio * high + low))
    lam = np.array([ratio * rl, rl])
    pi = np.array([high, low]) / (high + low)
    pia = pi * lam / (pi @ lam)
    d0 = q - np.diag(lam)
    mu, v = np.linalg.eig(d0)
    c = (pia @ v) * (np.linalg.inv(v) @ np.ones(2))
    return lambda t: 1 - np.real(np.exp(np.outer(np.asarray(t), mu)) @ c)


def test_mmpp_gaps_phase_type(mtgctl, tmp_path):
    """MMPP gaps are correlated while the chain stays in a state. With
    stays of a few packets (2 ms high, 10 ms low, 17:1, a mean gap of
    1 ms), every 20th gap is independent of the last (correlation
    exp(-20 ms (1/2 + 1/10) / ms) ~ 6e-6): 10,000 of those per seed,
    KS against the exact law."""
    samples = per_seed(mtgctl, tmp_path, "dist mmpp 2ms 10ms 17", 200000)
    thinned = {s: x[20::20] for s, x in samples.items()}
    assert all(len(x) >= 9999 for x in thinned.values())
    cdf = mmpp_cdf(2 * MS, 10 * MS, 17, MS)
    # The law's own mean is the declared one (a check of the formula).
    t = np.linspace(0, 200 * MS, 200001)
    assert abs(np.trapezoid(1 - cdf(t), t) / MS - 1) < 1e-3
    r, ps = rejections(thinned, cdf)
    assert r <= MAX_REJECTIONS, (r, ps)


def test_mmpp_mtg_worst_case_burstiness(mtgctl, tmp_path):
    """MTG's worst case (0.5 s high, 2.5 s low, 17:1) at 1,000 packets/s:
    peak-to-mean ratio 17 * 3 / (17 * 0.5 + 2.5) = 4.64, "about 5". From
    1,000 s of departures in 50 ms windows: the windows above the
    geometric mean of the two states' counts (4.64 * 50 and 0.27 * 50) are
    the high state; their mean rate over the overall rate is the
    burstiness, the time in them about 1/6. One seed per check, tolerances
    covering what 330 cycles of the chain leave uncertain."""
    recs = table(mtgctl, tmp_path, BASE + "tgid 1 seed 1001 dist mmpp 0.5s "
                 "2.5s 17\n", 1000000)
    dep = recs["departure_ns"].astype(np.int64)
    counts = np.bincount(dep // int(50 * MS))[:-1]
    rate = len(dep) / (dep[-1] / 1e9)
    assert abs(rate / 1000 - 1) < 0.1, rate
    high = counts > math.sqrt(4.64 * 50 * 0.273 * 50)
    burstiness = counts[high].mean() / (counts.mean())
    assert 4.2 < burstiness < 5.1, burstiness
    assert abs(high.mean() - 1 / 6) < 0.04, high.mean()


def test_voice_on_off_periods(mtgctl, tmp_path):
    """voice at 50 packets/s in a talkspurt (G.711's 20 ms), the ITU-T
    P.59 means: talkspurts of 1.004 s (a geometric number of 20 ms
    packets), silences of 1.587 s (exponential). Per seed, KS of the
    silences (each gap beyond 20 ms, less 20 ms) against the exponential
    law; over the seeds, both means within their intervals."""
    samples = per_seed(mtgctl, tmp_path, "dist voice", 550000,
                       base="dev lo dst 127.0.0.1:9000 pkts 200 thro 80k\n")
    silences, spurts = [], []
    r = 0
    for x in samples.values():
        long = x > 20 * MS
        s = x[long] - 20 * MS
        assert len(s) >= 10000
        r += sps.kstest(s, sps.expon(scale=1587 * MS).cdf).pvalue < LEVEL
        silences.append(s)
        ends = np.flatnonzero(long)
        spurts.append(np.diff(ends) * 20 * MS)   # packets in a spurt * 20 ms
        assert set(np.unique(x[~long])) == {20 * MS}
    assert r <= MAX_REJECTIONS, r
    z = sps.norm.isf(ALPHA / 2)
    s = np.concatenate(silences)
    # exponential: sd = mean
    assert abs(s.mean() - 1587 * MS) < z * 1587 * MS / math.sqrt(len(s))
    on = np.concatenate(spurts)
    # geometric with p = 20 / 1004: sd of on = 20 ms * sqrt(1 - p) / p
    p = 20 / 1004
    sd = 20 * MS * math.sqrt(1 - p) / p
    assert abs(on.mean() - 1004 * MS) < z * sd / math.sqrt(len(on))


def local_whittle(x, m=None):
    """Robinson's (1995) local Whittle estimate of the Hurst parameter from
    the first m Fourier frequencies (default n^0.65): argmin over H of
    log(mean(l^(2H-1) I(l))) - (2H-1) mean(log l). Its standard error
    is about 1 / (2 sqrt(m))."""
    n = len(x)
    m = m or int(n ** 0.65)
    f = np.fft.rfft(x - x.mean())[1:m + 1]
    per = np.abs(f) ** 2 / (2 * math.pi * n)
    lam = 2 * math.pi * np.arange(1, m + 1) / n

    def r(h):
        return (math.log(np.mean(lam ** (2 * h - 1) * per)) -
                (2 * h - 1) * np.mean(np.log(lam)))
    res = scipy.optimize.minimize_scalar(r, bounds=(0.01, 0.99),
                                         method="bounded")
    return res.x, 1 / (2 * math.sqrt(m))


@pytest.mark.parametrize("method, tolerance", [("exact", 0.05),
                                               ("rmd", 0.05)])
def test_fgn_hurst(mtgctl, tmp_path, method, tolerance):
    """fgn with MTG's Hurst parameter 0.85, peakedness 1, 10 ms slots of
    20 packets on average: the packets per slot of one batch (2^16
    slots) have the declared mean and variance (peakedness * mean), and
    their Hurst parameter by local Whittle is within 0.05 of 0.85, for
    each of 3 seeds (3 of the 20: a batch is 1.3 M packets)."""
    for seed in list(SEEDS)[:3]:
        recs = table(mtgctl, tmp_path, BASE.replace("1.6M", "3.2M") +
                     f"tgid 1 seed {seed} dist fgn 1 0.85 10ms {method}\n",
                     int(2 ** 16 * 20 * 1.2))
        dep = recs["departure_ns"].astype(np.int64)
        counts = np.bincount(dep // int(10 * MS))[:2 ** 16]
        assert len(counts) == 2 ** 16
        # fGn's sample mean has sd sqrt(var) n^(H-1): about 0.85 here.
        sd_mean = math.sqrt(20) * len(counts) ** (0.85 - 1)
        assert abs(counts.mean() - 20) < sps.norm.isf(ALPHA / 2) * sd_mean
        # The sample variance of long-range dependent data runs low, by
        # n^(2H - 2) = 3.6% in expectation here, and varies more.
        assert abs(counts.var() / 20 - 1) < 0.1, counts.var()
        h, se = local_whittle(counts.astype(np.float64))
        assert abs(h - 0.85) < tolerance, (method, seed, h, se)


def test_fgn_short_range_for_hurst_one_half(mtgctl, tmp_path):
    """H = 0.5 is white noise: the estimate is 0.5 (within 4 standard
    errors), so the estimator does not find 0.85 everywhere."""
    recs = table(mtgctl, tmp_path, BASE.replace("1.6M", "3.2M") +
                 "tgid 1 seed 1001 dist fgn 1 0.5 10ms\n",
                 int(2 ** 16 * 20 * 1.2))
    dep = recs["departure_ns"].astype(np.int64)
    counts = np.bincount(dep // int(10 * MS))[:2 ** 16].astype(np.float64)
    h, se = local_whittle(counts)
    assert abs(h - 0.5) < 4 * se, (h, se)


def test_variable_lengths_uniform(mtgctl, tmp_path):
    """pkts variable MAX MIN: lengths uniform on MIN..MAX (chi-square over
    the 101 values at LEVEL per seed, rejections as Binomial(20, 0.1));
    the gap then carries thro at the mean length."""
    text = ("dev lo dst 127.0.0.1:9000 pkts variable 300 200 thro 2M\n" +
            "".join(f"tgid {i + 1} seed {s} dist exponential\n"
                    for i, s in enumerate(SEEDS)))
    recs = table(mtgctl, tmp_path, text, 10100)
    r = 0
    for i in range(len(SEEDS)):
        ln = recs["len"][recs["tg"] == i + 1]
        assert ln.min() >= 200 and ln.max() <= 300
        obs = np.bincount(ln - 200, minlength=101)
        r += sps.chisquare(obs).pvalue < LEVEL
    assert r <= MAX_REJECTIONS, r
    gaps = recs["gap_ns"].astype(np.float64)
    # mean gap 250 * 8 / 2M = 1 ms
    z = sps.norm.isf(ALPHA / 2)
    assert abs(gaps.mean() - MS) < z * MS / math.sqrt(len(gaps))


def check_tables(mtgctl, tmp_path, text):
    path = tmp_path / "t.idf"
    path.write_text(text)
    res = subprocess.run([mtgctl, "check", path, "--json"],
                         capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    return [(t["table"]["mode"], t["table"]["len"])
            for t in json.loads(res.stdout)["tgs"]]


def test_loop_or_stream(mtgctl, tmp_path):
    """A random model streams when its run is longer than a table holds
    (no count and no duration, or more than 2M packets), with 2 s of
    traffic ahead (4096 entries at least); a run its table holds loops
    over it; `table` decides when given, for any model."""
    assert check_tables(mtgctl, tmp_path, BASE + """
        tgid 1 dist poisson
        tgid 2 dist poisson thro 16M
        tgid 3 dist poisson count 5000
        tgid 4 dist poisson time relative 0 10s
        tgid 5 dist poisson count 3M
        tgid 6 dist poisson table loop
        tgid 7 table stream
        tgid 8
        """.replace("\n        ", "\n")) == [
        ("stream", 4096), ("stream", 20000), ("loop", 5000),
        ("loop", 10001), ("stream", 4096), ("loop", 60001),
        ("stream", 4096), ("loop", 1)]


@pytest.mark.parametrize("model", ["dist poisson", "dist fgn 1 0.85",
                                   "dist voice", "dist fixed"])
def test_stream_draws_on(mtgctl, tmp_path, model):
    """A stream's departures are the model's sequence drawn on: the same
    bytes as a loop table holding all of them, and the second pass of
    the stream's table is not the first."""
    n = 20000
    stream = table(mtgctl, tmp_path, BASE + f"tgid 1 {model} table stream\n",
                   n)
    whole = table(mtgctl, tmp_path, BASE + f"tgid 1 {model} table loop\n", n)
    assert stream.tobytes() == whole.tobytes()
    # (voice's gaps in a talkspurt, and fixed gaps, are equal anyway)
    if model in ("dist poisson", "dist fgn 1 0.85"):
        assert (stream["gap_ns"][4096:8192] ==
                stream["gap_ns"][:4096]).mean() < 0.5


def test_jitter_uniform(mtgctl, tmp_path):
    """jitt 2ms on a 10 ms fixed rate: departure k is 10 ms * k plus
    U(0, 2 ms), drawn anew for every packet (KS per seed, rejections as
    Binomial(20, 0.1))."""
    text = ("dev lo dst 127.0.0.1:9000 pkts 200 inta 10ms jitt 2ms\n" +
            "".join(f"tgid {i + 1} seed {s}\n" for i, s in enumerate(SEEDS)))
    recs = table(mtgctl, tmp_path, text, 10000)
    samples = {}
    for i, s in enumerate(SEEDS):
        dep = recs["departure_ns"][recs["tg"] == i + 1].astype(np.float64)
        samples[s] = dep - 10 * MS * np.arange(len(dep))
    r, ps = rejections(samples, sps.uniform(0, 2 * MS).cdf)
    assert r <= MAX_REJECTIONS, (r, ps)


def test_time_poisson_calls(mtgctl, tmp_path):
    """time poisson 1s 10ms on 1 ms gaps (MTG's phone calls): a call
    holds ceil(D / 1 ms) packets for an exponential D of mean 10 ms, a
    geometric count (chi-square per seed); the idle times between calls
    (the gaps other than 1 ms, each with the call's last part below 1 ms,
    0.05% of the mean) are exponential with mean 1 s (KS per seed);
    10,000 calls or more per seed, rejections as Binomial(20, 0.1)."""
    text = ("dev lo dst 127.0.0.1:9000 pkts 200 inta 1ms "
            "time poisson 1s 10ms\n" +
            "".join(f"tgid {i + 1} seed {s}\n" for i, s in enumerate(SEEDS)))
    recs = table(mtgctl, tmp_path, text, 120000)
    p = 1 - math.exp(-1 / 10)
    r_idle = r_calls = 0
    for i in range(len(SEEDS)):
        gaps = recs["gap_ns"][recs["tg"] == i + 1].astype(np.float64)
        long = gaps != MS       # a call's end (an idle time can be short)
        ends = np.flatnonzero(long)
        assert len(ends) >= 10000
        r_idle += sps.kstest(gaps[long], sps.expon(scale=1e9).cdf).pvalue \
            < LEVEL
        n = np.diff(ends)                     # packets in each full call
        top = 60
        obs = np.bincount(np.minimum(n, top), minlength=top + 1)[1:]
        k = np.arange(1, top)
        exp = np.append(sps.geom.pmf(k, p), sps.geom.sf(top - 1, p)) * len(n)
        r_calls += sps.chisquare(obs, exp).pvalue < LEVEL
    assert r_idle <= MAX_REJECTIONS, r_idle
    assert r_calls <= MAX_REJECTIONS, r_calls


def write_pcap(path, times_ns, nano=True, swap=False):
    """A classic pcap file of 60-byte frames at times_ns."""
    import struct
    end = ">" if swap else "<"
    magic = 0xa1b23c4d if nano else 0xa1b2c3d4
    out = [struct.pack(end + "IHHiIII", magic, 2, 4, 0, 0, 65535, 1)]
    for t in times_ns:
        frac = t % 10**9 if nano else (t % 10**9) // 1000
        out.append(struct.pack(end + "IIII", t // 10**9, frac, 60, 60))
        out.append(bytes(60))
    path.write_bytes(b"".join(out))


def test_trace_file(mtgctl, tmp_path):
    """dist trace: the file's times and lengths, in a loop whose last gap
    is the trace's mean; the file is found beside the IDF."""
    (tmp_path / "exp").mkdir()
    (tmp_path / "exp" / "calls.txt").write_text(
        "# time length\n0 200\n0.001 300\n1.5ms 400\n\n0.004 250 # x\n")
    idf = tmp_path / "exp" / "t.idf"
    idf.write_text("dev lo dst 127.0.0.1:9000\ntgid 1 dist trace calls.txt\n")
    res = subprocess.run([mtgctl, "table", idf, "--count", "6",
                          "--format", "bin"], capture_output=True,
                         check=True)
    recs = np.frombuffer(res.stdout, RECORD)
    assert list(recs["departure_ns"]) == [0, 10**6, 1500000, 4 * 10**6,
                                          4 * 10**6 + 4 * 10**6 // 3,
                                          4 * 10**6 + 4 * 10**6 // 3 + 10**6]
    assert list(recs["len"]) == [200, 300, 400, 250, 200, 300]


@pytest.mark.parametrize("nano, swap", [(True, False), (False, False),
                                        (True, True), (False, True)])
def test_pcap_timing(mtgctl, tmp_path, nano, swap):
    """dist pcap: the gaps of a capture's timestamps (pcap in either byte
    order, micro- or nanosecond), the lengths of `pkts`."""
    rng = np.random.default_rng(1)
    times = np.cumsum(rng.integers(1, 5 * 10**6, 500)) + 1700000000 * 10**9
    if not nano:
        times = times // 1000 * 1000
    write_pcap(tmp_path / "cap.pcap", [int(t) for t in times], nano, swap)
    (tmp_path / "t.idf").write_text(
        "dev lo dst 127.0.0.1:9000 pkts 300\ntgid 1 dist pcap cap.pcap\n")
    res = subprocess.run([mtgctl, "table", "t.idf", "--format", "bin"],
                         cwd=tmp_path, capture_output=True, check=True)
    recs = np.frombuffer(res.stdout, RECORD)
    assert len(recs) == 500 and set(recs["len"]) == {300}
    assert list(recs["gap_ns"][:-1]) == list(np.diff(times))
    assert recs["gap_ns"][-1] == (times[-1] - times[0]) // 499


@pytest.mark.parametrize("content, message", [
    ("0 200\n0.001 30\n", "calls.txt:2:7: expected a frame length, 130 .. "
     "9018 bytes, got '30'"),
    ("0 200\n0.002 200\n0.001 200\n", "calls.txt:3:1: the time goes back "
     "(0.001 after 2000000 ns)"),
    ("0 200\nsoon 200\n", "calls.txt:2:1: expected a time (s, or a unit: "
     "ns, us, ms, s), got 'soon'"),
    ("0 200 7\n", "calls.txt:1: expected TIME LENGTH and nothing more"),
    ("0 200\n", "calls.txt: 1 packets; a timing needs 2 at least"),
    (None, "cannot read calls.txt: No such file or directory"),
    (b"\x0a\x0d\x0d\x0a" + bytes(40), "calls.txt: not a pcap file (magic "
     "0a0d0d0a; pcapng: convert it with 'editcap -F pcap')"),
])
def test_trace_and_pcap_errors(mtgctl, tmp_path, content, message):
    """A bad trace or pcap file: where and what (at the `dist` that names
    it), and nothing printed."""
    model = "pcap" if isinstance(content, bytes) else "trace"
    if isinstance(content, bytes):
        (tmp_path / "calls.txt").write_bytes(content)
    elif content is not None:
        (tmp_path / "calls.txt").write_text(content)
    (tmp_path / "t.idf").write_text(
        f"dev lo dst 127.0.0.1:9000 pkts 200\ntgid 1 dist {model} calls.txt\n")
    for cmd in ("table", "check"):
        res = subprocess.run([mtgctl, cmd, "t.idf"], cwd=tmp_path,
                             capture_output=True, text=True)
        assert res.returncode == 1 and res.stdout == ""
        assert res.stderr == \
            f"t.idf:2:8: error: TG 1: 'dist {model}': {message}\n"


# --- D-ITG's presets (its 2.8.1 source, src/ITGSend/traffic.cpp) -------------

PRESET_BASE = "dev lo dst 127.0.0.1:9000\n"
HEADERS = 130       # IPv4: Ethernet 14, IP 20, UDP 8, MTG header 88


@pytest.mark.parametrize("preset, per_s, payload", [
    ("voip G.711.1", 100, 92), ("voip G.711.1 crtp", 100, 82),
    ("voip G.711.2 vad", 50, 116), ("voip G.729.2", 50, 32),
    ("voip G.729.2 crtp vad", 50, 16), ("voip G.729.3 rtp", 33, 42),
    ("voip G.723.1 vad", 26, 31), ("dns", 0.56, None),
])
def test_presets_at_fixed_rates(mtgctl, tmp_path, preset, per_s, payload):
    """VoIP and DNS: D-ITG's fixed rates, departure k at floor(k * 1 s /
    rate) exactly (so the rate is exact over any run), and VoIP's payload
    (frames * bytes * 0.65 with vad, plus RTP's 12 or compressed RTP's 2
    bytes, 16 at least) after mtg's headers."""
    recs = table(mtgctl, tmp_path, PRESET_BASE + f"tgid 1 dist {preset}\n",
                 3000)
    num, den = (10**11, 56) if per_s == 0.56 else (10**9, per_s)
    assert [int(d) for d in recs["departure_ns"]] == \
        [k * num // den for k in range(3000)]
    if payload is not None:
        assert set(recs["len"]) == {HEADERS + payload}


def floored_normal(mixture):
    """P(floor(X) = k), X a mixture of (weight, mean, sd) normals."""
    def pmf(k):
        return sum(w * (sps.norm.cdf(k + 1, m, s) - sps.norm.cdf(k, m, s))
                   for w, m, s in mixture)
    return pmf


def chi2_rejections(samples, values, probs):
    """Chi-square at LEVEL per seed of integer samples against a law on
    values (probs), the rare values (expected < 5) pooled."""
    r = 0
    for x in samples:
        n = len(x)
        obs = np.array([(x == v).sum() for v in values], np.float64)
        exp = np.asarray(probs, np.float64) * n
        assert obs.sum() == n, "a value outside the law"
        keep = exp >= 5
        obs = np.append(obs[keep], obs[~keep].sum())
        exp = np.append(exp[keep], exp[~keep].sum())
        if exp[-1] == 0:
            obs, exp = obs[:-1], exp[:-1]
        r += sps.chisquare(obs, exp * obs.sum() / exp.sum()).pvalue < LEVEL
    return r


def t_truncated(loc, scale, df):
    return truncated(sps.t(df, loc, scale))


PRESET_LAWS = {
    # gaps (a continuous CDF, or a mixture handled below); payload law
    "telnet": (sps.pareto(0.95, scale=1.1 * MS).cdf,
               (range(21, 36), [0.65, 0.13, 0.07, 0.05, 0.03, 0.01, 0.01,
                                0.01, 0.01] + [0.005] * 6)),
    "dns": (None, (range(100, 320), [1 / 220] * 220)),
    "quake3": ("mixture", (range(40, 90), [floored_normal(
        [(1, 64.151757, 3.2035755)])(k) for k in range(40, 90)])),
    "csa": (t_truncated(41.6994 * MS, 0.104821 * MS, 0.704073),
            (range(0, 80), [floored_normal(
                [(0.3732, 34.8352, 4.3915), (0.6268, 49.4904, 3.6186)])(k)
                for k in range(0, 80)])),
    "csi": (t_truncated(41.6858 * MS, 0.0694393 * MS, 1.08341),
            ([27, 28, 29, 30, 31, 32, 33, 35],
             [0.8312, 0.0018, 0.0453, 0.0195, 0.0879, 0.0024, 0.0106,
              0.0013])),
}


@pytest.mark.parametrize("samplers", [2, 1])
@pytest.mark.parametrize("preset", sorted(PRESET_LAWS))
def test_presets_follow_ditg(mtgctl, tmp_path, preset, samplers):
    """D-ITG's Telnet (Pareto gaps, a discrete payload), DNS (uniform
    payload), Quake 3 (gaps 0.6 exponential 4.29 ms / 0.4 a constant
    10.75 ms; a normal payload) and Counter-Strike active and idle
    (Student's t gaps truncated to [0, inf); normal-mixture or discrete
    payloads): per seed, KS of the gaps and chi-square of the payloads at
    10%, 10,000 packets each, rejections as Binomial(20, 0.1). Payloads
    are cut to whole bytes as D-ITG does (floor). Both samplers versions:
    they draw the t and Pareto gaps differently."""
    text = PRESET_BASE + "".join(f"tgid {i + 1} seed {s} dist {preset} "
                                 f"samplers {samplers}\n"
                                 for i, s in enumerate(SEEDS))
    recs = table(mtgctl, tmp_path, text, 10000)
    gaps_law, (values, probs) = PRESET_LAWS[preset]
    gaps = [recs["gap_ns"][recs["tg"] == i + 1].astype(np.float64)
            for i in range(len(SEEDS))]
    payloads = [recs["len"][recs["tg"] == i + 1].astype(np.int64) - HEADERS
                for i in range(len(SEEDS))]
    if gaps_law == "mixture":
        const = [g == 10.75 * MS for g in gaps]
        z = sps.norm.isf(ALPHA / 2)
        share = sum(c.sum() for c in const) / sum(len(c) for c in const)
        assert abs(share - 0.4) < z * math.sqrt(0.24 / (20 * 10000))
        r, _ = rejections({i: g[~c] for i, (g, c) in
                           enumerate(zip(gaps, const))},
                          sps.expon(scale=4.29 * MS).cdf)
        assert r <= MAX_REJECTIONS, r
    elif gaps_law is not None:
        r, ps = rejections(dict(enumerate(gaps)), gaps_law)
        assert r <= MAX_REJECTIONS, (r, ps)
    assert chi2_rejections(payloads, values, probs) <= MAX_REJECTIONS


@pytest.mark.parametrize("preset", ["csa", "csi"])
def test_student_t_ziggurat_in_its_tails(mtgctl, tmp_path, preset):
    """Samplers 2 draws Student's t by a ziggurat whose tail beyond r
    (2777 for csa's nu, 217 for csi's: about 1 draw in 430) has its own
    sampler, and whose layers' edges are where the fast path ends: KS is
    blind out there. 2,000,000 gaps of one seed against the law in bins
    at its quantiles, the deep tails among them (10^-5 .. 1 - 10^-5),
    chi-square at ALPHA. The gaps cut to an hour stay in the top bin."""
    law = sps.t(*{"csa": (0.704073, 41.6994 * MS, 0.104821 * MS),
                  "csi": (1.08341, 41.6858 * MS, 0.0694393 * MS)}[preset])
    n = 2_000_000
    gaps = table(mtgctl, tmp_path, PRESET_BASE + f"tgid 1 seed 7 dist "
                 f"{preset}\n", n)["gap_ns"].astype(np.float64)
    f0 = law.cdf(0)             # drawn again while below 0
    q = np.array([1e-5, 1e-4, 5e-4, 1e-3, 2e-3, 5e-3, 0.02, 0.1, 0.3, 0.5,
                  0.7, 0.9, 0.98, 0.995, 0.998, 0.999, 0.9995, 0.9999,
                  0.99999])
    edges = law.ppf(f0 + q * (1 - f0))
    obs = np.bincount(np.searchsorted(edges, gaps, side="right"),
                      minlength=len(q) + 1)
    exp = np.diff(np.concatenate([[0], q, [1]])) * n
    assert sps.chisquare(obs, exp).pvalue >= ALPHA, (obs, exp.round())


def test_fixed_rate_stream_exact_over_a_long_run(mtgctl, tmp_path):
    """A streamed fixed rate whose gap is not whole (250-byte frames at
    3 Mbit/s: 2000000/3 ns) keeps the exact rate over a million packets:
    departure k is floor(k * 2000000 / 3), not a sum of rounded gaps."""
    recs = table(mtgctl, tmp_path, "dev lo dst 127.0.0.1:9000 pkts 250 "
                 "thro 3M\ntgid 1 table stream\n", 10**6)
    k = np.arange(10**6, dtype=np.uint64)
    assert (recs["departure_ns"] == k * 2000000 // 3).all()


# --- pkts LAW: lengths drawn from a law ------------------------------------

def law_pmf(dist, discrete, plus, lo, hi):
    """P(L = l), l = lo .. hi, of L = floor(X) + plus clamped to lo .. hi:
    worked out here from scipy's law, not from mtgctl's."""
    ls = np.arange(lo, hi + 1, dtype=np.float64)
    # P(L <= l) = P(floor(X) <= l - plus): X < l - plus + 1, or for a law
    # of whole numbers X <= l - plus
    cdf = dist.cdf(ls - plus) if discrete else dist.cdf(ls - plus + 1)
    cdf[-1] = 1.0
    return np.diff(np.concatenate([[0.0], cdf]))


def merged_bins(expected, least):
    """Edges (indices) of runs of values, each expecting least or more."""
    edges, acc = [0], 0.0
    for i, e in enumerate(expected):
        acc += e
        if acc >= least:
            edges.append(i + 1)
            acc = 0.0
    edges[-1] = len(expected)
    return edges


# (pkts line, the TG's family, scipy's law, whole numbers?, plus, lo, hi)
LEN_LAWS = [
    ("pkts exponential 400", 4, sps.expon(scale=400), False, 0, 130, 1514),
    ("pkts poisson 500 plus 42", 4, sps.poisson(500), True, 42, 130, 1514),
    ("pkts normal 800 300 plus 10 within 200 1400", 6, sps.norm(800, 300),
     False, 10, 200, 1400),
    ("pkts cauchy 700 100", 4, sps.cauchy(700, 100), False, 0, 130, 1514),
    ("pkts pareto 1.2 100", 6, sps.pareto(1.2, scale=100), False, 0, 150,
     1514),
    ("pkts gamma 2 200 within 130 9018", 4, sps.gamma(2, scale=200), False,
     0, 130, 9018),
    ("pkts weibull 1.5 600", 4, sps.weibull_min(1.5, scale=600), False, 0,
     130, 1514),
    ("pkts lognormal 500 0.5 plus 62", 6, sps.lognorm(0.5, scale=500),
     False, 62, 150, 1514),
]


@pytest.mark.parametrize("line, family, dist, discrete, plus, lo, hi",
                         LEN_LAWS, ids=[law[0] for law in LEN_LAWS])
def test_lengths_follow_the_law(mtgctl, tmp_path, line, family, dist,
                                discrete, plus, lo, hi):
    """pkts LAW: 10,000 lengths per seed against the law as sent (rounded
    down, plus, clamped), worked out here from scipy: chi-square at LEVEL
    per seed over runs of values expecting 50 or more, rejections as
    Binomial(20, 0.1); the clamped count of each seed's table within its
    binomial interval at ALPHA; the mean `mtgctl check` shows equals the
    law's to 1e-6."""
    n = 10000
    dst = "127.0.0.1:9000" if family == 4 else "[::1]:9000"
    text = (f"dev lo dst {dst} inta 1ms {line}\n" +
            "".join(f"tgid {i + 1} seed {s}\n" for i, s in enumerate(SEEDS)))
    recs = table(mtgctl, tmp_path, text, n)
    pmf = law_pmf(dist, discrete, plus, lo, hi)
    edges = merged_bins(pmf * n, 50)
    r = 0
    for i in range(len(SEEDS)):
        ln = recs["len"][recs["tg"] == i + 1].astype(np.int64)
        assert len(ln) == n and ln.min() >= lo and ln.max() <= hi
        counts = np.bincount(ln - lo, minlength=hi - lo + 1)
        obs = np.add.reduceat(counts, edges[:-1])
        exp = np.add.reduceat(pmf, edges[:-1]) * n
        r += sps.chisquare(obs, exp * obs.sum() / exp.sum()).pvalue < LEVEL
    assert r <= MAX_REJECTIONS, r

    path = tmp_path / "m.idf"
    res = subprocess.run([mtgctl, "check", path, "--json"],
                         capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    tgs = json.loads(res.stdout)["tgs"]
    mean = float((np.arange(lo, hi + 1) * pmf).sum())
    # out of bounds: floor(X) + plus below lo or above hi
    if discrete:
        p_out = dist.cdf(lo - plus - 1) + dist.sf(hi - plus)
    else:
        p_out = dist.cdf(lo - plus) + dist.sf(hi - plus + 1)
    low, high = sps.binom.interval(1 - ALPHA, n, p_out)
    for tg in tgs:
        assert tg["pkts"]["kind"] == "law"
        assert (tg["pkts"]["min"], tg["pkts"]["max"]) == (lo, hi)
        assert tg["pkts"]["mean"] == pytest.approx(mean, rel=1e-6)
        assert low <= tg["table"]["len_clamped"] <= high, (p_out, tg)


def test_law_lengths_carry_thro_and_show_in_check(mtgctl, tmp_path):
    """With thro, the gap is the law's mean length (as sent) * 8 / thro,
    to 1/1024 byte (a fixed rate's table spreads it exactly: its period
    over its entries, to a ns); `mtgctl check` prints the law, its bounds, its mean
    and how many lengths of the table were clamped; `mtgctl table` warns
    of them."""
    path = tmp_path / "t.idf"
    path.write_text("tgid 1 dev lo dst 127.0.0.1:9 dist fixed "
                    "thro 10M pkts exponential 400 count 20000\n")
    res = subprocess.run([mtgctl, "check", path, "--json"],
                         capture_output=True, text=True, check=True)
    (tg,) = json.loads(res.stdout)["tgs"]
    mean = float((np.arange(130, 1515) *
                  law_pmf(sps.expon(scale=400), False, 0, 130, 1514)).sum())
    t = tg["table"]
    assert t["len"] == 20000
    assert abs(t["period_ns"] / t["len"] - mean * 8 / 10e6 * 1e9) <= \
        8 / 10e6 * 1e9 / 1024 + 1
    text = subprocess.run([mtgctl, "check", path], capture_output=True,
                          text=True, check=True).stdout
    clamped = tg["table"]["len_clamped"]
    assert (f"pkts exponential 400 within 130 1514, mean {mean:.1f} bytes, "
            f"{clamped} of 20000 clamped ({100 * clamped / 20000:.2f}%)"
            in text), text
    res = subprocess.run([mtgctl, "table", path], capture_output=True,
                         text=True, check=True)
    assert (f"TG 1: {clamped} lengths clamped to 130 .. 1514 bytes"
            in res.stderr)


def test_law_lengths_in_a_behaviour(mtgctl, tmp_path):
    """A category's pkts LAW is clamped to the smallest frame of the TG
    that plays it: 150 bytes over IPv6."""
    path = tmp_path / "b.idf"
    path.write_text("behaviour game\n"
                    "  category a 1s dist exponential inta 1ms "
                    "pkts exponential 200\n"
                    "tgid 1 dev lo dst [::1]:9 dist behaviour game "
                    "count 5000\n")
    recs = table(mtgctl, tmp_path, path.read_text(), 5000)
    assert recs["len"].min() == 150
    # floor(X) < 150 for about 1 - exp(-150 / 200) of them
    p = 1 - math.exp(-150 / 200)
    low, high = sps.binom.interval(1 - ALPHA, 5000, p)
    assert low <= (recs["len"] == 150).sum() <= high
