# SPDX-License-Identifier: GPL-2.0-or-later
"""`dist behaviour` (Documentation/idf.rst, "Behaviours"): the parser
reads a behaviour's categories and chain and says where each mistake is;
the categories of the timetables mtgctl builds are a function of the seed,
which mtgsap works out again exactly; and a behaviour-driven 100-player
run (issue 21) spends its time in the categories, and sends in each, as
the model says, by stated tests at stated significance levels."""

import csv
import io
import json
import math
import subprocess

import numpy as np
import pytest

from mtgsap.behaviour import Timeline
from test_idf_errors import errors
from test_mtgctl_idf import check, check_json

GUILD = """\
dev eth0
behaviour guild
    category trading 20s dist exponential inta 500ms pkts variable 300 130
    category raiding 40s dist quake3
    category idle    10s dist fixed inta 2s pkts 130
    next trading raiding 0.7 idle 0.3
    next raiding trading 0.5 idle 0.5
    next idle    trading 0.6 raiding 0.4
"""


def table(mtgctl, path, *args):
    r = subprocess.run([mtgctl, "table", path, *args], capture_output=True,
                       timeout=300)
    assert r.returncode == 0, r.stderr
    return r.stdout


# The parser

def test_a_behaviour_as_written(mtgctl, tmp_path):
    tgs = check_json(mtgctl, tmp_path, GUILD + "tgid 1-2 dst 192.0.2.2:9 "
                     "dist behaviour guild\n")
    b = tgs[0]["behaviour"]
    assert tgs[0]["dist"] == "behaviour" and b["name"] == "guild"
    cats = {c["name"]: c for c in b["categories"]}
    assert list(cats) == ["trading", "raiding", "idle"]
    assert cats["trading"]["mean_ns"] == 20 * 10**9
    assert cats["trading"]["dist"] == "exponential"
    assert cats["trading"]["dist_params"] == {"mean_ns": 500e6}
    assert cats["trading"]["pkts"] == {"kind": "variable", "max": 300,
                                       "min": 130}
    assert cats["raiding"]["dist"] == "quake3"
    assert cats["idle"]["next"] == [0.6, 0.4, 0]
    # the shares of time: v = v P, then v_i * mean_i, worked out here
    p = np.array([c["next"] for c in b["categories"]])
    w, v = np.linalg.eig(p.T)
    v = np.real(v[:, np.argmin(abs(w - 1))])
    t = v / v.sum() * np.array([20, 40, 10])
    assert [c["share"] for c in b["categories"]] == \
        pytest.approx(t / t.sum(), abs=1e-12)
    # each TG its own chain
    assert tgs[0]["behaviour"]["chain_seed"] != \
        tgs[1]["behaviour"]["chain_seed"]
    assert tgs[0]["table"]["mode"] == "stream"


def test_mtgctls_own_is_its_documented_text(mtgctl, tmp_path):
    """`dist behaviour mmorpg` is the behaviour Documentation/idf.rst
    writes out (its block, given here another name)."""
    doc = (ROOT / "Documentation" / "idf.rst").read_text()
    lines = doc.split(".. _mmorpg:", 1)[1].split("::\n\n", 1)[1]
    block = ""
    for line in lines.splitlines():
        if line.strip() and not line.startswith("   "):
            break
        block += line[3:] + "\n"
    assert block.startswith("behaviour mmorpg\n")
    mine = block.replace("behaviour mmorpg", "behaviour doc", 1)
    tgs = check_json(mtgctl, tmp_path, "dev eth0\n" + mine +
                     "tgid 1 dst 192.0.2.2:9 dist behaviour mmorpg\n"
                     "tgid 2 dst 192.0.2.2:9 dist behaviour doc\n")
    own, doc_b = tgs[0]["behaviour"], tgs[1]["behaviour"]
    assert own.pop("name") == "mmorpg" and doc_b.pop("name") == "doc"
    own.pop("chain_seed"), doc_b.pop("chain_seed")
    assert own == doc_b


ROOT = __import__("pathlib").Path(__file__).resolve().parents[2]

