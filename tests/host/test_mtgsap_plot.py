# SPDX-License-Identifier: GPL-2.0-or-later
"""mtgsap plot: every kind makes a valid PNG, SVG and PDF that read back
with the size asked for, the same bytes every time; the axes carry units;
what is drawn is the data; bad kinds, missing TGs, unknown formats and
existing outputs are refused with one line and status 1."""

import xml.etree.ElementTree as ET

import numpy as np
import pytest
from matplotlib import image
from scipy import stats as sps

import mtgsap
from mtgsap import cli, fit, plot
from mtgsap.recording import F_HDR_CORRUPT, empty
from mtgtest.sample import run_meta

T0 = 1_800_000_000 * 10**9
S = 10**9
MS = 10**6
HEADERS = 14 + 20 + 8 + 88
PNG = b"\x89PNG\r\n\x1a\n"


def tg(id_, **kw):
    """A TG as the metadata holds it (`mtgctl check --json`)."""
    base = {"id": id_, "line": id_ + 1, "dev": "la0", "netns": "lab-tx",
            "cpu": None, "family": "ipv4",
            "src": {"addr": None, "port": 4000 + id_},
            "dst": {"addr": "10.0.1.2", "port": 9000 + id_},
            "tos": 0, "ttl": 64, "dist": "fixed",
            "dist_params": {"value_ns": 10 * MS},
            "pkts": {"max": 1130, "min": 1130}, "thro": None,
            "inta_ns": {"min": 10 * MS, "max": 10 * MS}, "start_ns": S,
            "duration_ns": 20 * S, "count": 0,
            "patt": {"kind": "fixed", "value": 0, "seed": 950706376},
            "seed": id_, "path": "driver", "mode": "plain",
            "late": "catchup", "mac": None, "threshold_ns": 0,
            "table": {"mode": "loop", "len": 1, "period_ns": 10 * MS,
                      "mean_gap_ns": {"num": 10 * MS, "den": 1},
                      "exact": True}}
    base.update(kw)
    return base


def flow(rng, tg_id, sched, payload, owd_ms, lost=0.0):
    n = len(sched)
    r = empty(n)
    r["seq"] = np.arange(n)
    r["run_id"], r["tg_id"] = 7, tg_id
    r["sched_ns"] = sched
    r["tx_ns"] = sched + rng.integers(500, 3000, n)
    r["rx_ns"] = r["tx_ns"] + rng.normal(owd_ms * MS, MS / 2, n) \
        .astype(np.int64)
    r["payload_len"] = payload
    r["len"] = payload + HEADERS
    r["flags"] = 1
    r["iface"] = 1
    r["ttl"] = 63
    return r[rng.random(n) >= lost]


@pytest.fixture(scope="module")
def recording(tmp_path_factory):
    """20 s: TG 1 at 100 packets/s over 5 ms with 1% lost; TG 2 Poisson of
    mean 32 ms over 8 ms (in the metadata as mtgctl writes `dist poisson`
    at 64 kbit/s of 256-byte frames); a record whose header failed its
    CRC."""
    rng = np.random.default_rng(42)
    r1 = flow(rng, 1, T0 + S + np.arange(2000) * 10 * MS, 1000, 5, 0.01)
    gaps = rng.exponential(32 * MS, 620).astype(np.int64)
    r2 = flow(rng, 2, T0 + S + np.r_[0, np.cumsum(gaps)], 256 - HEADERS, 8)
    bad = empty(1)
    bad["flags"], bad["rx_ns"] = 1 | F_HDR_CORRUPT, T0 + 5 * S
    recs = np.concatenate([r1, r2, bad])
    recs = recs[np.argsort(recs["rx_ns"], kind="stable")]
    meta = run_meta(tgs=[tg(1), tg(2, dist="exponential",
                                   dist_params={"mean_ns": 32 * MS},
                                   inta_ns=None,
                                   pkts={"max": 256, "min": 256},
                                   thro={"req": 64000, "min": 0})])
    path = tmp_path_factory.mktemp("rec") / "loop.rec"
    mtgsap.write(path, meta, recs)
    return path


