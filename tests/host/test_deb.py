# SPDX-License-Identifier: GPL-2.0-or-later
"""The Debian packages (debian/, `make deb`, Documentation/packaging.rst).

`make deb` builds mtg-dkms, mtgctl and python3-mtgsap from a copy of the
tree into build/deb and leaves the tree as it was; lintian finds no error;
each package holds what it should, and what it holds works from where it is
unpacked: mtgctl checks an installed example, mtgsap runs from the
package's path, the man pages render without a warning, and DKMS builds
the module from mtg-dkms's source for the VM's kernel headers. The tests
that build are marked `deb` (make test-deb; a few minutes); the version
check runs with the host tests. tests/vm/test_deb.py installs the packages.
"""

import os
import re
import subprocess

import pytest

from test_mtgctl_idf import ROOT

OUT = ROOT / "build" / "deb"
PACKAGES = ("mtg-dkms", "mtgctl", "python3-mtgsap")
MULTIARCH = subprocess.run(["dpkg-architecture", "-qDEB_HOST_MULTIARCH"],
                           capture_output=True, text=True).stdout.strip()


def version():
    """debian/changelog's version: the one place it is set."""
    first = (ROOT / "debian/changelog").read_text().splitlines()[0]
    return re.fullmatch(r"mtg \(([^)]+)\) .*", first)[1]


def test_every_version_is_the_changelogs():
    v = version()
    found = {
        "ctl/util/log.h": re.search(r'#define MTGCTL_VERSION\s+"([^"]+)"',
                                    (ROOT / "ctl/util/log.h").read_text()),
        "analysis/pyproject.toml": re.search(
            r'^version = "([^"]+)"', (ROOT / "analysis/pyproject.toml")
            .read_text(), re.M),
        "kmod/Makefile": re.search(r"^VERSION := (\S+)",
                                   (ROOT / "kmod/Makefile").read_text(), re.M),
        "kmod/mtg_main.c": re.search(r'MODULE_VERSION\("([^"]+)"\)',
                                     (ROOT / "kmod/mtg_main.c").read_text()),
    }
    assert {k: m and m[1] for k, m in found.items()} == \
        dict.fromkeys(found, v)
    # dh_dkms -V fills it in from the changelog
    assert 'PACKAGE_VERSION="#MODULE_VERSION#"' in \
        (ROOT / "kmod/dkms.conf").read_text()


def git_status():
    r = subprocess.run(["git", "-C", ROOT, "status", "--porcelain",
                        "--ignored", "--untracked-files=all"],
                       capture_output=True, text=True, check=True)
    # build/ is where make deb writes; __pycache__ is this run's python
    return sorted(line for line in r.stdout.splitlines()
                  if not re.match(r"!! (build/|.*__pycache__/)", line))


