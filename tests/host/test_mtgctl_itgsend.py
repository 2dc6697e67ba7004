# SPDX-License-Identifier: GPL-2.0-or-later
"""`mtgctl itgsend`: ITGSend's command line (D-ITG 2.8.1) into TGs.

Each supported option gives the TG `mtgctl check --json` shows for the
printed IDF, compared with what ITGSend makes of the option: its sources
(src/ITGSend/ITGSend.cpp flowParser() and flowSender(), src/ITGSend/
traffic.cpp, src/ITGSend/newran, src/common/ITG.h) are cited beside each
case. Every option mtg has no IDF for is an error naming it, with nothing
on stdout. The script form: several flows, blank lines, a bad line's
file:line:column. Then the real ITGSend and ITGRecv on the loopback of a
namespace the test makes: ITGDec's totals of what ITGSend sent (packets,
bytes) against mtg's timetable for the same options. Nothing here times
anything: the rates are compared as asked (the table's mean gap), never
as measured."""

import json
import math
import pathlib
import re
import shutil
import subprocess
import textwrap

import numpy as np
import pytest
import scipy.stats as sps

IPV4 = 14 + 20 + 8          # what a frame adds to -c's UDP payload
IPV6 = 14 + 40 + 8


def itgsend(mtgctl, *args, cwd=None):
    return subprocess.run([mtgctl, "itgsend", *map(str, args)], cwd=cwd,
                          capture_output=True, text=True)


