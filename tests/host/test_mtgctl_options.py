# SPDX-License-Identifier: GPL-2.0-or-later
"""Every option a command's help lists is one the command takes: given
with a value, it is never an unknown option (the parser once took only
the first 22 options of a command and called the rest unknown)."""

import re
import subprocess

def commands(mtgctl):
    usage = subprocess.run([mtgctl, "help"], capture_output=True,
                           text=True, check=True).stdout
    return re.search(r"COMMAND := \{ (.*) \}", usage).group(1).split(" | ")


def options(mtgctl, command):
    text = subprocess.run([mtgctl, "help", command], capture_output=True,
                          text=True, check=True).stdout
    return re.findall(r"^  (?:-\w, )?(--[\w-]+)", text, re.M)


def test_help_options_are_taken(mtgctl, tmp_path):
    """Each option, with a value after it and a file that does not exist:
    whatever else the command says, not that the option is unknown."""
    cmds = commands(mtgctl)
    assert len(cmds) >= 13, cmds
    for command in cmds:
        opts = options(mtgctl, command)
        for opt in opts:
            r = subprocess.run([mtgctl, command, opt, "x", "/nonexistent"],
                               capture_output=True, text=True, cwd=tmp_path,
                               timeout=30, stdin=subprocess.DEVNULL)
            assert f"unknown option '{opt}'" not in r.stderr, (command, opt)
            assert r.returncode != 0, (command, opt, r.stdout)