BAD = [
    (GUILD.replace("0.5 idle 0.5", "0.5 idle 0.4"),
     "t.idf:7:10: error: 'next raiding': the chances sum to 0.9, not 1"),
    (GUILD.replace("raiding 0.7 idle 0.3", "raiding 0.7 idle 1.3"),
     "t.idf:6:35: error: 'next' expects a chance, a number from 0 to 1, "
     "got '1.3'"),
    (GUILD.replace("next idle    trading 0.6 raiding 0.4",
                   "next idle    trading 0.6 raid 0.4"),
     "t.idf:8:30: error: 'next': behaviour 'guild' has no category 'raid' "
     "(a category is given before the 'next' lines that name it)"),
    (GUILD.replace("next idle    trading 0.6 raiding 0.4\n", ""),
     "t.idf:5:14: error: category 'idle' of behaviour 'guild' has no "
     "'next' line: which category follows it?"),
    (GUILD.replace("inta 2s pkts 130", "inta 2s pkts 130 ttl 9"),
     "t.idf:5:54: error: 'ttl' does not go on a 'category' line: a "
     "category takes 'dist', 'pkts', 'inta' and 'thro'"),
    (GUILD.replace("dist quake3", "dist exponential pkts 200"),
     "t.idf:4:14: error: category 'raiding' of behaviour 'guild' has "
     "neither 'thro' nor 'inta': nothing sets its rate"),
    (GUILD.replace(" 40s ", " 0 "),
     "t.idf:4:22: error: a category's mean time must be above 0"),
    (GUILD.replace("next raiding trading 0.5 idle 0.5",
                   "next raiding raiding 1"),
     "t.idf:7:10: error: behaviour 'guild': category 'trading' is never "
     "reached from 'raiding' (every category must lead to every other, or "
     "the shares of time depend on where it starts)"),
    (GUILD.replace("behaviour guild", "behaviour guild\nbehaviour guild"),
     "t.idf:3:11: error: behaviour 'guild' defined twice (first at "
     "line 2)"),
    ("dev eth0\ncategory a 1s dist quake3\n",
     "t.idf:2:1: error: 'category' belongs to a behaviour: write it after "
     "a 'behaviour NAME' line, before the first 'tgid'"),
    (GUILD + "tgid 1 dst 192.0.2.2:9 dist behaviour guild\n"
     "behaviour later\n",
     "t.idf:10:1: error: 'behaviour' defines a behaviour: give it before "
     "the first 'tgid' (a TG takes it with 'dist behaviour NAME')"),
    ("dev eth0\ntgid 1 dst 192.0.2.2:9 dist behaviour nobody\n",
     "t.idf:2:39: error: no behaviour 'nobody': define it with 'behaviour "
     "nobody' and its 'category' and 'next' lines before the first "
     "'tgid', or take mtgctl's own, 'mmorpg'"),
    (GUILD + "tgid 1 dst 192.0.2.2:9 dist behaviour guild jitt 1ms\n",
     "t.idf:9:45: error: TG 1: 'jitt' does not go with 'dist behaviour': "
     "a packet's category is the one at its departure"),
    (GUILD + "tgid 1 dst 192.0.2.2:9 dist behaviour guild table loop\n",
     "t.idf:9:45: error: TG 1: 'table loop' would repeat the categories: "
     "a behaviour's table streams"),
    (GUILD + "tgid 1-3 dst [2001:db8::2]:9 dist behaviour guild\n",
     "t.idf:3:54: error: TGs 1..3: category 'trading' of behaviour "
     "'guild': 'pkts' 130 is below the smallest IPv6 frame, 150 bytes"),
    (GUILD.replace("dist quake3", "dist behaviour guild"),
     "t.idf:4:41: error: a category's model cannot be a behaviour"),
]


@pytest.mark.parametrize("text, message", [b for b in BAD if b[1]],
                         ids=lambda v: v[:30] if isinstance(v, str) else "")
def test_errors_say_where(mtgctl, tmp_path, text, message):
    if "tgid" not in text:
        text += "tgid 1 dst 192.0.2.2:9 dist behaviour guild\n"
    got = errors(mtgctl, tmp_path, text)
    assert got[0] == message or message in got and "IPv6" in message, got


