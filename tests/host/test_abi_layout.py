# SPDX-License-Identifier: GPL-2.0-or-later
"""The uapi header compiles on its own, and the Python mirror the tests use
(scripts/mtgwitness/abi.py) agrees with it in every size, offset and
command."""

import ctypes
import pathlib
import shutil
import subprocess

import pytest

from mtgwitness import abi

ROOT = pathlib.Path(__file__).resolve().parents[2]


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


def test_every_command_is_mirrored(layout):
    """Every command the header defines has its Python twin."""
    assert {name for kind, name in layout if kind == "cmd"} == set(abi.COMMANDS)


def test_constants(layout):
    """MTG_FOO_BAR is abi.FOO_BAR."""
    consts = {name: value for (kind, name), value in layout.items()
              if kind == "const"}
    assert consts
    for name, value in consts.items():
        assert getattr(abi, name.removeprefix("MTG_")) == value, name


def test_mtg_hdr_is_big_endian(layout):
    hdr = abi.MtgHdr(magic=abi.HDR_MAGIC, hdr_len=abi.HDR_LEN, seq=1)
    raw = bytes(hdr)
    assert len(raw) == layout[("sizeof", "mtg_hdr")] == abi.HDR_LEN
    assert raw[:4] == b"MTG1" and raw[6:8] == b"\0\x58"
    assert raw[16:24] == (1).to_bytes(8, "big")
    assert abi.MtgHdr.crc.offset == abi.HDR_CRC_LEN


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
    src.write_text('#include "mtg.h"\n#include "linux/mtg_netlink.h"\nint main(void) { return 0; }\n')
    subprocess.run([compiler, "-Wall", "-Wextra", "-Werror", "-pedantic",
                    f"-I{ROOT}/kmod/uapi", "-o", tmp_path / "t", src], check=True)
