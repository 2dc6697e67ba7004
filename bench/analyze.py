#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""bench/analyze.py RAWDIR: figures, targets and the report of `make bench`.

Reads what bench/guest.py (in the VM) and bench/host.py left in RAWDIR and
writes bench/results/DATE.json and bench/report.md, with its plots in
bench/results/DATE/; a partial run (some parts, or fewer than three
repetitions) writes bench/results/DATE-partial-PARTS-Nrep.json and its
report in bench/results/DATE-partial-PARTS-Nrep/report.md instead.

Inter-departure error, the same for every tool: the gap between two
consecutive frames on the wire (tcpdump's stamps on v1, taken on the
sending CPU, see bench/guest.py) minus the gap the tool was asked for: the
nominal period for a peer; for mtg the difference of the scheduled times
its headers carry (so a Poisson TG is judged against its own draws). Only
pairs of consecutive sequence numbers count for mtg. Figures are of the
absolute error. A timer floor's inter-expiry error is the difference of
consecutive latenesses, the same quantity for a timer with nothing behind.
"""

import datetime
import json
import os
import pathlib
import platform
import re
import statistics
import struct
import subprocess
import sys

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))
from mtgwitness import wire  # noqa: E402
import guest_hosts  # noqa: E402  (bench/: its constants)

PCTS = {"p50": 50, "p99": 99, "p999": 99.9, "max": 100}
# The VM parts of a run (MTG_BENCH_PARTS), and the repetitions a full run
# has: only a full run is the day's results and bench/report.md.
ALL_PARTS = ("precision", "rate", "scaling", "recording", "profile", "hosts")
FULL_REPS = 3
HDR = wire.HDR_STRUCT
# generation's rows of a law drawn by samplers 1 (GSL's), beside samplers
# 2's: shown, not in the target
OLD_SAMPLERS = "-samplers1"


def pct(values):
    """p50, p99, p999, max of a sample (numpy's linear interpolation)."""
    v = np.asarray(values, dtype=np.float64)
    if not v.size:
        return None
    return {k: float(x) for k, x in zip(PCTS, np.percentile(v, list(
        PCTS.values())))}


def spread(values):
    """min, median, max over repetitions (None where a run gave nothing)."""
    v = [x for x in values if x is not None]
    if not v:
        return None
    return dict(min=min(v), median=statistics.median(v), max=max(v), n=len(v))


def frames_to(path, port=None):
    """(stamp ns, UDP payload) of the IPv4 UDP frames to port (None: any)
    in a pcap."""
    _, records = wire.read_pcap(path)
    out = []
    for r in records:
        d = r.data
        if len(d) < 42 or d[12:14] != b"\x08\x00" or d[23] != 17:
            continue
        ihl = (d[14] & 15) * 4
        if port is None or \
                struct.unpack_from("!H", d, 14 + ihl + 2)[0] == port:
            out.append((r.ts_ns, d[14 + ihl + 8:]))
    return out


def mtg_series(frames):
    """Per frame: wire stamp, seq, scheduled and TX times (MTG header)."""
    rows = []
    for ts, udp in frames:
        if len(udp) < HDR.size:
            continue
        f = HDR.unpack_from(udp)
        if f[0] != wire.abi.HDR_MAGIC:
            continue
        rows.append((ts, f[6], f[7], f[13]))
    return np.array(rows, dtype=np.int64).reshape(-1, 4)


def gap_error(ts, asked=None, period=None, consecutive=None):
    """|wire gap - asked gap| of consecutive frames."""
    ts = np.asarray(ts, np.int64)
    gaps = np.diff(ts)
    want = np.diff(asked) if asked is not None else period
    err = np.abs(gaps - want)
    if consecutive is not None:
        err = err[consecutive]
    return err


def precision_run(raw, run):
    """The figures of one precision run."""
    n = run["departures"]
    out = dict(tool=run["tool"], rate=run["rate"], rep=run["rep"])
    meter = run["meter"]
    out["cpu_s_sending"] = meter["cpu_busy_s"].get("0",
                                                   meter["cpu_busy_s"].get(0))
    out["wall_s"] = meter["wall_ns"] / 1e9
    out["softnet_dropped"] = meter["softnet_dropped"]
    kind = run["tool"]
    if kind in ("floor-soft", "cyclictest"):
        if kind == "floor-soft":
            late = np.fromfile(raw / run["file"], dtype="<i8")
        else:
            late = np.loadtxt(raw / run["file"], dtype=np.int64, ndmin=1)
        out["samples"] = int(late.size)
        out["lateness_ns"] = pct(late)
        out["error_ns"] = pct(np.abs(np.diff(late)))
        return out
    cap = run["capture"]
    out["capture_dropped"] = (cap["dropped"] or 0) + (cap["if_dropped"] or 0)
    frames = frames_to(raw / f"{run['name']}.pcap", run["port"])
    out["frames"] = len(frames)
    out["complete"] = len(frames) == n and out["capture_dropped"] == 0
    if len(frames) < 2:
        return out
    if kind.startswith("mtg"):
        s = mtg_series(frames)
        order = np.argsort(s[:, 1], kind="stable")
        s = s[order]
        consecutive = np.diff(s[:, 1]) == 1
        out["error_ns"] = pct(gap_error(s[:, 0], asked=s[:, 2],
                                        consecutive=consecutive))
        out["tx_error_ns"] = pct(gap_error(s[:, 3], asked=s[:, 2],
                                           consecutive=consecutive))
        out["lateness_ns"] = pct(s[:, 3] - s[:, 2])
        asked_span = s[-1, 2] - s[0, 2]
        asked = s[:, 2]
        summary = json.loads((raw / run["summary"]).read_text())
        tg = summary["tgs"][0]
        out["summary_lateness_ns"] = tg["lateness_ns"]
        out["spin_s"] = tg.get("spin_ns", 0) / 1e9
        out["sent"] = tg["sent"]
    else:
        ts = np.array([f[0] for f in frames], np.int64)
        out["error_ns"] = pct(gap_error(ts, period=run["period_ns"]))
        asked_span = (len(frames) - 1) * run["period_ns"]
        asked = np.arange(len(ts), dtype=np.int64) * run["period_ns"]
        s = ts.reshape(-1, 1)
    out["asked_pps"] = (len(s) - 1) * 1e9 / asked_span if asked_span else None
    out["achieved_pps"], out["rate_error"] = achieved(s[:, 0], asked)
    return out


def achieved(stamps, asked):
    """The rate on the wire and its error against the rate asked: the slope
    of the wire stamps against the times asked for (least squares), so
    that a late first or last frame does not bend it, as the span from the
    first to the last would."""
    if len(stamps) < 3:
        return None, None
    t = np.asarray(stamps, np.float64) - stamps[0]
    a = np.asarray(asked, np.float64) - asked[0]
    slope = np.polyfit(a, t, 1)[0]
    rate = (len(a) - 1) * 1e9 / a[-1] / slope if a[-1] else None
    return rate, 1 / slope - 1


def summarize(rows, keys, fields):
    """Group rows by keys; each field (dotted path) as min/median/max."""
    groups = {}
    for r in rows:
        groups.setdefault(tuple(r.get(k) for k in keys), []).append(r)

    def get(r, path):
        for p in path.split("."):
            if not isinstance(r, dict):
                return None
            r = r.get(p)
        return r
    out = []
    for key, rs in sorted(groups.items(), key=lambda kv: str(kv[0])):
        entry = dict(zip(keys, key), reps=len(rs))
        for f in fields:
            entry[f] = spread([get(r, f) for r in rs])
        out.append(entry)
    return out


def med(entries, field, **where):
    for e in entries:
        if all(e.get(k) == v for k, v in where.items()):
            s = e.get(field)
            return s["median"] if s else None
    return None


def target(value, goal, met, note):
    return dict(value=value, target=goal, met=bool(met) if value is not None
                else False, note=note)


def machine(raw):
    def cmd(*c):
        try:
            return subprocess.run(c, capture_output=True, text=True).stdout
        except OSError:
            return ""
    cpu = next((line.split(":", 1)[1].strip() for line in
                open("/proc/cpuinfo") if line.startswith("model name")), "?")
    return dict(host_kernel=platform.release(), host_cpu=cpu,
                host_cpus=os.cpu_count(),
                host_mem_gib=round(os.sysconf("SC_PAGE_SIZE") *
                                   os.sysconf("SC_PHYS_PAGES") / 2**30, 1),
                qemu=cmd("qemu-system-x86_64", "--version").split("\n")[0],
                guest=json.loads((raw / "guest.json").read_text())
                if (raw / "guest.json").exists() else None)


def analyze(raw):
    plan = json.loads((raw / "plan.json").read_text())
    runs = json.loads((raw / "runs.json").read_text()) \
        if (raw / "runs.json").exists() else []
    host = json.loads((raw / "host.json").read_text()) \
        if (raw / "host.json").exists() else {}
    fig = dict(plan=plan)
    fig["failures"] = [r for r in runs if "error" in r]
    runs = [r for r in runs if "error" not in r]

    prec = [precision_run(raw, r) for r in runs if r["kind"] == "precision"]
    fig["precision_runs"] = prec
    fig["precision"] = summarize(prec, ["rate", "tool"], [
        "error_ns.p50", "error_ns.p99", "error_ns.p999", "error_ns.max",
        "lateness_ns.p50", "lateness_ns.p99", "lateness_ns.p999",
        "lateness_ns.max", "tx_error_ns.p99", "rate_error", "achieved_pps",
        "cpu_s_sending", "spin_s", "softnet_dropped", "capture_dropped",
        "frames"])

    rate_rows = []
    for r in runs:
        if r["kind"] != "rate":
            continue
        rate_rows.append(dict(tool=r["tool"], length=r["length"], rep=r["rep"],
                              requested=r.get("requested"),
                              wire_pps=r.get("wire_pps"),
                              sustained=r.get("sustained"),
                              softnet_dropped=r["meter"]["softnet_dropped"]))
    best = []
    for rep in sorted({r["rep"] for r in rate_rows}):
        for length in plan.get("rate_lengths", []):
            mine = [r for r in rate_rows if r["rep"] == rep and
                    r["length"] == length and r["tool"] == "mtg"]
            ok = [r["requested"] for r in mine if r["sustained"]]
            best.append(dict(tool="mtg", length=length, rep=rep,
                             pps=max(ok) if ok else None))
            for r in rate_rows:
                if r["rep"] == rep and r["length"] == length and \
                        r["tool"] != "mtg":
                    best.append(dict(tool=r["tool"], length=length, rep=rep,
                                     pps=r["wire_pps"]))
    fig["rate_runs"] = rate_rows
    fig["rate"] = summarize(best, ["length", "tool"], ["pps"])

    scale = []
    for r in runs:
        if r["kind"] != "scaling":
            continue
        scale.append(scaling_run(raw, r))
    fig["scaling_runs"] = scale
    fig["scaling"] = summarize(scale, ["tgs"], [
        "achieved_pps", "lateness_ns.p50", "lateness_ns.p99",
        "lateness_ns.max", "sent", "capture_dropped"])

    rec = [dict(rep=r["rep"], requested=r["requested"], sent=r["sent"],
                records=r["records"], ring_drops=r["ring_drops"],
                wire_pps=r["wire_pps"]) for r in runs
           if r["kind"] == "recording"]
    fig["recording_runs"] = rec

    fig["profiles"] = [profile_run(raw, r) for r in runs
                       if r["kind"] == "profile"]

    gen = host.get("generation", [])
    fig["generation"] = summarize(gen, ["model"], ["entries_per_s"])
    ana = host.get("analysis")
    if ana:
        reps = ana["reps"]
        fig["analysis"] = dict(
            records=ana["records"], record_bytes=ana["record_bytes"],
            numpy_sum_bytes_per_s=spread([ana["bytes"] / r["numpy_sum_s"]
                                          for r in reps]),
            basic_bytes_per_s=spread([ana["bytes"] / r["basic_s"]
                                      for r in reps]),
            basic_records_per_s=spread([ana["records"] / r["basic_s"]
                                        for r in reps]),
            basic_vs_numpy=spread([r["basic_s"] / r["numpy_sum_s"]
                                   for r in reps]),
            cli_s=spread([r["cli_s"] for r in reps]))
    hosts(raw, runs, fig)
    fig["ratios"] = ratios(fig)
    fig["targets"] = targets(fig)
    return fig


HOSTS_FIELDS = ["loss", "aggregate_pps", "fairness", "h1_error_ns.p50",
                "h1_error_ns.p99", "cpu0_s", "cpu1_s", "mem_mib", "setup_s",
                "received", "offered"]


def hosts_run(raw, r):
    """The figures of one run of the hosts part (bench/guest_hosts.py):
    loss against what was offered (every host's count), the aggregate
    rate at the receiver (received over the span of arrivals), fairness
    (the fewest packets a host got through over the most: per-host rates
    over the same run), host 1's inter-departure error on its interface
    against the period asked, the CPUs' busy time, memory, set-up."""
    n, rate = r["hosts"], r["rate"]
    recv = np.asarray(r["received"], np.int64)
    out = dict(series=r["series"], tool=r["tool"], hosts=n, rep=r["rep"],
               payload=r["payload"],
               payload_asked=r.get("payload_asked", r["payload"]),
               rate=rate, offered=n * r["count"], received=int(recv.sum()))
    out["loss"] = 1 - out["received"] / out["offered"]
    first = [f for f in r["first_ns"] if f is not None]
    last = [x for x in r["last_ns"] if x is not None]
    span = max(last) - min(first) if first else 0
    out["aggregate_pps"] = out["received"] * 1e9 / span if span > 0 else None
    out["fairness"] = float(recv.min() / recv.max()) if recv.max() else None
    busy = r["meter"]["cpu_busy_s"]
    out["cpu0_s"] = busy.get("0", busy.get(0))
    out["cpu1_s"] = busy.get("1", busy.get(1))
    out["wall_s"] = r["meter"]["wall_ns"] / 1e9
    out["mem_mib"] = r["mem_used_kib"] / 1024
    out["setup_s"] = r.get("setup_s")
    frames = frames_to(raw / f"{r['name']}-h1.pcap",
                       guest_hosts.BASE_PORT + 1)
    out["h1_frames"] = len(frames)
    if len(frames) > 2:
        ts = np.array([f[0] for f in frames], np.int64)
        out["h1_error_ns"] = pct(gap_error(ts, period=1e9 / rate))
    if r.get("start_delay_s") is not None:
        out["start_delay_s"] = r["start_delay_s"]
    return out


def hosts(raw, runs, fig):
    rows = [hosts_run(raw, r) for r in runs if r["kind"] == "hosts"]
    fig["hosts_runs"] = rows
    fig["hosts"] = summarize([r for r in rows if r["series"] == "n"],
                             ["hosts", "tool"], HOSTS_FIELDS)
    fig["hosts_payload"] = summarize(
        [r for r in rows if r["series"] == "payload"],
        ["payload_asked", "tool"], HOSTS_FIELDS)
    fig["hosts_up"] = summarize([r for r in runs if r["kind"] == "hosts-up"],
                                ["hosts"], ["seconds"])
    fig["hosts_ceiling"] = [{k: v for k, v in r.items() if k != "pktgen"}
                            for r in runs if r["kind"] == "hosts-ceiling"]


PERF_PROGRAM = re.compile(r"^\s+([\d.]+)%\s+(\S+)\s+(\S+)\s*$")
PERF_SYMBOL = re.compile(r"^\s+([\d.]+)%\s+\[(.)\]\s+(.+?)\s*$")
PERF_SAMPLES = re.compile(r"^# Samples: ([\d.]+)([KMG]?)\s+of event")


def perf_shares(text, most=10):
    """From `perf report --stdio --sort comm,dso` and `--sort sym` output:
    the largest shares of the samples, by program and by symbol, and how
    many samples there were (perf rounds large counts: "20K")."""
    programs, symbols, samples = [], [], None
    for line in text.splitlines():
        if m := PERF_SAMPLES.match(line):
            samples = round(float(m.group(1)) * 1000 ** " KMG".index(
                m.group(2) or " "))
        if line.startswith("#"):
            continue
        if m := PERF_SYMBOL.match(line):
            symbols.append(dict(percent=float(m.group(1)),
                                kernel=m.group(2) == "k", symbol=m.group(3)))
        elif m := PERF_PROGRAM.match(line):
            programs.append(dict(percent=float(m.group(1)),
                                 program=m.group(2), object=m.group(3)))
    return dict(samples=samples, programs=programs[:most],
                symbols=symbols[:most])


def profile_run(raw, r):
    """A profiled run: its wire rate and, per CPU, where the samples went."""
    out = dict(case=r["case"], wire_pps=r.get("wire_pps"),
               cpu_busy_s=r["meter"]["cpu_busy_s"],
               perf_period_ns=r.get("perf_period_ns"))
    for cpu in ("0", "1"):
        path = raw / "profile" / f"{r['case']}-cpu{cpu}.txt"
        out[f"cpu{cpu}"] = perf_shares(path.read_text()) \
            if path.exists() else None
    callers = raw / "profile" / f"{r['case']}-cpu0-callers.txt"
    if callers.exists():
        # perf's call chains as it prints them, without its comments
        out["cpu0_callers"] = "\n".join(
            line.rstrip() for line in callers.read_text().splitlines()
            if line.strip() and not line.startswith("#"))[:20000]
    return out


def scaling_run(raw, r):
    # every TG has its own port; mtg_series keeps mtg's frames only
    s = mtg_series(frames_to(raw / f"{r['name']}.pcap"))
    out = dict(tgs=r["tgs"], rep=r["rep"], frames=len(s),
               capture_dropped=(r["capture"]["dropped"] or 0) +
               (r["capture"]["if_dropped"] or 0))
    summary = json.loads((raw / r["summary"]).read_text()) \
        if r.get("summary") else None
    if summary:
        out["sent"] = sum(t["sent"] for t in summary["tgs"])
    if len(s) > 1:
        span = s[:, 0].max() - s[:, 0].min()
        out["achieved_pps"] = (len(s) - 1) * 1e9 / span
        out["lateness_ns"] = pct(s[:, 3] - s[:, 2])
    return out


def ratios(fig):
    p = fig["precision"]
    out = {}
    for rate in fig["plan"].get("rates", []):
        for peer in ("pktgen", "ditg", "ditg-poll"):
            for mode in ("plain", "precise"):
                a = med(p, "error_ns.p99", rate=rate, tool=f"mtg-cbr-{mode}")
                b = med(p, "error_ns.p99", rate=rate, tool=peer)
                out[f"precision_p99_{rate}_mtg-{mode}_vs_{peer}"] = \
                    a / b if a is not None and b else None
    for length in fig["plan"].get("rate_lengths", []):
        for peer in ("pktgen", "trafgen", "iperf3", "ditg", "ditg-poll"):
            a = med(fig["rate"], "pps", length=length, tool="mtg")
            b = med(fig["rate"], "pps", length=length, tool=peer)
            out[f"rate_{length}_mtg_vs_{peer}"] = a / b if a and b else None
    for e in fig.get("hosts") or []:
        if e["tool"] != "mtg":
            continue
        for peer in ("ditg", "mtg-itgrecv"):
            a = med(fig["hosts"], "cpu0_s", hosts=e["hosts"], tool="mtg")
            b = med(fig["hosts"], "cpu0_s", hosts=e["hosts"], tool=peer)
            out[f"hosts_{e['hosts']}_cpu0_mtg_vs_{peer}"] = \
                a / b if a is not None and b else None
    return out


def targets(fig):
    p, t = fig["precision"], {}
    mtg_plain = med(p, "error_ns.p99", rate=1000, tool="mtg-cbr-plain")
    floor = med(p, "error_ns.p99", rate=1000, tool="floor-soft")
    v = mtg_plain / floor if mtg_plain is not None and floor else None
    t["plain_p99_vs_hrtimer_floor_1k"] = target(
        v, 1.2, v is not None and v <= 1.2,
        "mtg plain CBR inter-departure error p99 on the wire / the bare soft "
        "hrtimer's inter-expiry error p99, 1 kpps, medians over repetitions")
    precise = med(p, "error_ns.p99", rate=1000, tool="mtg-cbr-precise")
    peers = [med(p, "error_ns.p99", rate=1000, tool=x)
             for x in ("pktgen", "ditg-poll")]
    best_peer = min((x for x in peers if x is not None), default=None)
    t["precise_p99_below_peers_1k"] = target(
        precise, best_peer, precise is not None and best_peer is not None and
        precise < best_peer,
        "mtg precise CBR p99 (ns) below both pktgen's and D-ITG -poll's; "
        "CPU: see precision.cpu_s_sending and spin_s")
    errs = [e for e in (med(p, "rate_error", rate=rate, tool=f"mtg-cbr-{m}")
                        for rate in fig["plan"].get("rates", [])
                        for m in ("plain", "precise")) if e is not None]
    worst = max((abs(e) for e in errs), default=None)
    t["cbr_rate_error"] = target(
        worst, 0.001, worst is not None and worst <= 0.001,
        "worst |achieved/requested - 1| of mtg's CBR runs on the wire")
    for length in fig["plan"].get("rate_lengths", []):
        v = fig["ratios"].get(f"rate_{length}_mtg_vs_pktgen")
        t[f"rate_{length}B_vs_pktgen"] = target(
            v, 0.9, v is not None and v >= 0.9,
            f"mtg's highest sustained CBR rate at {length} B / pktgen's "
            f"(no timetable); D-ITG: rate_{length}_mtg_vs_ditg in ratios")
    one = med(fig["scaling"], "achieved_pps", tgs=1)
    many = med(fig["scaling"], "achieved_pps", tgs=100000)
    v = many / one if one and many else None
    t["scaling_100k_vs_1"] = target(
        v, 0.9, v is not None and v >= 0.9,
        "aggregate rate with 100,000 TGs / with 1 TG, same total rate")
    recs = fig["recording_runs"]
    tops = [r for r in recs if r["requested"] == max(
        (x["requested"] for x in recs if x["rep"] == r["rep"]), default=0)]
    drops = max((r["ring_drops"] for r in tops), default=None)
    kept = min((r["wire_pps"] / r["requested"] for r in tops
                if r["wire_pps"]), default=None)
    t["recording_zero_drops_at_full_rate"] = target(
        drops, 0, drops == 0 and kept is not None and kept >= 0.99,
        "ring drops recording at mtg's highest sustained send rate (worst "
        "repetition); met only if the sender also kept that rate while "
        "recording (wire rate / requested, worst repetition: "
        f"{'–' if kept is None else f'{kept:.3f}'})")
    gen = [g for g in fig["generation"]
           if not g["model"].endswith(OLD_SAMPLERS)]
    low = min((g["entries_per_s"]["median"] for g in gen), default=None)
    t["generation_entries_per_s"] = target(
        low, 20e6, low is not None and low >= 20e6,
        "slowest model's timetable entries per second per core (median); "
        "every model in generation at its default samplers")
    t.update(hosts_targets(fig))
    a = fig.get("analysis")
    v = a["basic_vs_numpy"]["median"] if a else None
    t["mtgsap_basic_vs_memory_bandwidth"] = target(
        v, 2.0, v is not None and v <= 2.0,
        "time of mtgsap's basic statistics / numpy summing the same bytes")
    return t


def hosts_targets(fig):
    """Seed 004's comparison: mtg (its own receiver) against one ITGSend
    a host, at the same offered load (medians over repetitions)."""
    h = fig.get("hosts") or []
    ns = sorted({e["hosts"] for e in h})
    loss = {(e["hosts"], e["tool"]): e["loss"]["median"] for e in h
            if e.get("loss")}
    easy = [n for n in ns if loss.get((n, "ditg"), 1) < 0.01 and
            (n, "mtg") in loss]
    worst = max((loss[(n, "mtg")] for n in easy), default=None)
    t = {"hosts_mtg_lossless_where_ditg_below_1pct": target(
        worst, 0, worst == 0,
        "mtg's worst loss over the numbers of hosts where D-ITG (an "
        "ITGSend a host) lost less than 1 %: "
        f"{', '.join(map(str, easy)) or 'none'}")}
    hard = next((n for n in ns if loss.get((n, "ditg"), 0) > 0.1), None)
    v = None
    if hard is not None and (hard, "mtg") in loss:
        v = loss[(hard, "mtg")] / loss[(hard, "ditg")]
    t["hosts_mtg_loss_where_ditg_passes_10pct"] = target(
        v, 0.1, v is not None and v <= 0.1,
        "mtg's loss / D-ITG's at the fewest hosts where D-ITG lost more "
        "than 10 %" + (f" ({hard} hosts)" if hard is not None else
                       ": D-ITG never did, nothing to compare"))
    return t


def run_date(raw):
    """The day a run was measured: its raw folder's stamp (bench/run names
    it YYYY-MM-DDTHHMMSSZ), else today."""
    m = re.match(r"\d{4}-\d{2}-\d{2}", raw.name)
    return m.group(0) if m else datetime.date.today().isoformat()


def results_name(plan, date):
    """(name, full): a full run (every part, at least FULL_REPS
    repetitions) is DATE; any other is named by what it holds, so that a
    smoke run of one part never replaces the day's full results."""
    parts = [p for p in ALL_PARTS if p in plan.get("parts", ())]
    reps = plan.get("reps", 0)
    if len(parts) == len(ALL_PARTS) and reps >= FULL_REPS:
        return date, True
    return f"{date}-partial-{'+'.join(parts) or 'host'}-{reps}rep", False


def main():
    raw = pathlib.Path(sys.argv[1])
    fig = analyze(raw)
    fig["machine"] = machine(raw)
    fig["raw"] = str(raw)
    name, full = results_name(fig["plan"], run_date(raw))
    fig["full_run"] = full
    results = ROOT / "bench" / "results"
    results.mkdir(exist_ok=True)
    out = results / f"{name}.json"
    out.write_text(json.dumps(fig, indent=1, default=float) + "\n")
    sys.path.insert(0, str(ROOT / "bench"))
    import report
    # A partial run's report stays beside its results; bench/report.md
    # keeps describing the last full run.
    md = ROOT / "bench" / "report.md" if full else results / name / "report.md"
    report.write(fig, results / name, md,
                 os.path.relpath(out, md.parent))
    print(f"bench: {out}, {md.relative_to(ROOT)}"
          f"{'' if full else ' (a partial run: bench/report.md unchanged)'}")
    for name, tg in fig["targets"].items():
        print(f"  {name:40s} {'met' if tg['met'] else 'NOT MET':8s} "
              f"value {tg['value']}, target {tg['target']}")


if __name__ == "__main__":
    main()