def test_a_shared_behaviour_is_not_repeated(mtgctl, tmp_path):
    """A category that several TGs of a range make too short is one
    error, at the category, naming the TGs (tested above); mtgctl's own
    behaviour fits IPv6."""
    r = check(mtgctl, tmp_path, "dev eth0\ntgid 1-2 dst [2001:db8::2]:9 "
              "dist behaviour mmorpg\n")
    assert r.returncode == 0, r.stderr


# The timetables: deterministic, their categories those mtgsap works out

PLAYERS = "dev eth0\ntgid 1-100 dst 10.0.0.1:{9000 + n} dist behaviour mmorpg\n"


def test_categories_are_the_seeds(mtgctl, tmp_path):
    """mtgctl table --category twice gives the same bytes; every packet's
    category is the one mtgsap's Timeline gives at its departure, for all
    100 players (seeded 1..100 by their tgids)."""
    path = tmp_path / "p.idf"
    path.write_text(PLAYERS)
    out = table(mtgctl, path, "--count", "2000", "--category")
    assert out == table(mtgctl, path, "--count", "2000", "--category")
    rows = list(csv.DictReader(io.StringIO(out.decode())))
    tgs = check_json(mtgctl, tmp_path, PLAYERS)
    seen = set()
    for tg in tgs:
        mine = [r for r in rows if int(r["tg"]) == tg["id"]]
        assert len(mine) == 2000
        t = np.array([int(r["departure_ns"]) for r in mine]) - tg["start_ns"]
        line = Timeline(tg)
        assert [line.names[c] for c in line.at(t)] == \
            [r["category"] for r in mine]
        seen.update(r["category"] for r in mine)
        # the lengths are the category's model's
        for r in mine:
            pk = tg["behaviour"]["categories"][
                line.names.index(r["category"])]["pkts"]
            assert pk["min"] <= int(r["len"]) <= pk["max"]
    assert seen == {"trading", "questing", "dungeon", "raiding", "pvp",
                    "idle"}
    # other seeds, other categories
    assert table(mtgctl, path, "--count", "2000", "--category") != \
        table(mtgctl, tmp_path.joinpath("q.idf") if tmp_path.joinpath(
            "q.idf").write_text(PLAYERS.replace("dist", "seed {n + 100} "
                                                "dist")) else None,
              "--count", "2000", "--category")


# The 100-player run against the model

RECORD = np.dtype([("tg", "<u4"), ("len", "<u4"), ("dep", "<u8"),
                   ("gap", "<u8")])
HOURS_CHAIN = 50        # each player's chain, for the shares of time
H_PACKETS = 45 * 60 * 10**9     # each player's packets, for the rates
Z_001 = 3.2905          # two-sided 0.001 of the standard normal


def shares_z(tgs, shares):
    """Per category: the players' fractions of time over HOURS_CHAIN hours
    (batch means, one batch a player: independent, each started in the
    stationary distribution so unbiased), z against `shares`."""
    h = HOURS_CHAIN * 3600 * 10**9
    f = np.array([np.array(Timeline(tg).time_in(h)) / h for tg in tgs])
    se = f.std(axis=0, ddof=1) / math.sqrt(len(f))
    return (f.mean(axis=0) - np.asarray(shares)) / se


def rates_z(tgs, deps, scale=1.0):
    """Per category: packets sent in it before H_PACKETS by all players
    against the model's count. In mmorpg every category is Poisson and its
    process starts afresh at each entry (behave.c), so given the times
    spent the count is Poisson with mean rate * time: z = (N - m) /
    sqrt(m)."""
    n = np.zeros(6)
    m = np.zeros(6)
    for tg in tgs:
        line = Timeline(tg)
        t = deps[tg["id"]] - tg["start_ns"]
        assert t.max() >= H_PACKETS, "the table must reach H_PACKETS"
        t = t[t < H_PACKETS]
        n += np.bincount(line.at(t), minlength=6)
        rate = scale * 1e9 / np.array(line.mean_gaps)
        m += rate * np.array(line.time_in(H_PACKETS)) / 1e9
    return (n - m) / np.sqrt(m)


