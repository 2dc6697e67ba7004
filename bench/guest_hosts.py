# SPDX-License-Identifier: GPL-2.0-or-later
"""The `hosts` part of `make bench` (bench/guest.py runs it in the VM;
Documentation/benchmarks.rst, "Many hosts"): seed 004's experiment.

N emulated hosts, each a network namespace of examples/hosts.sh joined to
one bridge, send to one receiver namespace behind it, every host at the
same rate: the aggregate grows with N. The per-host rate is set once, from
the ceiling of this topology measured first (pktgen from host 1 through
the bridge, what reaches the receiver's interface a second): plan
hosts_load times the ceiling at the largest N, so the aggregate crosses
the ceiling at the high end, as the paper's 1000 packets/s a host did on
its machines. Three senders, one after the other on the same topology,
in an order that turns with the repetition:

- ``mtg``: one mtg session, a TG per host namespace, recorded by the same
  session's receive path on the receiver's interface (MTG's loop-back;
  the MTG header makes its smallest UDP payload 88 bytes);
- ``ditg``: one ITGSend per host namespace, the way seed 004 ran D-ITG
  (64-byte UDP payloads), to ITGRecvs in the receiver's namespace;
- ``mtg-itgrecv``: mtg's TGs with D-ITG's header and payloads to those
  same ITGRecvs over D-ITG's signalling (header ditg, rcvr ditg): the
  same receivers and packets as ``ditg``, only the senders differ.

ITGRecv writes its log when a flow is closed and drops what it reads
after: ITGSend closes right after its last packet, so ``ditg``'s loss
holds what was still queued at ITGRecv then (as the paper's did), while
mtgctl run waits its drain before closing (``mtg-itgrecv``).

An ITGRecv takes at most 400 signalling connections in its life (its
table of MAX_NUM_THREAD, never reused; the next connection overruns its
stack), and each ITGSend or mtg flow is one: every run starts fresh
ITGRecvs, one per PER_ITGRECV hosts, each on its own signalling port.

Every sender runs on CPU 0: the ITGSend processes (and their launching),
the TGs (their `cpu`) and mtgctl where it only sends (mtg-itgrecv). The
receivers run on CPU 1: the ITGRecvs, the module's receive work (RPS on
the receiver's interface) and mtgctl where it records (mtg). Kept per run:
each host's packets received (distinct sequence numbers) and its first
and last arrival; the CPUs' busy time; the memory used (MemAvailable at
its lowest during the run against before it); the set-up time, from the
launch to the first packet of the last host to start, at the receiver;
and a capture on host 1's interface, for one host's inter-departure
error. A second series sends from plan hosts_payload_n hosts with UDP
payloads of each of plan hosts_payloads bytes, at the same per-host rate:
the sending CPU against the payload.
"""

import json
import os
import pathlib
import shutil
import signal
import subprocess
import threading
import time

import numpy as np

HOSTS_SH = pathlib.Path(__file__).resolve().parents[1] / "examples/hosts.sh"
PREFIX = "bh"
RX_NS = f"{PREFIX}-rx"
RX_ADDR = "10.255.0.1"
RX_MAC = "02:6d:74:67:ff:01"    # examples/hosts.sh's
SIG_PORT = 9000         # the first ITGRecv's signalling; the next +1, ...
PER_ITGRECV = 200       # hosts an ITGRecv serves (of its 400 connections)
BASE_PORT = 10000       # host n sends to BASE_PORT + n
UDP_OVER = 42           # Ethernet, IPv4, UDP
MTG_PAYLOAD = 88        # the MTG header: mtg's smallest UDP payload
SEND_CPU, RECV_CPU = 0, 1
DAY_NS = 86400 * 10**9


def host_addr(n):
    return f"10.{n // 250}.{n % 250}.1"


def mem_available_kib():
    for line in open("/proc/meminfo"):
        if line.startswith("MemAvailable:"):
            return int(line.split()[1])
    return 0


class MemLow:
    """MemAvailable before, and at its lowest while the block runs."""

    def __enter__(self):
        self.before = self.low = mem_available_kib()
        self._stop = threading.Event()
        self.thread = threading.Thread(target=self._sample, daemon=True)
        self.thread.start()
        return self

    def _sample(self):
        while not self._stop.wait(0.25):
            self.low = min(self.low, mem_available_kib())

    def __exit__(self, *exc):
        self._stop.set()
        self.thread.join()
        self.low = min(self.low, mem_available_kib())
        self.used_kib = self.before - self.low


def on_cpu(cpu):
    """Run the calling thread (and what it spawns) on cpu; the old set."""
    old = os.sched_getaffinity(0)
    os.sched_setaffinity(0, {cpu})
    return old


