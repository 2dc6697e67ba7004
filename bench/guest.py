#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""bench/guest.py PLAN.json OUTDIR: the measurements of `make bench`.

Runs as root in the VM (bench/run boots it once), mtg and its peers on the
same veth pair, one after the other within each repetition and in an order
that turns from one repetition to the next (interleaved, so a slow phase of
the emulator does not land on one tool). It only measures and keeps the raw
data in OUTDIR: captures, the tools' own outputs, CPU and softnet counters.
bench/analyze.py turns that into figures on the host.

The network: v0 (root namespace, 10.77.0.1) -> v1 (namespace bench-rx,
10.77.0.2). Every sender runs on CPU 0. veth hands a frame to the receive
backlog of the CPU RPS picks: v1's RPS mask is CPU 1, so receive work and
every receiver (tcpdump, ITGRecv, iperf3 -s) stay off the sending CPU.

Timing on the wire: tcpdump's stamps on v1. veth crosses namespaces, which
clears the skb's stamp, and netif_rx() stamps it again before RPS queues it,
on the sending CPU: the capture stamp is when the frame left the sender.
"""

import json
import os
import pathlib
import re
import shutil
import signal
import subprocess
import sys
import threading
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))
from mtgwitness.capture import Capture  # noqa: E402
import guest_hosts  # noqa: E402  (bench/, beside this file)

NS = "bench-rx"
TX, RX = "v0", "v1"
TX_IP, RX_IP = "10.77.0.1", "10.77.0.2"
SEND_CPU, RECV_CPU = 0, 1
MTGCTL = ROOT / "ctl" / "mtgctl"
FLOOR_KO = ROOT / "bench" / "floor" / "mtg_floor.ko"
FLOOR_DIR = pathlib.Path("/sys/kernel/debug/mtg_floor")
PKTGEN = pathlib.Path("/proc/net/pktgen")
SMALL = 130        # mtg's smallest frame (IPv4): 14 + 20 + 8 + 88 bytes
UDP_OVERHEAD = 42  # Ethernet + IPv4 + UDP headers: a UDP payload's frame


def log(*what):
    print(time.strftime("%H:%M:%S"), *what, flush=True)


def sh(*cmd, check=True, timeout=600, ns=None, cpu=None, **kw):
    cmd = [str(c) for c in cmd]
    if cpu is not None:
        cmd = ["taskset", "-c", str(cpu)] + cmd
    if ns:
        cmd = ["ip", "netns", "exec", ns] + cmd
    res = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout,
                         **kw)
    if check and res.returncode:
        raise RuntimeError(f"{' '.join(cmd)} exited {res.returncode}:\n"
                           f"{res.stdout}{res.stderr}")
    return res


def write(path, text):
    pathlib.Path(path).write_text(text)


# --- counters ----------------------------------------------------------------

def cpu_times():
    """Per CPU: busy and total jiffies (/proc/stat)."""
    out = {}
    for line in open("/proc/stat"):
        m = re.match(r"cpu(\d+) (.*)", line)
        if m:
            v = [int(x) for x in m.group(2).split()]
            # user nice system idle iowait irq softirq steal
            out[int(m.group(1))] = dict(busy=v[0] + v[1] + v[2] + v[5] + v[6],
                                        total=sum(v[:8]))
    return out


def softnet():
    """Per CPU: processed, dropped, time_squeeze (/proc/net/softnet_stat)."""
    rows = []
    for line in open("/proc/net/softnet_stat"):
        f = [int(x, 16) for x in line.split()]
        rows.append(dict(processed=f[0], dropped=f[1], squeezed=f[2]))
    return rows


def tx_packets():
    with open(f"/sys/class/net/{TX}/statistics/tx_packets") as f:
        return int(f.read())


class Meter:
    """CPU time, softnet and v0's counters around one run of one tool, and
    v0's delivered frames sampled every 0.2 s (the wire rate)."""

    def __init__(self, sample=False):
        self.sample = sample
        self.samples = []
        self._stop = threading.Event()

    def _sampler(self):
        while not self._stop.is_set():
            self.samples.append((time.monotonic_ns(), tx_packets()))
            self._stop.wait(0.2)

    def __enter__(self):
        self.cpu0, self.softnet0 = cpu_times(), softnet()
        self.t0 = time.monotonic_ns()
        if self.sample:
            self.thread = threading.Thread(target=self._sampler, daemon=True)
            self.thread.start()
        return self

    def __exit__(self, *exc):
        if self.sample:
            self._stop.set()
            self.thread.join()
        self.t1 = time.monotonic_ns()
        cpu1, softnet1 = cpu_times(), softnet()
        hz = os.sysconf("SC_CLK_TCK")
        self.result = dict(
            wall_ns=self.t1 - self.t0,
            cpu_busy_s={c: (cpu1[c]["busy"] - self.cpu0[c]["busy"]) / hz
                        for c in cpu1},
            softnet_dropped=sum(b["dropped"] - a["dropped"]
                                for a, b in zip(self.softnet0, softnet1)),
            softnet_squeezed=sum(b["squeezed"] - a["squeezed"]
                                 for a, b in zip(self.softnet0, softnet1)),
            samples=self.samples)


