# SPDX-License-Identifier: GPL-2.0-or-later
"""Traffic generators through the ABI, for the VM tests: veth links
between namespaces, a session with its tables mapped and a simple
allocator of tables and stream rings in them (TgSession)."""

import dataclasses
import itertools
import random
import time

import pytest

from mtgtest.system import ifindex, run, tai_ns
from mtgwitness import abi

MS = 1_000_000
S = 1_000_000_000
LEAD_NS = 2 * S          # start_ns - now: covers neighbour resolution
RUN_NS = 2 * S           # traffic per run, short: everything is slow here
TABLE_BYTES = 1 << 20
MIN_LEN = {4: 14 + 20 + 8 + abi.HDR_LEN, 6: 14 + 40 + 8 + abi.HDR_LEN}
MAX_LEN = 1500 + 14      # veth and virtio_net MTU 1500, L2 without FCS
ENDED = (abi.TG_STATE_FINISHED, abi.TG_STATE_KILLED, abi.TG_STATE_FAILED)
BUDGET = 64              # MTG_CPU_BUDGET (kmod/mtg_dispatch.c): slots a pass

_subnets = itertools.count(1)


def new_run_id():
    return random.SystemRandom().getrandbits(32) or 1


# --- links: a sending end in this namespace, a receiving end in another ----

@dataclasses.dataclass
class Link:
    a: str              # sending device, this namespace
    b: str              # receiving device, namespace ns
    ns: str
    family: int
    a_addr: str
    b_addr: str
    a_ifindex: int
    a_mac: str
    b_mac: str


def mac_of(dev, ns=None):
    cmd = ["cat", f"/sys/class/net/{dev}/address"]
    if ns:
        cmd = ["ip", "netns", "exec", ns] + cmd
    return run(*cmd).stdout.strip()


def address_link(a, b, ns, family):
    """Addresses on both ends (IPv6 without DAD: usable at once)."""
    n = next(_subnets)
    if family == 4:
        a_addr, b_addr, extra = f"198.18.{n}.1", f"198.18.{n}.2", []
        plen = "24"
    else:
        a_addr, b_addr, extra = f"2001:db8:{n}::1", f"2001:db8:{n}::2", ["nodad"]
        plen = "64"
    run("ip", "addr", "add", f"{a_addr}/{plen}", "dev", a, *extra)
    run("ip", "-n", ns, "addr", "add", f"{b_addr}/{plen}", "dev", b, *extra)
    return Link(a, b, ns, family, a_addr, b_addr, ifindex(a), mac_of(a),
                mac_of(b, ns))


# --- sessions and TGs -------------------------------------------------------

class TgSession:
    """A session with its tables region mapped writable, and a simple
    allocator of tables and rings in it; with rx_records, its receive
    rings mapped too (self.rx, an abi.Rx)."""

    def __init__(self, table_bytes=TABLE_BYTES, rx_records=0, keep_bytes=0):
        self.s = abi.Session()
        self.s.alloc(table_bytes, rx_records=rx_records,
                     keep_bytes=keep_bytes)
        self.t = self.s.tables()
        self.rx = self.s.rx() if rx_records else None
        self.free = 0

    def close(self):
        """Unmap everything and end the session (again: nothing)."""
        self.t.close()
        if self.rx:
            self.rx.close()
        self.s.close()

    def space(self, size, align=64):
        off = -(-self.free // align) * align
        assert off + size <= self.t.size, "tables region full"
        self.free = off + size
        return off

    def table(self, entries):
        """A table holding entries; returns (table_offset, table_len)."""
        off = self.space(16 * len(entries), 16)
        self.t.write_table(off, entries)
        return off, len(entries)

    def stream(self, table_len):
        """An empty stream table and its ring: an abi.Stream to feed."""
        ring = self.space(64 * 2)
        off = self.space(16 * table_len, 16)
        self.t.set_producer(ring, 0)
        return abi.Stream(self.t, off, table_len, ring)

    def start(self, link, tg_id, run_id, start_ns, table=None, entries=None,
              stream=None, **kw):
        if entries is not None:
            table = self.table(entries)
        fields = dict(tg_id=tg_id, run_id=run_id, ifindex=link.a_ifindex,
                      cpu=0, src_addr=link.a_addr, dst_addr=link.b_addr,
                      src_port=40000 + tg_id % 20000, dst_port=9000, ttl=64,
                      patt_kind=abi.PATT_RANDOM, patt_seed=tg_id * 7919,
                      start_ns=start_ns)
        if stream is not None:
            fields.update(table_offset=stream.table_offset,
                          table_len=stream.table_len,
                          ring_offset=stream.ring_offset)
            kw["flags"] = kw.get("flags", 0) | abi.TG_FLAGS_STREAM
        else:
            fields.update(table_offset=table[0], table_len=table[1])
        kw["flags"] = kw.get("flags", 0) | \
            (abi.TG_FLAGS_IPV6 if link.family == 6 else 0)
        fields.update(kw)
        return self.s.tg_start(**fields)

    def stats(self, tg_id):
        return self.s.tg_stats(tg_id)

    def wait(self, tg_id, states=ENDED, timeout=60):
        deadline = time.monotonic() + timeout
        while True:
            st = self.stats(tg_id)
            if st.state in states:
                return st
            if time.monotonic() > deadline:
                pytest.fail(f"TG {tg_id} still in state {st.state} "
                            f"after {timeout} s (sent {st.sent})")
            time.sleep(0.05)


def sleep_until(tai):
    left = tai - tai_ns()
    if left > 0:
        time.sleep(left / S)


def expected_count(start_ns, stop_ns, gap):
    """Departures start + k * gap before stop_ns."""
    return -(-(stop_ns - start_ns) // gap)