class Hosts:
    """The topology of n hosts, and the bench's helpers (g: guest.py)."""

    def __init__(self, g, out):
        self.g, self.out = g, out
        self.n = 0

    def up(self, n):
        self.down()
        began = time.monotonic()
        self.g.sh(HOSTS_SH, "up", n, "--prefix", PREFIX, timeout=3600)
        self.n = n
        # the receiving CPU takes the receiver's packets (RPS)
        self.g.sh("sh", "-c", f"echo {1 << RECV_CPU:x} > "
                  "/sys/class/net/eth0/queues/rx-0/rps_cpus", ns=RX_NS)
        return time.monotonic() - began

    def down(self):
        if self.n:
            self.g.sh(HOSTS_SH, "down", "--prefix", PREFIX, timeout=3600)
        self.n = 0

    def rx_packets(self):
        return int(self.g.sh("cat", "/sys/class/net/eth0/statistics/"
                             "rx_packets", ns=RX_NS).stdout)

    def itgrecvs(self, name, n):
        """Fresh ITGRecvs for n hosts, on the receiving CPU: [(process,
        log)], host i's at index (i - 1) // PER_ITGRECV."""
        out = []
        for k in range((n + PER_ITGRECV - 1) // PER_ITGRECV):
            log = pathlib.Path("/run") / f"{name}-{k}.itglog"
            p = subprocess.Popen(
                ["ip", "netns", "exec", RX_NS, "taskset", "-c",
                 str(RECV_CPU), "ITGRecv", "-Sp", str(SIG_PORT + k),
                 "-l", str(log)], stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL, cwd="/run")
            out.append((p, log))
        deadline = time.monotonic() + 120
        for k, (p, _) in enumerate(out):
            while not self.g.sh("ss", "-Hltn", f"sport = :{SIG_PORT + k}",
                                ns=RX_NS).stdout.strip():
                if p.poll() is not None or time.monotonic() > deadline:
                    stop(out)
                    raise RuntimeError(f"ITGRecv -Sp {SIG_PORT + k} does "
                                       "not listen")
                time.sleep(0.1)
        return out

    def measured(self, name, launch):
        """launch() under the meters: its result, the CPUs' busy time, the
        memory used; host 1's capture kept as OUT/name-h1.pcap."""
        cap = self.g.Capture("eth0", ns=f"{PREFIX}1",
                             bpf=f"udp and dst port {BASE_PORT + 1}",
                             buffer_kib=16384, parse=False)
        with cap, MemLow() as mem, self.g.Meter() as m:
            began = dict(tai_ns=time.clock_gettime_ns(time.CLOCK_TAI),
                         utc_ns=time.time_ns())
            info = launch()
        shutil.move(cap.path, self.out / f"{name}-h1.pcap")
        return dict(info, began=began, meter=m.result,
                    mem_used_kib=mem.used_kib, mem_before_kib=mem.before,
                    capture=dict(captured=cap.captured, dropped=cap.dropped,
                                 if_dropped=cap.if_dropped))


def stop(itgrecvs):
    """ITGRecv writes its log as it goes; SIGINT ends it."""
    for p, _ in itgrecvs:
        p.send_signal(signal.SIGINT)
    for p, _ in itgrecvs:
        try:
            p.wait(timeout=120)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()


def ceiling(h, payload, count):
    """Frames a second of UDP payload bytes that reach the receiver's
    interface from host 1 through the bridge: pktgen (that namespace's
    threads) sending count frames without a pause, on the sending CPU."""
    ns = f"{PREFIX}1"

    def pg(target, line):
        h.g.sh("sh", "-c", f"echo '{line}' > /proc/net/pktgen/{target}",
               ns=ns, timeout=1200)
    thread = f"kpktgend_{SEND_CPU}"
    pg(thread, "rem_device_all")
    pg(thread, "add_device eth0")
    for line in (f"count {count}", "delay 0", f"pkt_size {payload + UDP_OVER}",
                 "clone_skb 0", f"dst {RX_ADDR}", f"src_min {host_addr(1)}",
                 f"src_max {host_addr(1)}", f"dst_mac {RX_MAC}",
                 "udp_dst_min 9", "udp_dst_max 9", "udp_src_min 9",
                 "udp_src_max 9"):
        pg("eth0", line)
    before = h.rx_packets()
    began = time.monotonic_ns()
    pg("pgctrl", "start")       # returns when count is sent
    took = time.monotonic_ns() - began
    time.sleep(1)               # what is queued arrives
    delivered = h.rx_packets() - before
    result = h.g.sh("cat", "/proc/net/pktgen/eth0", ns=ns).stdout
    pg(thread, "rem_device_all")
    return dict(count=count, delivered=delivered, seconds=took / 1e9,
                pps=delivered * 1e9 / took, pktgen=result[-1500:])


def idf(n, rate, count, payload, ditg):
    """The run: a TG a host; D-ITG's header to the ITGRecvs, or mtg's own
    recorded at the receiver."""
    lines = ["dev eth0", f"mac {RX_MAC}", f"cpu {SEND_CPU}", "dist fixed",
             f"pkts fixed {payload + UDP_OVER}", f"inta {round(1e9 / rate)}ns",
             f"count {count}"]
    if ditg:
        lines.append("header ditg")
    else:
        lines.append(f"listen eth0@{RX_NS}")
    lines += [f"tgid 1-{n}", f"    netns {PREFIX}{{n}}",
              "    src 10.{n / 250}.{n % 250}.1",
              f"    dst {RX_ADDR}:{{{BASE_PORT} + n}}"]
    if ditg:
        lines.append(f"    rcvr ditg {RX_ADDR}:"
                     f"{{{SIG_PORT} + (n - 1) / {PER_ITGRECV}}}")
    return "\n".join(lines) + "\n"


def start_delay_s(n):
    """T0's margin: starting a TG (in its namespace) takes a few ms under
    TCG; the set-up time of mtg's runs is bounded by it."""
    return 2 + n / 50


def run_mtg(h, name, n, rate, count, payload, ditg):
    """One mtg session of n TGs. A start time passed (ETIME: the margin
    was short) is tried once more with twice the margin."""
    path = h.out / f"{name}.idf"
    path.write_text(idf(n, rate, count, payload, ditg))
    summary = h.out / f"{name}.json"
    rec = pathlib.Path("/run") / f"{name}.rec"
    delay = start_delay_s(n)
    for _ in range(2):
        rec.unlink(missing_ok=True)
        extra = [] if ditg else ["-o", rec, "--ring", 1048576]
        res = h.g.sh(h.g.MTGCTL, "run", path, "--batch", "--json", summary,
                     "--start-delay", f"{delay:.2f}", "--drain", "3", *extra,
                     cpu=SEND_CPU if ditg else RECV_CPU, check=False,
                     timeout=3600, ns=f"{PREFIX}1")
        (h.out / f"{name}.log").write_text(res.stdout + res.stderr)
        if res.returncode == 1 and "start time had passed" in res.stdout + res.stderr:
            delay *= 2
            continue
        break
    if res.returncode not in (0, 2) or not summary.exists():
        raise RuntimeError(f"mtgctl run {name} exited {res.returncode}:\n"
                           f"{(res.stdout + res.stderr)[-2000:]}")
    s = json.loads(summary.read_text())
    return dict(rc=res.returncode, summary=summary.name, start_delay_s=delay,
                t0_tai_ns=s["start_ns"],
                sent=[t["sent"] for t in s["tgs"]],
                recording=None if ditg else str(rec))


def run_itgsend(n, rate, count, payload):
    """One ITGSend a host namespace, launched one after the other from
    the sending CPU, each then on it; waits for every one."""
    seconds = count / rate
    procs = []
    mine = on_cpu(SEND_CPU)
    try:
        for i in range(1, n + 1):
            procs.append(subprocess.Popen(
                ["ip", "netns", "exec", f"{PREFIX}{i}", "taskset", "-c",
                 str(SEND_CPU), "ITGSend", "-a", RX_ADDR,
                 "-Sdp", str(SIG_PORT + (i - 1) // PER_ITGRECV),
                 "-rp", str(BASE_PORT + i), "-T", "UDP", "-C", str(rate),
                 "-c", str(payload), "-z", str(count),
                 "-t", str(int((3 * seconds + 30) * 1000))],
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                cwd="/run"))
    finally:
        os.sched_setaffinity(0, mine)
    failed = 0
    deadline = time.monotonic() + 4 * seconds + 600
    for p in procs:
        try:
            failed += p.wait(timeout=max(1, deadline - time.monotonic())) != 0
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()
            failed += 1
    return dict(itgsend_failed=failed)


def per_host(paths, n, by_addr):
    """Each host's packets in recordings or D-ITG logs: received
    (distinct sequence numbers), first and last arrival (ns: CLOCK_TAI
    in a recording, of the day (UTC) in a D-ITG log). A D-ITG log's flow
    is its host by source address; a recording's TG is its host."""
    from mtgsap.recording import open_recording
    out = dict(received=[0] * n, first_ns=[None] * n, last_ns=[None] * n)
    for path in paths:
        rec = open_recording(path)
        r = rec.records
        if not len(r):
            continue
        if by_addr:
            tg_of = {t["src"]["addr"]: t["id"] for t in rec.meta["tgs"]}
            hosts = {i: tg_of.get(host_addr(i)) for i in range(1, n + 1)}
        else:
            hosts = {i: i for i in range(1, n + 1)}
        order = np.argsort(r["tg_id"], kind="stable")
        ids = r["tg_id"][order]
        for i, tg in hosts.items():
            if tg is None:
                continue
            lo, hi = np.searchsorted(ids, [tg, tg + 1])
            if lo == hi:
                continue
            mine = r[order[lo:hi]]
            out["received"][i - 1] += int(np.unique(mine["seq"]).size)
            out["first_ns"][i - 1] = int(mine["rx_ns"].min())
            out["last_ns"][i - 1] = int(mine["rx_ns"].max())
    return out


def one_run(h, results, tool, n, rate, count, asked, rep, series):
    """One run of one tool; asked: the UDP payload (mtg's at least 88)."""
    payload = max(asked, MTG_PAYLOAD) if tool == "mtg" else asked
    name = f"hosts-{series}-{tool}-{n}-{asked}-r{rep}"
    what = dict(kind="hosts", series=series, tool=tool, hosts=n, rate=rate,
                count=count, payload=payload, payload_asked=asked, rep=rep)
    h.g.log("hosts", series, tool, n, "hosts,", payload, "B, rep", rep)

    def measure():
        recvs = h.itgrecvs(name, n) if tool != "mtg" else []
        try:
            if tool == "ditg":
                info = h.measured(name, lambda: run_itgsend(
                    n, rate, count, payload))
            else:
                info = h.measured(name, lambda: run_mtg(
                    h, name, n, rate, count, payload, tool != "mtg"))
        finally:
            stop(recvs)
        paths = [log for _, log in recvs] if recvs else [info["recording"]]
        try:
            info.update(per_host(paths, n, by_addr=tool != "mtg"))
        finally:
            for p in paths:
                pathlib.Path(p).unlink(missing_ok=True)
        # set-up: launch to the last host's first packet at the receiver
        firsts = [f for f in info["first_ns"] if f is not None]
        if len(firsts) == n:
            if tool == "mtg":
                info["setup_s"] = (max(firsts) - info["began"]["tai_ns"]) / 1e9
            else:
                began = info["began"]["utc_ns"] % DAY_NS
                info["setup_s"] = ((max(firsts) - began) % DAY_NS) / 1e9
        return info
    info = h.g.attempt(results, what, measure)
    if info is not None:
        results.append(dict(what, name=name, **info))


def hosts(g, out, plan, rep, state):
    """The part, one repetition: the N series, then the payload series.
    state keeps the per-host rate of the first repetition for the next."""
    results = []
    h = Hosts(g, out)
    # pktgen's threads are per namespace: a thousand namespaces would
    # have two thousand; it is loaded only to measure the ceiling
    g.sh("rmmod", "pktgen", check=False)
    # the orchestration (meters, captures, waiting) off the sending CPU
    mine = on_cpu(RECV_CPU)
    try:
        for n in plan["hosts_n"]:
            up = g.attempt(results, dict(kind="hosts-up", hosts=n, rep=rep),
                           lambda: h.up(n))
            if up is None:
                continue
            results.append(dict(kind="hosts-up", hosts=n, rep=rep, seconds=up))
            if "rate" not in state:
                g.sh("modprobe", "pktgen")
                try:
                    c = g.attempt(results, dict(kind="hosts-ceiling", rep=rep),
                                  lambda: ceiling(h, 64, plan[
                                      "hosts_ceiling_count"]))
                finally:
                    g.sh("rmmod", "pktgen", check=False)
                if c is None:
                    return results
                state["rate"] = max(1, round(
                    c["pps"] * plan["hosts_load"] / max(plan["hosts_n"])))
                results.append(dict(kind="hosts-ceiling", rep=rep,
                                    rate=state["rate"], **c))
            rate = state["rate"]
            count = round(rate * plan["hosts_seconds"])
            for tool in g.rotate(["mtg", "ditg", "mtg-itgrecv"], rep):
                one_run(h, results, tool, n, rate, count, 64, rep, "n")
        if "rate" not in state:
            return results
        n, rate = plan["hosts_payload_n"], state["rate"]
        count = round(rate * plan["hosts_seconds"])
        up = g.attempt(results, dict(kind="hosts-up", hosts=n, rep=rep),
                       lambda: h.up(n))
        if up is not None:
            for payload in plan["hosts_payloads"]:
                for tool in g.rotate(["mtg", "ditg"], rep):
                    one_run(h, results, tool, n, rate, count, payload, rep,
                            "payload")
    finally:
        h.down()
        g.sh("modprobe", "pktgen")
        os.sched_setaffinity(0, mine)
    return results
