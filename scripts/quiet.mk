# SPDX-License-Identifier: GPL-2.0-or-later
#
# Quiet builds, as the kernel's: `$(msg) TAG FILE` says what a step makes,
# `$(Q)` hides its command; V=1 shows the commands instead. Included by
# ctl/Makefile and ebpf/Makefile.

ifeq ($(V),1)
Q :=
msg := @true
else
Q := @
msg := @printf '  %-7s %s\n'
endif
