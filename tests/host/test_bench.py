# SPDX-License-Identifier: GPL-2.0-or-later
"""The benchmark's arithmetic (bench/analyze.py, bench/guest.py's rate
estimate) on data built here, with answers worked out by hand: the
inter-departure error of mtg and of a peer from a capture, a timer floor's,
rates, the spread over repetitions, which targets are met, and that the
report names every target. No timing is measured or asserted here: speed
lives in `make bench`."""

import json
import pathlib
import sys

import numpy as np
import pytest

from mtgwitness import abi, wire

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))
import analyze  # noqa: E402
import guest  # noqa: E402
import guest_hosts  # noqa: E402
import report  # noqa: E402

T0 = 1_800_000_000 * 10**9


def mtg_frame(port, seq, sched, tx):
    hdr = wire.MtgHeader(abi.HDR_MAGIC, abi.HDR_VERSION, 0, abi.HDR_LEN, 9,
                         1, seq, sched, b"\0" * 6, 0, 0, 0, 0, tx,
                         (0, 0, 0, 0))
    return wire.build_frame("10.77.0.1", "10.77.0.2", 4001, port,
                            hdr.encode(crc="auto"))


def pcap(path, frames):
    path.write_bytes(wire.write_pcap(
        [wire.Record(ts, len(d), d) for ts, d in frames]))


def meter(**kw):
    return dict(dict(cpu_busy_s={"0": 1.5, "1": 0.2}, wall_ns=3 * 10**9,
                     softnet_dropped=0, samples=[]), **kw)


def test_mtg_error_against_its_own_schedule(tmp_path):
    """Gaps on the wire minus the scheduled gaps in the headers, only
    between consecutive sequence numbers, in sequence order."""
    sched = [0, 1000, 3000, 3500, 9000]          # a Poisson-like table
    wire_late = [5, 7, 2, 40, 10]                 # ns after the schedule
    frames = [(T0 + s + w, mtg_frame(5001, i, T0 + s, T0 + s + w - 1))
              for i, (s, w) in enumerate(zip(sched, wire_late)) if i != 3]
    frames.append((T0 + 99, wire.build_frame("10.77.0.1", "10.77.0.2", 9,
                                             5002, b"other port")))
    frames.reverse()                              # order on the wire
    pcap(tmp_path / "p.pcap", frames)
    run = dict(tool="mtg-poisson-plain", rate=1000, rep=0, departures=4,
               name="p", port=5001, summary="p.json", meter=meter(),
               capture=dict(captured=5, dropped=0, if_dropped=0))
    (tmp_path / "p.json").write_text(json.dumps(dict(tgs=[dict(
        sent=5, spin_ns=0, lateness_ns=dict(p50=1))])))
    got = analyze.precision_run(tmp_path, run)
    # pairs (0,1) and (1,2); seq 3 is missing, so (2,4) is no pair
    errors = [abs(7 - 5), abs(2 - 7)]
    assert got["frames"] == 4 and got["complete"]
    assert got["error_ns"]["max"] == max(errors)
    assert got["error_ns"]["p50"] == np.percentile(errors, 50)
    # the TX stamps are one ns before the wire's: the same gaps
    assert got["tx_error_ns"]["max"] == max(errors)
    assert got["lateness_ns"]["max"] == 10 - 1    # seq 3's 40 not seen
    assert got["cpu_s_sending"] == 1.5


def test_peer_error_against_the_nominal_period(tmp_path):
    stamps = [0, 1000, 2100, 2900, 4000]
    frames = [(T0 + t, wire.build_frame("10.77.0.1", "10.77.0.2", 9, 5005,
                                        b"x" * 88)) for t in stamps]
    pcap(tmp_path / "k.pcap", frames)
    run = dict(tool="pktgen", rate=10**6, rep=0, departures=6, name="k",
               port=5005, period_ns=1000, meter=meter(),
               capture=dict(captured=5, dropped=0, if_dropped=0))
    got = analyze.precision_run(tmp_path, run)
    errors = [0, 100, 200, 100]
    assert not got["complete"]                    # 5 of 6 departures
    assert got["error_ns"] == analyze.pct(errors)
    assert got["error_ns"]["max"] == 200
    assert got["achieved_pps"] == pytest.approx(1e6, rel=0.01)


