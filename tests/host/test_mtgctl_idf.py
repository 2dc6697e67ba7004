# SPDX-License-Identifier: GPL-2.0-or-later
"""mtgctl's IDF parser, timetables and Lehmer generator, without the module:
`mtgctl check` on valid and broken files (exact file:line:col messages),
`mtgctl run` refusing a broken file before it touches the device, every
example in examples/ and every IDF block of Documentation/idf.rst."""

import errno
import json
import os
import pathlib
import pty
import re
import subprocess
import textwrap

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
MTGCTL = ROOT / "ctl" / "mtgctl"
MODULUS = 2**31 - 1
MULTIPLIER = 950706376


def write(tmp_path, text, name="t.idf"):
    path = tmp_path / name
    path.write_text(textwrap.dedent(text))
    return path


def check(mtgctl, tmp_path, text, *args, name="t.idf"):
    """Run `mtgctl check NAME` in tmp_path on text."""
    write(tmp_path, text, name)
    return subprocess.run([mtgctl, "check", name, *args], cwd=tmp_path,
                          capture_output=True, text=True)


def check_json(mtgctl, tmp_path, text):
    r = check(mtgctl, tmp_path, text, "--json")
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["format"] == "mtgctl-check" and out["valid"]
    return out["tgs"]


BASE = "dev eth0 dst 192.0.2.2:9000 dist fixed\n"


def test_globals_inherited_and_overridden(mtgctl, tmp_path):
    tgs = check_json(mtgctl, tmp_path, """\
        # globals
        dev veth0
        netns demo-rx
        pkts fixed 200 200
        thro 1.6M
        dst 10.0.0.2:5000
        ttl 7
        tgid 1
        tgid 2
            pkts 400
            dst 10.0.0.3:6000
            netns other
        """)
    assert [t["id"] for t in tgs] == [1, 2]
    one, two = tgs
    assert one["dev"] == two["dev"] == "veth0"
    assert one["ttl"] == two["ttl"] == 7
    assert one["netns"] == "demo-rx" and two["netns"] == "other"
    assert one["pkts"] == {"kind": "fixed", "max": 200, "min": 200}
    assert two["pkts"] == {"kind": "fixed", "max": 400, "min": 400}
    assert one["dst"] == {"addr": "10.0.0.2", "port": 5000}
    assert two["dst"] == {"addr": "10.0.0.3", "port": 6000}
    # 200 bytes at 1.6 Mbit/s: 1 ms; 400 bytes: 2 ms
    assert one["table"]["entries"] == [{"gap_ns": 1000000, "len": 200}]
    assert two["table"]["entries"] == [{"gap_ns": 2000000, "len": 400}]


def test_defaults(mtgctl, tmp_path):
    (tg,) = check_json(mtgctl, tmp_path, BASE + "tgid 5 pkts 130 inta 1\n")
    assert tg["src"] == {"addr": None, "port": 4005}
    assert tg["ttl"] == 64 and tg["tos"] == 0
    assert (tg["path"], tg["mode"], tg["late"]) == ("driver", "plain",
                                                    "catchup")
    assert tg["patt"]["kind"] == "fixed" and tg["patt"]["value"] == 0
    assert tg["seed"] == 5
    assert tg["cpu"] is None and tg["mac"] is None and tg["netns"] is None
    assert (tg["start_ns"], tg["duration_ns"], tg["count"]) == (0, 0, 0)
    assert tg["threshold_ns"] == 0


def test_several_groups_per_line(mtgctl, tmp_path):
    tgs = check_json(mtgctl, tmp_path, """\
        dev eth0
        tgid 1 dist fixed pkts fixed 200 200 thro 1M dst 192.0.2.2:9
        tgid 2 dist fixed pkts fixed 300 inta 2 1 dst 192.0.2.2:9 cpu 3
        """.replace("inta 2 1", "inta 2 2"))
    assert tgs[0]["pkts"]["max"] == 200 and tgs[0]["thro"]["req"] == 10**6
    assert tgs[1]["inta_ns"] == {"min": 2000000, "max": 2000000}
    assert tgs[1]["cpu"] == 3


@pytest.mark.parametrize("text, field, value", [
    ("inta 500us", "inta_ns", {"min": 500000, "max": 500000}),
    ("inta 0.5", "inta_ns", {"min": 500000, "max": 500000}),
    ("inta 250ns 250ns", "inta_ns", {"min": 250, "max": 250}),
    ("inta 1s", "inta_ns", {"min": 10**9, "max": 10**9}),
    ("inta 1 time relative 1.5 2500ms", "start_ns", 1500000000),
    ("inta 1 time relative 1.5 2500ms", "duration_ns", 2500000000),
    ("inta 1 time relative 100ms", "duration_ns", 0),
    ("thro 1.5M", "thro", {"req": 1500000, "min": 0}),
    ("thro 2G 10k", "thro", {"req": 2 * 10**9, "min": 10000}),
    ("thro 64K", "thro", {"req": 64000, "min": 0}),
    ("inta 1 count 10k", "count", 10000),
    ("inta 1 threshold 50us", "threshold_ns", 50000),
    ("inta 1 threshold 2", "threshold_ns", 2000000),
    ("inta 1 tos 0xb8", "tos", 0xb8),
    ("inta 1 seed 0x10", "seed", 16),
])
def test_units(mtgctl, tmp_path, text, field, value):
    (tg,) = check_json(mtgctl, tmp_path, BASE + f"tgid 1 pkts 200 {text}\n")
    assert tg[field] == value


def test_ipv6(mtgctl, tmp_path):
    tgs = check_json(mtgctl, tmp_path, """\
        dev eth0 pkts 150 inta 1
        tgid 1 dst [2001:db8::2]:9000 src [2001:db8::1]:5000
        tgid 2 dst [2001:db8::2]:9000 src 2001:db8::7
        tgid 3 dst [fe80::2]:9000
        tgid 4 dst 192.0.2.1:9 src :7000 mac 02:00:5E:00:53:01
        """)
    assert tgs[0]["family"] == "ipv6"
    assert tgs[0]["src"] == {"addr": "2001:db8::1", "port": 5000}
    assert tgs[1]["src"] == {"addr": "2001:db8::7", "port": 4002}
    assert tgs[2]["dst"] == {"addr": "fe80::2", "port": 9000}
    assert tgs[3]["family"] == "ipv4"
    assert tgs[3]["src"] == {"addr": None, "port": 7000}
    assert tgs[3]["mac"] == "02:00:5e:00:53:01"


