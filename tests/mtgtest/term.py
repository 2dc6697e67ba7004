# SPDX-License-Identifier: GPL-2.0-or-later
"""A real terminal for the dashboard's tests: a tmux server of our own.

The program runs in a shell in a detached tmux window of a fixed size;
the test types keys into it (send-keys), reads the screen (capture-pane),
resizes it, and after the program has ended reads its exit status and the
terminal's modes (stty) from files the shell wrote.
"""

import os
import pathlib
import shlex
import subprocess
import time
import uuid


class Terminal:
    def __init__(self, tmp: pathlib.Path, argv, cols=150, lines=40,
                 env=None, still=False):
        """still: the program's screen stands still between keys (a
        replay), so wait_for may insist on reading the same screen twice:
        curses sends a frame in pieces, and a read between two pieces sees
        half of each frame."""
        self.tmp = pathlib.Path(tmp)
        self.still = still
        self.socket = f"mtgtest-{uuid.uuid4().hex[:12]}"
        self.status = self.tmp / "term.status"
        self.stty = self.tmp / "term.stty"
        self.stderr = self.tmp / "term.stderr"
        for f in (self.status, self.stty, self.stderr):
            f.unlink(missing_ok=True)
        cmd = " ".join(shlex.quote(str(a)) for a in argv)
        # After the program: its status, then the terminal's modes as it
        # left them, then wait to be killed (so the pane can be read).
        script = (f"{cmd} 2>{shlex.quote(str(self.stderr))}; "
                  f"echo $? > {shlex.quote(str(self.status))}.tmp; "
                  f"stty -a > {shlex.quote(str(self.stty))}; "
                  f"mv {shlex.quote(str(self.status))}.tmp "
                  f"{shlex.quote(str(self.status))}; exec sleep 3600")
        full_env = dict(os.environ, TERM="xterm-256color", LANG="C.UTF-8")
        if env:
            full_env.update(env)
        self._tmux("new-session", "-d", "-s", "t", "-x", str(cols), "-y",
                   str(lines), "sh", "-c", script, env=full_env)

    def _tmux(self, *args, env=None, check=True):
        return subprocess.run(["tmux", "-L", self.socket,
                               "-f", "/dev/null", *args],
                              check=check, capture_output=True, text=True,
                              env=env, timeout=30)

    def keys(self, *keys):
        """tmux key names ('Down', 'q', 'C-c') or literal text."""
        self._tmux("send-keys", "-t", "t", *keys)

    def screen(self) -> str:
        return self._tmux("capture-pane", "-p", "-t", "t").stdout

    def lines(self):
        return self.screen().splitlines()

    def resize(self, cols, lines):
        self._tmux("resize-window", "-t", "t", "-x", str(cols), "-y",
                   str(lines))

    def alternate_screen(self) -> bool:
        out = self._tmux("display", "-p", "-t", "t", "#{alternate_on}")
        return out.stdout.strip() == "1"

    def pid(self) -> int:
        """The shell's pid; the program is its child."""
        out = self._tmux("display", "-p", "-t", "t", "#{pane_pid}")
        return int(out.stdout.strip())

    def wait_for(self, predicate, timeout=20.0, what="the screen"):
        """The screen once predicate(screen) holds; fails with the screen."""
        deadline = time.monotonic() + timeout
        last = None
        while True:
            s = self.screen()
            if predicate(s) and (not self.still or s == last):
                return s
            last = s
            if time.monotonic() > deadline:
                raise AssertionError(f"{what} did not show within "
                                     f"{timeout} s:\n{s}")
            time.sleep(0.1)

    def wait_exit(self, timeout=60.0) -> int:
        deadline = time.monotonic() + timeout
        while not self.status.exists():
            if time.monotonic() > deadline:
                raise AssertionError("the program did not end:\n" +
                                     self.screen())
            time.sleep(0.1)
        return int(self.status.read_text().strip())

    def sane(self) -> bool:
        """The terminal as a shell wants it: canonical input, echo."""
        modes = self.stty.read_text().split()
        return "icanon" in modes and "echo" in modes and "-icanon" not in \
            modes and "-echo" not in modes

    def close(self):
        self._tmux("kill-server", check=False)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
