# SPDX-License-Identifier: GPL-2.0-or-later
"""mtgsap plot: figures of a recording, as PNG, SVG or PDF.

Kinds:

- delay: a field (default the one-way delay) over the arrival time, per TG;
- delay-cdf: the empirical CDF of a field (default owd), per TG;
- pmf: the probability mass function of a field (default owd), per TG
  (stats.pmf: exact values when few, else --bins equal bins);
- windows: throughput and lost packets over windows of --window (D-ITG's,
  meter.windows), per TG, in two panels;
- sending: MTG's Figs. 6-7, the density of a TG's inter-departure times
  (histogram of --bins equal bins, log y) with its model's pdf as a line
  (the model of fit.py: the metadata's or --model);
- segments: per TG, the CDF of each segment's delay along the path the
  test-point probes stamped, and of the end-to-end delay of the same
  packets (segments.paths).

Figures are drawn on matplotlib Figures with the Agg canvas, never through
pyplot: no display is needed and no global state is changed. The output is
deterministic (a fixed SVG hash salt, no dates or versions in the files'
metadata): the same recording and options give the same bytes. A file is
never overwritten without force; it is written beside its name and linked
into place."""

import difflib
import os

import numpy as np
from matplotlib import rc_context
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator

from . import fit
from . import meter
from . import segments
from . import stats as st
from .common import UsageError, asked_by, interval, selected, tg_list
from .fields import FieldError, column, parse_duration, since
from .recording import new_file

FORMATS = {".png": "png", ".svg": "svg", ".pdf": "pdf"}
SIZE = (8, 4.5)
DPI = 100
# No dates, no software versions: identical inputs give identical files.
METADATA = {"png": {"Software": None},
            "svg": {"Date": None, "Creator": None},
            "pdf": {"CreationDate": None, "ModDate": None, "Creator": None,
                    "Producer": None}}
RC = {"svg.hashsalt": "mtgsap", "svg.fonttype": "path",
      "pdf.compression": 6, "path.simplify": True}
# Above this many points a series is rasterised in SVG and PDF, and an
# empirical CDF is drawn at this many evenly spaced ranks.
MAX_POINTS = 5000
LABELS = {"owd": "one-way delay", "delay_tx_rx": "one-way delay",
          "lateness": "lateness (sched to tx)",
          "jitter_owd": "jitter of the one-way delay (IPDV)",
          "jitter_tx": "sending jitter (IPDV of lateness)"}


class PlotError(UsageError):
    pass


def format_of(path):
    ext = os.path.splitext(os.fspath(path))[1].lower()
    if ext not in FORMATS:
        raise PlotError(f"-o {path}: the extension names the format: "
                        f"{', '.join(FORMATS)}")
    return FORMATS[ext]


def save(fig, path, force=False):
    """Writes the figure to path, in the format of its extension, whole or
    not at all; an existing file only with force."""
    fmt = format_of(path)
    with new_file(path, force) as (f, _), rc_context(RC):
        fig.savefig(f, format=fmt, dpi=DPI, metadata=METADATA[fmt])
    return os.fspath(path)


def _figure(rows=1, height=None):
    fig = Figure(figsize=(SIZE[0], height or SIZE[1]), dpi=DPI,
                 layout="constrained")
    FigureCanvasAgg(fig)
    axes = fig.subplots(rows, 1, sharex=True, squeeze=False)[:, 0]
    for ax in axes:
        ax.grid(True, alpha=0.3)
    return fig, axes


def _label(name, col_time, unit):
    text = LABELS.get(name, name)
    if col_time:
        return f"{text} ({unit})"
    return text


def _flow_label(f, flows):
    runs = {g.run_id for g in flows}
    return f"TG {f.tg_id}" if len(runs) < 2 else \
        f"run {f.run_id} TG {f.tg_id}"


