#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Many emulated hosts on one machine (Documentation/hosts.rst): N sender
# namespaces PREFIX1..PREFIXN, each with an eth0 joined by veth to a bridge
# in PREFIX-rt, and a receiver namespace PREFIX-rx behind the bridge's port
# "rx", where netem may shape what reaches the receiver. One L2 segment,
# 10.0.0.0/8: host n is 10.(n/250).(n%250).1 with the MAC address
# 02:6d:74:67:(n/256):(n%256), the receiver 10.255.0.1 with RX_MAC. On a
# segment of N hosts every broadcast is N copies, so nothing is left to
# learn: the bridge knows every MAC from the start, each host knows the
# receiver's (for sockets; the IDF names it for mtg's TGs) and the
# receiver every host's, so no ARP; and no IPv6 autoconfiguration (its
# solicitations are multicast).
#
#   examples/hosts.sh up N [--prefix P] [--netem "delay 5ms loss 1%"]
#   examples/hosts.sh idf N [--prefix P] [--port BASE]  (an IDF for mtgctl)
#   examples/hosts.sh down [--prefix P]
#
# The namespaces and links are made with `ip -batch` (one process for all
# of them); each sender's address needs one more `ip` process.
set -euo pipefail

usage() {
	sed -n '/^#   examples/s/^#   //p' "$0" >&2
	exit 2
}

die() {
	echo "hosts.sh: $*" >&2
	exit 1
}

cmd=${1:-}
[ $# -gt 0 ] && shift
n=0
case $cmd in
up|idf)
	[ $# -gt 0 ] || usage
	n=$1
	shift
	[[ $n =~ ^[0-9]+$ ]] && [ "$n" -ge 1 ] && [ "$n" -le 62500 ] ||
		die "N must be a number of hosts from 1 to 62500, got '$n'"
	;;
down) ;;
*) usage ;;
esac
prefix=h
netem=
port=9000
while [ $# -gt 0 ]; do
	case $1 in
	--prefix) [ $# -ge 2 ] || usage; prefix=$2; shift 2 ;;
	--netem) [ $# -ge 2 ] || usage; netem=$2; shift 2 ;;
	--port) [ $# -ge 2 ] || usage; port=$2; shift 2 ;;
	*) die "unknown option '$1'" ;;
	esac
done
[[ $prefix =~ ^[A-Za-z][A-Za-z0-9_-]{0,7}$ ]] ||
	die "--prefix must be a letter and up to 7 letters, digits, - or _ (interface names are short), got '$prefix'"
rt=$prefix-rt
rx=$prefix-rx
RX_MAC=02:6d:74:67:ff:01

# from one `date +%s%N` to another, in seconds with one decimal
seconds() {
	local ds=$((($2 - $1) / 100000000))

	echo "$((ds / 10)).$((ds % 10))"
}

host_addr() {
	echo "10.$(($1 / 250)).$(($1 % 250)).1"
}

host_mac() {
	printf '02:6d:74:67:%02x:%02x' $(($1 / 256)) $(($1 % 256))
}

case $cmd in
idf)
	# the same topology as `up`, as one range (Documentation/idf.rst)
	cat <<EOF
# $n hosts of examples/hosts.sh up $n --prefix $prefix
listen eth0@$rx
dev eth0
mac $RX_MAC
dist fixed
pkts 130
inta 10ms
time relative 0 5s
tgid 1-$n
    netns $prefix{n}
    src 10.{n / 250}.{n % 250}.1
    dst 10.255.0.1:{$port + n}
EOF
	;;
up)
	if ip netns list | grep -qE "^($rt|$rx)( |\$)"; then
		die "namespace $rt or $rx exists: 'examples/hosts.sh down --prefix $prefix' first"
	fi
	start=$(date +%s%N)
	batch=$(mktemp)
	# half a topology is no topology: a failed `up` takes it all down
	trap 'rm -f "$batch"; "$0" down --prefix "$prefix" >/dev/null' ERR
	trap 'rm -f "$batch"' EXIT
	{
		echo "netns add $rt"
		echo "netns add $rx"
		for ((i = 1; i <= n; i++)); do
			echo "netns add $prefix$i"
		done
	} > "$batch"
	ip -batch "$batch"
	{
		echo "link add br0 type bridge"
		echo "link set br0 addrgenmode none"
		echo "link set lo up"
		echo "link set br0 up"
		echo "link add rx type veth peer name eth0 netns $rx"
		echo "link set rx addrgenmode none"
		echo "link set rx master br0 up"
		for ((i = 1; i <= n; i++)); do
			echo "link add $prefix$i type veth peer name eth0 netns $prefix$i"
			echo "link set $prefix$i addrgenmode none"
			echo "link set $prefix$i master br0 up"
		done
	} > "$batch"
	ip -n "$rt" -batch "$batch"
	{
		echo "fdb add $RX_MAC dev rx master static"
		for ((i = 1; i <= n; i++)); do
			echo "fdb add $(host_mac "$i") dev $prefix$i master static"
		done
	} > "$batch"
	bridge -n "$rt" -batch "$batch"
	# shellcheck disable=SC2086 # netem's options are words
	[ -z "$netem" ] || tc -n "$rt" qdisc add dev rx root netem $netem
	{
		printf '%s\n' "link set lo up" "link set eth0 address $RX_MAC" \
			"link set eth0 addrgenmode none" \
			"addr add 10.255.0.1/8 dev eth0" "link set eth0 up"
		for ((i = 1; i <= n; i++)); do
			echo "neigh replace $(host_addr "$i") lladdr $(host_mac "$i") dev eth0 nud permanent"
		done
	} > "$batch"
	ip -n "$rx" -batch "$batch"
	for ((i = 1; i <= n; i++)); do
		printf '%s\n' "link set lo up" "link set eth0 addrgenmode none" \
			"link set eth0 address $(host_mac "$i")" \
			"addr add $(host_addr "$i")/8 dev eth0" "link set eth0 up" \
			"neigh replace 10.255.0.1 lladdr $RX_MAC dev eth0 nud permanent" |
			ip -n "$prefix$i" -batch -
	done
	end=$(date +%s%N)
	printf 'hosts.sh: %d hosts up in %s s (%s1..%s%d, bridge in %s, receiver %s at 10.255.0.1%s)\n' \
		"$n" "$(seconds "$start" "$end")" "$prefix" "$prefix" "$n" \
		"$rt" "$rx" "${netem:+ behind netem $netem}"
	;;
down)
	start=$(date +%s%N)
	batch=$(mktemp)
	trap 'rm -f "$batch"' EXIT
	# deleting a namespace deletes its end of each veth, and so the pair
	ip netns list | awk '{print $1}' |
		grep -E "^($prefix[0-9]+|$rt|$rx)\$" | sed 's/^/netns del /' > "$batch" || true
	count=$(wc -l < "$batch")
	[ "$count" -eq 0 ] || ip -batch "$batch"
	end=$(date +%s%N)
	printf 'hosts.sh: %d namespaces deleted in %s s\n' "$count" \
		"$(seconds "$start" "$end")"
	;;
esac