def test_achieved_rate_is_the_slope_not_the_span():
    asked = np.arange(100_001, dtype=np.int64) * 10_000
    stamps = T0 + asked * 1002 // 1000          # 0.2 % slow, exactly
    rate, error = analyze.achieved(stamps, asked)
    assert error == pytest.approx(1 / 1.002 - 1, rel=1e-9)
    assert rate == pytest.approx(1e5 / 1.002, rel=1e-9)
    # On time, but the first frame 5 ms late: first-to-last would call
    # it 0.5 % fast; one frame in 100,001 hardly moves the fit.
    stamps = T0 + asked.copy()
    stamps[0] += 5_000_000
    _, error = analyze.achieved(stamps, asked)
    assert abs(error) < 1e-5
    assert analyze.achieved(stamps[:2], asked[:2]) == (None, None)


def test_floor_error_is_the_change_of_lateness(tmp_path):
    late = np.array([10, 30, 25, 1000, 20], dtype="<i8")
    late.tofile(tmp_path / "f.s64")
    (tmp_path / "c.txt").write_text("10\n30\n25\n1000\n20\n")
    for tool, f in (("floor-soft", "f.s64"), ("cyclictest", "c.txt")):
        got = analyze.precision_run(tmp_path, dict(
            tool=tool, rate=1000, rep=0, departures=5, file=f,
            meter=meter()))
        assert got["samples"] == 5
        assert got["lateness_ns"]["max"] == 1000
        assert got["error_ns"] == analyze.pct([20, 5, 975, 980])


def test_spread_and_pct():
    assert analyze.spread([3, None, 1, 2]) == dict(min=1, median=2, max=3,
                                                   n=3)
    assert analyze.spread([None]) is None
    p = analyze.pct(np.arange(1001))
    assert (p["p50"], p["p99"], p["max"]) == (500, 990, 1000)
    assert p["p999"] == pytest.approx(999)
    assert analyze.pct([]) is None


def test_steady_rate_cuts_the_ends():
    """Frames counted every 0.2 s: idle, a ramp, 1000/s, idle again."""
    s, count = [], 0
    for i in range(60):
        t = i * 200_000_000
        if 10 <= i < 50:
            count += 200 if 12 <= i < 48 else 50
        s.append((t, count))
    assert guest.steady_rate(s) == pytest.approx(1000)
    assert guest.steady_rate([(0, 0), (1, 0)]) is None


def fig_with(**medians):
    """A results dict whose summarized figures have these medians."""
    def entry(value, **keys):
        return dict(keys, **{k: dict(min=v, median=v, max=v, n=1)
                             for k, v in value.items()})
    plan = dict(rates=[1000], rate_lengths=[130])
    prec = [entry({"error_ns.p50": medians[t] / 2,
                   "error_ns.p99": medians[t], "rate_error": 0.0005},
                  rate=1000, tool=t)
            for t in ("mtg-cbr-plain", "mtg-cbr-precise", "floor-soft",
                      "pktgen", "ditg-poll")]
    rate = [entry({"pps": medians["rate_mtg"]}, length=130, tool="mtg"),
            entry({"pps": medians["rate_pktgen"]}, length=130,
                  tool="pktgen")]
    scaling = [entry({"achieved_pps": medians["scale1"]}, tgs=1),
               entry({"achieved_pps": medians["scale100k"]}, tgs=100000)]
    fig = dict(plan=plan, precision=prec, rate=rate, scaling=scaling,
               recording_runs=[dict(rep=0, requested=5e4, ring_drops=3,
                                    sent=250000, records=249997,
                                    wire_pps=5e4),
                               dict(rep=1, requested=5e4, ring_drops=0,
                                    sent=250000, records=250000,
                                    wire_pps=4.95e4)],
               generation=[entry({"entries_per_s": 3e7}, model="fixed"),
                           entry({"entries_per_s": 1.9e7}, model="cauchy"),
                           # shown beside samplers 2's, not in the target
                           entry({"entries_per_s": 7e6},
                                 model="csa-samplers1")],
               analysis=dict(records=10**7, record_bytes=96,
                             basic_vs_numpy=dict(min=1.5, median=1.7,
                                                 max=2.2, n=3)))
    fig["ratios"] = analyze.ratios(fig)
    return fig


