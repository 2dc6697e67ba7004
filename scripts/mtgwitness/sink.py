# SPDX-License-Identifier: GPL-2.0-or-later
"""A receiver of a TG's messages over TCP, SCTP or DCCP (ABI 1.7), for
tests: it accepts one connection, reads it to its end and writes one JSON
line per message, then a summary line. Run it in the receiving namespace:

    python3 -m mtgwitness.sink tcp ADDR PORT OUT [--hold S]

It prints "listening" once the socket listens. Over TCP each message is
its length (2 bytes, big-endian) then that many bytes; over SCTP and DCCP
a message is what one receive returns. Each message's MTG header and
pattern are checked as the module's receive path checks a datagram's.
--hold S: accept, then read nothing for S seconds (the sender's buffer
fills)."""

import json
import socket
import struct
import sys
import time

from . import wire

SOCK_DCCP = 6
IPPROTO_DCCP = 33
IPPROTO_SCTP = 132
BIG = 1 << 16


def listener(proto, addr, port):
    family = socket.AF_INET6 if ":" in addr else socket.AF_INET
    kind, number = {"tcp": (socket.SOCK_STREAM, socket.IPPROTO_TCP),
                    "sctp": (socket.SOCK_STREAM, IPPROTO_SCTP),
                    "dccp": (SOCK_DCCP, IPPROTO_DCCP)}[proto]
    s = socket.socket(family, kind, number)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind((addr, port))
    s.listen(1)
    return s


def read_exact(conn, n):
    out = bytearray()
    while len(out) < n:
        chunk = conn.recv(n - len(out))
        if not chunk:
            return None if not out else bytes(out)
        out += chunk
    return bytes(out)


def messages(proto, conn):
    """(bytes of the message, receive time CLOCK_TAI) until the end."""
    while True:
        if proto == "tcp":
            prefix = read_exact(conn, 2)
            if prefix is None:
                return
            if len(prefix) < 2:
                raise ValueError("the stream ended inside a length")
            n = struct.unpack("!H", prefix)[0]
            body = read_exact(conn, n)
            if body is None or len(body) < n:
                raise ValueError(f"the stream ended inside a message of {n}")
        else:
            body = conn.recv(BIG)
            if not body:
                return
        yield body, time.clock_gettime_ns(time.CLOCK_TAI)


def check(body):
    """What the message says, and whether it is whole."""
    h = wire.MtgHeader.decode(body)
    pattern = wire.pattern_bytes(h.patt_kind, h.patt_value, h.patt_seed,
                                 len(body) - wire.abi.HDR_LEN)
    return dict(run_id=h.run_id, tg_id=h.tg_id, seq=h.seq,
                sched_ns=h.sched_ns, tx_ns=h.tx_ns, len=len(body),
                valid=h.valid, pattern_ok=body[wire.abi.HDR_LEN:] == pattern)


def main(argv):
    proto, addr, port, out = argv[:4]
    hold = float(argv[argv.index("--hold") + 1]) if "--hold" in argv else 0
    s = listener(proto, addr, int(port))
    print("listening", flush=True)
    conn, peer = s.accept()
    if hold:
        time.sleep(hold)
    n = total = 0
    error = None
    with open(out, "w") as f:
        try:
            for body, rx_ns in messages(proto, conn):
                rec = check(body)
                rec["rx_ns"] = rx_ns
                f.write(json.dumps(rec) + "\n")
                n += 1
                total += len(body) + (2 if proto == "tcp" else 0)
        except (ValueError, OSError) as e:
            error = str(e)
        f.write(json.dumps(dict(end=True, messages=n, bytes=total,
                                peer_port=peer[1], error=error)) + "\n")
    conn.close()
    s.close()


if __name__ == "__main__":
    main(sys.argv[1:])
