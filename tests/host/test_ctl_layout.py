# SPDX-License-Identifier: GPL-2.0-or-later
"""ctl/ keeps the shape Documentation/ctl-layout.rst draws: commands apart
from libraries, no loop among its files, no file too long to read.

The graph is read from the `#include "..."` lines, resolved as ctl/Makefile
resolves them (beside the including file, then from ctl/, then from kmod/
and ebpf/, which are outside ctl/ and not followed; the skeletons ebpf/
generates are included as <NAME.skel.h>, not part of the graph). A unit is a file without its
ending: foo.c and foo.h are one unit, so a .c that includes a header whose
.c includes its own header back is a loop, as the linker sees it. main is
mtgctl.c; a command is a unit under cmd/; everything else is a library."""

import pathlib
import re

ROOT = pathlib.Path(__file__).resolve().parents[2]
CTL = ROOT / "ctl"

# Lines a source or header file of ctl/ may have: above this, split it by
# job (issue 24).
MAX_LINES = 800

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def sources(ctl):
    return sorted(p for p in ctl.rglob("*") if p.suffix in (".c", ".h"))


def unit(ctl, path):
    return path.relative_to(ctl).with_suffix("").as_posix()


def kind(u):
    if u == "mtgctl":
        return "main"
    return "command" if u.startswith("cmd/") else "library"


def graph(ctl):
    """unit -> {unit it includes: the include lines that say so}, and the
    include lines that resolve nowhere."""
    edges, unresolved = {}, []
    for path in sources(ctl):
        src = unit(ctl, path)
        edges.setdefault(src, {})
        for name in INCLUDE.findall(path.read_text()):
            for base in (path.parent, ctl, ctl.parent / "kmod",
                         ctl.parent / "ebpf"):
                target = (base / name).resolve()
                if target.is_file():
                    break
            else:
                unresolved.append(f"{path.relative_to(ctl)}: {name}")
                continue
            if ctl.resolve() not in target.parents:
                continue        # the module's uapi, the eBPF programs'
            dst = unit(ctl, ctl / target.relative_to(ctl.resolve()))
            if dst != src:
                edges[src].setdefault(dst, []).append(
                    f"{path.relative_to(ctl)} includes {name}")
    return edges, unresolved


def cycles(edges):
    """The strongly connected components of more than one unit (Tarjan)."""
    index, low, stack, on, out = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in edges.get(v, {}):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return out


def problems(ctl):
    """Every way ctl/ leaves its shape, one line each."""
    edges, unresolved = graph(ctl)
    out = [f"include not found: {u}" for u in unresolved]
    for comp in cycles(edges):
        why = [f"{a} -> {b} ({edges[a][b][0]})" for a in comp
               for b in edges[a] if b in comp]
        out.append("include loop among " + ", ".join(comp) + ": " +
                   "; ".join(why))
    for src in sorted(edges):
        if kind(src) != "library":
            continue
        for dst, how in sorted(edges[src].items()):
            if kind(dst) != "library":
                out.append(f"library {src} includes {kind(dst)} {dst} "
                           f"({how[0]})")
    for path in sources(ctl):
        n = len(path.read_text().splitlines())
        if n > MAX_LINES:
            out.append(f"{path.relative_to(ctl)}: {n} lines, over "
                       f"{MAX_LINES}")
    return out


def test_ctl_has_its_shape():
    found = problems(CTL)
    assert not found, "\n".join(found)


def test_the_checks_see_what_they_look_for(tmp_path):
    """A loop, a library including a command or main, a long file: each
    is found, in a small tree made for it."""
    ctl = tmp_path / "ctl"
    for name, text in {
        "mtgctl.c": '#include "cmd/cmd.h"\n',
        "cmd/cmd.h": "",
        "cmd/run.c": '#include "cmd/cmd.h"\n#include "rx/a.h"\n',
        "rx/a.h": "",
        "rx/a.c": '#include "rx/a.h"\n#include "b.h"\n',
        "rx/b.h": "",
        "rx/b.c": '#include "b.h"\n#include "rx/a.h"\n'
                  '#include "cmd/cmd.h"\n',
        "idf/long.c": "x\n" * (MAX_LINES + 1),
        "idf/main.c": '#include "../mtgctl.h"\n',
        "mtgctl.h": "",
    }.items():
        (ctl / name).parent.mkdir(parents=True, exist_ok=True)
        (ctl / name).write_text(text)
    found = problems(ctl)
    assert [p for p in found if p.startswith("include loop among rx/a, "
                                             "rx/b:")], found
    assert ("library rx/b includes command cmd/cmd "
            "(rx/b.c includes cmd/cmd.h)") in found
    assert ("library idf/main includes main mtgctl "
            "(idf/main.c includes ../mtgctl.h)") in found
    assert f"idf/long.c: {MAX_LINES + 1} lines, over {MAX_LINES}" in found
    assert len(found) == 4, found
