# SPDX-License-Identifier: GPL-2.0-or-later
# Shared by the VM lane's scripts: where things are, which kernel boots.
# Source it; it sets variables and defines functions, it runs nothing.

MTG_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
MTG_CACHE=${MTG_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/mtg}
MTG_VENV=${MTG_VENV:-$MTG_ROOT/.venv}
VNG=${VNG:-$MTG_VENV/bin/vng}

die() {
	echo "$(basename "$0"): $*" >&2
	exit 2
}

# The release of the Debian kernel the VM lane boots: $MTG_VM_KERNEL if set
# (a release, or a version such as 6.12 that one installed kernel has),
# else the one Debian's linux-image-amd64 stands for (so the lane follows
# the distribution, not whatever else is installed).
vm_kernel_release() {
	if [ -n "${MTG_VM_KERNEL:-}" ]; then
		# a release (6.12.117+deb12-amd64) or its version (6.12)
		if [ -e "/boot/vmlinuz-$MTG_VM_KERNEL" ]; then
			echo "$MTG_VM_KERNEL"
			return
		fi
		local found=() f
		for f in "/boot/vmlinuz-$MTG_VM_KERNEL".* "/boot/vmlinuz-$MTG_VM_KERNEL"-*; do
			[ -e "$f" ] && found+=("${f#/boot/vmlinuz-}")
		done
		[ ${#found[@]} -eq 1 ] ||
			die "MTG_VM_KERNEL=$MTG_VM_KERNEL: ${#found[@]} kernels in /boot match (${found[*]:-none}): name one release"
		echo "${found[0]}"
		return
	fi
	local dep
	dep=$(dpkg-query -W -f '${Depends}' linux-image-amd64 2>/dev/null |
		grep -o 'linux-image-[^ ,]*-amd64' | head -n 1)
	[ -n "$dep" ] || die "linux-image-amd64 is not installed: run 'make deps'"
	[ -e "/boot/vmlinuz-${dep#linux-image-}" ] || die "no /boot/vmlinuz-${dep#linux-image-}: run 'make deps'"
	echo "${dep#linux-image-}"
}

# The build directory of a Debian kernel's headers.
headers_dir() {
	if [ -d "/lib/modules/$1/build" ]; then
		echo "/lib/modules/$1/build"
	else
		echo "/usr/src/linux-headers-$1"
	fi
}

# The CPU QEMU emulates under TCG: virtme-ng's "max" without AVX2. QEMU
# 7.2's TCG (Debian 12) decodes an AVX2 gather whose vector index is
# xmm4/ymm4 as if it had no index (every lane loads base[0]; fixed upstream
# in 9.1 by "target/i386: Fix VSIB decode", QEMU issue 2474). numpy 2.4's
# argsort gathers that way, so it returned unsorted arrays in the guest and
# mtgsap's loss accounting broke on them (tests/vm/test_guest.py keeps
# watch). Gathers have no CPUID flag of their own: AVX2 goes. QEMU takes
# the last -cpu it is given. MTG_VM_CPU overrides.
#
# And one host thread for all vCPUs (thread=single). QEMU 7.2's
# multi-threaded TCG can leave a vCPU running a stale translation of kernel
# text that another vCPU has just patched: a static key flipped while
# packets flow (a netdev ingress hook added or removed) leaves the int3 of
# the patching in the receiving vCPU's copy after memory no longer holds it.
# 6.12 dies with "Oops: int3", 6.1 loops on the trap (a soft lockup). The
# suite flips such keys with every test that listens (Documentation/
# testing.rst); single-threaded TCG has not been seen to do it.
# MTG_VM_TCG_THREAD=multi brings the multi-threaded TCG back.
vng_cpu_args() {
	case " $* " in
	*" --disable-kvm "*)
		echo "--qemu-opts=-cpu ${MTG_VM_CPU:-max,avx2=off} -accel tcg,thread=${MTG_VM_TCG_THREAD:-single}"
		;;
	esac
}

# KVM where it works, TCG elsewhere. /dev/kvm can exist and still hang a
# nested guest (TESTING.md), so KVM is used only when asked for or proven.
vng_accel_args() {
	case ${MTG_VM_KVM:-auto} in
	1 | yes) ;;
	0 | no) echo --disable-kvm ;;
	auto)
		if [ -w /dev/kvm ] && [ -f "$MTG_CACHE/kvm-works" ]; then
			:
		else
			echo --disable-kvm
		fi
		;;
	esac
}