# --- the network ---------------------------------------------------------------

def setup_network():
    sh("ip", "netns", "add", NS)
    for ns in (None, NS):
        sh("sysctl", "-qw", "net.ipv6.conf.all.disable_ipv6=1", ns=ns)
        sh("sysctl", "-qw", "net.ipv6.conf.default.disable_ipv6=1", ns=ns)
    sh("ip", "link", "add", TX, "type", "veth", "peer", "name", RX,
       "netns", NS)
    sh("ip", "addr", "add", f"{TX_IP}/24", "dev", TX)
    sh("ip", "-n", NS, "addr", "add", f"{RX_IP}/24", "dev", RX)
    sh("ip", "link", "set", TX, "up")
    sh("ip", "-n", NS, "link", "set", RX, "up")
    sh("ip", "-n", NS, "link", "set", "lo", "up")
    mac = sh("cat", f"/sys/class/net/{RX}/address", ns=NS).stdout.strip()
    sh("ip", "neigh", "replace", RX_IP, "lladdr", mac, "dev", TX,
       "nud", "permanent")
    sh("sh", "-c", f"echo {1 << RECV_CPU:x} > "
       f"/sys/class/net/{RX}/queues/rx-0/rps_cpus", ns=NS)
    for key in ("rmem_max", "rmem_default"):
        sh("sysctl", "-qw", f"net.core.{key}=33554432")  # not per netns
    return mac


class BenchCapture(Capture):
    """tcpdump on v1, on the receiving CPU, the pcap kept for the host."""

    def command(self):
        cmd = super().command()
        at = 4 if self.ns else 0        # after "ip netns exec NS"
        return cmd[:at] + ["taskset", "-c", str(RECV_CPU)] + cmd[at:]


def captured(out, name, run):
    """Run run() under a capture on v1; keep the pcap as OUTDIR/name.pcap."""
    cap = BenchCapture(RX, ns=NS, bpf="udp and not port 9000",
                       buffer_kib=131072, parse=False)
    with cap:
        with Meter(sample=True) as m:
            info = run()
    shutil.move(cap.path, out / f"{name}.pcap")
    return dict(info or {}, meter=m.result, capture=dict(
        captured=cap.captured, dropped=cap.dropped,
        if_dropped=cap.if_dropped))


# --- the tools -------------------------------------------------------------------

def idf_one(port, rate, dist, mode, length=SMALL, count=None, duration=None,
            listen=False):
    lines = []
    if listen:
        lines.append(f"listen {RX}@{NS}")
    lines += [f"dev {TX}", f"cpu {SEND_CPU}", f"pkts fixed {length} {length}",
              f"dist {dist}", f"inta {round(1e9 / rate)}ns",
              f"mode {mode}"]
    if count:
        lines.append(f"count {count}")
    if duration:
        lines.append(f"time relative 0 {duration}s")
    lines.append(f"tgid 1 dst {RX_IP}:{port}")
    return "\n".join(lines) + "\n"


