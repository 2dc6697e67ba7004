# SPDX-License-Identifier: GPL-2.0-or-later
#
# mtg: traffic generator and meter. `make help` lists the targets.

ROOT := $(abspath $(dir $(lastword $(MAKEFILE_LIST))))
VENV := $(ROOT)/.venv
PYTEST := $(VENV)/bin/pytest -p no:cacheprovider
CC ?= cc
CFLAGS ?= -O2 -g
WARN := -Wall -Wextra -Werror
# KERNEL=6.12 (a version or a release of an installed kernel): the VM
# lane boots that kernel instead of linux-image-amd64's.
KERNEL ?=
ifneq ($(KERNEL),)
export MTG_VM_KERNEL := $(KERNEL)
endif
# The headers of the kernel the VM lane boots (the module must match it).
VM_KDIR = $(shell $(if $(KERNEL),MTG_VM_KERNEL=$(KERNEL)) \
	$(ROOT)/scripts/vm/kdir --vm)
# The VM suite's tests (test-vm, test-debug); the second kernel's lane in
# make test runs SECOND_TESTS, the whole suite in make test-full.
VM_TESTS ?= tests/vm
SECOND_KERNEL := 6.12
SECOND_TESTS := tests/vm/test_guest.py tests/vm/test_tg.py \
	tests/vm/test_rx.py tests/vm/test_netlink.py tests/vm/test_ebpf_paths.py \
	tests/vm/test_sock.py
# Every kernel whose headers are installed: the module must build on all.
COMPAT_KDIRS = $(wildcard /usr/src/linux-headers-*-amd64)

.PHONY: all help deps module tools ctl ebpf regen style check compat test \
	test-host test-vm test-debug demo bench clean man deb test-deb \
	test-deb-host test-full

all: module tools

help:
	@echo "make              build mtg.ko (against KDIR), mtgctl and the test tools"
	@echo "make deps         install what the build and tests need (root)"
	@echo "make test         every test: style, sparse, compat, host, VM"
	@echo "make test-host    host tests only (no root, no VM)"
	@echo "make test-vm      the VM suite in one boot of the Debian kernel"
	@echo "                  (KERNEL=6.12: of another installed kernel)"
	@echo "make test-debug   the VM suite on a KASAN/lockdep/kmemleak kernel"
	@echo "make demo         show the module at work in the VM"
	@echo "make bench        mtg against its peers in one VM boot (bench/report.md)"
	@echo "make style        checkpatch;  make check: sparse"
	@echo "make compat       build the module against every installed kernel"
	@echo "make regen        regenerate the netlink code from its YAML spec"
	@echo "make man          the man pages, from Documentation/, into build/man"
	@echo "make deb          the Debian packages into build/deb (Documentation/packaging.rst)"
	@echo "make test-deb     build them, check them, install them in the VM"
	@echo "make test-full    make test, and the lanes too slow for it (test-deb's VM)"
	@echo "variables: KDIR=<kernel build dir>, V=1, MTG_VM_TIMEOUT=<s>"

deps:
	$(ROOT)/scripts/deps

# mtgctl(8), mtg(4), mtg-idf(5), mtgsap(1): read with man -l build/man/mtgctl.8
man: deps
	$(VENV)/bin/python scripts/man-pages build/man

module:
	$(MAKE) -C kmod module W=1

# mtg-dkms, mtgctl, python3-mtgsap, built from a copy of the tree into
# build/deb (Documentation/packaging.rst); the packaging tools are a group
# of their own in scripts/deps, so plain `make deps` does not install them.
deb:
	$(ROOT)/scripts/deps --packaging
	$(ROOT)/scripts/deb

tools: tests/fuzz/mtg_fuzz tests/fuzz/idf_fuzz tests/fuzz/tsp_fuzz \
	tests/tools/tsp_tool ebpf ctl

# The eBPF programs and their skeletons (clang, bpftool, libbpf-dev); on a
# machine without them it says what is missing, and mtgctl is built
# without probes.
ebpf:
	$(MAKE) -C ebpf

ctl: ebpf
	$(MAKE) -C ctl

# The netlink family's uapi header, policies and ops table, generated from
# Documentation/netlink/specs/mtg.yaml by the kernel's ynl-gen-c (the
# kernel's ynl-regen.sh; tests/host/test_netlink_gen.py checks the tree).
regen:
	$(ROOT)/scripts/ynl-regen