def idf_of(mtgctl, tmp_path, *args):
    r = itgsend(mtgctl, *args, "--idf", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert r.stderr == ""
    return r.stdout


def tgs_of(mtgctl, tmp_path, *args):
    """The TGs mtgctl check --json shows for the IDF itgsend prints."""
    path = tmp_path / "itg.idf"
    path.write_text(idf_of(mtgctl, tmp_path, *args))
    r = subprocess.run([mtgctl, "check", path, "--json"],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)["tgs"]


def tg_of(mtgctl, tmp_path, *args):
    (tg,) = tgs_of(mtgctl, tmp_path, "-i", "lo", *args)
    return tg


def mean_gap(tg):
    g = tg["table"]["mean_gap_ns"]
    return g["num"] / g["den"]


def test_defaults_are_itgsends(mtgctl, tmp_path):
    # ITG.h: DEFAULT_DEST_IP 127.0.0.1, DEFAULT_PORT 8999; traffic.cpp:
    # DefaultPktPerSec 1000, DefaultPktSize 512, DefaultDuration 10000 ms,
    # DefaultDelay 0; ITGSend.h DefaultDSByte 0; TTL 0, the OS's 64
    tg = tg_of(mtgctl, tmp_path)
    assert tg["dst"] == {"addr": "127.0.0.1", "port": 8999}
    assert tg["family"] == "ipv4"
    assert tg["dist"] == "fixed"
    assert tg["pkts"] == {"kind": "fixed", "max": 512 + IPV4,
                          "min": 512 + IPV4}
    assert mean_gap(tg) == 1e6 and tg["table"]["exact"]
    assert (tg["start_ns"], tg["duration_ns"]) == (0, 10 * 10**9)
    assert (tg["count"], tg["tos"], tg["ttl"]) == (0, 0, 64)
    assert (tg["mode"], tg["late"], tg["dev"]) == ("plain", "catchup", "lo")


def test_addresses_and_ports(mtgctl, tmp_path):
    # flowParser: -a, -rp (DestHost), -sa, -sp (SrcHost)
    tg = tg_of(mtgctl, tmp_path, "-a", "10.1.2.3", "-rp", 9001,
               "-sa", "10.1.2.1", "-sp", 5000)
    assert tg["dst"] == {"addr": "10.1.2.3", "port": 9001}
    assert tg["src"] == {"addr": "10.1.2.1", "port": 5000}
    tg = tg_of(mtgctl, tmp_path, "-sp", 5001)
    assert tg["src"] == {"addr": None, "port": 5001}
    # IPv6: 40 bytes of IP header instead of 20
    tg = tg_of(mtgctl, tmp_path, "-a", "::1", "-c", 100)
    assert tg["family"] == "ipv6" and tg["dst"]["addr"] == "::1"
    assert tg["pkts"]["max"] == 100 + IPV6


@pytest.mark.parametrize("args, dist, params, gap", [
    # -C: SumRandom(1000.0 / rate * Constant), ms
    (["-C", 300, "-c", 250], "fixed", {"value_ns": 1e9 / 300}, 1e9 / 300),
    (["-C", 0.5], "fixed", {"value_ns": 2e9}, 2e9),
    # -E: 1000.0 / rate * Exponential: a Poisson process of that rate
    (["-E", 300], "exponential", {"mean_ns": 1e9 / 300}, None),
    # -U MIN MAX: 1000/MAX + (1000/MIN - 1000/MAX) * Uniform
    (["-U", 100, 400], "uniform", {"min_ns": 2.5e6, "max_ns": 1e7}, None),
    # -N MEAN SD: SD * Normal + MEAN
    (["-N", 5, 1], "normal", {"mean_ns": 5e6, "sd_ns": 1e6}, None),
    # -V SHAPE SCALE: SCALE * Pareto(SHAPE), newran's Pareto >= 1
    (["-V", 1.5, 2], "pareto", {"shape": 1.5, "scale_ns": 2e6}, None),
    # -Y LOCATION SCALE: SCALE * Cauchy + LOCATION
    (["-Y", 5, 1], "cauchy", {"median_ns": 5e6, "scale_ns": 1e6}, None),
    # -G SHAPE SCALE: SCALE * Gamma(SHAPE)
    (["-G", 2, 3], "gamma", {"shape": 2, "scale_ns": 3e6}, None),
    # -W A B: new Weibull(A, B), whose constructor is Weibull(scale_,
    # shape_) (newran.h), drawing scale * log(1/U)^(1 / shape): A is the
    # scale (ms), B the shape, whatever ITGSend's help calls them
    (["-W", 4, 2], "weibull", {"shape": 2, "scale_ns": 4e6}, None),
])
def test_idt_options(mtgctl, tmp_path, args, dist, params, gap):
    tg = tg_of(mtgctl, tmp_path, *args)
    assert tg["dist"] == dist
    for k, v in params.items():
        assert tg["dist_params"][k] == pytest.approx(v, rel=1e-9, abs=0.5)
    if gap:
        assert mean_gap(tg) == pytest.approx(gap, abs=1e-6)
        assert tg["table"]["exact"]


def test_weibull_gaps_follow_newrans_law(mtgctl, tmp_path):
    """-W 4 2 draws gaps of mean 4 * Gamma(1 + 1/2) ms (scale 4, shape 2),
    not 2 * Gamma(1 + 1/4) (the help's order): a z-test on 20000 gaps of
    the table, two-sided at 0.001, against both."""
    path = tmp_path / "w.idf"
    path.write_text(idf_of(mtgctl, tmp_path, "-i", "lo", "-W", 4, 2,
                           "-z", 20000))
    out = subprocess.run([mtgctl, "table", path, "--count", "20000"],
                         capture_output=True, text=True, check=True).stdout
    gaps = [int(line.split(",")[3]) / 1e6 for line in out.splitlines()[1:]]
    n = len(gaps)
    mean = sum(gaps) / n
    sd = math.sqrt(sum((g - mean) ** 2 for g in gaps) / (n - 1))

    def z(expected):
        return abs(mean - expected) / (sd / math.sqrt(n))
    assert z(4 * math.gamma(1.5)) < 3.29
    assert z(2 * math.gamma(1.25)) > 3.29


def test_sizes(mtgctl, tmp_path):
    # -c: the UDP payload; a frame adds Ethernet, IP and UDP headers
    tg = tg_of(mtgctl, tmp_path, "-c", 1000)
    assert tg["pkts"] == {"kind": "fixed", "max": 1000 + IPV4,
                          "min": 1000 + IPV4}
    # -u MIN MAX: (int)(MIN + (MAX - MIN) * Uniform) (flowParser, then
    # flowSender's (int) PktSize->Next()): MIN .. MAX - 1
    tg = tg_of(mtgctl, tmp_path, "-u", 100, 300)
    assert tg["pkts"] == {"kind": "variable", "max": 299 + IPV4,
                          "min": 100 + IPV4}


# ITGSend's size laws (flowParser's cases): the payload is (int) of the
# draw, at least its header, at most 64000 (flowSender); mtg's the same
# draw rounded down, + the headers (plus), clamped to its header .. 1472.
SIZE_LAWS = [
    (["-e", 400], "exponential", {"mean": 400}),        # 400 * Exp(1)
    (["-n", 500, 100], "normal", {"mean": 500, "sd": 100}),
    (["-o", 300], "poisson", {"mean": 300}),            # Poisson(300)
    (["-v", 1.5, 120], "pareto", {"shape": 1.5, "scale": 120}),
    (["-y", 400, 30], "cauchy", {"median": 400, "scale": 30}),
    (["-g", 2, 150], "gamma", {"shape": 2, "scale": 150}),
    # newran's Weibull(scale, shape): -w 600 1.5 is scale 600, shape 1.5
    (["-w", 600, 1.5], "weibull", {"shape": 1.5, "scale": 600}),
]


@pytest.mark.parametrize("args, law, params", SIZE_LAWS,
                         ids=[a[0][0] for a in SIZE_LAWS])
def test_size_laws(mtgctl, tmp_path, args, law, params):
    tg = tg_of(mtgctl, tmp_path, *args)
    p = tg["pkts"]
    assert (p["kind"], p["law"], p["params"], p["plus"]) == \
        ("law", law, params, IPV4)
    assert (p["min"], p["max"]) == (88 + IPV4, 1514)
    tg = tg_of(mtgctl, tmp_path, "-a", "::1", *args)
    assert (tg["pkts"]["plus"], tg["pkts"]["min"]) == (IPV6, 88 + IPV6)


def test_times_count_tos_ttl_and_the_rest(mtgctl, tmp_path):
    # -d, -t: ms; the first packet at the start, none at or after the end
    # (flowSender's loop while Ticker.lastTime < end_time)
    tg = tg_of(mtgctl, tmp_path, "-d", 750, "-t", 2500)
    assert (tg["start_ns"], tg["duration_ns"]) == (750 * 10**6, 2500 * 10**6)
    # -z with the default -t: flowSender sets Duration = ULONG_MAX
    tg = tg_of(mtgctl, tmp_path, "-z", 100)
    assert (tg["count"], tg["duration_ns"]) == (100, 0)
    tg = tg_of(mtgctl, tmp_path, "-z", 100, "-t", 3000)
    assert (tg["count"], tg["duration_ns"]) == (100, 3 * 10**9)
    # -b: the DS byte (strtol base 0), -f: the TTL (0: not set)
    tg = tg_of(mtgctl, tmp_path, "-b", "0xb8", "-f", 9)
    assert (tg["tos"], tg["ttl"]) == (0xb8, 9)
    assert tg_of(mtgctl, tmp_path, "-f", 0)["ttl"] == 64
    # -poll busy-waits the last of each gap: mtg's precise mode
    assert tg_of(mtgctl, tmp_path, "-poll")["mode"] == "precise"
    # -s: ITGSend's seed in (0, 1), onto mtg's 1 .. 2^31 - 2
    assert tg_of(mtgctl, tmp_path, "-s", 0.5)["seed"] == 1073741824
    # what ITGSend does anyway: UDP, the one-way meter, -j 1
    tg = tg_of(mtgctl, tmp_path, "-T", "UDP", "-m", "owdm", "-j", 1)
    assert (tg["late"], tg["dist"], tg["meter"]) == ("catchup", "fixed",
                                                     "owd")
    # -m rttm: round trips, through the receiver's reflector (slot 3)
    tg = tg_of(mtgctl, tmp_path, "-m", "rttm")
    assert (tg["meter"], tg["rtt_slot"]) == ("rtt", 3)
    # ... or, with --itgrecv, D-ITG's: ITGRecv sends each payload back
    tg = tg_of(mtgctl, tmp_path, "-m", "rttm", "--itgrecv")
    assert (tg["meter"], tg["rtt_slot"], tg["header"]) == ("rtt", None,
                                                           "ditg")


@pytest.mark.parametrize("args, dist, params", [
    # traffic.cpp voIPParser: -x codec, -h RTP|CRTP, -VAD, the rest of
    # the line
    (["VoIP"], "voip", {"codec": "G.711.1", "header": "rtp", "vad": False}),
    (["VoIP", "-x", "G.729.3", "-h", "CRTP", "-VAD"], "voip",
     {"codec": "G.729.3", "header": "crtp", "vad": True}),
    (["DNS"], "dns", {}),
    (["Quake3"], "quake3", {}),
    (["CSa"], "csa", {}),
    (["csi"], "csi", {}),           # findL7Proto: strcasecmp
])
def test_presets(mtgctl, tmp_path, args, dist, params):
    tg = tg_of(mtgctl, tmp_path, "-a", "127.0.0.1", *args)
    assert tg["dist"] == dist
    for k, v in params.items():
        assert tg["dist_params"][k] == v


def test_interface_from_i_dev_or_the_route(mtgctl, tmp_path):
    (tg,) = tgs_of(mtgctl, tmp_path, "-a", "127.0.0.1")
    assert tg["dev"] == "lo"        # ip route get 127.0.0.1: dev lo
    (tg,) = tgs_of(mtgctl, tmp_path, "--dev", "eth9")
    assert tg["dev"] == "eth9"
    (tg,) = tgs_of(mtgctl, tmp_path, "--dev", "eth9", "-i", "eth8")
    assert tg["dev"] == "eth8"


def test_key_asks_the_receiver(mtgctl, tmp_path):
    # -Sda defaults to -a, -Sdp to DEFAULT_PORT_SIGNALING 9000
    (tg,) = tgs_of(mtgctl, tmp_path, "-i", "lo", "-a", "10.0.0.2",
                   "--key", "k")
    assert tg["rcvr"] == {"addr": "10.0.0.2", "port": 9000}
    (tg,) = tgs_of(mtgctl, tmp_path, "-i", "lo", "-Sda", "10.0.0.9",
                   "-Sdp", 9100, "-x", "r.log", "--key", "k")
    assert tg["rcvr"] == {"addr": "10.0.0.9", "port": 9100}


def test_itgrecv_sets_flows_up_with_itgrecv(mtgctl, tmp_path):
    """--itgrecv: each flow carries D-ITG's header (so -c takes its 16
    bytes and more) and is set up with the ITGRecv at -Sda, -Sdp, over
    D-ITG's signalling, as ITGSend does."""
    (tg,) = tgs_of(mtgctl, tmp_path, "-i", "lo", "-a", "10.0.0.2", "-c",
                   20, "--itgrecv")
    assert (tg["header"], tg["rcvr_signalling"]) == ("ditg", "ditg")
    assert tg["rcvr"] == {"addr": "10.0.0.2", "port": 9000}
    assert tg["pkts"]["max"] == 20 + 42
    (tg,) = tgs_of(mtgctl, tmp_path, "-i", "lo", "-Sda", "10.0.0.9",
                   "-Sdp", 9100, "--itgrecv")
    assert tg["rcvr"] == {"addr": "10.0.0.9", "port": 9100}


@pytest.mark.parametrize("args, says", [
    (["-c", "20"], "'-c 20': mtg's header takes 88 bytes of the UDP "
     "payload, so the smallest payload is 88; D-ITG's header, 16, with "
     "--itgrecv"),
    (["-c", "15", "--itgrecv"], "'-c 15': D-ITG's header takes 16 bytes"),
    (["-x", "r.log", "--itgrecv"], "'-x' with --itgrecv: D-ITG's message "
     "naming ITGRecv's log is not sent"),
    (["-Sdp", "9100"], "'-Sdp' needs the receiver's signalling: give --key "
     "FILE"),
    (["--key", "k", "--itgrecv"], "--key (mtg's receivers) or --itgrecv "
     "(D-ITG's), not both"),
    (["-T", "TCP", "--itgrecv"], "'TCP' (over TCP) with --itgrecv: an "
     "ITGRecv reads D-ITG's payloads over TCP, which mtg does not send yet"),
    (["Telnet", "--key", "k"], "'Telnet' (over TCP) with --key: no mtgctl "
     "recv agrees flows over TCP yet"),
])
def test_receiver_errors(mtgctl, tmp_path, args, says):
    r = itgsend(mtgctl, "-i", "lo", *args, "--idf", cwd=tmp_path)
    assert r.returncode == 1
    assert says in r.stderr, r.stderr
    assert r.stdout == ""


@pytest.mark.parametrize("args, says", [
    (["-T", "icmp"], "'-T ICMP': D-ITG's echoes are logged by an ITGRecv, one way; mtg's are answered by the destination's kernel and measured as round trips: write an IDF with 'proto icmp' (Documentation/ditg.rst)"),
    (["-T", "SCTP", "1", "1"], "'-T SCTP': D-ITG's SCTP takes an association and its streams"),
    (["-T", "XTP"], "'-T' expects UDP, TCP, ICMP, SCTP or DCCP, got 'XTP'"),
    (["-m", "x"], "'-m' expects owdm or rttm, got 'x'"),
    (["-O", "100"], "'-O': ITGSend draws each gap as 1000/N ms"),
    (["-B", "C", "1"], "'-B': bursty"),
    (["-Ft", "f"], "'-Ft': gaps read from a file"),
    (["-Fs", "f"], "'-Fs': packet sizes read from a file"),
    (["-Fp", "f"], "'-Fp': mtg's payload"),
    (["-k", "10"], "'-k': a number of KBytes"),
    (["-l", "s.log"], "'-l': mtg keeps no sender-side log"),
    (["-L"], "'-L': logging to ITGLog"),
    (["-X"], "'-X': logging to ITGLog"),
    (["-q", "5"], "'-q': mtg keeps no sender-side log"),
    (["-x", "r.log"], "'-x' needs the receiver's signalling"),
    (["-Sda", "10.0.0.2"], "'-Sda' needs the receiver's signalling"),
    (["-Ssa", "10.0.0.1"], "'-Ssa': the signalling channel's source address"),
    (["-Ssp", "5"], "'-Ssp'"),
    (["-Si", "eth0"], "'-Si'"),
    (["-p", "1"], "'-p': the payload's metadata"),
    (["-H"], "'-H': NAT traversal"),
    (["-D"], "'-D': TCP's Nagle"),
    (["-j", "0"], "'-j 0'"),
    (["-sk", "ttyS0"], "'-sk': serial"),
    (["-rk", "ttyS0"], "'-rk': serial"),
    (["-Q"], "'-Q': ITGSend's daemon mode"),
    (["-Sp", "5000"], "'-Sp' is not an ITGSend option"),
    (["AoM"], "'AoM': ITGSend 2.8.1 has no AoM traffic"),
    (["-C", "abc"], "'-C' expects a rate above 0 (packets/s), got 'abc'"),
    (["-C", "0"], "'-C' expects a rate above 0 (packets/s), got '0'"),
    (["-C"], "'-C' expects a rate above 0 (packets/s), got end of arguments"),
    (["-U", "400", "100"], "'-U MIN MAX': MAX must be above MIN"),
    (["-u", "300", "100"], "'-u MIN MAX': MAX must be above MIN"),
    (["-c", "64"], "'-c 64': mtg's header takes 88 bytes of the UDP payload"),
    (["-u", "50", "300"], "'-u 50': mtg's header takes 88 bytes"),
    (["-c", "9000"], "'-c 9000': mtg sends no IP fragments: the largest UDP payload is 8976 bytes over IPv4"),
    (["-rp", "70000"], "'-rp' expects a port, 1 .. 65535, got '70000'"),
    (["-b", "256"], "'-b' expects a DS byte, 0 .. 255, got '256'"),
    (["-s", "1.5"], "'-s' expects a seed between 0 and 1, got '1.5'"),
    (["-a", "::1", "-sa", "127.0.0.1"], "'-sa' is IPv4 but the destination (-a) is IPv6"),
    (["Quake3", "-c", "200"], "'-c' after an application's preset"),
    (["VoIP", "-x", "G.999"], "VoIP's '-x' expects a codec"),
    (["VoIP", "-C", "5"], "'-C' after VoIP"),
    (["-Z"], "'-Z' is not an ITGSend option"),
    (["-h"], "'-h': for mtgctl's help on it: mtgctl help itgsend"),
])
def test_what_is_not_supported_is_an_error_naming_it(mtgctl, tmp_path, args,
                                                     says):
    r = itgsend(mtgctl, "-i", "lo", *args, "--idf", cwd=tmp_path)
    assert r.returncode == 1
    assert r.stdout == ""
    assert "mtgctl: itgsend: " + says in r.stderr, r.stderr
    assert r.stderr.endswith("itgsend: nothing started\n")


def test_a_run_goes_to_run_and_starts_nothing_without_the_module(
        mtgctl, tmp_path):
    r = itgsend(mtgctl, "-i", "lo", "-C", 10, "--batch", "--device",
                tmp_path / "no-mtg", cwd=tmp_path)
    assert r.returncode == 1
    assert f"cannot open {tmp_path / 'no-mtg'}" in r.stderr


def test_mtgctls_long_options_mix_with_itgsends(mtgctl, tmp_path):
    a = idf_of(mtgctl, tmp_path, "--dev", "lo", "-C", 100, "--idf")
    b = idf_of(mtgctl, tmp_path, "-C", "100", "--dev=lo")
    assert a == b
    r = itgsend(mtgctl, "--nosuch", "--idf")
    assert r.returncode == 1
    assert "unknown option '--nosuch'" in r.stderr


SCRIPT = """\
-a 127.0.0.1 -rp 9001 -C 100 -c 200 -t 2000

-a 127.0.0.1 -rp 9002 -E 50 -u 100 300 -d 500 -t 1500 -b 0x20
\t-a 127.0.0.1 -rp 9003 VoIP -x G.711.2
"""


def test_script_file(mtgctl, tmp_path):
    """modeScript(): a flow a line, flow ids 1, 2, ... (blank lines are
    skipped here, where ITGSend would send a default flow for a line of
    blanks)."""
    (tmp_path / "flows").write_text(SCRIPT)
    tgs = tgs_of(mtgctl, tmp_path, "flows", "--dev", "lo")
    assert [t["id"] for t in tgs] == [1, 2, 3]
    assert [t["dst"]["port"] for t in tgs] == [9001, 9002, 9003]
    assert mean_gap(tgs[0]) == 1e7
    assert tgs[0]["pkts"]["max"] == 200 + IPV4
    assert tgs[0]["duration_ns"] == 2 * 10**9
    assert tgs[1]["dist"] == "exponential"
    assert tgs[1]["dist_params"]["mean_ns"] == pytest.approx(2e7)
    assert tgs[1]["pkts"] == {"kind": "variable", "max": 299 + IPV4,
                              "min": 100 + IPV4}
    assert (tgs[1]["start_ns"], tgs[1]["tos"]) == (500 * 10**6, 0x20)
    assert tgs[2]["dist"] == "voip"
    idf = idf_of(mtgctl, tmp_path, "flows", "--dev", "lo")
    assert "# flow 2: flows line 3" in idf
    # after the file, ITGSend's global options: -x for every flow
    tgs = tgs_of(mtgctl, tmp_path, "flows", "-x", "r.log", "--key", "k",
                 "--dev", "lo")
    assert [t["rcvr"]["port"] for t in tgs] == [9000] * 3


def test_script_file_errors(mtgctl, tmp_path):
    (tmp_path / "bad").write_text(textwrap.dedent("""\
        -a 127.0.0.1 -rp 9001 -C 100
        -a 127.0.0.1 -rp 9002   -C abc
        -a 127.0.0.1 -x r.log
        -T ICMP
        -c 100 Quake3 -z 5
        """))
    r = itgsend(mtgctl, "bad", "--dev", "lo", "--idf", cwd=tmp_path)
    assert r.returncode == 1 and r.stdout == ""
    assert r.stderr.splitlines() == [
        "bad:2:28: error: flow 2: '-C' expects a rate above 0 (packets/s), got 'abc'",
        "bad:3:14: error: flow 3: '-x' is not allowed in a script file (as in ITGSend): give it after the file's name",
        "bad:4:4: error: flow 4: '-T ICMP': D-ITG's echoes are logged by an ITGRecv, one way; mtg's are answered by the destination's kernel and measured as round trips: write an IDF with 'proto icmp' (Documentation/ditg.rst)",
        "bad: nothing started",
    ]
    # a line whose preset came after -c: ITGSend's last-wins gives the
    # preset both, which mtg gives too
    (tmp_path / "ok").write_text("-c 100 Quake3 -z 5\n")
    (tg,) = tgs_of(mtgctl, tmp_path, "ok", "--dev", "lo")
    assert (tg["dist"], tg["count"]) == ("quake3", 5)
    # after the file: only ITGSend's global options
    r = itgsend(mtgctl, "ok", "-C", "5", "--idf", cwd=tmp_path)
    assert "'-C' after a script file" in r.stderr and r.returncode == 1
    r = itgsend(mtgctl, "ok", "-x", "--idf", cwd=tmp_path)
    assert "'-x' needs the receiver's signalling" in r.stderr
    # a file that is not there, or holds no flow
    r = itgsend(mtgctl, "nosuch", "--idf", cwd=tmp_path)
    assert "cannot read the script file nosuch" in r.stderr
    (tmp_path / "empty").write_text("\n  \n")
    r = itgsend(mtgctl, "empty", "--idf", cwd=tmp_path)
    assert "empty holds no flow" in r.stderr and r.returncode == 1


# The real ITGSend on the loopback of a namespace this test makes.

def ditg_totals(log):
    out = subprocess.run(["ITGDec", log], capture_output=True, text=True,
                         check=True).stdout
    total = out[out.index("TOTAL RESULTS"):]
    return {k: float(re.search(rf"{k}\s+=\s+([\d.]+)", total).group(1))
            for k in ("Total packets", "Bytes received")}


def run_itgsend(tmp_path, args):
    """ITGSend with args to an ITGRecv, both in a new network namespace
    (unshare -n: its own loopback), and ITGDec's totals of the sender's
    log. ITGRecv is waited for by its TCP port, not by a sleep."""
    log = tmp_path / "send.log"
    script = textwrap.dedent(f"""\
        ip link set lo up
        ITGRecv > {tmp_path}/recv.out 2>&1 &
        for i in $(seq 100); do
            ss -ltn | grep -q ':9000 ' && break
            sleep 0.1
        done
        ITGSend -a 127.0.0.1 {' '.join(map(str, args))} -l {log} \
            > {tmp_path}/send.out 2>&1
        rc=$?
        kill $!
        exit $rc
        """)
    subprocess.run(["unshare", "-n", "sh", "-c", script], check=True,
                   timeout=120)
    return ditg_totals(log)


def mtg_table(mtgctl, tmp_path, args, count):
    path = tmp_path / "same.idf"
    path.write_text(idf_of(mtgctl, tmp_path, "-a", "127.0.0.1", *args))
    out = subprocess.run([mtgctl, "table", path, "--count", str(count)],
                         capture_output=True, text=True, check=True).stdout
    rows = [line.split(",") for line in out.splitlines()[1:]]
    (tg,) = json.loads(subprocess.run(
        [mtgctl, "check", path, "--json"], capture_output=True, text=True,
        check=True).stdout)["tgs"]
    return tg, [int(r[4]) - IPV4 for r in rows]


@pytest.fixture(scope="module")
def netns_ok():
    if not (shutil.which("ITGSend") and shutil.which("ITGRecv")):
        pytest.skip("D-ITG is not installed (scripts/deps installs it)")
    r = subprocess.run(["unshare", "-n", "true"], capture_output=True)
    if r.returncode:
        pytest.skip(f"cannot make a network namespace: {r.stderr!r}")


def test_real_itgsend_constant_flow(mtgctl, tmp_path, netns_ok):
    """-C 1000 -c 200 -z 300: ITGSend sends 300 packets of 200 bytes;
    mtg's TG counts 300 of 200-byte payloads at 1000 packets/s."""
    args = ["-rp", 9001, "-C", 1000, "-c", 200, "-z", 300]
    d = run_itgsend(tmp_path, args)
    tg, payloads = mtg_table(mtgctl, tmp_path, args, 300)
    assert d["Total packets"] == tg["count"] == len(payloads) == 300
    assert d["Bytes received"] == sum(payloads) == 300 * 200
    assert mean_gap(tg) == 1e9 / 1000


def test_real_itgsend_uniform_sizes(mtgctl, tmp_path, netns_ok):
    """-u 100 300 -z 2000, ITGSend seeded (-s 0.25), mtg's seed its own:
    the two mean payloads agree (a two-sample z-test, two-sided at 0.001,
    each side's variance that of the uniform law on 100 .. 299), and each
    agrees with that law's mean, 199.5, the same way."""
    n = 2000
    args = ["-rp", 9001, "-C", 2000, "-u", 100, 300, "-z", n, "-s", 0.25]
    d = run_itgsend(tmp_path, args)
    tg, payloads = mtg_table(mtgctl, tmp_path, args, n)
    assert d["Total packets"] == tg["count"] == n
    assert min(payloads) >= 100 and max(payloads) <= 299
    sd = math.sqrt((200 ** 2 - 1) / 12)         # uniform on 200 values
    ditg_mean = d["Bytes received"] / n
    mtg_mean = sum(payloads) / n
    z = abs(ditg_mean - mtg_mean) / (sd * math.sqrt(2 / n))
    assert z < 3.29, (ditg_mean, mtg_mean)
    for mean in (ditg_mean, mtg_mean):
        assert abs(mean - 199.5) / (sd / math.sqrt(n)) < 3.29


def itgsend_payloads(tmp_path, args):
    """The payload of every packet ITGSend's own log (-l) has."""
    from mtgsap.ditg import LOG_DTYPE
    run_itgsend(tmp_path, args)
    return np.fromfile(tmp_path / "send.log", LOG_DTYPE)["size"].astype(int)


@pytest.mark.parametrize("args, law, params", SIZE_LAWS,
                         ids=[a[0][0] for a in SIZE_LAWS])
def test_real_itgsend_size_laws(mtgctl, tmp_path, netns_ok, args, law,
                                params):
    """ITGSend (seeded, -s 0.25) and mtg's TG of the same options, 3000
    packets each: the same law of payloads. Below mtg's header (88 bytes)
    ITGSend sends what it drew and mtg 88, above 1472 ITGSend what it drew
    and mtg 1472, so each side's payloads are put in the bins '88 or less'
    and '1472 or more', the rest in runs expecting 40 or more of the two
    together: a chi-square test of homogeneity at 0.001."""
    n = 3000
    full = ["-rp", 9001, "-C", 3000, *args, "-z", n, "-s", 0.25]
    ditg = itgsend_payloads(tmp_path, full)
    tg, payloads = mtg_table(mtgctl, tmp_path, full, n)
    mtg = np.array(payloads)
    assert len(ditg) == len(mtg) == n
    assert mtg.min() >= 88 and mtg.max() <= 1472
    pooled = np.clip(np.concatenate([ditg, mtg]), 88, 1472)
    values, counts = np.unique(pooled, return_counts=True)
    edges, acc = [values[0]], 0
    for v, c in zip(values, counts):
        acc += c
        if acc >= 40:
            edges.append(v + 1)
            acc = 0
    edges[-1] = values[-1] + 1
    table = [np.histogram(np.clip(x, 88, 1472), edges)[0]
             for x in (ditg, mtg)]
    p = sps.chi2_contingency(table).pvalue
    assert p >= 0.001, (p, table)


@pytest.mark.parametrize("page, indent", [("mtgctl.rst", 6), ("ditg.rst", 3)])
def test_the_examples_of_the_docs(mtgctl, tmp_path, page, indent):
    """Documentation/mtgctl.rst's and ditg.rst's itgsend examples print
    what they show."""
    page = (pathlib.Path(__file__).resolve().parents[2] /
            "Documentation" / page).read_text()
    block = re.search(rf"\n {{{indent}}}\$ mtgctl itgsend (.*?) --idf\n"
                      rf"(.*?)\n\n(?=\S)", page, re.S)
    shown = textwrap.dedent(block.group(2))
    r = itgsend(mtgctl, *block.group(1).split(), "--idf", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert r.stdout == shown + "\n"


@pytest.mark.parametrize("args, proto, dist", [
    (["-T", "TCP", "-C", "100", "-c", "512"], "tcp", "fixed"),
    (["-T", "dccp"], "dccp", "fixed"),
    (["Telnet"], "tcp", "telnet"),
])
def test_connections(mtgctl, tmp_path, args, proto, dist):
    """-T TCP and DCCP, and the Telnet preset (which ITGSend sends over
    TCP), become TGs over a connection: mtg's messages, recorded by an
    mtgctl listen --accept at the destination, no receiver asked."""
    tg = tg_of(mtgctl, tmp_path, *args)
    assert tg["proto"] == proto and tg["dist"] == dist
    assert "rcvr" not in tg or not tg["rcvr"]