def _flows(rec, mask, args):
    flows = meter.flows(rec.records, mask)
    tgs = tg_list(args)
    present = {f.tg_id for f in flows}
    missing = sorted(set(tgs or ()) - present)
    if missing:
        raise PlotError(f"--tg {args.tg}: no records of TG "
                        f"{', '.join(map(str, missing))} in "
                        f"{os.path.basename(rec.path)}{fit.narrowed(args)}")
    if not flows:
        raise PlotError(f"{os.path.basename(rec.path)}: no records of any "
                        f"TG selected")
    return flows


def _column(rec, name):
    try:
        return column(rec.records, name, rec.start_ns)
    except FieldError as e:
        raise PlotError(f"--field {name}: {e}") from None


def _unit_of(col, samples):
    if not col.time:
        return "", 1.0
    values = np.concatenate([np.abs(s) for s in samples]) if samples else []
    return fit.time_unit(float(np.median(values)) if len(values) else 0)


def _legend(ax, n):
    if n > 1:
        ax.legend(loc="best", fontsize="small", markerscale=4)


def _cdf(ax, v, scale, label, **style):
    """The empirical CDF of sorted values v, in units of scale, as steps
    (at most MAX_POINTS ranks drawn); nothing when v is empty."""
    n = len(v)
    if not n:
        return
    ranks = np.arange(n) if n <= MAX_POINTS else \
        np.unique(np.linspace(0, n - 1, MAX_POINTS).round().astype(np.int64))
    x = np.r_[v[0], v[ranks]] / scale
    y = np.r_[0.0, (ranks + 1) / n]
    ax.step(x, y, where="post", label=f"{label} (n = {n})", **style)


# --- the kinds ------------------------------------------------------------------

def plot_delay(rec, mask, args):
    name = args.field or "owd"
    col = _column(rec, name)
    flows = _flows(rec, mask, args)
    series = []
    for f in flows:
        ok = col.valid[f.index]
        idx = f.index[ok]
        t = since(rec.records["rx_ns"][idx], rec.start_ns) / 1e9
        series.append((f, t, col.values[idx].astype(np.float64)))
    unit, scale = _unit_of(col, [s[2] for s in series])
    fig, (ax,) = _figure()
    for f, t, v in series:
        order = np.argsort(t, kind="stable")
        ax.plot(t[order], v[order] / scale, ".", markersize=2,
                label=_flow_label(f, flows), rasterized=len(t) > MAX_POINTS)
    ax.set_xlabel("arrival time after T0 (s)")
    ax.set_ylabel(_label(name, col.time, unit))
    _legend(ax, len(flows))
    return fig, f"{LABELS.get(name, name)} over time"


def plot_delay_cdf(rec, mask, args):
    name = args.field or "owd"
    col = _column(rec, name)
    flows = _flows(rec, mask, args)
    samples = [np.sort(col.values[f.index][col.valid[f.index]]
                       .astype(np.float64)) for f in flows]
    unit, scale = _unit_of(col, samples)
    fig, (ax,) = _figure()
    for f, v in zip(flows, samples):
        _cdf(ax, v, scale, _flow_label(f, flows))
    ax.set_ylim(0, 1.02)
    ax.set_xlabel(_label(name, col.time, unit))
    ax.set_ylabel(f"P({name} \u2264 x)")
    _legend(ax, len(flows))
    return fig, f"CDF of the {LABELS.get(name, name)}"


def plot_pmf(rec, mask, args):
    name = args.field or "owd"
    col = _column(rec, name)
    flows = _flows(rec, mask, args)
    samples = [col.values[f.index][col.valid[f.index]] for f in flows]
    unit, scale = _unit_of(col, [s.astype(np.float64) for s in samples])
    fig, (ax,) = _figure()
    for f, v in zip(flows, samples):
        if not len(v):
            continue
        with asked_by("--bins", args.bins):
            x, w, p, _ = st.pmf(v, bins=args.bins)
        label = _flow_label(f, flows)
        if not w.any():
            line = ax.vlines(x / scale, 0, p, label=label)
            ax.plot(x / scale, p, "o", markersize=3,
                    color=line.get_color()[0])
        else:
            ax.stairs(p, np.r_[x, x[-1] + w[-1]] / scale, label=label)
    ax.set_ylim(bottom=0)
    ax.set_xlabel(_label(name, col.time, unit))
    ax.set_ylabel("probability")
    _legend(ax, len(flows))
    return fig, f"PMF of the {LABELS.get(name, name)}"