def mtgctl_run(out, name, idf, *extra, timeout=3600):
    path = out / f"{name}.idf"
    write(path, idf)
    summary = out / f"{name}.json"
    res = sh(MTGCTL, "run", path, "--batch", "--json", summary, *extra,
             cpu=RECV_CPU, check=False, timeout=timeout)
    write(out / f"{name}.log", res.stdout + res.stderr)
    if res.returncode not in (0, 2) or not summary.exists():
        raise RuntimeError(f"mtgctl run {name} exited {res.returncode}:\n"
                           f"{res.stderr[-2000:]}")
    return dict(rc=res.returncode, summary=str(summary.name))


def pktgen_cmd(target, line):
    with open(PKTGEN / target, "w") as f:
        f.write(line + "\n")


def pktgen_run(mac, port, count, delay_ns, length):
    pktgen_cmd(f"kpktgend_{SEND_CPU}", "rem_device_all")
    pktgen_cmd(f"kpktgend_{SEND_CPU}", f"add_device {TX}")
    for line in (f"count {count}", f"delay {delay_ns}", f"pkt_size {length}",
                 "clone_skb 0", f"dst {RX_IP}", f"src_min {TX_IP}",
                 f"src_max {TX_IP}", f"dst_mac {mac}",
                 f"udp_dst_min {port}", f"udp_dst_max {port}",
                 "udp_src_min 9", "udp_src_max 9"):
        pktgen_cmd(TX, line)
    pktgen_cmd("pgctrl", "start")       # returns when count is sent
    result = (PKTGEN / TX).read_text()
    pktgen_cmd(f"kpktgend_{SEND_CPU}", "rem_device_all")
    m = re.search(r"Result: OK: (\d+)\(.*?\n.*?(\d+)pps", result, re.S)
    return dict(result=result, pps=int(m.group(2)) if m else None,
                usec=int(m.group(1)) if m else None)


def ditg_run(port, rate, count, length, poll):
    seconds = count / rate
    cmd = ["ITGSend", "-a", RX_IP, "-T", "UDP", "-rp", port, "-C", rate,
           "-c", length - UDP_OVERHEAD, "-z", count,
           "-t", int((2.5 * seconds + 10) * 1000)]
    if poll:
        cmd.append("-poll")
    res = sh(*cmd, cpu=SEND_CPU, check=False, timeout=4 * seconds + 120,
             cwd="/run")
    return dict(rc=res.returncode, output=(res.stdout + res.stderr)[-3000:])


def floor_run(out, name, period_ns, count, hard=False):
    sh("insmod", FLOOR_KO, f"period_ns={period_ns}", f"count={count}",
       f"cpu={SEND_CPU}", f"hard={int(hard)}")
    try:
        deadline = time.monotonic() + 10 * count * period_ns / 1e9 + 60
        while (FLOOR_DIR / "done").read_text().strip() != "1":
            if time.monotonic() > deadline:
                raise RuntimeError("mtg_floor did not finish")
            time.sleep(0.5)
        shutil.copyfile(FLOOR_DIR / "lateness", out / f"{name}.s64")
    finally:
        sh("rmmod", "mtg_floor")
    return dict(file=f"{name}.s64")