def test_targets_met_and_not():
    fig = fig_with(**{"mtg-cbr-plain": 120, "floor-soft": 100,
                      "mtg-cbr-precise": 50, "pktgen": 60, "ditg-poll": 51,
                      "rate_mtg": 45000, "rate_pktgen": 50000,
                      "scale1": 10000, "scale100k": 8999})
    t = analyze.targets(fig)
    assert t["plain_p99_vs_hrtimer_floor_1k"]["value"] == pytest.approx(1.2)
    assert t["plain_p99_vs_hrtimer_floor_1k"]["met"]
    assert t["precise_p99_below_peers_1k"]["target"] == 51
    assert t["precise_p99_below_peers_1k"]["met"]
    assert t["cbr_rate_error"]["met"]
    assert t["rate_130B_vs_pktgen"]["value"] == pytest.approx(0.9)
    assert t["rate_130B_vs_pktgen"]["met"]
    assert not t["scaling_100k_vs_1"]["met"]      # 0.8999
    # the worst repetition at the highest rate tried
    assert t["recording_zero_drops_at_full_rate"]["value"] == 3
    assert not t["recording_zero_drops_at_full_rate"]["met"]
    fig["recording_runs"][0].update(ring_drops=0)
    t = analyze.targets(fig)
    assert t["recording_zero_drops_at_full_rate"]["met"]   # 0.99 kept
    fig["recording_runs"][1].update(wire_pps=4.95e4 - 1)
    t = analyze.targets(fig)
    assert not t["recording_zero_drops_at_full_rate"]["met"]
    assert t["generation_entries_per_s"]["value"] == 1.9e7
    assert not t["generation_entries_per_s"]["met"]
    assert t["mtgsap_basic_vs_memory_bandwidth"]["met"]

    fig = fig_with(**{"mtg-cbr-plain": 121, "floor-soft": 100,
                      "mtg-cbr-precise": 51, "pktgen": 60, "ditg-poll": 51,
                      "rate_mtg": 44999, "rate_pktgen": 50000,
                      "scale1": 10000, "scale100k": 9000})
    t = analyze.targets(fig)
    assert not t["plain_p99_vs_hrtimer_floor_1k"]["met"]
    assert not t["precise_p99_below_peers_1k"]["met"]  # equal is not below
    assert not t["rate_130B_vs_pktgen"]["met"]
    assert t["scaling_100k_vs_1"]["met"]


def test_a_missing_figure_is_not_met():
    fig = fig_with(**{"mtg-cbr-plain": 120, "floor-soft": 100,
                      "mtg-cbr-precise": 50, "pktgen": 60, "ditg-poll": 51,
                      "rate_mtg": None, "rate_pktgen": 50000,
                      "scale1": 10000, "scale100k": 9000})
    fig["rate"][0]["pps"] = None
    fig["ratios"] = analyze.ratios(fig)
    t = analyze.targets(fig)
    assert t["rate_130B_vs_pktgen"] == dict(
        value=None, target=0.9, met=False,
        note=t["rate_130B_vs_pktgen"]["note"])


def report_fig(reps):
    """A whole results dict, targets and machine included, for the report."""
    fig = fig_with(**{"mtg-cbr-plain": 120, "floor-soft": 100,
                      "mtg-cbr-precise": 50, "pktgen": 60, "ditg-poll": 51,
                      "rate_mtg": 45000, "rate_pktgen": 50000,
                      "scale1": 10000, "scale100k": 9000})
    fig["targets"] = analyze.targets(fig)
    fig["machine"] = dict(guest=dict(kernel="6.1.0-x", accel="tcg"))
    fig["plan"].update(reps=reps, departures=100000)
    return fig