def plot_windows(rec, mask, args):
    if args.field:
        raise PlotError("--field: windows plots throughput and loss, no "
                        "field")
    try:
        win = parse_duration(args.window or "1s", "--window")
    except FieldError as e:
        raise PlotError(str(e)) from None
    if win <= 0:
        raise PlotError("--window must be positive")
    start, end = interval(args)
    # As the windows command: --from/--to in scheduled time.
    plain = type(args)(**dict(vars(args), start=None, end=None))
    flows = _flows(rec, selected(rec, plain), args)
    with asked_by("--window", args.window or "1s"):
        total = meter.windows(rec.records, flows, win, rec.start_ns, start,
                              end)
    if not len(total["start_ns"]):
        raise PlotError("no window in the interval")
    lo = int(total["start_ns"][0])
    hi = int(total["start_ns"][-1]) + win
    edges = np.r_[total["start_ns"], hi] / 1e9
    per = [meter.windows(rec.records, [f], win, rec.start_ns, lo, hi)
           for f in flows]
    peak = max(float(np.max(w["bps"])) for w in per)
    unit, scale = next(((u, s) for u, s in (("Gbit/s", 1e9),
                                            ("Mbit/s", 1e6),
                                            ("kbit/s", 1e3))
                        if peak >= s), ("bit/s", 1.0))
    fig, (top, bottom) = _figure(2, 6)
    for f, w in zip(flows, per):
        label = _flow_label(f, flows)
        top.stairs(w["bps"] / scale, edges, label=label)
        bottom.stairs(w["lost"], edges, label=label)
    top.set_ylabel(f"throughput ({unit})")
    top.set_ylim(bottom=0)
    bottom.set_ylabel(f"packets lost per {fit.fmt_duration(win)}")
    bottom.set_ylim(bottom=0)
    bottom.yaxis.set_major_locator(MaxNLocator(integer=True))
    bottom.set_xlabel("time after T0 (s)")
    _legend(top, len(flows))
    return fig, f"throughput and loss over windows of {fit.fmt_duration(win)}"


def plot_sending(rec, mask, args):
    if tg_list(args) is None:
        present = {f.tg_id for f in meter.flows(rec.records, mask)}
        if len(present) != 1:
            raise PlotError("sending: --tg ID, the TG whose sending times "
                            "to plot")
        args = type(args)(**dict(vars(args), tg=str(present.pop())))
    if args.field not in (None, "tx", "sched"):
        raise PlotError(f"--field {args.field}: sending plots tx (the TX "
                        f"stamps, default) or sched (the schedule)")
    tg, _, x, model = fit.sample_and_model(rec, args, mask)
    changes = rec.rate_changes(tg)
    if changes and not args.model:
        raise PlotError(f"sending: TG {tg}'s throughput changed "
                        f"{len(changes)} time(s) during the run (mtgsap "
                        f"info): its gaps follow no one model; 'mtgsap fit' "
                        f"judges each stretch, or plot one with --from, --to "
                        f"and its --model")
    bins = args.bins or 50
    if bins < 1:
        raise PlotError("--bins must be positive")
    if bins > st.MAX_BINS:
        raise PlotError(f"--bins {bins}: more than {st.MAX_BINS} bins")
    v = x.astype(np.float64)
    xlabel = "inter-departure time"
    if model.constant:
        # Around a constant: the deviations from it, in their own unit.
        value = model.params["value"]
        v = v - value
        unit, scale = fit.time_unit(float(np.abs(v).max()))
        xlabel += f" \u2212 {fit.fmt_duration(value)}"
    else:
        unit, scale = fit.time_unit(float(np.median(np.abs(v))))
    # From 0 (as MTG's figures) when the gaps reach down near it.
    lo, hi = float(v.min()), float(v.max())
    if not model.constant and 0 <= lo <= 0.1 * (hi - lo):
        lo = 0.0
    if hi <= lo:
        lo, hi = lo - 0.5, hi + 0.5
    counts, edges = np.histogram(v, bins, (lo, hi))
    density = counts / (len(v) * np.diff(edges)) * scale
    fig, (ax,) = _figure()
    centres = (edges[:-1] + edges[1:]) / 2 / scale
    seen = counts > 0
    ax.stairs(np.where(seen, density, np.nan), edges / scale,
              label=f"measured ({len(v)} gaps, {bins} bins)")
    ax.plot(centres[seen], density[seen], "o", markersize=2.5,
            color="C0")
    if model.constant:
        ax.axvline(0, color="C1", label=f"model: {model.text()}")
    else:
        xs = np.linspace(edges[0], edges[-1], 400)
        pdf = model.dist.pdf(xs) * scale
        ok = pdf > 0
        ax.plot(xs[ok] / scale, pdf[ok], color="C1",
                label=f"model: {model.text()}")
    ax.set_yscale("log")
    ax.set_xlabel(f"{xlabel} ({unit})")
    ax.set_ylabel(f"probability density (1/{unit})")
    ax.legend(loc="best", fontsize="small")
    return fig, f"TG {tg}: packet sending times distribution"


