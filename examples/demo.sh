#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The demo `make demo` runs (in the VM lane where the host cannot load
# modules): load mtg.ko, open a session, give it an interface that lives in
# a namespace, watch it over netlink with the kernel's ynl, delete the
# namespace under it, and unload. Traffic generation arrives with the
# dispatch engine; this shows the foundation it stands on.
set -euo pipefail
cd "$(dirname "$0")/.."
export PYTHONPATH=$PWD/tests
ynl() {
	python3 "${MTG_CACHE:-$HOME/.cache/mtg}/ynl/tools/net/ynl/cli.py" \
		--spec Documentation/netlink/specs/mtg.yaml \
		--schema "${MTG_CACHE:-$HOME/.cache/mtg}/ynl/Documentation/netlink/genetlink.yaml" "$@"
}
step() { printf '\n== %s\n' "$*"; }

step "load mtg.ko"
insmod kmod/mtg.ko
dmesg | grep 'mtg:' | tail -n 1

step "a namespace 'demo' with a veth pair into it"
ip netns add demo
ip link add dm0 type veth peer name dm1 netns demo

step "open a session, allocate 1 MiB of tables, hold dm1 (inside 'demo')"
ready=$(mktemp -u /run/mtg-demo.XXXXXX)
python3 - "$ready" <<'EOF' &
import os, sys, time
from mtgtest import abi
s = abi.Session()
s.alloc(1 << 20)
fd = os.open("/run/netns/demo", os.O_RDONLY)
ifindex = int(os.popen("ip -n demo -o link show dm1").read().split(":")[0])
iface = s.iface_add(ifindex, netns_fd=fd)
os.close(fd)
print(f"session {s.stats().session_id}: iface {iface} held", flush=True)
open(sys.argv[1], "w").close()          # tell the shell we are ready
for _ in range(3000):                   # until the interface goes (<= 5 min)
    info = s.iface_info(iface)
    if info.state == abi.IFACE_LOST:
        st = s.stats()
        print(f"session saw its interface go: ifaces={st.ifaces} lost={st.ifaces_lost}",
              flush=True)
        break
    time.sleep(0.1)
time.sleep(1)
EOF
owner=$!
while [ ! -e "$ready" ]; do sleep 0.1; done
rm -f "$ready"

step "what netlink shows (ynl --dump session-get)"
ynl --dump session-get

step "delete the namespace while the session holds its interface"
time ip netns del demo
wait "$owner"

step "the owner exited: its session is gone"
ynl --dump session-get
rmmod mtg
echo "mtg.ko unloaded cleanly"
