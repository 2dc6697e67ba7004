#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# mtg beside D-ITG's own programs (Documentation/ditg.rst), made on one
# machine (root, mtg.ko loaded or in kmod/, Debian's d-itg installed):
# three namespaces, wd-tx a sending host, wd-nut a network that forwards
# with netem (5 ms), wd-rx a receiving host.
#
#   1. mtg to an unmodified ITGRecv: in wd-rx `ITGRecv -l`; in wd-tx
#      `mtgctl run examples/with-ditg.idf` (header ditg, rcvr ditg) sets
#      its flows up over D-ITG's signalling and sends; ITGDec reads
#      ITGRecv's log.
#   2. an unmodified ITGSend to mtg: in wd-rx `mtgctl recv --allow-ditg
#      10.97.1.1`; in wd-tx `ITGSend`; mtgsap reads the recording, ITGDec
#      ITGSend's own log.
#
# On two real machines, run the commands below, one on each host.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
out=$(mktemp -d /run/mtg-with-ditg.XXXXXX)
step() { printf '\n== %s\n' "$*"; }

cleanup() {
	for pid in ${itgrecv:-} ${recv:-}; do
		kill "$pid" 2>/dev/null || true
	done
	wait 2>/dev/null || true
	for ns in wd-tx wd-nut wd-rx; do
		ip netns del "$ns" 2>/dev/null || true
	done
	[ -z "${loaded:-}" ] || rmmod mtg 2>/dev/null || true
	rm -rf "$out"
}
trap cleanup EXIT

# A daemon's log says it is ready: 0, else 1 after 20 s.
ready() {
	for _ in $(seq 200); do
		grep -q "$2" "$1" 2>/dev/null && return 0
		sleep 0.1
	done
	return 1
}

if [ ! -e /sys/module/mtg ]; then
	insmod kmod/mtg.ko
	loaded=1
fi

step "the hosts: wd-tx veth0 -> wd-nut (forwards; netem on veth2) -> wd-rx veth3"
for ns in wd-tx wd-nut wd-rx; do ip netns add "$ns"; done
ip -n wd-tx link add veth0 type veth peer name veth1 netns wd-nut
ip -n wd-nut link add veth2 type veth peer name veth3 netns wd-rx
ip -n wd-tx addr add 10.97.1.1/24 dev veth0
ip -n wd-nut addr add 10.97.1.2/24 dev veth1
ip -n wd-nut addr add 10.97.2.1/24 dev veth2
ip -n wd-rx addr add 10.97.2.2/24 dev veth3
for dev in wd-tx/lo wd-tx/veth0 wd-nut/veth1 wd-nut/veth2 wd-rx/lo wd-rx/veth3; do
	ip -n "${dev%/*}" link set "${dev#*/}" up
done
ip -n wd-tx route add 10.97.2.0/24 via 10.97.1.2
ip -n wd-rx route add 10.97.1.0/24 via 10.97.2.1
ip netns exec wd-nut sysctl -qw net.ipv4.ip_forward=1
ip netns exec wd-nut tc qdisc add dev veth2 root netem delay 5ms
cp examples/with-ditg.idf "$out/"

step "1. wd-rx: ITGRecv -l recv.log"
(cd "$out" && exec ip netns exec wd-rx ITGRecv -l recv.log > itgrecv.out 2>&1) &
itgrecv=$!
for _ in $(seq 200); do
	ip netns exec wd-rx ss -Hltn "sport = :9000" | grep -q . && break
	sleep 0.1
done

step "1. wd-tx: mtgctl run with-ditg.idf"
status=0
(cd "$out" && ip netns exec wd-tx "$root/ctl/mtgctl" run with-ditg.idf --batch \
	--json run.json) || status=$?
echo "mtgctl run exit status $status"
kill -INT "$itgrecv" && wait "$itgrecv" || true
itgrecv=

step "1. ITGDec recv.log"
(cd "$out" && ITGDec recv.log | sed -n '/TOTAL RESULTS/,$p')

step "2. wd-rx: mtgctl recv --allow-ditg 10.97.1.1 (a key of its own: mtg's senders need it)"
(umask 077 && openssl rand -hex 32 > "$out/tsp.key")
mkdir "$out/runs"
(cd "$out" && exec ip netns exec wd-rx "$root/ctl/mtgctl" recv --key tsp.key \
	--allow-ditg 10.97.1.1 --out runs > recv.log 2>&1) &
recv=$!
ready "$out/recv.log" "receiving TSP" || { cat "$out/recv.log"; exit 1; }

step "2. wd-tx: ITGSend -a 10.97.2.2 -T UDP -C 200 -c 200 -t 2000 -l send.log"
(cd "$out" && ip netns exec wd-tx ITGSend -a 10.97.2.2 -rp 9101 -T UDP \
	-C 200 -c 200 -t 2000 -l send.log | tail -n 3)
kill "$recv" && wait "$recv" || true
recv=
cat "$out/recv.log"

step "2. mtgsap flows (the recording) beside ITGDec send.log (ITGSend's own log)"
"$root/.venv/bin/mtgsap" flows "$out"/runs/run-*.mtgrec
(cd "$out" && ITGDec send.log | sed -n '/TOTAL RESULTS/,$p')
exit "$status"
