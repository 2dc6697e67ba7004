# SPDX-License-Identifier: GPL-2.0-or-later
"""Documentation/ is valid reStructuredText: a malformed table or title
would silently drop text from the rendered pages."""

import io
import pathlib

import pytest
from docutils import core, nodes
from docutils.parsers.rst import Directive, directives, roles

DOCS = pathlib.Path(__file__).resolve().parents[2] / "Documentation"


class _SphinxOnly(Directive):
    """Sphinx's toctree: nothing to check here."""
    has_content = True
    optional_arguments = 10
    final_argument_whitespace = True
    option_spec = {"maxdepth": directives.unchanged,
                   "caption": directives.unchanged,
                   "numbered": directives.flag}

    def run(self):
        return []


directives.register_directive("toctree", _SphinxOnly)
roles.register_generic_role("doc", nodes.literal)


@pytest.mark.parametrize("page", sorted(DOCS.glob("*.rst")), ids=lambda p: p.name)
def test_page_parses_cleanly(page):
    warnings = io.StringIO()
    core.publish_doctree(page.read_text(), source_path=str(page),
                         settings_overrides={"report_level": 2,
                                             "halt_level": 5,
                                             "warning_stream": warnings})
    assert warnings.getvalue() == ""


def test_every_page_is_in_the_index():
    index = (DOCS / "index.rst").read_text()
    for page in DOCS.glob("*.rst"):
        if page.name != "index.rst":
            assert f"\n   {page.stem}\n" in index, page.name


def test_readme_says_what_is_built():
    """README.md's first paragraph and parts table say remote receivers
    (TSP with consent, `mtgctl recv`) are in place once the controller has
    the command, and talking to D-ITG's own programs is planned for as long
    as nothing in ctl/ speaks D-ITG's side of a session."""
    root = DOCS.parent
    readme = (root / "README.md").read_text()
    intro = readme.split("\n\n")[1]
    recv = (root / "ctl/cmd/recv.c").exists()
    rows = {line.split(":")[0]: line for line in readme.splitlines()
            if line.startswith("| TSP")}
    assert rows["| TSP with consent"].endswith(
        "| in place |" if recv else "| planned |")
    assert ("`mtgctl recv`" in intro) == recv
    ditg = any("TSP_ACK_CONNECT" in p.read_text()
               for p in root.glob("ctl/cmd/*.c"))
    assert rows["| TSP, the rest"].endswith(
        "| in place |" if ditg else "| planned |")
    assert ("does not talk to D-ITG's own programs" in intro) != ditg
