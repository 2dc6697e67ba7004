# SPDX-License-Identifier: GPL-2.0-or-later
"""The man pages (scripts/man-pages, `make man`), rendered from
Documentation/: each renders without a warning from man/groff on an
80-column page, and every command and option of the programs' own usage
text is in its page, so neither can drift from the other; the usage line
of each mtgctl command names every option its list has."""

import os
import re
import subprocess

import pytest

from test_mtgctl_idf import ROOT

PAGES = {"mtgctl": 8, "mtg": 4, "mtg-idf": 5, "mtgsap": 1}
MTGSAP = ROOT / ".venv" / "bin" / "mtgsap"


@pytest.fixture(scope="module")
def rendered(tmp_path_factory):
    out = tmp_path_factory.mktemp("man")
    subprocess.run([ROOT / ".venv/bin/python", ROOT / "scripts/man-pages",
                    out], check=True)
    pages = {}
    for name, section in PAGES.items():
        r = subprocess.run(["man", "--warnings", "-l", out / f"{name}.{section}"],
                           capture_output=True, text=True,
                           env=dict(os.environ, MANWIDTH="80", LANG="C.UTF-8",
                                    MAN_KEEP_FORMATTING=""))
        assert (r.returncode, r.stderr) == (0, ""), name
        # the text as a reader sees it: no overstrike, no hyphen breaks
        text = re.sub(r".\x08", "", r.stdout)
        pages[name] = re.sub(r"-\n\s+", "-", text)
    return pages


def test_every_page_renders_with_its_name(rendered):
    assert rendered["mtgctl"].startswith("MTGCTL(8)")
    assert "mtgctl - run, record and inspect mtg experiments" in \
        rendered["mtgctl"]
    assert rendered["mtg"].startswith("MTG(4)")
    assert "THE MTG GENERIC NETLINK FAMILY" in rendered["mtg"]
    assert rendered["mtg-idf"].startswith("MTG-IDF(5)")
    assert rendered["mtgsap"].startswith("MTGSAP(1)")


def option_names(help_text):
    """The options a usage text lists, each as its names: '-o, --output X'
    gives ('-o', '--output')."""
    found = []
    for line in help_text.splitlines():
        m = re.match(r"\s{2}(-\w)?(?:, )?(--[\w-]+)?", line)
        if m and any(m.groups()):
            found.append(tuple(o for o in m.groups() if o))
    return found


def options(help_text):
    return {o for names in option_names(help_text) for o in names}


def named(option, text):
    return re.search(rf"(?<![\w-]){re.escape(option)}(?![\w-])", text)


def mtgctl_commands(mtgctl):
    usage = subprocess.run([mtgctl, "--help"], capture_output=True,
                           text=True).stdout
    (names,) = re.findall(r"COMMAND := \{ (.*) \}", usage)
    return names.split(" | ")


def test_mtgctl_page_has_every_command_and_option(mtgctl, rendered):
    page = rendered["mtgctl"]
    commands = mtgctl_commands(mtgctl)
    assert len(commands) >= 6
    for command in commands:
        help_text = subprocess.run([mtgctl, "help", command],
                                   capture_output=True, text=True).stdout
        opts = options(help_text)
        assert opts or command in ("replay",), command
        assert re.search(rf"^\s+mtgctl {command} ", page, re.M), command
        missing = [o for o in opts if not named(o, page)]
        assert not missing, f"mtgctl {command}: {missing} not in mtgctl(8)"


def test_mtgctl_usage_lines_name_every_option(mtgctl):
    for command in mtgctl_commands(mtgctl):
        help_text = subprocess.run([mtgctl, "help", command],
                                   capture_output=True, text=True).stdout
        usage = help_text.splitlines()[0]
        missing = [names for names in option_names(help_text)
                   if not any(named(o, usage) for o in names)]
        assert not missing, f"{usage}: lacks {missing}"


def test_mtgsap_page_has_every_command_and_option(rendered):
    page = rendered["mtgsap"]
    top = subprocess.run([MTGSAP, "--help"], capture_output=True,
                         text=True, check=True).stdout
    commands = re.findall(r"^    (\w+)\s", top, re.M)
    assert len(commands) >= 10
    for command in commands:
        help_text = subprocess.run([MTGSAP, command, "--help"],
                                   capture_output=True, text=True,
                                   check=True).stdout
        assert re.search(rf"(?<![\w-])mtgsap {command}(?![\w-])", page), \
            command
        missing = [o for o in options(help_text) - {"-h", "--help"}
                   if not named(o, page)]
        assert not missing, f"mtgsap {command}: {missing} not in mtgsap(1)"
