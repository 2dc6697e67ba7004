# SPDX-License-Identifier: GPL-2.0-or-later
"""mtgsap: analysis of mtg recordings.

    import mtgsap
    rec = mtgsap.open("loop.rec")      # mapped, nothing copied
    rec.records["rx_ns"]               # a numpy structured array
    rec.frame()                        # the same memory as a DataFrame
    mtgsap.column(rec.records, "owd")  # any field, delay or jitter
    mtgsap.flows(rec.records)          # received, lost, ... per TG
    mtgsap.paths(rec.records)          # delay per segment of the path
"""

from .fields import Column, column, parse_duration
from .meter import Flow, flows, g821, windows
from .recording import Extra, Recording, RecordingError, copy, write
from .recording import open_recording as open
from .segments import Path, paths
from .select import condition, selection
from .stats import describe, pmf

__version__ = "0.1.0"
__all__ = ["Column", "Extra", "Flow", "Path", "Recording", "RecordingError",
           "column", "condition", "copy", "describe", "flows", "g821",
           "open", "parse_duration", "paths", "pmf", "selection", "windows",
           "write"]
