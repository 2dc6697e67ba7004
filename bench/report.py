# SPDX-License-Identifier: GPL-2.0-or-later
"""The markdown report of `make bench` and its plots (bench/analyze.py)."""

import os

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

TOOLS = ["floor-soft", "cyclictest", "mtg-cbr-plain", "mtg-cbr-precise",
         "mtg-poisson-plain", "mtg-poisson-precise", "pktgen", "ditg",
         "ditg-poll"]


def us(ns):
    return "–" if ns is None else f"{ns / 1000:,.1f}"


def m(entry, field, scale=1.0, fmt="{:,.1f}"):
    """median (min–max) of a summarized field."""
    s = entry.get(field) if entry else None
    if not s:
        return "–"
    if s["min"] == s["max"]:
        return fmt.format(s["median"] * scale)
    return (fmt.format(s["median"] * scale) + " (" + fmt.format(s["min"] * scale)
            + "–" + fmt.format(s["max"] * scale) + ")")


def plot_precision(fig, path):
    rates = fig["plan"].get("rates", [])
    if not fig["precision"]:
        return None
    f, axes = plt.subplots(1, len(rates), figsize=(5 * len(rates), 4),
                           squeeze=False)
    for ax, rate in zip(axes[0], rates):
        names, p50, p99 = [], [], []
        for tool in TOOLS:
            e = next((x for x in fig["precision"] if x["rate"] == rate and
                      x["tool"] == tool), None)
            if not e or not e.get("error_ns.p99"):
                continue
            names.append(tool)
            p50.append(e["error_ns.p50"]["median"] / 1000)
            p99.append(e["error_ns.p99"]["median"] / 1000)
        y = range(len(names))
        ax.barh(y, p99, color="#c44", label="p99")
        ax.barh(y, p50, color="#48c", label="p50")
        ax.set_yticks(list(y), names)
        ax.set_xscale("log")
        ax.set_xlabel("inter-departure error (µs, log)")
        ax.set_title(f"{rate:,} packets/s")
        ax.legend(loc="lower right")
    f.tight_layout()
    f.savefig(path)
    plt.close(f)
    return path


def plot_bars(rows, key, value, path, xlabel, title, log=False):
    if not rows:
        return None
    f, ax = plt.subplots(figsize=(7, max(2.5, 0.35 * len(rows))))
    names = [str(r[key]) for r in rows]
    vals = [r[value]["median"] if r.get(value) else 0 for r in rows]
    ax.barh(range(len(rows)), vals, color="#48c")
    ax.set_yticks(range(len(rows)), names)
    if log:
        ax.set_xscale("log")
    ax.set_xlabel(xlabel)
    ax.set_title(title)
    f.tight_layout()
    f.savefig(path)
    plt.close(f)
    return path


HOST_TOOLS = ["mtg", "mtg-itgrecv", "ditg"]


def plot_hosts(fig, path):
    """Seed 004's Figs. 2-3: loss and the sending CPU against N; and the
    sending CPU against the payload."""
    series = [(fig.get("hosts") or [], "hosts", "emulated hosts", True),
              (fig.get("hosts_payload") or [], "payload_asked",
               "UDP payload asked (B)", False)]
    panels = [(rows, key, xl, log, field, yl)
              for rows, key, xl, log in series if rows
              for field, yl in (("loss", "loss (%)"),
                                ("cpu0_s", "sending CPU busy (s)"))
              if not (key == "payload_asked" and field == "loss")]
    if not panels:
        return None
    f, axes = plt.subplots(1, len(panels), figsize=(4.5 * len(panels), 3.8),
                           squeeze=False)
    for ax, (rows, key, xl, log, field, yl) in zip(axes[0], panels):
        for tool in HOST_TOOLS:
            pts = sorted((e[key], e[field]["median"] * (100 if field ==
                                                         "loss" else 1))
                         for e in rows if e["tool"] == tool and e.get(field))
            if pts:
                ax.plot(*zip(*pts), marker="o", label=tool)
        if log:
            ax.set_xscale("log")
        ax.set_xlabel(xl)
        ax.set_ylabel(yl)
        ax.grid(alpha=0.3)
        ax.legend()
    f.tight_layout()
    f.savefig(path)
    plt.close(f)
    return path


