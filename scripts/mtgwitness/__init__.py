# SPDX-License-Identifier: GPL-2.0-or-later
"""mtg as a witness sees it, in plain Python: the /dev/mtg ABI of
kmod/uapi/mtg.h (abi), the frames mtg puts on the wire read back from a
pcap file (wire), and tcpdump capturing them (capture).

The tests check the product against it, the bench measures with it and
`make demo` shows the wire with it; so it lives beside the tooling they
share, not in tests/. It is written from the uapi header and the
documentation, never from mtgctl's or mtgsap's code, and imports neither:
a witness that shared the product's code would share its mistakes.
tests/host/test_abi_layout.py keeps abi equal to the header and
tests/host/test_wire.py checks wire on frames built by hand.
"""