def run(capsys, *argv):
    code = cli.main([str(a) for a in argv])
    out = capsys.readouterr()
    return code, out.out, out.err


KINDS = [("delay", []), ("delay-cdf", []), ("pmf", []),
         ("pmf", ["--field", "ttl"]), ("windows", ["--window", "2s"]),
         ("sending", ["--tg", "2"]),
         ("sending", ["--tg", "1"]),
         ("sending", ["--tg", "2", "--model", "exponential:mean=40ms",
                      "--field", "sched"])]
IDS = ["delay", "delay-cdf", "pmf", "pmf-ttl", "windows", "sending-poisson",
       "sending-fixed", "sending-model"]


@pytest.mark.parametrize("kind, extra", KINDS, ids=IDS)
def test_each_kind_makes_png_and_svg(recording, tmp_path, capsys, kind,
                                     extra):
    height = 600 if kind == "windows" else 450
    out = tmp_path / "a.png"
    code, text, err = run(capsys, "plot", recording, kind, "-o", out,
                          *extra)
    assert code == 0, err
    assert text == f"mtgsap: {kind} plot to {out}\n"
    data = out.read_bytes()
    assert data.startswith(PNG)
    img = image.imread(out)
    assert img.shape == (height, 800, 4)
    # Something is drawn: not one flat colour.
    assert img[..., :3].std() > 0.05
    svg = tmp_path / "a.svg"
    assert run(capsys, "plot", recording, kind, "-o", svg, *extra)[0] == 0
    root = ET.parse(svg).getroot()
    assert root.tag == "{http://www.w3.org/2000/svg}svg"
    assert (root.get("width"), root.get("height")) == \
        ("576pt", f"{height * 72 // 100}pt")
    assert b"<dc:date>" not in svg.read_bytes()
    # Nothing left beside them.
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.png", "a.svg"]


@pytest.mark.parametrize("ext", ["png", "svg", "pdf"])
def test_output_is_deterministic(recording, tmp_path, capsys, ext):
    outs = []
    for name in ("a", "b"):
        out = tmp_path / f"{name}.{ext}"
        assert run(capsys, "plot", recording, "sending", "--tg", "2", "-o",
                   out)[0] == 0
        outs.append(out.read_bytes())
    assert outs[0] == outs[1]
    if ext == "pdf":
        assert outs[0].startswith(b"%PDF-")
        assert b"CreationDate" not in outs[0]


def args(**kw):
    """The options as the command line gives them."""
    ns = cli.parser("plot").parse_args(["plot", "x.rec", "delay", "-o",
                                        "x.png"])
    for k, v in kw.items():
        setattr(ns, k, v)
    return ns


def test_axes_carry_units_and_the_data(recording):
    rec = mtgsap.open(recording)
    fig = plot.figure(rec, "delay", args(tg="1"))
    (ax,) = fig.axes
    assert ax.get_xlabel() == "arrival time after T0 (s)"
    assert ax.get_ylabel() == "one-way delay (ms)"
    (line,) = ax.get_lines()
    owd = mtgsap.column(rec.records, "owd")
    keep = owd.valid & (rec.records["tg_id"] == 1) & \
        ((rec.records["flags"] & F_HDR_CORRUPT) == 0)
    assert sorted(line.get_ydata()) == pytest.approx(
        sorted(owd.values[keep] / 1e6))
    fig = plot.figure(rec, "delay-cdf", args(field="jitter_owd"))
    (ax,) = fig.axes
    assert ax.get_xlabel() == "jitter of the one-way delay (IPDV) (us)"
    assert ax.get_ylabel() == "P(jitter_owd \u2264 x)"
    jit = mtgsap.column(rec.records, "jitter_owd")
    n1, n2 = (int(jit.taken(rec.records["tg_id"] == t).size) for t in (1, 2))
    assert n1 < 1990 and n2 == 620         # TG 1 lost some, TG 2 none
    assert [t.get_text() for t in ax.get_legend().get_texts()] == \
        [f"TG 1 (n = {n1})", f"TG 2 (n = {n2})"]
    top, bottom = plot.figure(rec, "windows", args(window="2s")).axes
    assert top.get_ylabel() == "throughput (kbit/s)"
    assert bottom.get_ylabel() == "packets lost per 2 s"
    assert bottom.get_xlabel() == "time after T0 (s)"
    fig = plot.figure(rec, "pmf", args(field="len", title="Lengths"))
    assert fig.get_suptitle() == "Lengths"
    assert fig.axes[0].get_xlabel() == "len"
    assert fig.axes[0].get_ylabel() == "probability"