def test_hundred_players_match_the_model(mtgctl, tmp_path):
    """Issue 21's behaviour-driven 100-player run, on the timetables mtgctl
    builds (fixed seeds 1..100). Shares of time: a z-test on the batch
    means of 100 players against the stationary shares; rates: a Poisson
    z-test per category. Each at two-sided 0.001 (12 tests: family-wise
    0.012 by Bonferroni). Both tests reject a model 10 % off (the same
    data), so they can fail."""
    path = tmp_path / "p.idf"
    path.write_text(PLAYERS)
    tgs = check_json(mtgctl, tmp_path, PLAYERS)
    shares = [c["share"] for c in tgs[0]["behaviour"]["categories"]]
    z = shares_z(tgs, shares)
    assert np.all(abs(z) < Z_001), z
    recs = np.frombuffer(table(mtgctl, path, "--count", "60000",
                               "--format", "bin"), RECORD)
    deps = {int(t): recs["dep"][recs["tg"] == t].astype(np.int64)
            for t in np.unique(recs["tg"])}
    z = rates_z(tgs, deps)
    assert np.all(abs(z) < Z_001), z
    # the tests see a wrong model
    wrong = np.array(shares) * np.array([1.1, 0.9, 1.1, 0.9, 1.1, 0.9])
    assert np.any(abs(shares_z(tgs, wrong / wrong.sum())) >= Z_001)
    assert np.all(abs(rates_z(tgs, deps, scale=1.1)) >= Z_001)


# mtgsap: a recording split by category

def test_mtgsap_splits_a_recording(mtgctl, tmp_path, capsys):
    """A recording made here of TG 1's first 3000 departures (the table
    mtgctl builds, less every seventh packet, as lost), with the metadata
    check --json gives: mtgsap categories counts each category's records
    as mtgctl's --category column does, and -o writes them apart."""
    import mtgsap
    from mtgsap import cli
    from mtgsap.recording import Recording, empty

    text = GUILD + "tgid 1 dst 192.0.2.2:9 dist behaviour guild " \
        "time relative 2s\n"
    tgs = check_json(mtgctl, tmp_path, text)
    out = table(mtgctl, tmp_path / "t.idf", "--count", "3000",
                "--category").decode()
    rows = list(csv.DictReader(io.StringIO(out)))
    keep = [r for k, r in enumerate(rows) if k % 7]
    t0 = 1_800_000_000 * 10**9
    r = empty(len(keep))
    r["seq"] = [int(x["k"]) for x in keep]
    r["run_id"], r["tg_id"], r["iface"], r["flags"] = 7, 1, 1, 1
    r["sched_ns"] = [t0 + int(x["departure_ns"]) for x in keep]
    r["tx_ns"] = r["sched_ns"] + 1000
    r["rx_ns"] = r["tx_ns"] + 10**6
    r["len"] = [int(x["len"]) for x in keep]
    meta = dict(command="run", start_ns=t0, run_id=7,
                interfaces=[{"id": 1, "dev": "rx0", "netns": None,
                             "ifindex": 3}], tgs=tgs)
    path = tmp_path / "b.rec"
    mtgsap.write(path, meta, r)
    code = cli.main(["categories", str(path), "--json", "-o",
                     str(tmp_path / "part")])
    assert code == 0
    got = json.loads(capsys.readouterr().out)
    want = {}
    for x in keep:
        want[x["category"]] = want.get(x["category"], 0) + 1
    assert {c["category"]: c["records"] for c in got["categories"]} == \
        {n: want.get(n, 0) for n in ("trading", "raiding", "idle")}
    for o in got["outputs"]:
        part = Recording(o["output"])
        assert len(part) == want.get(o["category"], 0)
        assert sorted(int(s) for s in part.records["seq"]) == sorted(
            int(x["k"]) for x in keep if x["category"] == o["category"])
    # a TG whose rate changed is refused, saying why
    from mtgsap.recording import rate_extra
    mtgsap.write(tmp_path / "c.rec", meta, r,
                 extras=[rate_extra(1, t0 + 5 * 10**9, 2, 1, "key")])
    assert cli.main(["categories", str(tmp_path / "c.rec")]) == 1
    assert "its throughput changed during the run" in \
        capsys.readouterr().err
