# SPDX-License-Identifier: GPL-2.0-or-later
"""mtgsap: the command line. `mtgsap COMMAND --help` tells each command's
options; Documentation/analysis.rst explains them with examples."""

import argparse
import importlib
import sys

from .common import UsageError
from .fields import FieldError
from .recording import RecordingError
from .select import ExprError
from .stats import AnalysisError

NS_FIELDS_NOTE = "Times and delays are in ns"

# Every command is the module mtgsap.cmd.NAME, with configure(parser) and
# command(args) (mtgsap/cmd/__init__.py). Only the one asked for is
# imported: the others' (fit's scipy, plot's matplotlib) would only slow
# every command down.
COMMANDS = {
    "info": "what a recording holds: its header, clock, flows",
    "copy": "copy a recording safely, checking it",
    "filter": "the records a condition selects, to a new recording or CSV",
    "stats": "min, max, mean, variance, percentiles, PMF and CDF of "
             "fields, delays and jitter",
    "flows": "per TG: received, lost, duplicates, reordered, bit errors, "
             "one-way delay",
    "segments": "per TG: the delay of each segment of the path the "
                "test-point probes stamped (tx, tp0..tp3, rx)",
    "rtt": "per TG: round trips through an XDP reflector: RTT, forward "
           "and return with a shared clock, the reflector's dwell",
    "ber": "bit error rate per TG with its standard deviation, and over "
           "windows",
    "g821": "CCITT G.821: available time, ES, SES, degraded minutes per TG",
    "windows": "D-ITG's throughput, delay, jitter and loss over windows",
    "ctrl": "the control messages received, as recorded",
    "kept": "the payloads and wrong bits' positions kept (the IDF's keep)",
    "fit": "goodness of fit of a TG's sending process; Hurst parameter",
    "plot": "figures: delay over time, CDF, PMF, windows, sending times",
    "export": "CSV, JSON, Parquet, pcapng",
    "categories": "a behaviour TG's records by category of actions: time, "
                  "packets, rates against the model; one recording each",
}


def module(name):
    """The module of command `name`."""
    return importlib.import_module(f"{__package__}.cmd.{name}")


def parser(command=None):
    """The parser; only `command`'s options are set up."""
    p = argparse.ArgumentParser(
        prog="mtgsap", description="Analysis of mtg recordings "
        "(Documentation/analysis.rst). " + NS_FIELDS_NOTE + ".")
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name, help_ in COMMANDS.items():
        c = sub.add_parser(name, help=help_, description=help_)
        if name == command:
            module(name).configure(c)
    return p


def main(argv=None):
    argv = sys.argv[1:] if argv is None else list(argv)
    command = next((a for a in argv if not a.startswith("-")), None)
    args = parser(command).parse_args(argv)
    try:
        return module(args.command).command(args)
    except AnalysisError as e:
        # What the records cannot give: said of the file.
        print(f"mtgsap {args.command}: {args.recording}: {e}",
              file=sys.stderr)
        return 1
    except (RecordingError, FieldError, ExprError, UsageError) as e:
        print(f"mtgsap {args.command}: {e}", file=sys.stderr)
        return 1
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    sys.exit(main())