tests/fuzz/mtg_fuzz: tests/fuzz/mtg_fuzz.c kmod/uapi/mtg.h
	$(CC) $(CFLAGS) $(WARN) -o $@ $<

# The IDF parser's libFuzzer target (clang; tests/host/test_fuzz_idf.py).
# clang, unlike gcc, warns of the tables' trailing fields left to zero.
# The language, the traffic it becomes and the small utilities (ctl's
# libraries that need neither the module nor a screen).
IDF_FUZZ_SRCS := tests/fuzz/idf_fuzz.c \
	$(sort $(wildcard ctl/idf/*.c ctl/traffic/*.c ctl/util/*.c))
tests/fuzz/idf_fuzz: $(IDF_FUZZ_SRCS) $(wildcard ctl/*/*.h) kmod/uapi/mtg.h
	clang -std=c11 -D_GNU_SOURCE -Ictl -Ikmod -g -O1 $(WARN) \
		-Wno-missing-field-initializers \
		-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
		-o $@ $(IDF_FUZZ_SRCS) -lgsl -lgslcblas -lm

# TSP's wire format, keys and handshake (ctl/tsp/) and what they need.
TSP_SRCS := $(sort $(wildcard ctl/tsp/*.c)) ctl/util/text.c
CRYPTO_LIBS = $(shell pkg-config --libs libcrypto)

# ctl/tsp for the tests (tests/host/test_tsp_wire.py).
TSP_TOOL_SRCS := tests/tools/tsp_tool.c tests/tools/tsp_json.c \
	$(TSP_SRCS) ctl/util/jw.c
tests/tools/tsp_tool: $(TSP_TOOL_SRCS) $(wildcard ctl/tsp/*.h ctl/util/*.h \
		tests/tools/*.h)
	$(CC) -std=c11 -D_GNU_SOURCE -Ictl $(CFLAGS) $(WARN) \
		$(shell pkg-config --cflags libcrypto) -o $@ $(TSP_TOOL_SRCS) \
		-ljansson $(CRYPTO_LIBS)

# The TSP decoder's libFuzzer target (clang; tests/host/test_fuzz_tsp.py).
TSP_FUZZ_SRCS := tests/fuzz/tsp_fuzz.c $(TSP_SRCS)
tests/fuzz/tsp_fuzz: $(TSP_FUZZ_SRCS) $(wildcard ctl/tsp/*.h ctl/util/*.h)
	clang -std=c11 -D_GNU_SOURCE -Ictl -g -O1 $(WARN) \
		-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
		$(shell pkg-config --cflags libcrypto) -o $@ $(TSP_FUZZ_SRCS) \
		$(CRYPTO_LIBS)

style:
	$(MAKE) -C kmod style
	$(MAKE) -C kmod checkpatch FILES=$(ROOT)/bench/floor/mtg_floor.c

check:
	$(MAKE) -C kmod check KDIR=$(VM_KDIR)

# A copy per kernel, so builds for different kernels never share objects.
compat:
	@set -e; for kdir in $(COMPAT_KDIRS); do \
		out=$$(mktemp -d); \
		cp -r kmod/Kbuild kmod/*.c kmod/*.h kmod/uapi $$out/; \
		echo "compat: $$kdir"; \
		$(MAKE) -s -C $$kdir M=$$out W=1 KCFLAGS=-Werror modules >/dev/null; \
		rm -rf $$out; \
	done

test: deps
	$(MAKE) style check compat test-host test-vm test-vm-second test-deb-host

# make test and what is too slow for it (or not steady there yet): the VM
# tests marked full (the eBPF host tests on 6.1), the rest of the suite on
# the second kernel, the packages installed in a VM (DKMS compiles the
# module in the emulated guest: 22 minutes). Run it before
# resolving an issue that touches debian/, kmod/'s DKMS or kernel versions.
test-full: test
	$(MAKE) -C kmod module W=1 KDIR=$(VM_KDIR)
	MTG_VM_TIMEOUT=$${MTG_VM_TIMEOUT:-3600} MTG_VM_NETWORK=loop \
		scripts/vm/run $(PYTEST) -m full tests/vm
	$(MAKE) test-vm KERNEL=$(SECOND_KERNEL) \
		VM_TESTS="tests/vm $(addprefix --ignore=,$(SECOND_TESTS))"
	$(MAKE) test-deb

# The packages' tests (marked deb) run in test-deb, not here.
test-host: tools
	$(PYTEST) -m "not deb" tests/host

# The packages built (make deb, by the host test), their contents, lintian
# and DKMS against the VM's kernel headers (test-deb-host, in make test);
# then, in a VM boot of their own, installed, used and purged
# (tests/vm/test_deb.py, make test-deb and make test-full).
test-deb-host: tools
	$(ROOT)/scripts/deps --packaging
	$(PYTEST) -m deb tests/host/test_deb.py

# DKMS compiles in the guest: 22 minutes with both vCPUs on one TCG thread.
test-deb: test-deb-host
	$(MAKE) -C kmod module W=1 KDIR=$(VM_KDIR)
	MTG_VM_TIMEOUT=$${MTG_VM_TIMEOUT:-3600} MTG_VM_NETWORK=loop \
		scripts/vm/run $(PYTEST) -m deb tests/vm/test_deb.py

# MTG_VM_NETWORK=loop: two virtio_net devices back to back, a real driver
# that is not lockless, beside the veth pairs the tests make.
# The bench's timer floor (bench/floor) is kernel code too: built and
# tested with the module.
test-vm: tools
	$(MAKE) -C kmod module W=1 KDIR=$(VM_KDIR)
	$(MAKE) -C $(VM_KDIR) M=$(ROOT)/bench/floor W=1 modules
	MTG_VM_TIMEOUT=$${MTG_VM_TIMEOUT:-3600} MTG_VM_NETWORK=loop \
		scripts/vm/run $(PYTEST) -m "not deb and not full" $(VM_TESTS)

# The second kernel (Debian's 6.12): make test runs SECOND_TESTS on it,
# make test-full the whole suite (Documentation/testing.rst).
test-vm-second:
	$(MAKE) test-vm KERNEL=$(SECOND_KERNEL) VM_TESTS="$(SECOND_TESTS)"

# The debug lane: the module under KASAN, lockdep and kmemleak, through
# the tests that drive it. Not the controller's interface and daemons
# (DEBUG_SKIP), whose kernel paths the ABI tests take too: with them the
# lane ran past three hours. Multi-threaded TCG: the debug kernel on one
# host thread stalls RCU for a minute at a time (Documentation/testing.rst).
DEBUG_SKIP := dashboard demo manage logd mtgctl_ctrl mtgctl_rate \
	mtgctl_start mtgctl_keep mtgctl_itgsend
test-debug: deps tools
	@tree=$$(scripts/vm/debug-kernel) && \
	$(MAKE) -C kmod module KDIR=$$tree && \
	$(MAKE) -C $$tree M=$(ROOT)/bench/floor modules && \
	MTG_VM_TREE=$$tree MTG_VM_TIMEOUT=14400 MTG_VM_NETWORK=loop \
	MTG_VM_TCG_THREAD=multi \
		scripts/vm/run $(PYTEST) -m "not deb and not full" \
		$(DEBUG_SKIP:%=--ignore=tests/vm/test_%.py) tests/vm

# Directly on a host that can load modules and has its kernel's headers;
# in the VM lane everywhere else.
demo: deps tools
	@if [ -r /proc/modules ] && [ -d /lib/modules/$$(uname -r)/build ]; then \
		$(MAKE) -C kmod module W=1 KDIR=/lib/modules/$$(uname -r)/build && \
		examples/demo.sh; \
	else \
		echo "demo: this kernel cannot load modules: running in the VM lane"; \
		$(MAKE) -C kmod module W=1 KDIR=$(VM_KDIR) && \
		scripts/vm/run examples/demo.sh; \
	fi

# Benchmarks: an hour or more under emulation; not part of `make test`.
bench: deps tools
	bench/run

clean:
	$(MAKE) -C kmod clean KDIR=$(VM_KDIR)
	$(MAKE) -C $(VM_KDIR) M=$(ROOT)/bench/floor clean
	$(MAKE) -C ctl clean
	$(MAKE) -C ebpf clean
	rm -f tests/fuzz/mtg_fuzz tests/fuzz/idf_fuzz tests/fuzz/tsp_fuzz \
		tests/tools/tsp_tool
	rm -rf .vm-out build