def test_report_names_every_target(tmp_path):
    fig = report_fig(reps=3)
    out = report.write(fig, tmp_path / "plots", tmp_path / "report.md",
                       "results/x.json")
    text = out.read_text()
    for name in fig["targets"]:
        assert f"| {name} |" in text
    assert "TCG" in text and "not hardware figures" in text
    json.dumps(fig)                               # the results file


PERF_TEXT = """\
# To display the perf.data header info, please use --header/--header-only
#
# Total Lost Samples: 0
#
# Samples: 20K of event 'cpu-clock'
# Event count (approx.): 10000000000
#
# Overhead  Command          Shared Object
# ........  ...............  .................
#
    61.25%  swapper          [kernel.kallsyms]
    30.50%  mtg/0            [kernel.kallsyms]
     8.25%  mtgctl           mtgctl

# Samples: 20K of event 'cpu-clock'
#
# Overhead  Symbol
# ........  ..........................
#
    60.00%  [k] default_idle
    12.75%  [k] memcpy_orig
     3.00%  [.] rx_poll
     1.25%  [k] mtg_tx_build.isra.0
"""


def test_perf_shares_and_the_profile_section(tmp_path):
    """perf report's two tables read back exactly; the report shows them."""
    top = analyze.perf_shares(PERF_TEXT)
    assert top["samples"] == 20000
    assert analyze.perf_shares("# Samples: 18  of event 'cpu-clock'\n")[
        "samples"] == 18
    assert analyze.perf_shares("# Samples: 1.5M of event 'cpu-clock'\n")[
        "samples"] == 1500000
    assert top["programs"] == [
        dict(percent=61.25, program="swapper", object="[kernel.kallsyms]"),
        dict(percent=30.5, program="mtg/0", object="[kernel.kallsyms]"),
        dict(percent=8.25, program="mtgctl", object="mtgctl")]
    assert [(s["percent"], s["kernel"], s["symbol"])
            for s in top["symbols"]] == [
        (60.0, True, "default_idle"), (12.75, True, "memcpy_orig"),
        (3.0, False, "rx_poll"), (1.25, True, "mtg_tx_build.isra.0")]
    (tmp_path / "profile").mkdir()
    (tmp_path / "profile" / "mtg-1024-cpu0.txt").write_text(PERF_TEXT)
    (tmp_path / "profile" / "mtg-1024-cpu0-callers.txt").write_text(
        "# comment\n\n    12.75%  [k] memcpy_orig\n            |\n"
        "            ---mtg_tx_build\n")
    run = dict(kind="profile", case="mtg-1024", rep=0, wire_pps=41000.0,
               perf_period_ns=500000, meter=meter())
    prof = analyze.profile_run(tmp_path, run)
    assert prof["cpu0"] == top and prof["cpu1"] is None
    assert prof["cpu0_callers"] == ("    12.75%  [k] memcpy_orig\n"
                                    "            |\n"
                                    "            ---mtg_tx_build")
    fig = report_fig(reps=1)
    fig["profiles"] = [prof]
    text = report.write(fig, tmp_path / "plots", tmp_path / "report.md",
                        "results/x.json").read_text()
    assert "### mtg-1024: 41,000 frames/s on the wire" in text
    assert "CPU 0: 20,000 samples, 10.0 s at one per 0.5 ms." in text
    fig["profiles"] = [dict(prof, perf_period_ns=None)]   # perf -F
    text = report.write(fig, tmp_path / "plots", tmp_path / "report.md",
                        "results/x.json").read_text()
    assert "CPU 0: 20,000 samples.\n" in text
    assert "| 30.5 | mtg/0 | [kernel.kallsyms] |" in text
    assert "| 12.8 | [k] `memcpy_orig` |" in text
    assert "```\n    12.75%  [k] memcpy_orig\n" in text