def test_listen_out_passthrough(mtgctl, tmp_path):
    """The run's receiving side: a DEV without @NETNS lives in the global
    netns (mtgctl's own when there is none)."""
    write(tmp_path, """\
        listen rx0 rx1@lab-b   # several at once
        out run.rec passthrough yes
        netns lab-a
        dev veth0 dst 10.0.0.2:5000 pkts 200 inta 1
        tgid 1
        """)
    r = subprocess.run([mtgctl, "check", "t.idf", "--json"], cwd=tmp_path,
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["listen"] == [{"dev": "rx0", "netns": "lab-a"},
                             {"dev": "rx1", "netns": "lab-b"}]
    assert (out["out"], out["passthrough"]) == ("run.rec", True)
    r = subprocess.run([mtgctl, "check", "t.idf"], cwd=tmp_path,
                       capture_output=True, text=True)
    assert r.stdout.splitlines()[0] == \
        "listen rx0@lab-a rx1@lab-b  out run.rec  passthrough yes"
    (tmp_path / "t.idf").write_text(BASE + "listen rx0\ntgid 1 pkts 200 inta 1\n")
    out = json.loads(subprocess.run([mtgctl, "check", "t.idf", "--json"],
                                    cwd=tmp_path, capture_output=True,
                                    text=True).stdout)
    assert (out["listen"], out["out"], out["passthrough"]) == \
        ([{"dev": "rx0", "netns": None}], None, False)


def test_probes_of_the_run(mtgctl, tmp_path):
    """probe: a line each, before the first tgid; a DEV without @NETNS
    lives in the global netns, as listen's do; ingress by default."""
    write(tmp_path, """\
        netns lab-s
        probe r1@lab-r slot 1 egress
        probe r0 slot 0      # in lab-s
        dev veth0 dst 10.0.0.2:5000 pkts 200 inta 1
        tgid 1
        """)
    r = subprocess.run([mtgctl, "check", "t.idf", "--json"], cwd=tmp_path,
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["probes"] == [
        {"dev": "r1", "netns": "lab-r", "slot": 1, "direction": "egress"},
        {"dev": "r0", "netns": "lab-s", "slot": 0, "direction": "ingress"}]
    r = subprocess.run([mtgctl, "check", "t.idf"], cwd=tmp_path,
                       capture_output=True, text=True)
    assert r.stdout.splitlines()[:2] == [
        "probe r1@lab-r slot 1 egress (attached for the run)",
        "probe r0@lab-s slot 0 ingress (attached for the run)"]


def test_every_keyword(mtgctl, tmp_path):
    (tg,) = check_json(mtgctl, tmp_path, """\
        tgid 7 dist fixed pkts fixed 1000 1000 thro 8M 1M
        time relative 1.5 30 count 10k patt random seed 12345
        dev eth1 netns lab-a cpu 3 src 198.51.100.1:4000
        dst 198.51.100.2:9000 tos 0x10 ttl 32 path qdisc mode precise
        late skip mac 02:00:5e:00:53:01 threshold 200us
        """)
    assert (tg["path"], tg["mode"], tg["late"]) == ("qdisc", "precise",
                                                    "skip")
    assert tg["patt"] == {"kind": "random", "value": 0,
                          "seed": 12345 * MULTIPLIER % MODULUS}
    assert tg["table"]["entries"] == [{"gap_ns": 1000000, "len": 1000}]


@pytest.mark.parametrize("length, thro", [
    (250, 3 * 10**6),          # 2000000/3 ns: 3 entries
    (1000, 3 * 10**6),
    (130, 7 * 10**6),          # 1040000/7: 7 entries
    (1514, 999 * 10**3),       # 12112000/999: 999 entries
    (200, 1600 * 10**3),       # exact: 1 entry
    (9018, 10**10),            # 7214.4 ns: 5 entries
])
def test_exact_rate_spreading(mtgctl, tmp_path, length, thro):
    """The gaps of one pass of the table sum to exactly len(table) times the
    exact gap length * 8e9 / thro, each within a nanosecond of it."""
    (tg,) = check_json(mtgctl, tmp_path,
                       BASE + f"tgid 1 pkts {length} thro {thro}\n")
    table = tg["table"]
    gaps = [e["gap_ns"] for e in table["entries"]]
    assert all(e["len"] == length for e in table["entries"])
    num, den = length * 8 * 10**9, thro
    assert table["exact"]
    assert len(gaps) * num == sum(gaps) * den
    assert table["period_ns"] == sum(gaps)
    assert all(abs(g * den - num) < den for g in gaps)
    assert table["len"] == len(gaps) <= 1000


def test_rate_spreading_beyond_1000_entries(mtgctl, tmp_path):
    """A denominator above 1000: 1000 entries, nearest whole period."""
    thro = 999983              # prime: 1040000000000/999983 ns
    (tg,) = check_json(mtgctl, tmp_path, BASE + f"tgid 1 pkts 130 thro {thro}\n")
    table = tg["table"]
    gaps = [e["gap_ns"] for e in table["entries"]]
    num = 130 * 8 * 10**9
    assert not table["exact"] and len(gaps) == 1000
    assert sum(gaps) == (1000 * num + thro // 2) // thro
    assert max(gaps) - min(gaps) <= 1


# (IDF, the one error expected) for a file named t.idf
ERRORS = [
    ("probe r1 slot 4\n" + BASE + "tgid 1 pkts 200 inta 1\n",
     "t.idf:1:15: error: 'probe' expects a slot, 0 to 3, got '4'"),
    ("probe r1 sloth 1\n" + BASE + "tgid 1 pkts 200 inta 1\n",
     "t.idf:1:10: error: 'probe' expects 'slot K', got 'sloth' (the header's test-point slot the probe writes)"),
    ("probe r1 slot 1 sideways\n" + BASE + "tgid 1 pkts 200 inta 1\n",
     "t.idf:1:17: error: 'probe' expects 'ingress' or 'egress', got 'sideways' (the direction the probe stamps; ingress when not given)"),
    ("probe r1@a slot 1\nprobe r1@a slot 2 ingress\n" + BASE +
     "tgid 1 pkts 200 inta 1\n",
     "t.idf:2:7: error: 'probe' on r1@a ingress twice (first at line 1): one probe a direction of an interface"),
    (BASE + "tgid 1 pkts 200 inta 1 probe r1 slot 1\n",
     "t.idf:2:24: error: 'probe' is a setting of the whole run: give it before the first 'tgid'"),
    (BASE + "tgid 1 inta 1\npkts big\n",
     "t.idf:3:6: error: 'pkts' expects a length in bytes, 'fixed', 'variable', 'computed', 'uniform' or a law: exponential, poisson, normal, cauchy, pareto, gamma, weibull, lognormal, got 'big'"),
    # pkts LAW: the law's parameters, plus, within; a process is no law
    (BASE + "tgid 1 pkts mmpp 1 2 3 inta 1\n",
     "t.idf:2:13: error: 'pkts mmpp': 'mmpp' draws departures, not lengths; 'pkts' takes a length in bytes, 'fixed', 'variable', 'computed', 'uniform' or a law: exponential, poisson, normal, cauchy, pareto, gamma, weibull, lognormal"),
    (BASE + "tgid 1 pkts exponential 0 inta 1\n",
     "t.idf:2:25: error: 'pkts' expects exponential's MEAN, a number of bytes above 0, got '0'"),
    (BASE + "tgid 1 pkts weibull 1.5 inta 1\n",
     "t.idf:2:25: error: 'pkts' expects weibull's SCALE, a number of bytes above 0, got keyword 'inta'"),
    (BASE + "tgid 1 pkts normal 500 100 within 1400 200 inta 1\n",
     "t.idf:2:40: error: 'within MIN MAX': MIN 1400 is above MAX 200"),
    (BASE + "tgid 1 pkts gamma 2 100 within 100 1514 inta 1\n",
     "t.idf:2:8: error: TG 1: 'pkts' within MIN 100 is below the smallest IPv4 frame, 130 bytes (Ethernet 14 + IPv4 20 + UDP 8 + MTG header 88)"),
    (BASE + "tgid 1 pkts pareto 1 100 plus 99999 inta 1\n",
     "t.idf:2:31: error: 'pkts' expects the bytes added to each draw, 0 .. 9018, got '99999'"),
    (BASE + "tgid 1 pkts uniform 300 200 inta 1\n",
     "t.idf:2:25: error: 'pkts uniform MIN MAX': MIN 300 is above MAX 200"),
    (BASE + "tgid 1 pkts fixed 200 100 inta 1\n",
     "t.idf:2:23: error: with 'pkts fixed', MIN must equal MAX (got 200 and 100)"),
    (BASE + "tgid 1 pkts 200 thro fast\n",
     "t.idf:2:22: error: 'thro' expects a throughput in bit/s (suffixes k, M, G), got 'fast'"),
    (BASE + "tgid 1 pkts 200 inta 1x\n",
     "t.idf:2:22: error: 'inta' expects a time (ms, or a unit: ns, us, ms, s), got '1x' (unknown unit)"),
    (BASE + "tgid 1 pkts 200 inta 0.5ns\n",
     "t.idf:2:22: error: 'inta' expects a time (ms, or a unit: ns, us, ms, s), got '0.5ns' (finer than the smallest unit)"),
    (BASE + "tgid 1 pkts 200 inta 1 pkt 200\n",
     "t.idf:2:24: error: unknown keyword 'pkt'; did you mean 'pkts'?"),
    (BASE + "tgid 1 pkts 200 inta 1 frobnicate 3\n",
     "t.idf:2:24: error: unknown keyword 'frobnicate'"),
    ("dev eth0\ntgid 1 pkts 200 inta 1 addr anycast\n",
     "t.idf:2:29: error: 'addr' expects 'station', 'broadcast' or 'myself', got 'anycast'"),
    ("dev eth0\ntgid 1 pkts 200 inta 1 addr myself 9000\n",
     "t.idf:2:24: error: TG 1: 'addr myself' needs 'mac', the first hop of the network that brings the packets back"),
    (BASE + "tgid 1 pkts 200 inta 1 addr broadcast 9000\n",
     "t.idf:2:24: error: TG 1: 'addr' and 'dst' both name the destination: give one"),
    (BASE + "tgid 1 pkts 200 inta 1 include more.idf\n",
     "t.idf:2:32: error: 'include' cannot read 'more.idf': No such file or directory"),
    ("include t.idf\n",
     "t.idf:1:9: error: 'include t.idf' includes a file being read (a loop)"),
    (BASE + "tgid 1 pkts 200 inta 1 jitt 3x\n",
     "t.idf:2:29: error: 'jitt' expects a time (ms, or a unit: ns, us, ms, s), got '3x' (unknown unit)"),
    (BASE + "tgid 1 pkts 200 inta 1 cos 64\n",
     "t.idf:2:28: error: 'cos' expects a class of service, the DSCP 0 .. 63, got '64'"),
    (BASE + "tgid 1 pkts 200 inta 1 cos 46 tos 0\n",
     "t.idf:2:24: error: TG 1: 'cos' and 'tos' both set the TOS byte (cos N is tos 4 * N): give one"),
    (BASE + "tgid 1 pkts 200 inta 1 data video\n",
     "t.idf:2:29: error: 'data' expects 'stream', 'bulk' or 'interactive', got 'video'"),
    (BASE + "tgid 1 pkts 200 inta 1 rpol 50\n",
     "t.idf:2:24: error: TG 1: 'rpol' is a share of 'thro' MIN .. REQ, and the TG has no 'thro'"),
    (BASE + "tgid 1 pkts 200 thro 1M rpol 101\n",
     "t.idf:2:30: error: 'rpol' expects a percentage, 0 .. 100, got '101'"),
    (BASE + "tgid 1 pkts 200 inta 1 time poisson 10s\n",
     "t.idf:2:41: error: 'time' expects the mean call time, a time (s, or a unit: ns, us, ms, s), got end of line"),
    (BASE + "tgid 1 pkts 200 dist trace\n",
     "t.idf:2:28: error: 'dist' expects a file name, got end of line"),
    (BASE + "tgid 1 pkts 200 inta 1 dist zipf\n",
     "t.idf:2:29: error: 'dist' expects a model (fixed, uniform, exponential, mmpp, voice, fgn, pareto, cauchy, normal, gamma, weibull, lognormal, trace, pcap, behaviour) or a D-ITG preset (voip, telnet, dns, quake3, csa, csi), got 'zipf'"),
    (BASE + "tgid 1 pkts 200 inta 1 dist pareto 1.5\n",
     "t.idf:2:40: error: 'dist' expects pareto's SCALE, a time above 0 (ms, or a unit: ns, us, ms, s), got end of line"),
    (BASE + "tgid 1 pkts 200 inta 1 dist pareto -1 1ms\n",
     "t.idf:2:36: error: 'dist' expects pareto's SHAPE, a number above 0, got '-1' (negative values are not allowed)"),
    (BASE + "tgid 1 pkts 200 inta 1 dist mmpp 0.5s 2.5s 0.5\n",
     "t.idf:2:44: error: 'dist' expects mmpp's RATIO, a number, 1 or more, got '0.5'"),
    (BASE + "tgid 1 pkts 200 inta 1 dist fgn 1 1.2\n",
     "t.idf:2:35: error: 'dist' expects fgn's HURST, a number between 0 and 1 (exclusive), got '1.2'"),
    (BASE + "tgid 1 pkts 200 inta 1 dist normal 1ms 0\n",
     "t.idf:2:40: error: 'dist' expects normal's SD, a time above 0 (ms, or a unit: ns, us, ms, s), got '0'"),
    (BASE + "tgid 1 pkts 200 inta 1 dist fgn 1 0.8 0.5ms\n",
     "t.idf:2:24: error: TG 1: 'dist fgn' SLOT 500000 ns holds less than one packet on average (the mean gap is 1000000 ns): make it longer"),
    (BASE + "tgid 1 pkts variable 200 inta 1\n",
     "t.idf:2:26: error: 'pkts' expects a minimum length in bytes, got keyword 'inta'"),
    (BASE + "tgid 1 pkts variable 200 300 inta 1\n",
     "t.idf:2:26: error: 'pkts variable' MIN 300 is above MAX 200"),
    (BASE + "tgid 1 pkts computed thro 1M\n",
     "t.idf:2:8: error: TG 1: 'pkts computed' needs 'thro' and one 'inta' (the length is thro * inta / 8)"),
    (BASE + "tgid 1 pkts computed thro 1M inta 10us\n",
     "t.idf:2:8: error: TG 1: 'pkts computed' gives 1 bytes (thro 1000000 bit/s * inta 10000 ns / 8), outside 130 .. 9018"),
    (BASE + "tgid 1 pkts 200 inta 1 rng dice\n",
     "t.idf:2:28: error: 'rng' expects 'mt19937' or 'lehmer', got 'dice'"),
    (BASE + "tgid 1 pkts 200 inta 1 samplers 3\n",
     "t.idf:2:33: error: 'samplers' expects '1' or '2', got '3'"),
    (BASE + "tgid 1 pkts 200 inta 1 time later\n",
     "t.idf:2:29: error: 'time' expects 'relative', 'absolute', 'user' or 'poisson', got 'later'"),
    (BASE + "tgid 1 pkts 200 inta 1 time absolute 5\n",
     "t.idf:2:38: error: 'time' expects a local time, YYYY-MM-DDTHH:MM:SS[.F] or HH:MM:SS[.F] (Z at the end: UTC), got '5'"),
    ("dev eth0 pkts 200 inta 1\ntgid 1\n",
     "t.idf:2:1: error: TG 1 has no 'dst' (the destination ADDR:PORT)"),
    ("dst 192.0.2.2:9 pkts 200 inta 1\ntgid 1\n",
     "t.idf:2:1: error: TG 1 has no 'dev' (the interface to send from)"),
    (BASE + "tgid 1 inta 1\n",
     "t.idf:2:1: error: TG 1 has no 'pkts' (the packet length)"),
    (BASE + "tgid 1 pkts 200\n",
     "t.idf:2:1: error: TG 1 has neither 'thro' nor 'inta': nothing sets its rate"),
    (BASE + "pkts 129 inta 1\ntgid 1\n",
     "t.idf:2:1: error: TG 1: 'pkts' 129 is below the smallest IPv4 frame, 130 bytes (Ethernet 14 + IPv4 20 + UDP 8 + MTG header 88)"),
    ("dev eth0 dst [2001:db8::1]:9\ntgid 1 pkts 149 inta 1\n",
     "t.idf:2:8: error: TG 1: 'pkts' 149 is below the smallest IPv6 frame, 150 bytes (Ethernet 14 + IPv6 40 + UDP 8 + MTG header 88)"),
    (BASE + "tgid 1 pkts 9019 inta 1\n",
     "t.idf:2:13: error: 'pkts' 9019 is above the largest frame, 9018 bytes (a 9000-byte jumbo MTU + Ethernet 14 + VLAN 4; the interface's MTU + 14 may allow less)"),
    (BASE + "tgid 1 pkts 200 inta 1\ntgid 1 pkts 200 inta 1\n",
     "t.idf:3:6: error: duplicate tgid 1 (first at line 2)"),
    (BASE + "tgid 1 pkts 200 inta 1 src 192.0.2.1 dst [2001:db8::1]:9\n",
     "t.idf:2:24: error: TG 1: 'src' is IPv4 but 'dst' is IPv6"),
    (BASE + "tgid 1 pkts 200 inta 1 2\n",
     "t.idf:2:17: error: TG 1: with 'dist fixed', 'inta' MIN must equal MAX"),
    (BASE + "tgid 1 pkts 200 inta 1 inta 1\n",
     "t.idf:2:24: error: 'inta' given twice (first at line 2)"),
    # an address alone is proto icmp's: a UDP TG's is missing its port
    (BASE + "tgid 1 pkts 200 inta 1 dst 192.0.2.2\n",
     "t.idf:2:24: error: TG 1: 'dst' has no port: a UDP flow goes to ADDR:PORT (IPv6 in brackets: [2001:db8::1]:5000); only 'proto icmp' has none"),
    (BASE + "tgid 1 pkts 200 inta 1 dst 2001:db8::1:9\n",
     "t.idf:2:24: error: TG 1: 'dst' has no port: a UDP flow goes to ADDR:PORT (IPv6 in brackets: [2001:db8::1]:5000); only 'proto icmp' has none"),
    (BASE + "tgid 1 pkts 200 inta 1 dst 192.0.2.2:9000 proto quic\n",
     "t.idf:2:49: error: 'proto' expects 'udp', 'icmp', 'tcp', 'sctp' or "
     "'dccp', got 'quic'"),
    (BASE + "tgid 1 pkts 200 inta 1 dst 192.0.2.2 proto tcp\n",
     "t.idf:2:24: error: TG 1: 'dst' has no port: a tcp flow goes to "
     "ADDR:PORT (IPv6 in brackets: [2001:db8::1]:5000); only 'proto icmp' "
     "has none"),
    (BASE + "tgid 1 pkts 200 inta 1 proto sctp meter rtt\n",
     "t.idf:2:35: error: TG 1: 'proto sctp' measures one way (its "
     "messages' lateness at the socket): not with 'meter rtt'"),
    (BASE + "tgid 1 pkts 200 inta 1 proto dccp header ditg\n",
     "t.idf:2:24: error: TG 1: 'proto dccp' carries the MTG header: not "
     "with 'header ditg'"),
    (BASE + "tgid 1 pkts 200 inta 1 dst 192.0.2.2 proto icmp meter owd\n",
     "t.idf:2:49: error: TG 1: 'proto icmp' is measured where its echoes come back: 'meter rtt' (its default), not 'meter owd'"),
    (BASE + "tgid 1 pkts 200 inta 1 dst 192.0.2.2 proto icmp header ditg\n",
     "t.idf:2:38: error: TG 1: 'proto icmp' carries the MTG header in its echoes: not with 'header ditg'"),
    ("key k\n" + BASE + "tgid 1 pkts 200 inta 1 dst 192.0.2.2 proto icmp rcvr 192.0.2.2\n",
     "t.idf:3:49: error: TG 1: 'proto icmp' needs no receiver: the destination's kernel answers the echoes"),
    ("dev eth0 dist fixed\ntgid 1 pkts 200 inta 1 addr myself 9 mac 02:00:00:00:00:01 proto icmp\n",
     "t.idf:2:24: error: TG 1: 'proto icmp' is answered by the destination's kernel: not with 'addr myself'"),
    (BASE + "tgid 1 pkts 140 inta 1 dst [2001:db8::1] proto icmp\n",
     "t.idf:2:8: error: TG 1: 'pkts' 140 is below the smallest IPv6 frame, 150 bytes (Ethernet 14 + IPv6 40 + ICMP 8 + MTG header 88)"),
    (BASE + "tgid 1 pkts 200 inta 1 dst 192.0.2.2 proto icmp\nctrl 1s x\n",
     "t.idf:3:1: error: TG 1: 'ctrl' goes to a receiver, and an ICMP TG's echoes come back to itself: not with 'proto icmp'"),
    (BASE + "tgid 1 pkts 200 inta 1 dst 192.0.2.2:0\n",
     "t.idf:2:28: error: 'dst' expects ADDR:PORT (IPv6 in brackets: [2001:db8::1]:5000), got '192.0.2.2:0' (port must be 1..65535)"),
    (BASE + "tgid 1 pkts 200 inta 1 ttl 0\n",
     "t.idf:2:28: error: 'ttl' expects a number from 1 to 255, got '0'"),
    (BASE + "tgid 1 pkts 200 inta 1 seed 2147483647\n",
     "t.idf:2:29: error: 'seed' expects a seed from 1 to 2147483646, got '2147483647'"),
    (BASE + "tgid 1 pkts 200 inta 1 patt fixed\n",
     "t.idf:2:35: error: 'patt' expects a number from 0 to 255, got end of line"),
    (BASE + "tgid 1 pkts 200 inta 1 mac 02:00:00:00:00\n",
     "t.idf:2:28: error: 'mac' expects a MAC address XX:XX:XX:XX:XX:XX, got '02:00:00:00:00'"),
    (BASE + "tgid 1 pkts 200 inta 1 dev this-name-is-too-long\n",
     "t.idf:2:28: error: 'dev' expects an interface name (at most 15 bytes), got 'this-name-is-too-long'"),
    (BASE + "tgid 1 pkts thro 1M\n",
     "t.idf:2:13: error: 'pkts' expects a length in bytes, got keyword 'thro'"),
    (BASE + "tgid 1 pkts 200 200 300 inta 1\n",
     "t.idf:2:21: error: expected a keyword, got '300' (too many values for 'pkts'?)"),
    (BASE + "tgid 0 pkts 200 inta 1\n",
     "t.idf:2:6: error: 'tgid' expects a TG number from 1 to 4294967295, got '0'"),
    (BASE + "tgid 1 pkts 200 thro 10T\n",
     "t.idf:2:22: error: 'thro' expects a throughput in bit/s (suffixes k, M, G), got '10T' (unknown unit)"),
    ("# nothing but a comment\n",
     "t.idf: error: no 'tgid': the file describes no traffic generator"),
    (BASE + "tgid 1 pkts 200 inta 1 listen eth1\n",
     "t.idf:2:24: error: 'listen' is a setting of the whole run: give it before the first 'tgid'"),
    (BASE + "tgid 1 pkts 200 inta 1 out x.rec\n",
     "t.idf:2:24: error: 'out' is a setting of the whole run: give it before the first 'tgid'"),
    (BASE + "tgid 1 pkts 200 inta 1 passthrough yes\n",
     "t.idf:2:24: error: 'passthrough' is a setting of the whole run: give it before the first 'tgid'"),
    ("listen\n" + BASE + "tgid 1 pkts 200 inta 1\n",
     "t.idf:1:8: error: 'listen' expects DEV or DEV@NETNS, got end of line"),
    ("listen eth1 eth1@lab\nlisten eth2\n" + BASE + "tgid 1 pkts 200 inta 1\n",
     "t.idf:2:1: error: 'listen' given twice (first at line 1)"),
    ("listen eth1 eth2 eth1\n" + BASE + "tgid 1 pkts 200 inta 1\n",
     "t.idf:1:18: error: 'listen' names 'eth1' twice (first at line 1)"),
    ("listen eth1@\n" + BASE + "tgid 1 pkts 200 inta 1\n",
     "t.idf:1:8: error: 'listen' expects DEV or DEV@NETNS, got 'eth1@' (a namespace name after '@' (a file in /run/netns))"),
    ("listen @lab\n" + BASE + "tgid 1 pkts 200 inta 1\n",
     "t.idf:1:8: error: 'listen' expects DEV or DEV@NETNS, got '@lab' (an interface name (at most 15 bytes, no '/' or ':'))"),
    ("listen a/b\n" + BASE + "tgid 1 pkts 200 inta 1\n",
     "t.idf:1:8: error: 'listen' expects DEV or DEV@NETNS, got 'a/b' (an interface name (at most 15 bytes, no '/' or ':'))"),
    ("passthrough maybe\n" + BASE + "tgid 1 pkts 200 inta 1\n",
     "t.idf:1:13: error: 'passthrough' expects 'no' or 'yes', got 'maybe'"),
    ("out\n" + BASE + "tgid 1 pkts 200 inta 1\n",
     "t.idf:1:5: error: 'out' expects a file name, got end of line"),
]


@pytest.mark.parametrize("text, message", ERRORS,
                         ids=[m.split("error: ")[1][:40] for _, m in ERRORS])
def test_error(mtgctl, tmp_path, text, message):
    r = check(mtgctl, tmp_path, text)
    assert r.returncode == 1
    assert r.stderr.splitlines() == [message]
    assert r.stdout == ""


def test_all_errors_collected(mtgctl, tmp_path):
    r = check(mtgctl, tmp_path, BASE + "".join(
        f"tgid {i} pkts big inta 1\n" for i in range(1, 31)))
    lines = r.stderr.splitlines()
    assert r.returncode == 1
    assert len(lines) == 21 and lines[0].startswith("t.idf:2:13: error:")
    assert lines[-1] == "t.idf: 10 more errors or warnings not shown"


def test_errors_as_json(mtgctl, tmp_path):
    r = check(mtgctl, tmp_path, BASE + "tgid 1 inta 1\npkts big\n", "--json")
    assert r.returncode == 1
    out = json.loads(r.stdout)
    assert out["valid"] is False and out["tgs"] == []
    assert out["errors"] == [{"line": 3, "col": 6, "message":
                              "'pkts' expects a length in bytes, 'fixed', 'variable', 'computed', 'uniform' or a law: exponential, poisson, normal, cauchy, pareto, gamma, weibull, lognormal, got 'big'"}]


def test_inta_ignored_warning(mtgctl, tmp_path):
    r = check(mtgctl, tmp_path, BASE + "tgid 1 pkts 200 thro 1M inta 5\n")
    assert r.returncode == 0
    assert r.stderr.splitlines() == [
        "t.idf:2:25: warning: TG 1: 'inta' is ignored: 'pkts' and 'thro' set the gap"]


def test_missing_file(mtgctl, tmp_path):
    r = subprocess.run([mtgctl, "check", tmp_path / "none.idf"],
                       capture_output=True, text=True)
    assert r.returncode == 1
    assert "cannot read" in r.stderr and "No such file" in r.stderr


def test_run_refuses_bad_file_before_the_device(mtgctl, tmp_path):
    write(tmp_path, BASE + "tgid 1 inta 1\npkts big\n")
    device = tmp_path / "no-such-device"
    r = subprocess.run([mtgctl, "run", "t.idf", "--batch", "--device", device,
                        "--json", "s.json"], cwd=tmp_path,
                       capture_output=True, text=True)
    assert r.returncode == 1
    assert r.stderr.splitlines() == [
        "t.idf:3:6: error: 'pkts' expects a length in bytes, 'fixed', 'variable', 'computed', 'uniform' or a law: exponential, poisson, normal, cauchy, pareto, gamma, weibull, lognormal, got 'big'",
        "t.idf: nothing started"]
    assert not (tmp_path / "s.json").exists()


def test_run_without_device(mtgctl, tmp_path):
    """A valid file, on a host without the module: the device is named."""
    write(tmp_path, "tgid 1 dev lo dst 127.0.0.1:9 pkts 200 thro 1M\n")
    device = tmp_path / "no-such-device"
    r = subprocess.run([mtgctl, "run", "t.idf", "--batch", "--device", device],
                       cwd=tmp_path, capture_output=True, text=True)
    assert r.returncode == 1
    assert r.stderr == (f"mtgctl: cannot open {device}: No such file or "
                        "directory (is mtg.ko loaded? modprobe mtg)\n")


def test_run_output_needs_listen(mtgctl, tmp_path):
    """Recording with nothing to listen on is refused before anything is
    created or opened."""
    write(tmp_path, "tgid 1 dev lo dst 127.0.0.1:9 pkts 200 thro 1M\n")
    device = tmp_path / "no-such-device"
    r = subprocess.run([mtgctl, "run", "t.idf", "--batch", "-o", "x.rec",
                        "--device", device], cwd=tmp_path,
                       capture_output=True, text=True)
    assert r.returncode == 1
    assert r.stderr == ("mtgctl: t.idf: nothing to record in x.rec: name the "
                        "interfaces to listen on with 'listen DEV' "
                        "(Documentation/idf.rst)\n")
    assert not (tmp_path / "x.rec").exists()


@pytest.mark.parametrize("force", [False, True])
def test_run_keeps_an_existing_recording(mtgctl, tmp_path, force):
    """An existing recording is never overwritten without --force, and
    with it only once the run is under way: a run that fails to start (no
    device) leaves the old recording as it was and nothing beside it."""
    write(tmp_path, "listen lo\ntgid 1 dev lo dst 127.0.0.1:9 pkts 200 thro 1M\n")
    (tmp_path / "x.rec").write_text("precious")
    device = tmp_path / "no-such-device"
    r = subprocess.run([mtgctl, "run", "t.idf", "--batch", "-o", "x.rec",
                        "--device", device] + (["--force"] if force else []),
                       cwd=tmp_path, capture_output=True, text=True)
    assert r.returncode == 1
    if force:
        assert r.stderr.startswith(f"mtgctl: cannot open {device}: ")
    else:
        assert r.stderr == ("mtgctl: x.rec exists: not overwriting a "
                            "recording (--force to replace it)\n")
    assert (tmp_path / "x.rec").read_text() == "precious"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["t.idf", "x.rec"]


def test_run_on_a_terminal_fails_before_the_dashboard(mtgctl, tmp_path):
    """On a terminal, a run that cannot start (no device) says why on
    stderr and never takes the screen: nothing but text reaches the
    terminal (no alternate screen, no escape sequence)."""
    write(tmp_path, "tgid 1 dev lo dst 127.0.0.1:9 pkts 200 thro 1M\n")
    device = tmp_path / "no-such-device"
    master, slave = pty.openpty()
    try:
        r = subprocess.run([mtgctl, "run", "t.idf", "--device", device],
                           cwd=tmp_path, stdin=slave, stdout=slave,
                           stderr=subprocess.PIPE, text=True, timeout=60)
        os.set_blocking(master, False)
        try:
            shown = os.read(master, 65536)
        except BlockingIOError:
            shown = b""
    finally:
        os.close(slave)
        os.close(master)
    assert r.returncode == 1
    assert r.stderr.startswith(f"mtgctl: cannot open {device}: ")
    assert b"\x1b" not in shown


def test_run_implies_batch_off_a_terminal(mtgctl, tmp_path):
    """Standard output a pipe: no --batch needed; it goes on to the device."""
    write(tmp_path, "tgid 1 dev lo dst 127.0.0.1:9 pkts 200 thro 1M\n")
    device = tmp_path / "no-such-device"
    r = subprocess.run([mtgctl, "run", "t.idf", "--device", device],
                       cwd=tmp_path, capture_output=True, text=True)
    assert r.returncode == 1
    assert r.stderr.startswith(f"mtgctl: cannot open {device}: ")


def test_run_on_a_device_that_is_not_mtg(mtgctl, tmp_path):
    """/dev/null opens, but answers no MTG_IOC_VERSION."""
    write(tmp_path, "tgid 1 dev lo dst 127.0.0.1:9 pkts 200 thro 1M\n")
    r = subprocess.run([mtgctl, "run", "t.idf", "--batch", "--device",
                        "/dev/null", "--json", "s.json"], cwd=tmp_path,
                       capture_output=True, text=True)
    assert r.returncode == 1
    assert r.stderr == ("mtgctl: /dev/null: MTG_IOC_VERSION failed: "
                        f"{os.strerror(errno.ENOTTY)} (not an mtg device?)\n")
    assert not (tmp_path / "s.json").exists()


@pytest.mark.parametrize("line, message", [
    ("tgid 1 dev nosuch0 dst 127.0.0.1:9 pkts 200 thro 1M",
     "mtgctl: TG 1: no interface 'nosuch0' in this namespace"),
    ("tgid 1 dev lo netns mtg-no-such-ns dst 127.0.0.1:9 pkts 200 thro 1M",
     "mtgctl: cannot open namespace /run/netns/mtg-no-such-ns: "
     "No such file or directory (ip netns add mtg-no-such-ns?)"),
], ids=["interface", "netns"])
def test_run_checks_interfaces_before_the_device(mtgctl, tmp_path, line,
                                                 message):
    """Interfaces and namespaces are looked up before /dev/mtg is opened:
    a missing one is named, and the device never mentioned."""
    write(tmp_path, line + "\n")
    device = tmp_path / "no-such-device"
    r = subprocess.run([mtgctl, "run", "t.idf", "--batch", "--device", device],
                       cwd=tmp_path, capture_output=True, text=True)
    assert r.returncode == 1
    assert str(device) not in r.stderr
    assert r.stderr.splitlines()[0] == message


@pytest.mark.parametrize("args, message", [
    (["run", "t.idf", "--bogus"],
     "mtgctl: run: unknown option '--bogus' (see 'mtgctl help run')"),
    (["run", "t.idf", "--json"],
     "mtgctl: run: option '--json' needs a value (see 'mtgctl help run')"),
    (["run", "t.idf", "--start-delay", "soon"],
     "mtgctl: run: --start-delay expects a time (seconds, or ns/us/ms/s), got 'soon'"),
    (["check"], "mtgctl: check: no FILE given (usage: mtgctl check FILE.idf [--json])"),
    (["listen"], "mtgctl: listen: nothing to listen on: give interfaces (DEV[@NETNS]...), or connections to accept (--accept PROTO:ADDR:PORT)"),
    (["listen", "eth0@", "--batch"],
     "mtgctl: listen: 'eth0@' is not DEV or DEV@NETNS: expected a namespace name after '@' (a file in /run/netns)"),
    (["listen", "lo", "--ring", "1000"],
     "mtgctl: listen: --ring expects a power of two from 16 to 16777216, got '1000'"),
    (["run", "t.idf", "--ring", "many"],
     "mtgctl: run: --ring expects a power of two from 16 to 16777216, got 'many'"),
    (["run", "t.idf", "--ring", "64k"],
     "mtgctl: run: --ring expects a power of two from 16 to 16777216, got '64k'"),
    (["listen", "lo", "--run-id", "0"],
     "mtgctl: listen: --run-id expects a number from 1 to 4294967295, got '0'"),
    (["run", "t.idf", "-o"],
     "mtgctl: run: option '-o' needs a value (see 'mtgctl help run')"),
    (["info"], "mtgctl: info: no FILE given (usage: mtgctl info RECORDING [--json])"),
    (["frob", "t.idf"], "mtgctl: unknown command 'frob' (see 'mtgctl help')"),
])
def test_command_line_errors(mtgctl, tmp_path, args, message):
    r = subprocess.run([mtgctl, *args], cwd=tmp_path, capture_output=True,
                       text=True)
    assert r.returncode == 1
    assert r.stderr.splitlines()[0].startswith(message)


def test_help_and_version(mtgctl):
    r = subprocess.run([mtgctl, "help"], capture_output=True, text=True,
                       check=True)
    assert r.stdout.startswith("Usage: mtgctl COMMAND")
    assert "Examples:" in r.stdout and "mtgctl check examples/demo.idf" in r.stdout
    r = subprocess.run([mtgctl, "run", "--help"], capture_output=True,
                       text=True, check=True)
    assert "--start-delay TIME" in r.stdout
    r = subprocess.run([mtgctl, "--version"], capture_output=True, text=True,
                       check=True)
    assert re.fullmatch(r"mtgctl \S+ \(mtg ABI \d+\.\d+\)\n", r.stdout)


# Documentation and examples: what they show must be what mtgctl does.

@pytest.mark.parametrize("example", sorted((ROOT / "examples").glob("*.idf")),
                         ids=lambda p: p.name)
def test_example_is_valid(mtgctl, example):
    r = subprocess.run([mtgctl, "check", example], capture_output=True,
                       text=True)
    assert r.returncode == 0, r.stderr
    assert r.stderr == ""


def doc_blocks(cls, pages=("idf.rst",)):
    """The code blocks of the pages of Documentation/ (idf.rst unless
    told) with `:class: cls`, at any indentation."""
    blocks = []
    for page in pages:
        lines = (ROOT / "Documentation" / page).read_text().splitlines()
        for i, line in enumerate(lines):
            if line.lstrip().startswith(".. code-block::") and \
                    lines[i + 1].strip() == f":class: {cls}":
                indent = " " * (len(line) - len(line.lstrip()) + 3)
                body = []
                for text in lines[i + 3:]:
                    if text and not text.startswith(indent):
                        break
                    body.append(text[len(indent):])
                blocks.append("\n".join(body).strip() + "\n")
    return blocks


EVERY_PAGE = tuple(p.name for p in (ROOT / "Documentation").glob("*.rst"))


def test_doc_blocks_found():
    assert len(doc_blocks("idf")) >= 4
    assert len(doc_blocks("idf", EVERY_PAGE)) > len(doc_blocks("idf"))
    assert len(doc_blocks("idf-bad")) == len(doc_blocks("idf-errors")) == 2


@pytest.mark.parametrize("block", doc_blocks("idf", EVERY_PAGE))
def test_doc_idf_block_is_valid(mtgctl, tmp_path, block):
    r = check(mtgctl, tmp_path, block)
    assert r.returncode == 0, r.stderr


@pytest.mark.parametrize("bad, errors",
                         list(zip(doc_blocks("idf-bad"), doc_blocks("idf-errors"))))
def test_doc_errors_are_real(mtgctl, tmp_path, bad, errors):
    r = check(mtgctl, tmp_path, bad, name="bad.idf")
    assert r.returncode == 1
    assert r.stderr == errors


# The Lehmer generator

def lehmer(seed, n):
    x, out = seed, []
    for _ in range(n):
        x = x * MULTIPLIER % MODULUS
        out.append(x)
    return out


def test_lehmer_sequence(tmp_path):
    """ctl/traffic/lehmer.c gives the sequence of the recurrence, computed
    here with Python's exact integers, from several seeds, including the
    extremes."""
    driver = tmp_path / "lehmer_main.c"
    driver.write_text(textwrap.dedent("""\
        #include <stdio.h>
        #include <stdlib.h>
        #include "traffic/lehmer.h"
        int main(int argc, char **argv)
        {
            struct lehmer g;
            long n;
            if (argc != 3)
                return 2;
            n = atol(argv[2]);
            if (lehmer_init(&g, (uint32_t)strtoul(argv[1], NULL, 0)))
                return 3;
            while (n--)
                printf("%u\\n", lehmer_next(&g));
            return 0;
        }
        """))
    exe = tmp_path / "lehmer"
    subprocess.run(["cc", "-std=c11", "-Wall", "-Wextra", "-Werror", "-O2",
                    f"-I{ROOT}/ctl", "-o", exe, driver,
                    ROOT / "ctl" / "traffic" / "lehmer.c"],
                   check=True)
    for seed in (1, 42, 12345, MODULUS - 2, MODULUS - 1 - 1):
        out = subprocess.run([exe, str(seed), "10000"], capture_output=True,
                             text=True, check=True).stdout
        assert [int(v) for v in out.split()] == lehmer(seed, 10000)
    assert lehmer(1, 3) == [950706376, 129027171, 1728259899]
    for bad in (0, MODULUS, 2**32 - 1):
        assert subprocess.run([exe, str(bad), "1"]).returncode == 3


def test_mt19937_is_gsls_stream(tmp_path):
    """ctl/traffic/mt19937.c gives GSL's gsl_rng_mt19937 stream (the one
    mtg's tables were drawn from before it had its own) for seeds at the
    edges of the seeding and across several regenerations."""
    driver = tmp_path / "mt_main.c"
    driver.write_text(textwrap.dedent("""\
        #include <stdio.h>
        #include <stdlib.h>
        #include <gsl/gsl_rng.h>
        #include "traffic/mt19937.h"
        int main(int argc, char **argv)
        {
            unsigned long seed = argc == 2 ? strtoul(argv[1], NULL, 0) : 0;
            gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
            struct mt19937 g;
            long i;
            gsl_rng_set(r, seed);
            mt19937_seed(&g, seed);
            for (i = 0; i < 5000; i++)
                if (gsl_rng_get(r) != mt19937_next(&g) ||
                    gsl_rng_uniform(r) != mt19937_uniform(&g))
                    return 1;
            return 0;
        }
        """))
    exe = tmp_path / "mt"
    subprocess.run(["cc", "-std=c11", "-Wall", "-Wextra", "-Werror", "-O2",
                    f"-I{ROOT}/ctl", "-o", exe, driver,
                    ROOT / "ctl" / "traffic" / "mt19937.c", "-lgsl",
                    "-lgslcblas", "-lm"], check=True)
    for seed in (0, 1, 4357, 12345, MODULUS - 1, 2**32 - 1, 2**32, 2**40 + 5):
        assert subprocess.run([exe, str(seed)]).returncode == 0, seed
    # and the driver can tell a wrong stream: its seed differs from GSL's
    broken = driver.read_text().replace("mt19937_seed(&g, seed)",
                                        "mt19937_seed(&g, seed + 1)")
    driver.write_text(broken)
    subprocess.run(["cc", "-std=c11", "-O2", f"-I{ROOT}/ctl", "-o", exe,
                    driver, ROOT / "ctl" / "traffic" / "mt19937.c", "-lgsl",
                    "-lgslcblas", "-lm"], check=True)
    assert subprocess.run([exe, "12345"]).returncode == 1


def test_samplers_default_and_shown(mtgctl, tmp_path):
    """samplers: 2 unless said, carried to --json and check's table line."""
    tgs = check_json(mtgctl, tmp_path, """\
        dev eth0 dst 192.0.2.2:9000 pkts 200 inta 1ms dist lognormal 1ms 0.5
        tgid 1
        tgid 2 samplers 1
        tgid 3 samplers 2
        """)
    assert [t["samplers"] for t in tgs] == [2, 1, 2]
    (tmp_path / "s.idf").write_text("dev eth0 dst 192.0.2.2:9000\ntgid 1 "
                                    "pkts 200 inta 1ms dist lognormal 1ms "
                                    "0.5 samplers 1\n")
    res = subprocess.run([mtgctl, "check", "s.idf"], cwd=tmp_path,
                         capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    assert "drawn (mt19937, seed 1, samplers 1)" in res.stdout


def test_patt_seed_is_first_lehmer_value(mtgctl, tmp_path):
    tgs = check_json(mtgctl, tmp_path, BASE + """\
        pkts 200 inta 1 patt random
        tgid 1 seed 7
        tgid 2
        tgid 3000000000
        """)
    assert [t["seed"] for t in tgs] == [7, 2, 3000000000 - 1 - (MODULUS - 1) + 1]
    for t in tgs:
        assert t["patt"]["seed"] == lehmer(t["seed"], 1)[0]


def test_mtg_keywords_carried(mtgctl, tmp_path):
    """cos N is DSCP N; data gives RFC 4594's DSCP when neither tos nor
    cos does; nowb, qlen and rpol (with the bandwidth it asks) are carried
    for the dashboard and the recording; time poisson and jitt show."""
    tgs = check_json(mtgctl, tmp_path, BASE + """
        tgid 1 pkts 200 thro 1M 250k cos 46 rpol 20 nowb 100 qlen 50
        tgid 2 pkts 200 inta 1 data interactive
        tgid 3 pkts 200 inta 1 data bulk tos 4
        tgid 4 pkts 200 inta 1 data stream time poisson 60s 180 jitt 2ms
        """)
    one, two, three, four = tgs
    assert (one["tos"], one["nowb"], one["qlen"], one["rpol"]) == \
        (46 << 2, 100, 50, {"percent": 20, "request": 400000})
    # qlen 50 and 400 kbit/s, big-endian: the header's bytes for the
    # network under test
    assert (one["nut"], two["nut"]) == ("003200000190", "000000000000")
    assert (two["tos"], two["data"]) == (18 << 2, "interactive")
    assert (three["tos"], three["data"]) == (4, "bulk")
    assert four["tos"] == 46 << 2
    assert (four["time"], four["calls_ns"], four["jitt_ns"]) == \
        ("poisson", {"idle": 60 * 10**9, "call": 180 * 10**9}, 2 * 10**6)
    assert four["table"]["mode"] == "stream" and four["table"]["first_ns"] > 0


def test_include(mtgctl, tmp_path):
    """include: the groups read where the keyword stands (globals, or the
    TG being read), paths from the including file's directory, errors
    naming the included file, nothing given twice for including twice."""
    (tmp_path / "lab").mkdir()
    (tmp_path / "lab" / "common.idf").write_text(
        "# shared\npkts 200 thro 1M\ninclude addr.idf\n")
    (tmp_path / "lab" / "addr.idf").write_text("ttl 9\n")
    (tmp_path / "lab" / "tg.idf").write_text("dist poisson pkts 400\n")
    (tmp_path / "run.idf").write_text(
        "dev lo dst 127.0.0.1:9000\ninclude lab/common.idf\ntgid 1\n"
        "tgid 2 include lab/tg.idf\ntgid 3 include lab/tg.idf\n")
    res = subprocess.run([mtgctl, "check", "run.idf", "--json"],
                         cwd=tmp_path, capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    one, two, three = json.loads(res.stdout)["tgs"]
    assert (one["ttl"], one["pkts"]["max"], one["dist"]) == (9, 200, "fixed")
    assert (two["pkts"]["max"], two["dist"]) == (400, "exponential")
    assert three["dist"] == "exponential"
    (tmp_path / "lab" / "tg.idf").write_text("dist poisson pkts 99 zork\n")
    res = subprocess.run([mtgctl, "check", "run.idf"], cwd=tmp_path,
                         capture_output=True, text=True)
    assert res.returncode == 1
    # each reading of the file, in the order read, its errors by position
    small = ("'pkts' 99 is below the smallest IPv4 frame, 130 bytes "
             "(Ethernet 14 + IPv4 20 + UDP 8 + MTG header 88)")
    assert res.stderr.splitlines() == [
        f"lab/tg.idf:1:14: error: TG 2: {small}",
        "lab/tg.idf:1:22: error: unknown keyword 'zork'",
        f"lab/tg.idf:1:14: error: TG 3: {small}",
        "lab/tg.idf:1:22: error: unknown keyword 'zork'",
    ]


@pytest.mark.parametrize("when, tz, ns", [
    ("2030-01-02T03:04:05.5Z", "UTC", 1893553445500000000),
    ("2030-01-02T03:04:05.5Z", "Europe/Rome", 1893553445500000000),
    ("2030-01-02T03:04:05.5", "Europe/Rome", 1893553445500000000 - 3600 * 10**9),
    ("2030-07-02T03:04:05", "Europe/Rome", (1909191845 - 7200) * 10**9),
])
def test_time_absolute(mtgctl, tmp_path, when, tz, ns):
    """time absolute: local time (MTG's), or UTC with Z, to the ns."""
    path = write(tmp_path, BASE + f"tgid 1 pkts 200 inta 1 time absolute {when} 5s\n")
    res = subprocess.run([mtgctl, "check", path.name, "--json"], cwd=tmp_path,
                         capture_output=True, text=True,
                         env={**os.environ, "TZ": tz})
    assert res.returncode == 0, res.stderr
    (tg,) = json.loads(res.stdout)["tgs"]
    assert (tg["time"], tg["start_realtime_ns"], tg["duration_ns"]) == \
        ("absolute", ns, 5 * 10**9)


def test_addr_kinds(mtgctl, tmp_path):
    """addr station is dst; broadcast and myself leave the address to the
    run (dev's broadcast, our own), IPv6 for myself when src is."""
    tgs = check_json(mtgctl, tmp_path, """
        dev eth0 pkts 200 inta 1
        tgid 1 addr station 192.0.2.9:7
        tgid 2 addr broadcast 9000
        tgid 3 addr myself 9001 mac 02:00:00:00:00:01
        tgid 4 addr myself 9002 mac 02:00:00:00:00:01 src [2001:db8::1]:5
        """)
    assert [(t["addr"], t["dst"], t["family"]) for t in tgs] == [
        ("station", {"addr": "192.0.2.9", "port": 7}, "ipv4"),
        ("broadcast", {"addr": None, "port": 9000}, "ipv4"),
        ("myself", {"addr": None, "port": 9001}, "ipv4"),
        ("myself", {"addr": None, "port": 9002}, "ipv6")]


def test_proto_icmp(mtgctl, tmp_path):
    """proto icmp: an address without a port, round trips by default, the
    source port as the echo's identifier (what `check` prints), inherited
    from the globals; a port given is said to be ignored."""
    text = ("dev eth0 dist fixed pkts 200 inta 1 proto icmp\n"
            "tgid 1 dst 192.0.2.2\n"
            "tgid 2 dst [2001:db8::2] src [2001:db8::1]:777\n"
            "tgid 3 dst 192.0.2.2:9000\n"
            "tgid 4 dst 192.0.2.2:9000 proto udp\n")
    tgs = check_json(mtgctl, tmp_path, text)
    assert [(t["proto"], t["meter"], t["rtt_slot"], t["dst"]["port"])
            for t in tgs] == [("icmp", "rtt", None, 0), ("icmp", "rtt", None, 0),
                              ("icmp", "rtt", None, 9000),
                              ("udp", "owd", None, 9000)]
    r = check(mtgctl, tmp_path, text)
    assert r.returncode == 0
    assert r.stderr.splitlines() == [
        "t.idf:4:8: warning: TG 3: the port of 'dst' is ignored: an ICMP "
        "echo has none (its identifier is the source port, 4003)"]
    assert "dst 2001:db8::2  IPv6" in r.stdout
    assert "proto icmp: echo requests (identifier 777)" in r.stdout