def cyclictest_run(out, name, period_ns, count):
    res = sh("cyclictest", "-m", "-p", "90", "-t", "1", "-a", SEND_CPU,
             "-i", max(1, period_ns // 1000), "-l", count, "-v", "-N",
             check=False, timeout=10 * count * period_ns / 1e9 + 120)
    if res.returncode:
        raise RuntimeError(f"cyclictest exited {res.returncode}: "
                           f"{res.stderr[-500:]}")
    # -v: "thread:loop:latency" a line; -N: latencies in ns.
    values = re.findall(r"^\s*0:\s*\d+:\s*(\d+)\s*$", res.stdout, re.M)
    write(out / f"{name}.txt", "\n".join(values) + "\n")
    return dict(file=f"{name}.txt", samples=len(values))


# --- the experiments -----------------------------------------------------------------

def attempt(results, what, fn):
    """fn()'s result; if it fails, the failure goes into the results (the
    report lists it) and the benchmark goes on with the next run."""
    try:
        return fn()
    except Exception as e:  # noqa: BLE001 - any failure is reported
        log("FAILED:", what, e)
        results.append(dict(what, error=f"{type(e).__name__}: {e}"[-3000:]))
        return None

def rotate(items, rep):
    k = rep % len(items)
    return items[k:] + items[:k]


def precision(out, plan, mac, rep):
    n = plan["departures"]
    results = []
    for rate in plan["rates"]:
        period = round(1e9 / rate)
        port = iter(range(5001, 5100))
        runs = []
        for dist in ("fixed", "exponential"):
            for mode in ("plain", "precise"):
                p = next(port)
                runs.append((f"mtg-{'cbr' if dist == 'fixed' else 'poisson'}"
                             f"-{mode}", p, "capture",
                             lambda name, d=dist, m=mode, p=p: mtgctl_run(
                                 out, name, idf_one(p, rate, d, m, count=n))))
        p = next(port)
        runs.append(("pktgen", p, "capture",
                     lambda name, p=p: pktgen_run(mac, p, n, period, SMALL)))
        for poll in (False, True):
            p = next(port)
            runs.append(("ditg-poll" if poll else "ditg", p, "capture",
                         lambda name, p=p, poll=poll: ditg_run(
                             p, rate, n, SMALL, poll)))
        runs.append(("floor-soft", None, "floor", None))
        runs.append(("cyclictest", None, "cyclictest", None))
        for tool, port_, kind, fn in rotate(runs, rep):
            name = f"precision-{rate}-{tool}-r{rep}"
            log("precision", rate, tool, "rep", rep)
            def measure():
                if kind == "capture":
                    return captured(out, name, lambda: fn(name))
                with Meter() as m:
                    info = (floor_run(out, name, period, n) if kind == "floor"
                            else cyclictest_run(out, name, period, n))
                return dict(info, meter=m.result)
            info = attempt(results, dict(kind="precision", tool=tool,
                                         rate=rate, rep=rep), measure)
            if info is None:
                continue
            results.append(dict(kind="precision", tool=tool, rate=rate,
                                rep=rep, port=port_, departures=n,
                                period_ns=period, name=name, **info))
    return results


def steady_rate(samples, edge_s=0.6):
    """Frames/s over the part of a run where the count moved, its ends cut."""
    moving = [i for i in range(1, len(samples))
              if samples[i][1] > samples[i - 1][1]]
    if len(moving) < 3:
        return None
    t_first, t_last = samples[moving[0] - 1][0], samples[moving[-1]][0]
    window = [(t, c) for t, c in samples
              if t_first + edge_s * 1e9 <= t <= t_last - edge_s * 1e9]
    if len(window) < 2:
        window = [samples[moving[0] - 1], samples[moving[-1]]]
    (ta, ca), (tb, cb) = window[0], window[-1]
    return (cb - ca) * 1e9 / (tb - ta)


def rate(out, plan, mac, rep):
    """The highest rate of each tool at equal frame sizes, one CPU."""
    seconds = plan["rate_seconds"]
    results = []
    best = {}
    for length in plan["rate_lengths"]:
        def entry(tool, requested, info, m):
            r = dict(kind="rate", tool=tool, length=length, rep=rep,
                     requested=requested, wire_pps=steady_rate(m["samples"]),
                     meter=m, **info)
            results.append(r)
            return r

        peers = [("pktgen", None), ("trafgen", None), ("iperf3", None),
                 ("ditg", None), ("ditg-poll", None)]
        for tool, _ in rotate(peers, rep):
            log("rate", length, tool, "rep", rep)

            def measure():
                with Meter(sample=True) as m:
                    if tool == "pktgen":
                        info = pktgen_run(mac, 6001, plan["rate_pktgen_count"],
                                          0, length)
                    elif tool == "trafgen":
                        info = trafgen_run(out, mac, 6002, length,
                                           plan["rate_pktgen_count"])
                    elif tool == "iperf3":
                        info = iperf3_run(out, length, seconds)
                    else:
                        info = ditg_run(6004, plan["rate_ditg_asked"],
                                        plan["rate_ditg_asked"] * seconds,
                                        length, tool == "ditg-poll")
                return entry(tool, None, info, m.result)
            r = attempt(results, dict(kind="rate", tool=tool, length=length,
                                      rep=rep), measure)
            if r and tool == "pktgen":
                best[("pktgen", length)] = r.get("pps") or r["wire_pps"]
        # mtg: CBR timetables at rising rates, relative to pktgen's ceiling
        ceiling = best.get(("pktgen", length)) or 50000
        sustained = None
        for factor in plan["rate_ladder"]:
            # a whole number of ns between departures: exactly this rate
            asked = 1e9 / round(1e9 / (ceiling * factor))
            log("rate", length, "mtg", round(asked), "rep", rep)
            name = f"rate-{length}-mtg-{round(asked)}-r{rep}"
            def measure():
                with Meter(sample=True) as m:
                    info = mtgctl_run(out, name, idf_one(
                        6010, asked, "fixed", "plain", length=length,
                        duration=seconds))
                summary = json.loads((out / f"{name}.json").read_text())
                tg = summary["tgs"][0]
                return entry("mtg", asked, dict(
                    info, sent=tg["sent"], lateness_ns=tg["lateness_ns"]),
                    m.result)
            r = attempt(results, dict(kind="rate", tool="mtg", length=length,
                                      rep=rep, requested=asked), measure)
            if r is None:
                break
            # sustained: the wire kept the timetable's rate to within 1%
            ok = r["wire_pps"] and r["wire_pps"] >= 0.99 * asked and \
                r["sent"] >= 0.99 * asked * seconds
            r["sustained"] = bool(ok)
            if not ok:
                break
            sustained = asked
        best[("mtg", length)] = sustained
    return results, best


def trafgen_run(out, mac, port, length, count):
    """trafgen sending count frames (it stops by itself: a SIGINT reaches
    only its parent, and the child it forks per CPU sends on)."""
    conf = out / f"trafgen-{length}.txf"
    write(conf, "{ eth(da=%s, type=0x0800), ipv4(sa=%s, da=%s, ttl=64), "
          "udp(sp=9, dp=%d), fill(0x00, %d) }\n"
          % (mac, TX_IP, RX_IP, port, length - UDP_OVERHEAD))
    proc = subprocess.Popen(["trafgen", "-o", TX, "-i", str(conf), "-P", "1",
                             "-n", str(count), "-q", "-Q"],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            text=True, cwd="/run", start_new_session=True)
    try:
        output, _ = proc.communicate(timeout=120)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        raise
    return dict(rc=proc.returncode, output=output[-2000:])


def iperf3_run(out, length, seconds):
    res = sh("iperf3", "-c", RX_IP, "-u", "-b", "0", "-l",
             length - UDP_OVERHEAD, "-t", seconds, "-A", SEND_CPU, "-J",
             check=False, timeout=seconds + 60)
    try:
        data = json.loads(res.stdout)
        end = data["end"]["sum"]
        return dict(rc=res.returncode, sent=end.get("packets"),
                    lost=end.get("lost_packets"))
    except (ValueError, KeyError):
        return dict(rc=res.returncode, output=(res.stdout + res.stderr)[-2000:])


def scaling(out, plan, rep):
    total = plan["scale_total_pps"]
    seconds = plan["scale_seconds"]
    results = []
    for n in rotate(plan["scale_tgs"], rep):
        gap_ns = round(n * 1e9 / total)
        lines = [f"dev {TX}", f"cpu {SEND_CPU}", f"pkts fixed {SMALL} {SMALL}",
                 "dist fixed", f"inta {gap_ns}ns"]
        for i in range(n):
            # TG i starts i/total s after T0: the departures interleave
            lines.append(f"tgid {i + 1} dst {RX_IP}:{7000 + i % 1000} "
                         f"time relative {i * 1_000_000_000 // total}ns "
                         f"{seconds}s")
        name = f"scale-{n}-r{rep}"
        log("scaling", n, "TGs rep", rep)
        # time to set up every TG before T0 under emulation: 1 ms each
        delay = f"{5 + n // 1000}s"
        info = attempt(results, dict(kind="scaling", tgs=n, rep=rep),
                       lambda: captured(out, name, lambda: mtgctl_run(
                           out, name, "\n".join(lines) + "\n",
                           "--start-delay", delay)))
        if info is None:
            continue
        results.append(dict(kind="scaling", tgs=n, total_pps=total,
                            seconds=seconds, rep=rep, name=name, **info))
    return results


def recording(out, plan, best, rep):
    top = best.get(("mtg", SMALL)) or plan["rates"][-1]
    results = []
    for factor in plan["record_ladder"]:
        asked = 1e9 / round(1e9 / (top * factor))
        name = f"record-{round(asked)}-r{rep}"
        log("recording", asked, "rep", rep)
        rec = pathlib.Path("/run") / f"{name}.rec"

        def measure():
            with Meter(sample=True) as m:
                info = mtgctl_run(out, name, idf_one(
                    6020, asked, "fixed", "plain",
                    duration=plan["rate_seconds"], listen=True),
                    "-o", rec, "--ring", plan["record_ring"])
            summary = json.loads((out / f"{name}.json").read_text())
            rec.unlink(missing_ok=True)
            return dict(kind="recording", rep=rep, requested=asked,
                        sent=summary["tgs"][0]["sent"],
                        records=summary["recording"]["records"],
                        ring_drops=summary["ring_drops"],
                        received=summary["tgs"][0].get("received"),
                        wire_pps=steady_rate(m.result["samples"]),
                        meter=m.result, **info)
        r = attempt(results, dict(kind="recording", rep=rep,
                                  requested=asked), measure)
        if r is None:
            break
        results.append(r)
        if r["ring_drops"] == 0:
            break
    return results


class Perf:
    """perf record on every CPU around one run (cpu-clock: no hardware
    counters under emulation), then what each CPU spent its samples on,
    by symbol and by program, as text in OUTDIR/profile/NAME-cpuN.txt.

    perf takes 20-30 s under TCG to set up a system-wide record, and a
    fixed wait before the run lost it entirely: perf runs a workload that
    says when the events are on and waits for its stdin to close."""

    # A fixed period, not -F: perf's frequency mode retunes the period
    # under TCG and the sample count then says nothing of time covered.
    PERIOD_NS = 500000

    def __init__(self, out, name):
        self.dir = out / "profile"
        self.dir.mkdir(exist_ok=True)
        self.name, self.data = name, self.dir / f"{name}.data"

    def __enter__(self):
        self.proc = subprocess.Popen(
            ["perf", "record", "-q", "-e", "cpu-clock", "-c", str(self.PERIOD_NS),
             "-a", "-g", "-o", str(self.data), "--",
             "sh", "-c", "echo recording; read -r _; exit 0"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.PIPE, text=True)
        if self.proc.stdout.readline().strip() != "recording":
            self.proc.kill()
            raise RuntimeError("perf record: " + self.proc.stderr.read())
        return self

    def __exit__(self, *exc):
        _, err = self.proc.communicate(timeout=300)     # closes stdin
        if self.proc.returncode:
            raise RuntimeError(f"perf record: exit {self.proc.returncode}: "
                               + err[-500:])
        for cpu in (SEND_CPU, RECV_CPU):
            text = []
            for sort in ("comm,dso", "sym"):
                res = sh("perf", "report", "-i", self.data, "--stdio",
                         "--no-children", "--sort", sort, "--cpu", cpu,
                         "-g", "none", "--percent-limit", "0.5",
                         check=False, timeout=600)
                text.append(res.stdout or res.stderr)
            write(self.dir / f"{self.name}-cpu{cpu}.txt",
                  f"# perf record -e cpu-clock -a: CPU {cpu}\n"
                  + err[-500:] + "\n".join(text))
        # who called the sending CPU's heaviest symbols
        res = sh("perf", "report", "-i", self.data, "--stdio", "--no-children",
                 "--sort", "sym", "--cpu", SEND_CPU, "--percent-limit", "4",
                 "-g", "caller,2,callee,function,percent", "--max-stack", "12",
                 check=False, timeout=600)
        write(self.dir / f"{self.name}-cpu{SEND_CPU}-callers.txt",
              res.stdout or res.stderr)
        self.data.unlink(missing_ok=True)


def profile(out, plan, mac, best):
    """Where the sending CPU's time goes where mtg fell short: 1024-byte
    frames at pktgen's rate (mtg and pktgen), and mtg's top 130-byte rate
    with and without recording what comes back."""
    seconds = plan["rate_seconds"]
    results = []
    ceiling = best.get(("pktgen", 1024))
    if not ceiling:
        ceiling = pktgen_run(mac, 6039, plan["rate_pktgen_count"], 0,
                             1024)["pps"] or 50000
    top = best.get(("mtg", SMALL)) or plan["rates"][-1]
    rec = pathlib.Path("/run/profile.rec")
    cases = [
        ("pktgen-1024", lambda: pktgen_run(
            mac, 6040, round(ceiling * seconds), 0, 1024)),
        ("mtg-1024", lambda: mtgctl_run(out, "profile-mtg-1024", idf_one(
            6041, ceiling, "fixed", "plain", length=1024,
            duration=seconds))),
        ("mtg-130", lambda: mtgctl_run(out, "profile-mtg-130", idf_one(
            6042, top, "fixed", "plain", duration=seconds))),
        ("mtg-130-recording", lambda: mtgctl_run(
            out, "profile-mtg-130-recording", idf_one(
                6043, top, "fixed", "plain", duration=seconds, listen=True),
            "-o", rec, "--ring", plan["record_ring"])),
    ]
    for name, run in cases:
        log("profile", name)

        def measure():
            with Perf(out, name), Meter(sample=True) as m:
                info = run()
            rec.unlink(missing_ok=True)
            return dict(kind="profile", case=name, rep=0,
                        perf_period_ns=Perf.PERIOD_NS,
                        wire_pps=steady_rate(m.result["samples"]),
                        meter=m.result,
                        **{k: v for k, v in info.items() if k != "result"})
        r = attempt(results, dict(kind="profile", case=name, rep=0), measure)
        if r:
            results.append(r)
    return results


def main():
    plan = json.loads(pathlib.Path(sys.argv[1]).read_text())
    out = pathlib.Path(sys.argv[2]).resolve()
    out.mkdir(parents=True, exist_ok=True)
    clock = "/sys/devices/system/clocksource/clocksource0/current_clocksource"
    write(out / "guest.json", json.dumps(dict(
        kernel=os.uname().release, cpus=os.cpu_count(),
        mem_kib=int(open("/proc/meminfo").read().split()[1]),
        clocksource=pathlib.Path(clock).read_text().strip(),
        accel=plan["accel"], tcg_thread=plan["tcg_thread"])))
    mac = setup_network()
    sh("insmod", ROOT / "kmod" / "mtg.ko", f"max_tgs={plan['max_tgs']}")
    sh("modprobe", "pktgen")
    receivers = [subprocess.Popen(["ip", "netns", "exec", NS, "taskset", "-c",
                                   str(RECV_CPU)] + cmd,
                                  stdout=subprocess.DEVNULL,
                                  stderr=subprocess.DEVNULL, cwd="/run")
                 for cmd in (["ITGRecv"], ["iperf3", "-s"])]
    time.sleep(3)
    results = []
    hosts_state = {}
    try:
        for rep in range(plan["reps"]):
            if "precision" in plan["parts"]:
                results += precision(out, plan, mac, rep)
            best = {}
            if "rate" in plan["parts"]:
                r, best = rate(out, plan, mac, rep)
                results += r
            if "scaling" in plan["parts"]:
                results += scaling(out, plan, rep)
            if "recording" in plan["parts"]:
                results += recording(out, plan, best, rep)
            if "profile" in plan["parts"] and rep == 0:
                results += profile(out, plan, mac, best)
            if "hosts" in plan["parts"]:
                results += guest_hosts.hosts(sys.modules[__name__], out, plan,
                                             rep, hosts_state)
            write(out / "runs.json", json.dumps(results, indent=1))
    finally:
        for p in receivers:
            p.terminate()
        write(out / "runs.json", json.dumps(results, indent=1))
        sh("rmmod", "mtg", check=False)
    log("done:", len(results), "runs")


if __name__ == "__main__":
    main()