def hosts_lines(fig, rel, plots):
    plan = fig["plan"]
    ceil = (fig.get("hosts_ceiling") or [None])[0]
    rate = ceil["rate"] if ceil else None
    lines = ["", "## Many hosts", "",
             "Seed 004's experiment (bench/guest_hosts.py, "
             "Documentation/hosts.rst): N hosts, each a namespace of "
             "examples/hosts.sh on one bridge, sending to one receiver "
             "namespace, each at the same rate for "
             f"{plan.get('hosts_seconds')} s. `mtg`: one session, a TG a "
             "host, recorded by its own receive path (88-byte UDP payloads, "
             "the MTG header); `ditg`: one ITGSend a host (64 bytes) to "
             "ITGRecvs; `mtg-itgrecv`: mtg's TGs with D-ITG's header to the "
             "same ITGRecvs (64 bytes). Senders on CPU 0, receivers on "
             "CPU 1. Loss: 1 − received / offered (every host's count); "
             "aggregate: received over the span of arrivals; fairness: the "
             "fewest packets a host got through / the most; host 1's "
             "inter-departure error on its own interface against the "
             "period asked; memory: MemAvailable's largest drop during the "
             "run; set-up: launch to the last host's first packet at the "
             "receiver (mtg's includes its start delay, "
             "2 s + 20 ms a TG, chosen for TCG)."]
    if ceil:
        lines += ["", f"Ceiling of the topology (pktgen from host 1, "
                  f"64-byte payloads, what reached the receiver): "
                  f"{ceil['pps']:,.0f} frames/s; per-host rate "
                  f"{rate:,} packets/s ({plan.get('hosts_load')} × the "
                  f"ceiling at {max(plan.get('hosts_n') or [0]):,} hosts)."]
    hp = plot_hosts(fig, plots / "hosts.png")
    if hp:
        lines += ["", f"![hosts]({rel}/hosts.png)"]
    lines += ["", "| hosts | tool | offered/s | loss | aggregate/s | "
              "fairness | host 1 error p50 µs | p99 | CPU 0 s | CPU 1 s | "
              "memory MiB | set-up s |", "|" + "---|" * 12]
    for e in fig.get("hosts") or []:
        offered = "–" if rate is None else f"{e['hosts'] * rate:,}"
        lines.append(
            f"| {e['hosts']:,} | {e['tool']} | {offered} | "
            f"{m(e, 'loss', 100, '{:.2f}%')} | "
            f"{m(e, 'aggregate_pps', 1, '{:,.0f}')} | "
            f"{m(e, 'fairness', 1, '{:.3f}')} | "
            f"{m(e, 'h1_error_ns.p50', 1e-3)} | "
            f"{m(e, 'h1_error_ns.p99', 1e-3)} | {m(e, 'cpu0_s')} | "
            f"{m(e, 'cpu1_s')} | {m(e, 'mem_mib', 1, '{:,.0f}')} | "
            f"{m(e, 'setup_s')} |")
    lines += ["", f"{plan.get('hosts_payload_n')} hosts at the same rate, "
              "UDP payloads asked from 64 to 1472 bytes (mtg's at least 88):",
              "", "| payload | tool | loss | CPU 0 s | CPU 1 s | memory MiB |",
              "|---|---|---|---|---|---|"]
    for e in fig.get("hosts_payload") or []:
        lines.append(f"| {e['payload_asked']} | {e['tool']} | "
                     f"{m(e, 'loss', 100, '{:.2f}%')} | {m(e, 'cpu0_s')} | "
                     f"{m(e, 'cpu1_s')} | {m(e, 'mem_mib', 1, '{:,.0f}')} |")
    lines += ["", "Building the topology (`examples/hosts.sh up N`):", "",
              "| hosts | seconds |", "|---|---|"]
    for e in fig.get("hosts_up") or []:
        lines.append(f"| {e['hosts']:,} | {m(e, 'seconds')} |")
    return lines