# Panels of a segments figure: one per TG, so a few TGs at a time.
MAX_PATHS = 6


def plot_segments(rec, mask, args):
    """Per TG, a panel of CDFs: each segment's delay along the path the
    test-point probes stamped (segments.paths: over the records with every
    stamp of the path), and the end-to-end delay of the same packets."""
    _flows(rec, mask, args)         # --tg names TGs that are there
    found = segments.paths(rec.records, mask)
    if len(found) > MAX_PATHS:
        raise PlotError(f"{len(found)} TGs: a panel each, at most "
                        f"{MAX_PATHS} (choose them with --tg)")
    # the end to end too when the path has more than one segment
    series = [(p, [(f"{a} \u2192 {b}", np.sort(p.delays[(a, b)]
                                                .astype(np.float64)))
                   for a, b in p.segments +
                   ([("tx", "rx")] if len(p.segments) > 1 else [])])
              for p in found]
    unit, scale = fit.time_unit(float(np.median(np.concatenate(
        [v for _, segs in series for _, v in segs] or [np.zeros(1)]))))
    fig, axes = _figure(len(series), max(SIZE[1], 3.0 * len(series)))
    for ax, (p, segs) in zip(axes, series):
        for i, (label, v) in enumerate(segs):
            if len(segs) > 1 and i == len(segs) - 1:
                _cdf(ax, v, scale, "end to end", linestyle="--",
                     color="black")
            else:
                _cdf(ax, v, scale, label)
        ax.set_ylim(0, 1.02)
        ax.set_ylabel(f"TG {p.tg_id}: P(delay \u2264 x)")
        ax.legend(loc="best", fontsize="small")
        if p.partial:
            ax.set_title(f"{p.partial} of {p.records} records miss a stamp "
                         f"of the path: left out", fontsize="small")
    axes[-1].set_xlabel(f"delay ({unit})")
    return fig, "delay per segment of the path"


KINDS = {"delay": plot_delay, "delay-cdf": plot_delay_cdf, "pmf": plot_pmf,
         "windows": plot_windows, "sending": plot_sending,
         "segments": plot_segments}


def check_kind(kind):
    if kind not in KINDS:
        near = difflib.get_close_matches(kind, KINDS, 1)
        raise PlotError(f"KIND '{kind}': one of {', '.join(KINDS)}"
                        f"{f'; did you mean {near[0]}?' if near else ''}")


def figure(rec, kind, args, mask=None):
    """The matplotlib Figure of a kind for an opened recording, with the
    options of the command line in args (an argparse.Namespace, as
    mtgsap.cli.parser("plot") makes it)."""
    check_kind(kind)
    if mask is None:
        mask = selected(rec, args)
    with rc_context(RC):
        fig, title = KINDS[kind](rec, mask, args)
        fig.suptitle(args.title if args.title is not None else
                     f"{os.path.basename(rec.path)}: {title}")
    return fig
