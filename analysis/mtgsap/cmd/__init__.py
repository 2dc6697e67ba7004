# SPDX-License-Identifier: GPL-2.0-or-later
"""mtgsap's commands, one module each: `mtgsap NAME` is mtgsap.cmd.NAME,
with configure(parser), which adds its options to its subparser, and
command(args), which runs it and returns the exit status. Errors are
raised (mtgsap.cli.main says them). The libraries (recording, meter,
stats, fit, plot, export, ...) never import a command."""