def hosts_raw(tmp_path, tool="ditg"):
    """A run of the hosts part: 3 hosts asked for 10 packets each at 100/s;
    host 1's frames left its interface 10.1, 9.9 and 10.3 ms apart."""
    port = guest_hosts.BASE_PORT + 1
    stamps = [0, 10_100_000, 20_000_000, 30_300_000]
    frames = [(T0 + t, wire.build_frame("10.0.1.1", "10.255.0.1", 9, port,
                                        b"x" * 64)) for t in stamps]
    frames.append((T0 + 5, wire.build_frame("10.0.1.1", "10.255.0.1", 9,
                                            port + 1, b"other host")))
    pcap(tmp_path / "h-h1.pcap", frames)
    return dict(kind="hosts", series="n", tool=tool, hosts=3, rate=100,
                count=10, payload=64, payload_asked=64, rep=0, name="h",
                received=[10, 8, 5], first_ns=[T0, T0 + 10**6, T0 + 2 * 10**6],
                last_ns=[T0 + 10**8, T0 + 12 * 10**7, T0 + 5 * 10**7],
                setup_s=1.25, mem_used_kib=2048, meter=meter())


def test_hosts_run_figures(tmp_path):
    got = analyze.hosts_run(tmp_path, hosts_raw(tmp_path))
    assert (got["offered"], got["received"]) == (30, 23)
    assert got["loss"] == pytest.approx(7 / 30)
    # 23 packets from the first arrival to the last, 120 ms
    assert got["aggregate_pps"] == pytest.approx(23 / 0.12)
    assert got["fairness"] == pytest.approx(0.5)
    assert got["h1_frames"] == 4
    assert got["h1_error_ns"] == analyze.pct([100_000, 100_000, 300_000])
    assert (got["cpu0_s"], got["cpu1_s"], got["mem_mib"], got["setup_s"]) \
        == (1.5, 0.2, 2.0, 1.25)
    # a host that got nothing through: fairness 0, no set-up time
    raw = dict(hosts_raw(tmp_path), received=[10, 8, 0],
               first_ns=[T0, T0, None], last_ns=[T0 + 1, T0 + 2, None])
    del raw["setup_s"]
    got = analyze.hosts_run(tmp_path, raw)
    assert (got["fairness"], got["setup_s"]) == (0, None)


def hosts_fig(loss):
    """Summarized hosts figures with these median losses, {(N, tool): x}."""
    return dict(hosts=[dict(hosts=n, tool=t, loss=dict(
        min=x, median=x, max=x, n=1)) for (n, t), x in loss.items()])


def test_hosts_targets():
    loss = {(10, "ditg"): 0.005, (10, "mtg"): 0.0, (50, "ditg"): 0.05,
            (50, "mtg"): 0.001, (100, "ditg"): 0.2, (100, "mtg"): 0.01,
            (1000, "ditg"): 0.5, (1000, "mtg"): 0.3}
    t = analyze.hosts_targets(hosts_fig(loss))
    lossless = t["hosts_mtg_lossless_where_ditg_below_1pct"]
    assert (lossless["value"], lossless["met"]) == (0, True)
    assert lossless["note"].endswith(": 10")
    tenth = t["hosts_mtg_loss_where_ditg_passes_10pct"]
    assert tenth["value"] == pytest.approx(0.01 / 0.2) and tenth["met"]
    assert "(100 hosts)" in tenth["note"]
    loss.update({(10, "mtg"): 0.0001, (100, "mtg"): 0.021})
    t = analyze.hosts_targets(hosts_fig(loss))
    assert not t["hosts_mtg_lossless_where_ditg_below_1pct"]["met"]
    assert t["hosts_mtg_loss_where_ditg_passes_10pct"]["value"] == \
        pytest.approx(0.105)
    assert not t["hosts_mtg_loss_where_ditg_passes_10pct"]["met"]
    # D-ITG never past 10 %: nothing to compare, so not met
    t = analyze.hosts_targets(hosts_fig({(10, "ditg"): 0.02,
                                         (10, "mtg"): 0.0}))
    assert t["hosts_mtg_loss_where_ditg_passes_10pct"]["value"] is None
    assert not t["hosts_mtg_loss_where_ditg_passes_10pct"]["met"]
    assert not t["hosts_mtg_lossless_where_ditg_below_1pct"]["met"]