def emulation(guest):
    """What the accelerator was, in words: TCG and its threading."""
    if guest.get("accel") != "tcg":
        return ""
    threads = {"multi": ", one host thread per vCPU",
               "single": ", one host thread for all vCPUs"}
    return f" (software emulation{threads.get(guest.get('tcg_thread'), '')})"


def write(fig, plots, report, results_rel):
    plots.mkdir(parents=True, exist_ok=True)
    rel = os.path.relpath(plots, report.parent)
    mach = fig.get("machine", {})
    guest = mach.get("guest") or {}
    plan = fig["plan"]
    lines = [
        "# mtg benchmarks",
        "",
        f"Results: [`{results_rel}`]({results_rel}) (every figure, every "
        "run, the targets). Made by `make bench` (bench/run); raw data in "
        f"`{fig.get('raw')}` (not kept in git).",
        "",
        "## Where this ran",
        "",
        f"- Host: {mach.get('host_cpu')}, {mach.get('host_cpus')} CPUs, "
        f"{mach.get('host_mem_gib')} GiB, kernel {mach.get('host_kernel')}.",
        f"- VM: kernel {guest.get('kernel')}, {guest.get('cpus')} vCPUs, "
        f"{guest.get('mem_kib', 0) // 1024} MiB, clocksource "
        f"{guest.get('clocksource')}, {mach.get('qemu')}, accelerator "
        f"**{guest.get('accel', '?').upper()}**"
        f"{emulation(guest)}; "
        "booted once by virtme-ng for every VM figure; senders on CPU 0, "
        "receive work on CPU 1 (RPS on v1).",
        "- **Absolute figures under emulation are not hardware figures**: "
        "TCG's timers are coarse and its CPU slow. Compare tools with each "
        "other and with the floors measured in the same boot, as ratios.",
        f"- Parts run in the VM: {', '.join(plan.get('parts') or ()) or 'none'}"
        f"{'' if fig.get('full_run', True) else ' (**a partial run**: not every part, or fewer than three repetitions; bench/report.md describes the last full run)'}.",
        f"- Repetitions: {plan.get('reps')}; departures per precision "
        f"setting: {plan.get('departures'):,}; tools interleaved (the order "
        "turns each repetition). Figures are medians, (min–max) over "
        "repetitions.",
        "- Generation and analysis ran on the host, not in the VM.",
        "",
        "## Targets",
        "",
        "| target | value | target | met |",
        "|---|---|---|---|",
    ]
    for name, t in fig["targets"].items():
        val = t["value"]
        val = "–" if val is None else f"{val:,.4g}"
        goal = "–" if t["target"] is None else f"{t['target']:,.4g}"
        lines.append(f"| {name} | {val} | {goal} | "
                     f"{'yes' if t['met'] else '**no**'} |")
    lines += ["", "What falls short and why: *Findings* below.", ""]

    lines += ["## Dispatch precision", "",
              "Inter-departure error on the wire (µs), latenesses (µs) where "
              "the tool stamps its departures (mtg's TX stamp, a timer's "
              "callback or wake-up), the sending CPU's busy time during the "
              "run (s), and precise mode's spin (s).", ""]
    p = plot_precision(fig, plots / "precision.png")
    if p:
        lines += [f"![precision]({rel}/precision.png)", ""]
    lines += ["| rate | tool | error p50 | p99 | p99.9 | max | lateness p99 |"
              " rate error | CPU 0 busy s | spin s | frames | capture/softnet "
              "drops |", "|" + "---|" * 12]
    for e in fig["precision"]:
        lines.append(
            f"| {e['rate']:,} | {e['tool']} | {m(e, 'error_ns.p50', 1e-3)} | "
            f"{m(e, 'error_ns.p99', 1e-3)} | {m(e, 'error_ns.p999', 1e-3)} | "
            f"{m(e, 'error_ns.max', 1e-3)} | {m(e, 'lateness_ns.p99', 1e-3)} |"
            f" {m(e, 'rate_error', 100, '{:+.4f}%')} | "
            f"{m(e, 'cpu_s_sending')} | {m(e, 'spin_s', 1, '{:.2f}')} | "
            f"{m(e, 'frames', 1, '{:,.0f}')} | "
            f"{m(e, 'capture_dropped', 1, '{:.0f}')}/"
            f"{m(e, 'softnet_dropped', 1, '{:.0f}')} |")
    lines += ["", "## Rate", "",
              "Highest rate on one CPU (frames/s at L2 without FCS): mtg's "
              "highest requested CBR rate that the wire kept within 1% "
              "(a ladder relative to pktgen's ceiling in the same "
              "repetition); the peers' rate on the wire at full speed "
              "(pktgen without delay, trafgen, iperf3 -b 0, D-ITG asked "
              f"{plan.get('rate_ditg_asked', 0):,}/s).", "",
              "| length | tool | frames/s |", "|---|---|---|"]
    for e in fig["rate"]:
        lines.append(f"| {e['length']} | {e['tool']} | "
                     f"{m(e, 'pps', 1, '{:,.0f}')} |")
    rp = plot_bars([dict(e, name=f"{e['length']} B {e['tool']}")
                    for e in fig["rate"]], "name", "pps",
                   plots / "rate.png", "frames/s", "highest rate, one CPU")
    if rp:
        lines += ["", f"![rate]({rel}/rate.png)"]
    lines += ["", "Ratios of mtg to each peer in the same run:", ""]
    for k, v in fig["ratios"].items():
        if v is not None:
            lines.append(f"- `{k}`: {v:.3g}")
    lines += ["", "## Flow scaling", "",
              f"{plan.get('scale_total_pps', 0):,} frames/s in total for "
              f"{plan.get('scale_seconds')} s, spread over N TGs whose "
              "departures interleave; rate and lateness from the capture "
              "(the TX stamp minus the schedule in every header).", "",
              "| TGs | aggregate frames/s | lateness p50 µs | p99 | max | "
              "sent |", "|---|---|---|---|---|---|"]
    for e in fig["scaling"]:
        lines.append(f"| {e['tgs']:,} | {m(e, 'achieved_pps', 1, '{:,.1f}')}"
                     f" | {m(e, 'lateness_ns.p50', 1e-3)} | "
                     f"{m(e, 'lateness_ns.p99', 1e-3)} | "
                     f"{m(e, 'lateness_ns.max', 1e-3)} | "
                     f"{m(e, 'sent', 1, '{:,.0f}')} |")
    lines += ["", "## Recording", "",
              "mtgctl run recording what comes back on v1 to /run (guest "
              "memory), at mtg's highest sustained rate and lower until no "
              "record is dropped.", "",
              "| rep | requested/s | wire/s | sent | records | ring drops |",
              "|---|---|---|---|---|---|"]
    for r in fig["recording_runs"]:
        w = "–" if r["wire_pps"] is None else f"{r['wire_pps']:,.0f}"
        lines.append(f"| {r['rep']} | {r['requested']:,.0f} | {w} | "
                     f"{r['sent']:,} | {r['records']:,} | {r['ring_drops']:,} |")
    lines += ["", "## Timetable generation (host)", "",
              "Entries per second of CPU time, one core, `mtgctl table "
              "--format bin` of a streamed table.", "",
              "| model | M entries/s |", "|---|---|"]
    for g in fig["generation"]:
        lines.append(f"| {g['model']} | {m(g, 'entries_per_s', 1e-6)} |")
    gp = plot_bars(fig["generation"], "model", "entries_per_s",
                   plots / "generation.png", "entries/s per core",
                   "timetable generation")
    if gp:
        lines += ["", f"![generation]({rel}/generation.png)"]
    a = fig.get("analysis")
    if a:
        lines += ["", "## Analysis (host)", "",
                  f"{a['records']:,} records of {a['record_bytes']} B, in the "
                  "page cache.", "",
                  "| what | value |", "|---|---|",
                  f"| numpy sum of the bytes, GB/s | "
                  f"{m(a, 'numpy_sum_bytes_per_s', 1e-9, '{:.2f}')} |",
                  f"| mtgsap basic statistics, GB/s | "
                  f"{m(a, 'basic_bytes_per_s', 1e-9, '{:.2f}')} |",
                  f"| mtgsap basic statistics, M records/s | "
                  f"{m(a, 'basic_records_per_s', 1e-6)} |",
                  f"| time ratio mtgsap / numpy | "
                  f"{m(a, 'basic_vs_numpy', 1, '{:.2f}')} |",
                  f"| `mtgsap stats FILE owd` (whole command), s | "
                  f"{m(a, 'cli_s', 1, '{:.2f}')} |"]
    if fig.get("hosts") or fig.get("hosts_payload"):
        lines += hosts_lines(fig, rel, plots)
    if fig.get("profiles"):
        lines += ["", "## Profiles", "",
                  "`perf record -e cpu-clock -a` around one run of each case "
                  "(the first repetition): where CPU 0, the sending CPU, "
                  "spent its samples (idle included), by program and by "
                  "symbol ([k] kernel).", ""]
        for p in fig["profiles"]:
            w = "–" if p["wire_pps"] is None else f"{p['wire_pps']:,.0f}"
            busy = p["cpu_busy_s"]
            lines += [f"### {p['case']}: {w} frames/s on the wire, CPU busy "
                      + ", ".join(f"{c}: {s:.1f} s"
                                  for c, s in sorted(busy.items())), ""]
            top = p.get("cpu0")
            if not top:
                lines += ["(no profile)", ""]
                continue
            if top.get("samples") is not None:
                # with a fixed period the samples say how long perf watched
                span = "" if not p.get("perf_period_ns") else \
                    f", {top['samples'] * p['perf_period_ns'] / 1e9:.1f} s " \
                    f"at one per {p['perf_period_ns'] / 1e6:g} ms"
                lines += [f"CPU 0: {top['samples']:,} samples{span}.", ""]
            lines += ["| % | program | object |", "|---|---|---|"]
            lines += [f"| {x['percent']:.1f} | {x['program']} | "
                      f"{x['object']} |" for x in top["programs"][:6]]
            lines += ["", "| % | symbol |", "|---|---|"]
            lines += [f"| {x['percent']:.1f} | "
                      f"{'[k] ' if x['kernel'] else ''}`{x['symbol']}` |"
                      for x in top["symbols"]]
            lines.append("")
            if p.get("cpu0_callers"):
                lines += ["<details><summary>CPU 0: who called the heaviest "
                          "symbols (perf report -g caller)</summary>", "",
                          "```", p["cpu0_callers"], "```", "", "</details>",
                          ""]
    if fig.get("failures"):
        lines += ["", "## Runs that failed", "",
                  "Each is left out of the figures above.", ""]
        for f in fig["failures"]:
            what = ", ".join(f"{k} {v}" for k, v in f.items() if k != "error")
            lines.append(f"- {what}: `{f['error'].splitlines()[0][:300]}`")
    # What the figures mean is written by a person, beside the figures.
    findings = report.parent / "findings.md"
    lines += ["", "## Findings", ""]
    lines += [findings.read_text().rstrip()] if findings.exists() else \
        ["(bench/findings.md: none written yet)"]
    report.write_text("\n".join(lines) + "\n")
    return report


if __name__ == "__main__":
    raise SystemExit("use bench/analyze.py")