def test_windows_draws_meter_windows(recording):
    rec = mtgsap.open(recording)
    top, bottom = plot.figure(rec, "windows", args(window="1s")).axes
    flows = mtgsap.flows(rec.records)
    for f, stairs_top, stairs_bottom in zip(flows, top.patches,
                                            bottom.patches):
        w = mtgsap.windows(rec.records, [f], S, rec.start_ns, S, 21 * S)
        assert len(w["bps"]) == 20
        path = stairs_top.get_path().vertices
        # The stairs' heights, one per window (each drawn twice).
        assert path[1:-1:2, 1] == pytest.approx(w["bps"] / 1e3)
        assert bottom.patches and stairs_bottom.get_path().vertices[1:-1:2,
                                                                   1] == \
            pytest.approx(w["lost"])
    assert sum(w.sum() for w in [mtgsap.windows(
        rec.records, [f], S, rec.start_ns)["lost"] for f in flows]) > 0


def test_sending_is_mtg_fig6(recording):
    """The histogram's density, on a log scale, and the model's pdf."""
    rec = mtgsap.open(recording)
    fig = plot.figure(rec, "sending", args(tg="2"))
    (ax,) = fig.axes
    assert ax.get_yscale() == "log"
    assert ax.get_xlabel() == "inter-departure time (ms)"
    assert ax.get_ylabel() == "probability density (1/ms)"
    points, model = ax.get_lines()
    x = fit.interdepartures(rec.records, 2).astype(float)
    counts, edges = np.histogram(x, 50, (0, x.max()))
    seen = counts > 0
    dens = counts / (len(x) * np.diff(edges)) * 1e6
    assert points.get_ydata() == pytest.approx(dens[seen])
    xs, ys = model.get_xdata(), model.get_ydata()
    assert ys == pytest.approx(sps.expon(scale=32).pdf(xs))
    assert model.get_label() == "model: exponential(mean=32 ms)"
    # The line is straight on the log scale: the exponential's.
    assert np.diff(np.log(ys), 2) == pytest.approx(0, abs=1e-9)
    # A constant: the deviations from it, the model at 0.
    fig = plot.figure(rec, "sending", args(tg="1"))
    (ax,) = fig.axes
    assert ax.get_xlabel() == "inter-departure time \u2212 10 ms (us)"
    assert ax.get_lines()[-1].get_xdata()[0] == 0


@pytest.mark.parametrize("argv, message", [
    (["jitter", "-o", "x.png"], "KIND 'jitter': one of delay, delay-cdf, "
                                "pmf, windows, sending, segments"),
    (["dleay", "-o", "x.png"], "KIND 'dleay': one of delay, delay-cdf, "
                               "pmf, windows, sending, segments; did you "
                               "mean delay?"),
    (["delay", "--tg", "9", "-o", "x.png"], "--tg 9: no records of TG 9 in "
                                            "loop.rec"),
    (["delay", "--tg", "1", "--from", "30s", "-o", "x.png"],
     "--tg 1: no records of TG 1 in loop.rec (with this selection)"),
    (["delay", "-o", "x.gif"], "-o x.gif: the extension names the format: "
                               ".png, .svg, .pdf"),
    (["delay", "--field", "nope", "-o", "x.png"], "--field nope: unknown "
                                                  "field 'nope'"),
    (["windows", "--field", "owd", "-o", "x.png"], "--field: windows plots "
                                                   "throughput and loss"),
    (["windows", "--window", "0s", "-o", "x.png"], "--window must be "
                                                   "positive"),
    (["sending", "-o", "x.png"], "sending: --tg ID, the TG whose sending "
                                 "times to plot"),
    (["sending", "--tg", "1,2", "-o", "x.png"],
     "--tg ID: the TG whose sending to test (one)"),
    (["sending", "--tg", "2", "--field", "owd", "-o", "x.png"],
     "--field owd: sending plots tx"),
    (["sending", "--tg", "2", "--model", "zipf", "-o", "x.png"],
     "--model zipf: unknown model 'zipf'"),
])
def test_refusals(recording, tmp_path, capsys, monkeypatch, argv, message):
    monkeypatch.chdir(tmp_path)
    code, out, err = run(capsys, "plot", recording, *argv)
    assert (code, out) == (1, "")
    assert err.startswith(f"mtgsap plot: {message}"), err
    assert err.count("\n") == 1
    assert list(tmp_path.iterdir()) == []