def test_report_many_hosts(tmp_path):
    fig = report_fig(reps=1)
    rows = [analyze.hosts_run(tmp_path, hosts_raw(tmp_path, tool))
            for tool in ("mtg", "ditg")]
    fig["hosts"] = analyze.summarize(rows, ["hosts", "tool"],
                                     analyze.HOSTS_FIELDS)
    fig["hosts_payload"] = analyze.summarize(
        [dict(r, series="payload") for r in rows], ["payload_asked", "tool"],
        analyze.HOSTS_FIELDS)
    fig["hosts_ceiling"] = [dict(kind="hosts-ceiling", rep=0, rate=100,
                                 pps=200.0)]
    fig["plan"].update(hosts_seconds=10, hosts_load=1.5, hosts_n=[3],
                       hosts_payload_n=3)
    text = report.write(fig, tmp_path / "plots", tmp_path / "report.md",
                        "results/x.json").read_text()
    assert "## Many hosts" in text and (tmp_path / "plots/hosts.png").exists()
    assert "| 3 | ditg | 300 | 23.33% | 192 | 0.500 | 100.0 | 296.0 |" in text
    assert "per-host rate 100 packets/s" in text


@pytest.mark.parametrize("parts,reps,name", [
    (analyze.ALL_PARTS, 3, "2026-11-24"),
    (analyze.ALL_PARTS, 5, "2026-11-24"),
    (analyze.ALL_PARTS, 2, "2026-11-24-partial-precision+rate+scaling+"
                           "recording+profile+hosts-2rep"),
    (analyze.ALL_PARTS[:-1], 3, "2026-11-24-partial-precision+rate+scaling+"
                                "recording+profile-3rep"),
    (("rate",), 3, "2026-11-24-partial-rate-3rep"),
    (("scaling", "precision"), 1, "2026-11-24-partial-precision+scaling-1rep"),
])
def test_partial_runs_have_their_own_results(parts, reps, name):
    """Only a full run is the day's results; a smoke run of one part, or
    of fewer repetitions, is named by what it holds."""
    got, full = analyze.results_name(dict(parts=list(parts), reps=reps),
                                     "2026-11-24")
    assert (got, full) == (name, name == "2026-11-24")


def test_partial_run_keeps_the_full_report(tmp_path, monkeypatch):
    """analyze.main() on a one-part run writes its own results and report
    and leaves the day's results and bench/report.md as they were; the
    report says it is partial and which parts it holds."""
    root = tmp_path / "root"
    (root / "bench" / "results").mkdir(parents=True)
    day = root / "bench" / "results" / "2026-11-24.json"
    day.write_text("full\n")
    (root / "bench" / "report.md").write_text("full report\n")
    fig = report_fig(reps=1)
    fig["plan"]["parts"] = ["rate"]
    monkeypatch.setattr(analyze, "ROOT", root)
    monkeypatch.setattr(analyze, "analyze", lambda raw: fig)
    monkeypatch.setattr(analyze, "machine", lambda raw: fig["machine"])
    monkeypatch.setattr(sys, "argv", ["analyze.py", str(
        tmp_path / "raw" / "2026-11-24T101010Z")])
    analyze.main()
    assert day.read_text() == "full\n"
    assert (root / "bench" / "report.md").read_text() == "full report\n"
    name = "2026-11-24-partial-rate-1rep"
    saved = json.loads((root / "bench" / "results" / f"{name}.json")
                       .read_text())
    assert saved["full_run"] is False
    text = (root / "bench" / "results" / name / "report.md").read_text()
    assert "Parts run in the VM: rate (**a partial run**" in text
    assert f"../{name}.json" in text