@pytest.fixture(scope="module")
def debs():
    """make deb, once: the tree (even its ignored files) is as it was."""
    before = git_status()
    r = subprocess.run(["make", "-s", "-C", ROOT, "deb"],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
    assert git_status() == before
    v = version()
    arch = subprocess.run(["dpkg", "--print-architecture"],
                          capture_output=True, text=True).stdout.strip()
    paths = {"mtg-dkms": OUT / f"mtg-dkms_{v}_all.deb",
             "mtgctl": OUT / f"mtgctl_{v}_{arch}.deb",
             "python3-mtgsap": OUT / f"python3-mtgsap_{v}_all.deb"}
    for p in paths.values():
        assert p.is_file(), sorted(os.listdir(OUT))
    return paths


@pytest.fixture(scope="module")
def unpacked(debs, tmp_path_factory):
    """Each package unpacked into a folder of its own."""
    dirs = {}
    for name, path in debs.items():
        d = tmp_path_factory.mktemp(name)
        subprocess.run(["dpkg-deb", "-x", path, d], check=True)
        dirs[name] = d
    return dirs


def files(d):
    return sorted("/" + str(p.relative_to(d)) for p in d.rglob("*")
                  if not p.is_dir())


@pytest.mark.deb
def test_build_dependencies_are_complete():
    r = subprocess.run(["dpkg-checkbuilddeps"], cwd=ROOT,
                       capture_output=True, text=True)
    assert (r.returncode, r.stderr) == (0, "")


@pytest.mark.deb
def test_lintian_finds_no_error(debs):
    (changes,) = OUT.glob("mtg_*.changes")
    r = subprocess.run(["lintian", "--fail-on", "error", changes],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
    assert not re.search(r"^E: ", r.stdout, re.M), r.stdout


@pytest.mark.deb
def test_mtg_dkms_holds_the_module_source(unpacked):
    v = version()
    src = f"/usr/src/mtg-{v}"
    kmod = ROOT / "kmod"
    want = {f"{src}/dkms.conf", f"{src}/Kbuild"} | {
        f"{src}/{p.relative_to(kmod)}" for p in kmod.rglob("*")
        if re.search(r"\.[ch]$", p.name) and not p.name.endswith(".mod.c")}
    got = set(files(unpacked["mtg-dkms"]))
    assert want <= got
    assert got - want == {"/usr/share/doc/mtg-dkms/changelog.gz",
                          "/usr/share/doc/mtg-dkms/copyright"}
    conf = (unpacked["mtg-dkms"] / src.lstrip("/") / "dkms.conf").read_text()
    assert f'PACKAGE_VERSION="{v}"' in conf
    assert 'PACKAGE_NAME="mtg"' in conf and 'AUTOINSTALL="yes"' in conf


@pytest.mark.deb
def test_mtgctl_holds_the_controller_pages_examples_and_dissector(unpacked):
    got = set(files(unpacked["mtgctl"]))
    assert {"/usr/sbin/mtgctl", "/usr/share/man/man8/mtgctl.8.gz",
            "/usr/share/man/man4/mtg.4.gz", "/usr/share/man/man5/mtg-idf.5.gz",
            "/usr/share/doc/mtgctl/examples/demo.idf",
            "/usr/share/doc/mtgctl/examples/ipv6.idf",
            f"/usr/lib/{MULTIARCH}/wireshark/plugins/mtg.lua"} <= got
    assert not [f for f in got if f.startswith("/usr/src/")]
    # the folder is the one tshark loads Lua plugins from for everyone
    r = subprocess.run(["tshark", "-G", "folders"], capture_output=True,
                       text=True, check=True)
    folder = re.search(r"^Global Lua Plugins:\s*(\S+)", r.stdout, re.M)[1]
    assert folder == f"/usr/lib/{MULTIARCH}/wireshark/plugins"


@pytest.mark.deb
def test_the_packaged_mtgctl_checks_a_packaged_example(unpacked):
    d = unpacked["mtgctl"]
    r = subprocess.run([d / "usr/sbin/mtgctl", "check",
                        d / "usr/share/doc/mtgctl/examples/demo.idf"],
                       capture_output=True, text=True, cwd=d)
    assert r.returncode == 0, r.stderr
    assert re.findall(r"^tgid (\d+) \(.*demo\.idf:\d+\)$", r.stdout,
                      re.M) == ["1", "2"]


@pytest.mark.deb
def test_python3_mtgsap_runs_from_its_installed_path(unpacked):
    d = unpacked["python3-mtgsap"]
    assert {"/usr/bin/mtgsap", "/usr/share/man/man1/mtgsap.1.gz",
            "/usr/lib/python3/dist-packages/mtgsap/__init__.py"} <= \
        set(files(d))
    site = d / "usr/lib/python3/dist-packages"
    env = dict(os.environ, PYTHONPATH=str(site), PYTHONNOUSERSITE="1")
    # Debian's python3 and libraries, as the package's users have them
    r = subprocess.run(["/usr/bin/python3", d / "usr/bin/mtgsap", "--help"],
                       capture_output=True, text=True, env=env, cwd=d)
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("usage: mtgsap")
    r = subprocess.run(["/usr/bin/python3", "-c",
                        "import mtgsap; print(mtgsap.__file__)"],
                       capture_output=True, text=True, env=env, cwd=d)
    assert r.stdout.strip() == str(site / "mtgsap/__init__.py")


@pytest.mark.deb
@pytest.mark.parametrize("pkg,page", [("mtgctl", "man8/mtgctl.8.gz"),
                                      ("mtgctl", "man4/mtg.4.gz"),
                                      ("mtgctl", "man5/mtg-idf.5.gz"),
                                      ("python3-mtgsap", "man1/mtgsap.1.gz")])
def test_packaged_man_pages_render_without_warnings(unpacked, pkg, page):
    r = subprocess.run(["man", "--warnings", "-l",
                        unpacked[pkg] / "usr/share/man" / page],
                       capture_output=True, text=True,
                       env=dict(os.environ, MANWIDTH="80", LANG="C.UTF-8"))
    assert (r.returncode, r.stderr) == (0, "")
    assert len(r.stdout.splitlines()) > 50


def vm_kernel():
    kdir = subprocess.run([ROOT / "scripts/vm/kdir", "--vm"],
                          capture_output=True, text=True,
                          check=True).stdout.strip()
    uts = (open(f"{kdir}/include/generated/utsrelease.h").read())
    return kdir, re.search(r'UTS_RELEASE "([^"]+)"', uts)[1]


@pytest.mark.deb
def test_dkms_builds_the_packaged_source_for_the_vm_kernel(unpacked,
                                                           tmp_path):
    """dkms build in a tree of its own (--dkmstree, --sourcetree), against
    the VM kernel's headers (--kernelsourcedir); the signing key, which
    dkms makes when it has none, in the temporary folder too."""
    v = version()
    kdir, release = vm_kernel()
    tree = tmp_path / "dkms"
    tree.mkdir()
    env = dict(os.environ, mok_signing_key=str(tmp_path / "mok.key"),
               mok_certificate=str(tmp_path / "mok.pub"))
    r = subprocess.run(
        ["dkms", "build", "-m", "mtg", "-v", v,
         "--sourcetree", unpacked["mtg-dkms"] / "usr/src",
         "--dkmstree", tree, "-k", release, "--kernelsourcedir", kdir],
        capture_output=True, text=True, env=env)
    assert r.returncode == 0, r.stdout + r.stderr
    ko = tree / "mtg" / v / release / os.uname().machine / "module/mtg.ko"
    assert ko.is_file(), r.stdout
    info = {f: subprocess.run(["modinfo", "-F", f, ko], capture_output=True,
                              text=True, check=True).stdout.strip()
            for f in ("vermagic", "version", "name")}
    assert info["vermagic"].split()[0] == release
    assert (info["version"], info["name"]) == (v, "mtg")
