# SPDX-License-Identifier: GPL-2.0-or-later
"""The uapi header compiles on its own, and the Python mirror the tests use
(tests/mtgtest/abi.py) agrees with it in every size, offset and command."""

import ctypes
import shutil
import subprocess

import pytest

from mtgtest import abi

ROOT = abi.__file__.rsplit("/tests/", 1)[0]


@pytest.fixture(scope="module")
def layout(tmp_path_factory):
    exe = tmp_path_factory.mktemp("layout") / "layout"
    subprocess.run(["cc", "-std=c11", "-Wall", "-Wextra", "-Werror", "-o", exe,
                    f"{ROOT}/tests/mtgtest/layout.c"], check=True)
    out = subprocess.run([exe], check=True, capture_output=True, text=True).stdout
    return {tuple(line.split()[:2]): int(line.split()[2])
            for line in out.splitlines()}


def test_sizes(layout):
    for name, ctype in abi.STRUCTS.items():
        assert layout[("sizeof", name)] == ctypes.sizeof(ctype), name


def test_offsets(layout):
    for (kind, what), value in layout.items():
        if kind == "offsetof":
            struct, field = what.split(".")
            assert getattr(abi.STRUCTS[struct], field).offset == value, what


def test_commands(layout):
    for name, value in abi.COMMANDS.items():
        assert layout[("cmd", name)] == value, name


def test_structs_are_padding_free(layout):
    """Natural alignment with explicit reserved fields: no hidden holes."""
    for name, ctype in abi.STRUCTS.items():
        fields = sum(ctypes.sizeof(t) for _, t in ctype._fields_)
        assert fields == ctypes.sizeof(ctype), name


@pytest.mark.parametrize("compiler", ["cc", "c++"])
def test_header_stands_alone(tmp_path, compiler):
    if not shutil.which(compiler):
        pytest.skip(f"no {compiler}")
    src = tmp_path / ("t.c" if compiler == "cc" else "t.cc")
    src.write_text('#include "mtg.h"\n#include "mtg_netlink.h"\nint main(void) { return 0; }\n')
    subprocess.run([compiler, "-Wall", "-Wextra", "-Werror", "-pedantic",
                    f"-I{ROOT}/kmod/uapi", "-o", tmp_path / "t", src], check=True)
