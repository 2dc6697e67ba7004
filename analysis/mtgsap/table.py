# SPDX-License-Identifier: GPL-2.0-or-later
"""Aligned text tables and JSON, the two ways every command answers."""

import json
import math

import numpy as np


def plain(value):
    """A value JSON and tables can take: numpy scalars to Python, NaN to
    None."""
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def cell(value, digits=6):
    value = plain(value)
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        if value == 0:
            return "0"
        if abs(value) >= 1e5:
            return f"{value:.1f}"
        if abs(value) >= 1e-4:
            return f"{value:.{digits}g}"
        return f"{value:.{digits - 2}e}"
    return str(value)


def render(rows, columns, title=None):
    """rows: dicts; columns: (key, heading) pairs. Numbers right-aligned,
    text left-aligned."""
    cells = [[cell(r.get(k)) for k, _ in columns] for r in rows]
    heads = [h for _, h in columns]
    widths = [max([len(h)] + [len(c[i]) for c in cells])
              for i, h in enumerate(heads)]
    numeric = [all(isinstance(plain(r.get(k)), (int, float)) or
                   r.get(k) is None for r in rows) for k, _ in columns]

    def line(values):
        return "  ".join(v.rjust(w) if num else v.ljust(w)
                         for v, w, num in zip(values, widths, numeric)).rstrip()

    out = [title] if title else []
    out.append(line(heads))
    out.extend(line(c) for c in cells)
    return "\n".join(out) + "\n"


def to_json(obj):
    def default(o):
        if isinstance(o, np.ndarray):
            return [plain(x) for x in o.tolist()]
        if isinstance(o, np.generic):
            return plain(o)
        raise TypeError(f"{type(o).__name__} is not JSON")

    def clean(o):
        if isinstance(o, dict):
            return {k: clean(v) for k, v in o.items()}
        if isinstance(o, (list, tuple)):
            return [clean(v) for v in o]
        if isinstance(o, np.ndarray):
            return [clean(plain(x)) for x in o.tolist()]
        return plain(o)

    return json.dumps(clean(obj), indent=2, default=default) + "\n"
