# SPDX-License-Identifier: GPL-2.0-or-later
"""The VM lane's choice of kernel (scripts/vm/lib.sh, `make test-vm
KERNEL=...`) and its modprobe for kernels with xz-compressed modules
(scripts/vm/xz-modprobe/modprobe), on this host's installed kernels."""

import glob
import os
import pathlib
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
KDIR = ROOT / "scripts/vm/kdir"
XZ_MODPROBE = ROOT / "scripts/vm/xz-modprobe/modprobe"


def kdir(kernel):
    return subprocess.run([KDIR, "--vm"], capture_output=True, text=True,
                          env={**os.environ, "MTG_VM_KERNEL": kernel})


def installed():
    return sorted(p.removeprefix("/boot/vmlinuz-")
                  for p in glob.glob("/boot/vmlinuz-*"))


@pytest.mark.parametrize("release", installed() or ["none"])
def test_a_version_names_its_kernel(release):
    """6.12 (the version) and 6.12.117+deb12-amd64 (the release) name
    the same installed kernel, whose headers the module is built with."""
    if release == "none":
        pytest.skip("no kernel in /boot")
    version = ".".join(release.split(".")[:2])
    same = [r for r in installed() if r.startswith(version + ".")
            or r.startswith(version + "-")]
    by_release = kdir(release)
    assert by_release.returncode == 0, by_release.stderr
    assert by_release.stdout.strip().endswith(release + "/build") or \
        by_release.stdout.strip().endswith("linux-headers-" + release)
    by_version = kdir(version)
    if len(same) == 1:
        assert by_version.stdout == by_release.stdout, by_version.stderr
    else:
        assert by_version.returncode == 2 and \
            "kernels in /boot match" in by_version.stderr


def test_an_unknown_kernel_is_refused():
    res = kdir("4.9")
    assert res.returncode == 2 and res.stdout == ""
    assert "MTG_VM_KERNEL=4.9: 0 kernels in /boot match (none): name one " \
        "release" in res.stderr


def xz_module():
    """A module of an installed kernel that ships them xz-compressed."""
    for release in installed():
        found = glob.glob(f"/lib/modules/{release}/kernel/net/sched/"
                          "sch_netem.ko.xz")
        if found:
            return release, found[0]
    return None, None


def test_xz_modules_are_given_decompressed(tmp_path):
    release, path = xz_module()
    if not release:
        pytest.skip("no installed kernel with xz-compressed modules")
    env = {**os.environ, "MTG_CACHE": str(tmp_path)}
    res = subprocess.run([XZ_MODPROBE, "--show-depends", "-S", release,
                          "-C", "/var/empty", "--", "sch_netem"],
                         capture_output=True, text=True, env=env)
    assert res.returncode == 0, res.stderr
    lines = res.stdout.splitlines()
    assert lines and all(line.startswith("insmod ") for line in lines)
    for line in lines:
        plain = line.split()[1]
        assert plain.startswith(f"{tmp_path}/vm-modules/lib/modules/"
                                f"{release}/") and plain.endswith(".ko")
        original = plain.removeprefix(f"{tmp_path}/vm-modules") + ".xz"
        want = subprocess.run(["xz", "-dc", original], capture_output=True,
                              check=True).stdout
        assert pathlib.Path(plain).read_bytes() == want
        assert want[:4] == b"\x7fELF"
    # Anything else is the real modprobe's, status included.
    res = subprocess.run([XZ_MODPROBE, "-n", "-S", release, "no_such_mod"],
                         capture_output=True, text=True, env=env)
    real = subprocess.run(["/usr/sbin/modprobe", "-n", "-S", release,
                           "no_such_mod"], capture_output=True, text=True)
    assert (res.returncode, res.stderr) == (real.returncode, real.stderr)
