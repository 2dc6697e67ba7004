#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Two hosts agreeing over TSP (Documentation/tsp.rst), made on one machine
# (root, mtg.ko loaded or in kmod/): three namespaces, th-tx the sending
# host, th-nut a network that forwards with netem (5 ms, 1% loss), th-rx
# the receiving host. In th-rx, `mtgctl recv` waits for senders holding
# the key; in th-tx, `mtgctl run examples/two-hosts.idf` agrees both TGs
# with it, sends, and reports what the receiver measured. On two real
# machines, run the two mtgctl commands below, one on each, with the same
# key file.
#
# MTG_TWO_HOSTS_RUN_OPTS: more options for mtgctl run (the VM test gives
# a slow debug kernel a longer --start-delay and --drain).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
out=$(mktemp -d /run/mtg-two-hosts.XXXXXX)
step() { printf '\n== %s\n' "$*"; }

cleanup() {
	[ -z "${recv:-}" ] || kill "$recv" 2>/dev/null || true
	wait 2>/dev/null || true
	for ns in th-tx th-nut th-rx; do
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

step "the hosts: th-tx veth0 -> th-nut (forwards; netem on veth2) -> th-rx veth3"
for ns in th-tx th-nut th-rx; do ip netns add "$ns"; done
ip -n th-tx link add veth0 type veth peer name veth1 netns th-nut
ip -n th-nut link add veth2 type veth peer name veth3 netns th-rx
ip -n th-tx addr add 10.98.1.1/24 dev veth0
ip -n th-nut addr add 10.98.1.2/24 dev veth1
ip -n th-nut addr add 10.98.2.1/24 dev veth2
ip -n th-rx addr add 10.98.2.2/24 dev veth3
for dev in th-tx/lo th-tx/veth0 th-nut/veth1 th-nut/veth2 th-rx/lo th-rx/veth3; do
	ip -n "${dev%/*}" link set "${dev#*/}" up
done
ip -n th-tx route add 10.98.2.0/24 via 10.98.1.2
ip -n th-rx route add 10.98.1.0/24 via 10.98.2.1
ip netns exec th-nut sysctl -qw net.ipv4.ip_forward=1
ip netns exec th-nut tc qdisc add dev veth2 root netem delay 5ms loss 1%

step "the key both hosts hold"
(umask 077 && openssl rand -hex 32 > "$out/tsp.key")
cp examples/two-hosts.idf "$out/"

step "th-rx: mtgctl recv --key tsp.key --addr 10.98.2.2 --max-rate 10M"
mkdir "$out/runs"
(cd "$out" && exec ip netns exec th-rx "$root/ctl/mtgctl" recv --key tsp.key \
	--addr 10.98.2.2 --ports 9001-9010 --max-rate 10M --out runs > recv.log 2>&1) &
recv=$!
for _ in $(seq 100); do
	grep -q "receiving TSP" "$out/recv.log" 2>/dev/null && break
	sleep 0.1
done
cat "$out/recv.log"

step "th-tx: mtgctl run two-hosts.idf"
status=0
# shellcheck disable=SC2086
(cd "$out" && ip netns exec th-tx "$root/ctl/mtgctl" run two-hosts.idf --batch \
	--json remote.json ${MTG_TWO_HOSTS_RUN_OPTS:-}) || status=$?
echo "mtgctl run exit status $status"

step "th-rx: what the receiver says"
kill "$recv" && wait "$recv" || true
recv=
cat "$out/recv.log"
ls "$out/runs"
"$root/ctl/mtgctl" info "$out"/runs/run-*.mtgrec | head -n 20

step "the sender's summary: each TG's remote figures"
python3 - "$out/remote.json" <<'PY'
import json, sys
for tg in json.load(open(sys.argv[1]))["tgs"]:
    r = tg["remote"]
    print("TG {}: sent {}, at {}: received {}, lost {}, owd mean {:.2f} ms".format(
        tg["id"], tg["sent"], r["rcvr"], r["received"], r["lost"],
        r["owd_ns"]["mean"] / 1e6))
PY
exit "$status"