def test_no_model_in_metadata(tmp_path, capsys, recording):
    rec = mtgsap.open(recording)
    meta = dict(rec.meta, tgs=[tg(1, dist="voice"), {"id": 2}])
    path = tmp_path / "b.rec"
    mtgsap.write(path, meta, np.array(rec.records))
    code, _, err = run(capsys, "plot", path, "sending", "--tg", "1", "-o",
                       tmp_path / "x.png")
    assert code == 1 and "TG 1: 'dist voice' is talk and silence" in err
    code, _, err = run(capsys, "plot", path, "sending", "--tg", "2", "-o",
                       tmp_path / "x.png")
    assert code == 1 and "TG 2: the metadata names no distribution" in err
    # --model supplies it.
    assert run(capsys, "plot", path, "sending", "--tg", "2", "--model",
               "exponential", "-o", tmp_path / "x.png")[0] == 0


def test_never_overwrites_without_force(recording, tmp_path, capsys):
    out = tmp_path / "d.png"
    out.write_bytes(b"mine")
    code, text, err = run(capsys, "plot", recording, "delay", "-o", out)
    assert (code, text) == (1, "")
    assert err == f"mtgsap plot: {out}: exists (--force to overwrite)\n"
    assert out.read_bytes() == b"mine"
    assert run(capsys, "plot", recording, "delay", "-o", out,
               "--force")[0] == 0
    assert out.read_bytes().startswith(PNG)
    assert [p.name for p in tmp_path.iterdir()] == ["d.png"]


def test_usage_errors_exit_2(recording, tmp_path):
    for argv in (["delay"], [], ["delay", "-o", str(tmp_path / "x.png"),
                                 "--bins", "many"]):
        with pytest.raises(SystemExit) as e:
            cli.main(["plot", str(recording), *argv])
        assert e.value.code == 2
    assert list(tmp_path.iterdir()) == []


def test_missing_recording(tmp_path, capsys):
    code, _, err = run(capsys, "plot", tmp_path / "none.rec", "delay", "-o",
                       tmp_path / "x.png")
    assert code == 1 and "none.rec: No such file or directory" in err


def test_selection_applies(recording, tmp_path, capsys):
    """--from/--to/--where choose the records drawn."""
    rec = mtgsap.open(recording)
    fig = plot.figure(rec, "delay", args(tg="1", start="5s", end="6s",
                                         where="owd > 5ms"))
    (line,) = fig.axes[0].get_lines()
    t = line.get_xdata()
    assert len(t) > 10 and t.min() >= 5 and t.max() < 6
    assert line.get_ydata().min() > 5
    fig = plot.figure(rec, "pmf", args(tg="2", bins=20))
    (stairs,) = fig.axes[0].patches
    x = mtgsap.column(rec.records, "owd").taken(rec.records["tg_id"] == 2)
    _, _, p, _ = mtgsap.pmf(x, bins=20)
    assert stairs.get_path().vertices[1:-1:2, 1] == pytest.approx(p)
    assert run(capsys, "plot", recording, "pmf", "--tg", "2", "--bins",
               "20", "-o", tmp_path / "p.svg")[0] == 0
