#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The experiment `make demo` runs (root; in the VM lane where the host cannot
# load modules): three namespaces, the middle one a network under test that
# forwards with netem adding 5 ms of delay and 1% loss, mtg.ko loaded, and
# examples/demo.idf run by `mtgctl run --batch`: it sends from the first
# namespace and records what comes back in the third, while tcpdump there
# witnesses every frame. Then the recording, as mtgctl info and mtgsap see
# it, and a summary: what mtgctl says it sent and how late, what it
# received and how delayed, next to what the wire saw.
#
# MTG_DEMO_RUN_OPTS: more options for mtgctl run (tests/vm/test_demo.py
# gives a slow debug kernel a longer --start-delay and --drain).
set -euo pipefail
cd "$(dirname "$0")/.."
export PYTHONPATH=$PWD/scripts
step() { printf '\n== %s\n' "$*"; }
out=$(mktemp -d /run/mtg-demo.XXXXXX)

# A failed demo keeps what it made (the recording, the summary, the
# capture, the outputs) in .demo-failed/ of the tree, which the VM lane
# shares with the host, so the failure can be looked at afterwards.
cleanup() {
	local status=$? kept
	for ns in demo-tx demo-nut demo-rx; do
		ip netns del "$ns" 2>/dev/null || true
	done
	[ -z "${loaded:-}" ] || rmmod mtg 2>/dev/null || true
	if [ "$status" -ne 0 ] && [ -n "$(ls -A "$out" 2>/dev/null)" ]; then
		kept=.demo-failed/$(date -u +%Y%m%dT%H%M%SZ)
		mkdir -p "$kept" && cp -a "$out"/. "$kept"/ &&
			echo "demo: failed (exit $status); its files are kept in $PWD/$kept" >&2
	fi
	rm -rf "$out"
}
trap cleanup EXIT

step "load mtg.ko"
if [ ! -e /sys/module/mtg ]; then
	insmod kmod/mtg.ko
	loaded=1
fi
dmesg | grep 'mtg:' | tail -n 1

step "the network: demo-tx veth0 -> demo-nut (forwards; netem on veth2) -> demo-rx veth3"
for ns in demo-tx demo-nut demo-rx; do ip netns add "$ns"; done
ip -n demo-tx link add veth0 type veth peer name veth1 netns demo-nut
ip -n demo-nut link add veth2 type veth peer name veth3 netns demo-rx
ip -n demo-tx addr add 10.99.1.1/24 dev veth0
ip -n demo-nut addr add 10.99.1.2/24 dev veth1
ip -n demo-nut addr add 10.99.2.1/24 dev veth2
ip -n demo-rx addr add 10.99.2.2/24 dev veth3
for dev in demo-tx/veth0 demo-nut/veth1 demo-nut/veth2 demo-rx/veth3; do
	ip -n "${dev%/*}" link set "${dev#*/}" up
done
ip -n demo-tx route add 10.99.2.0/24 via 10.99.1.2
ip -n demo-rx route add 10.99.1.0/24 via 10.99.2.1
ip netns exec demo-nut sysctl -qw net.ipv4.ip_forward=1
ip netns exec demo-nut tc qdisc add dev veth2 root netem delay 5ms loss 1%
ip netns exec demo-nut tc qdisc show dev veth2

step "the experiment: examples/demo.idf"
ctl/mtgctl check examples/demo.idf

step "run it, recording what comes back, with tcpdump on veth3 as the witness"
python3 - "$out" <<'EOF' &
import os, pickle, sys, time
from mtgwitness.capture import Capture
out = sys.argv[1]
with Capture("veth3", ns="demo-rx", bpf="udp") as cap:
    open(f"{out}/capturing", "w").close()
    while not os.path.exists(f"{out}/done"):
        time.sleep(0.1)
with open(f"{out}/frames.pickle", "wb") as f:
    pickle.dump({"frames": [(fr.ts_ns, fr.data) for fr in cap.frames],
                 "dropped": cap.dropped, "if_dropped": cap.if_dropped}, f)
EOF
witness=$!
while [ ! -e "$out/capturing" ]; do
	kill -0 "$witness" 2>/dev/null || { echo "demo: tcpdump did not start" >&2; exit 1; }
	sleep 0.2
done
set +e
# shellcheck disable=SC2086 # the options are words
ctl/mtgctl run examples/demo.idf --batch -o "$out/demo.rec" \
	--json "$out/summary.json" ${MTG_DEMO_RUN_OPTS:-} 2>&1 |
	tee "$out/run.txt"
status=${PIPESTATUS[0]}
set -e
touch "$out/done"
wait "$witness"

step "the recording"
ctl/mtgctl info "$out/demo.rec" 2>&1 | tee "$out/info.txt"

step "mtgsap on the recording: per TG, then D-ITG's windows of 500 ms"
.venv/bin/mtgsap flows "$out/demo.rec" 2>&1 | tee "$out/flows.txt"
.venv/bin/mtgsap windows "$out/demo.rec" --window 500ms 2>&1 |
	tee "$out/windows.txt"

step "summary: mtgctl's counters next to what the wire saw at the receiver"
python3 - "$out" "$status" <<'EOF'
import json, pickle, sys
from mtgwitness import wire
out, status = sys.argv[1], int(sys.argv[2])
summary = json.load(open(f"{out}/summary.json"))
cap = pickle.load(open(f"{out}/frames.pickle", "rb"))
frames = [wire.parse_frame(data, ts_ns=ts) for ts, data in cap["frames"]]
ours = [f for f in frames if f.mtg and f.mtg.run_id == summary["run_id"]]

def us(ns):
    return "-" if ns is None else f"{ns / 1000:.0f}"

def ms(ns):
    return "-" if ns is None else f"{ns / 1e6:.2f}"

print(f"run id {summary['run_id']:#x}, mtgctl exit status {status}; "
      f"capture: {len(frames)} frames, {cap['dropped']} dropped by the capture; "
      f"recording: {summary['recording']['records']} records, "
      f"{summary['ring_drops']} ring drops")
print(f"{'':>3} {'mtgctl':^34} | {'wire at demo-rx':^24}")
print(f"{'TG':>3} {'sent':>5} {'late p99':>8} {'rcvd':>5} {'lost':>4} "
      f"{'owd p50':>7} | {'frames':>6} {'missing':>7} {'bad':>3} {'bit err':>7}")
for tg in summary["tgs"]:
    mine = [f for f in ours if f.mtg.tg_id == tg["id"]]
    seqs = {f.mtg.seq for f in mine}
    bad = sum(1 for f in mine if not f.ok)
    bits = sum(f.body_wrong_bits() or 0 for f in mine)
    print(f"{tg['id']:>3} {tg['sent']:>5} {us(tg['lateness_ns']['p99']):>5} us "
          f"{tg['received']:>5} {tg['lost']:>4} {ms(tg['owd_ns']['p50']):>4} ms | "
          f"{len(mine):>6} {tg['sent'] - len(seqs):>7} {bad:>3} {bits:>7}")
print("\nlate: TX stamp minus scheduled departure; owd: one-way delay, receive\n"
      "stamp minus TX stamp (netem adds 5 ms). 'lost' is what netem dropped\n"
      "(1%): mtgctl's count and the wire's missing sequence numbers agree.\n"
      "Under software emulation (TCG) timer wake-ups are late by ~0.2 ms\n"
      "typically and ~10 ms at worst (Documentation/testing.rst); on hardware\n"
      "they are microseconds.")
EOF
exit "$status"
