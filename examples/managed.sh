#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# One experiment on three hosts from one file (Documentation/tsp.rst, "The
# manager and its daemons"), made on one machine (root, mtg.ko loaded or
# in kmod/): namespaces mg-a and mg-b are sending hosts, each running
# `mtgctl daemon`; mg-rx is the receiving host, running `mtgctl recv`;
# mg-nut routes between them, and `mtgctl manage examples/managed.idf`
# runs there. On real machines, run each command below on its host, with
# the same key file on every host.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
out=$(mktemp -d /run/mtg-managed.XXXXXX)
pids=()
step() { printf '\n== %s\n' "$*"; }

cleanup() {
	for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
	wait 2>/dev/null || true
	for ns in mg-a mg-b mg-nut mg-rx; do
		ip netns del "$ns" 2>/dev/null || true
	done
	[ -z "${loaded:-}" ] || rmmod mtg 2>/dev/null || true
	rm -rf "$out"
}
trap cleanup EXIT

if [ ! -e /sys/module/mtg ]; then
	insmod kmod/mtg.ko
	loaded=1
fi

step "the hosts: mg-a, mg-b -> mg-nut (routes) -> mg-rx"
for ns in mg-a mg-b mg-nut mg-rx; do ip netns add "$ns"; done
ip -n mg-a link add veth0 type veth peer name va netns mg-nut
ip -n mg-b link add veth0 type veth peer name vb netns mg-nut
ip -n mg-nut link add vr type veth peer name veth0 netns mg-rx
ip -n mg-a addr add 10.97.1.1/24 dev veth0
ip -n mg-b addr add 10.97.3.1/24 dev veth0
ip -n mg-rx addr add 10.97.2.2/24 dev veth0
ip -n mg-nut addr add 10.97.1.2/24 dev va
ip -n mg-nut addr add 10.97.3.2/24 dev vb
ip -n mg-nut addr add 10.97.2.1/24 dev vr
for dev in mg-a/lo mg-a/veth0 mg-b/lo mg-b/veth0 mg-rx/lo mg-rx/veth0 \
	   mg-nut/lo mg-nut/va mg-nut/vb mg-nut/vr; do
	ip -n "${dev%/*}" link set "${dev#*/}" up
done
ip -n mg-a route add default via 10.97.1.2
ip -n mg-b route add default via 10.97.3.2
ip -n mg-rx route add default via 10.97.2.1
ip netns exec mg-nut sysctl -qw net.ipv4.ip_forward=1

step "the key every host holds"
(umask 077 && openssl rand -hex 32 > "$out/tsp.key")
cp examples/managed.idf "$out/"
mkdir "$out/runs"

step "mg-rx: mtgctl recv; mg-a, mg-b: mtgctl daemon"
(cd "$out" && exec ip netns exec mg-rx "$root/ctl/mtgctl" recv --key tsp.key \
	--out runs > recv.log 2>&1) &
pids+=($!)
for host in a b; do
	(cd "$out" && exec ip netns exec "mg-$host" "$root/ctl/mtgctl" daemon \
		--key tsp.key > "daemon-$host.log" 2>&1) &
	pids+=($!)
done
for log in recv.log daemon-a.log daemon-b.log; do
	for _ in $(seq 100); do
		grep -qE "receiving TSP|waiting for a manager" "$out/$log" \
			2>/dev/null && break
		sleep 0.1
	done
	cat "$out/$log"
done

step "mg-nut: mtgctl manage managed.idf"
status=0
(cd "$out" && ip netns exec mg-nut "$root/ctl/mtgctl" manage managed.idf \
	--json managed.json) || status=$?
echo "mtgctl manage exit status $status"

step "what each daemon and the receiver said"
cat "$out/daemon-a.log" "$out/daemon-b.log" "$out/recv.log"
ls "$out/runs"

step "the merged summary: each TG, its host, the receiver's figures"
python3 - "$out/managed.json" <<'PY'
import json, sys
for tg in json.load(open(sys.argv[1]))["tgs"]:
    r = tg.get("remote") or {}
    print("TG {} on {}: sent {}, received {}, lost {}".format(
        tg["id"], tg["host"], tg["sent"], r.get("received"), r.get("lost")))
PY
exit "$status"
