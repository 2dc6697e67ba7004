# SPDX-License-Identifier: GPL-2.0-or-later
"""A witness on the wire: tcpdump in a network namespace, writing a pcap
file to guest memory (/run), parsed with mtgwitness.wire when it stops.

    with Capture(dev, ns=ns, bpf="udp") as cap:
        ...                      # traffic
    assert cap.dropped == 0      # a witness that dropped is no witness
    frames = cap.frames          # [mtgwitness.wire.Frame]

tcpdump takes more than 4 s to start under software emulation: start()
waits for its "listening on" line, then `settle` seconds more. stop() first
waits until the file has not grown for `drain` seconds (tcpdump hands
packets over in blocks that a 1 s timer retires, and on a debug kernel the
receiving namespace can be seconds behind the sender), then sends SIGINT
and reads tcpdump's own counts.
"""

import os
import re
import shutil
import signal
import subprocess
import time

from . import wire

_count = 0


def _tcpdump():
    for path in (shutil.which("tcpdump"), "/usr/sbin/tcpdump", "/usr/bin/tcpdump"):
        if path and os.path.exists(path):
            return path
    raise RuntimeError("tcpdump not found: run 'make deps'")


class CaptureError(RuntimeError):
    pass


class Capture:
    def __init__(self, dev, ns=None, bpf="", buffer_kib=8192, settle=2.0,
                 drain=2.0, start_timeout=90, directory="/run", parse=True):
        global _count
        _count += 1
        tag = f"mtgcap-{os.getpid()}-{_count}"
        self.dev, self.ns, self.bpf = dev, ns, bpf
        self.settle, self.drain, self.start_timeout = settle, drain, start_timeout
        self.path = os.path.join(directory, tag + ".pcap")
        self.err_path = os.path.join(directory, tag + ".err")
        self.buffer_kib = buffer_kib
        self.parse = parse      # False: keep the pcap file at self.path
        self.proc = None
        self.frames = None
        self.captured = self.received = self.dropped = self.if_dropped = None
        self.stderr = ""

    def command(self):
        cmd = [_tcpdump(), "-i", self.dev, "-w", self.path, "-U", "-n",
               "-B", str(self.buffer_kib), "-Z", "root",
               "--time-stamp-precision=nano"]
        if self.bpf:
            cmd.append(self.bpf)
        if self.ns:
            cmd = ["ip", "netns", "exec", self.ns] + cmd
        return cmd

    def _read_err(self):
        try:
            with open(self.err_path) as f:
                return f.read()
        except FileNotFoundError:
            return ""

    def start(self):
        with open(self.err_path, "w") as err:
            # ip netns exec execs tcpdump: self.proc.pid is tcpdump's pid.
            self.proc = subprocess.Popen(self.command(), stdin=subprocess.DEVNULL,
                                         stdout=subprocess.DEVNULL, stderr=err)
        deadline = time.monotonic() + self.start_timeout
        while "listening on" not in self._read_err():
            if self.proc.poll() is not None:
                raise CaptureError(f"tcpdump exited {self.proc.returncode}:\n"
                                   + self._read_err())
            if time.monotonic() > deadline:
                self._kill()
                raise CaptureError("tcpdump did not start listening within "
                                   f"{self.start_timeout} s:\n" + self._read_err())
            time.sleep(0.05)
        time.sleep(self.settle)
        return self

    def _kill(self):
        if self.proc and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()

    def _wait_quiet(self, most=120.0):
        """Until the pcap file (written packet by packet, -U) has not grown
        for `drain` seconds, or `most` seconds in all."""
        def size():
            try:
                return os.path.getsize(self.path)
            except FileNotFoundError:
                return 0
        end = time.monotonic() + most
        last, quiet_since = size(), time.monotonic()
        while time.monotonic() < end:
            time.sleep(min(0.25, self.drain))
            now = size()
            if now != last:
                last, quiet_since = now, time.monotonic()
            elif time.monotonic() - quiet_since >= self.drain:
                return

    def stop(self):
        """Stop tcpdump (SIGINT), read its counts and the frames."""
        if self.proc is None:
            raise CaptureError("capture never started")
        if self.proc.poll() is None:
            self._wait_quiet()
            self.proc.send_signal(signal.SIGINT)
            try:
                self.proc.wait(timeout=60)
            except subprocess.TimeoutExpired:
                self._kill()
                raise CaptureError("tcpdump ignored SIGINT")
        self.stderr = self._read_err()
        counts = {}
        for what in ("captured", "received by filter", "dropped by kernel",
                     "dropped by interface"):
            m = re.search(r"^(\d+) packets? " + what, self.stderr, re.M)
            counts[what] = int(m.group(1)) if m else None
        self.captured = counts["captured"]
        self.received = counts["received by filter"]
        self.dropped = counts["dropped by kernel"]
        self.if_dropped = counts["dropped by interface"] or 0
        try:
            if self.dropped is None or self.captured is None:
                raise CaptureError("tcpdump gave no counts:\n" + self.stderr)
            if not self.parse:
                return None
            self.frames = wire.frames_of_pcap(self.path)
        finally:
            for path in (self.path, self.err_path)[not self.parse:]:
                try:
                    os.unlink(path)
                except FileNotFoundError:
                    pass
        if len(self.frames) != self.captured:
            raise CaptureError(f"tcpdump says {self.captured} packets captured, "
                               f"the file has {len(self.frames)}")
        return self.frames

    @property
    def lossless(self):
        """Nothing dropped by the kernel or the interface."""
        return self.dropped == 0 and self.if_dropped == 0

    def __enter__(self):
        return self.start()

    def __exit__(self, exc_type, *exc):
        if exc_type is None:
            self.stop()
        else:
            self._kill()
            for path in (self.path, self.err_path):
                try:
                    os.unlink(path)
                except FileNotFoundError:
                    pass
