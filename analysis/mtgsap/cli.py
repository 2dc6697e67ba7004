# SPDX-License-Identifier: GPL-2.0-or-later
"""mtgsap: the command line. `mtgsap COMMAND --help` tells each command's
options; Documentation/analysis.rst explains them with examples."""

import argparse
import importlib
import sys

import numpy as np

from . import meter as fl
from . import stats as st
from .common import (UsageError, add_json, add_selection, answer, asked_by,
                     check_tgs, interval, open_input, selected, tg_list,
                     wrote)
from .fields import FieldError, column, parse_duration
from .recording import (EXTRA_CTRL, EXTRA_PAYLOAD, EXTRA_WRONG_BITS,
                        F_KEEP_LOST, RecordingError, STAMP_MASK, STAMP_NAMES,
                        copy, extra_counts, select_extras, write)
from .select import ExprError

NS_FIELDS_NOTE = "Times and delays are in ns"


# --- info --------------------------------------------------------------------

def cmd_info(args):
    with open_input(args) as rec:
        h, m = rec.header, rec.meta
        data = dict(path=rec.path, version=h["version"],
                    complete=rec.complete, records=len(rec),
                    partial_bytes=rec.partial_bytes,
                    not_written=h["not_written"], ring_drops=h["ring_drops"],
                    ifaces_lost=h["ifaces_lost"], command=m.get("command"), run_id=m.get("run_id"),
                    start_ns=rec.start_ns, end_ns=h["end_ns"],
                    host=(m.get("host") or {}).get("name"),
                    clock=m.get("clock"),
                    interfaces=m.get("interfaces") or [],
                    tgs=[t.get("id") for t in m.get("tgs") or []])
        r = rec.records
        stamps = {STAMP_NAMES[k]: int(n) for k, n in enumerate(
            np.bincount(r["flags"] & STAMP_MASK, minlength=3)) if n}
        data["stamps"] = stamps
        data["hdr_corrupt"] = int((~fl.sound(r)).sum())
        x = rec.extras_header
        if x:
            kinds = np.bincount([e.type for e in rec.extras],
                                minlength=4) if rec.extras else [0] * 4
            data["extras"] = dict(
                entries=len(rec.extras), ctrl=int(kinds[EXTRA_CTRL]),
                payloads=int(kinds[EXTRA_PAYLOAD]),
                wrong_bit_lists=int(kinds[EXTRA_WRONG_BITS]),
                not_written=x["extras_lost"], ctrl_drops=x["ctrl_drops"],
                keep_drops=x["keep_drops"])
        if args.json:
            answer(args, data)
            return 0
        rows = [dict(k=k, v=v if not isinstance(v, (dict, list)) else
                     ", ".join(f"{a}={b}" for a, b in v.items())
                     if isinstance(v, dict) else
                     ", ".join(str(x.get("dev", x)) if isinstance(x, dict)
                               else str(x) for x in v))
                for k, v in data.items()]
        answer(args, data, rows, [("k", "field"), ("v", "value")])
    return 0


# --- control messages ------------------------------------------------------------

def _text(data, limit=60):
    """Bytes as mtgctl shows them: printable ASCII, escapes for the rest."""
    out = []
    for b in data[:limit]:
        c = chr(b)
        out.append("\\" + c if c in '"\\' else "\\n" if c == "\n" else
                   c if 0x20 <= b < 0x7f else f"\\x{b:02x}")
    return '"' + "".join(out) + ('"...' if len(data) > limit else '"')


def cmd_ctrl(args):
    with open_input(args) as rec:
        tgs = check_tgs(rec, args, {e.tg_id for e in rec.extras})
        msgs = rec.control_messages(None if tgs is None else set(tgs))
        rows = [dict(run_id=m.run_id, tg=m.tg_id, seq=m.seq,
                     t=(m.rx_ns - rec.start_ns) / 1e9, rx_ns=m.rx_ns,
                     tx_ns=m.tx_ns, iface=m.iface, flags=m.rx_flags,
                     len=len(m.data), hex=m.data.hex(), text=_text(m.data))
                for m in msgs]
        x = rec.extras_header or {}
        data = dict(ctrl=[{k: v for k, v in r.items() if k != "text"}
                          for r in rows],
                    ctrl_drops=x.get("ctrl_drops", 0))
        answer(args, data, rows,
               [("tg", "tg"), ("seq", "seq"), ("t", "s after T0"),
                ("len", "bytes"), ("text", "message")])
        if not args.json:
            print(f"{len(rows)} control messages; the module's queue lost "
                  f"{data['ctrl_drops']}" +
                  ("" if rec.header["version"] >= 2 else
                   " (a version 1 recording: none were kept)"))
    return 0


def cmd_kept(args):
    with open_input(args) as rec:
        tgs = check_tgs(rec, args, {e.tg_id for e in rec.extras})
        tgs = None if tgs is None else set(tgs)
        rows = []
        for kind, name in ((EXTRA_PAYLOAD, "payload"),
                           (EXTRA_WRONG_BITS, "wrong_bits")):
            for index, e in rec.kept(kind, tgs).items():
                row = dict(record=index, run_id=e.run_id, tg=e.tg_id,
                           seq=e.seq, kind=name, count=e.count)
                if kind == EXTRA_PAYLOAD:
                    row["hex"] = e.data.hex()
                    row["shown"] = e.data[:16].hex() + \
                        ("..." if len(e.data) > 16 else "")
                else:
                    row["positions"] = [int(p) for p in e.positions]
                    row["cut"] = e.cut
                    row["shown"] = " ".join(str(p) for p in
                                            row["positions"][:8]) + \
                        (" ..." if len(row["positions"]) > 8 or e.cut
                         else "")
                rows.append(row)
        rows.sort(key=lambda r: (r["record"], r["kind"]))
        x = rec.extras_header or {}
        lost = int(((rec.records["flags"] & F_KEEP_LOST) != 0).sum()) \
            if len(rec) else 0
        data = dict(kept=[{k: v for k, v in r.items() if k != "shown"}
                          for r in rows],
                    keep_drops=x.get("keep_drops", 0), records_lost=lost)
        answer(args, data, rows,
               [("record", "record"), ("tg", "tg"), ("seq", "seq"),
                ("kind", "kept"), ("count", "bytes/bits"),
                ("shown", "data (hex) / positions")])
        if not args.json:
            print(f"{len(rows)} kept; the module had no room for "
                  f"{data['keep_drops']} (records marked: {lost})")
    return 0


# --- copy and filter -----------------------------------------------------------

def cmd_copy(args):
    n = copy(args.recording, args.dest, force=args.force,
             partial=args.partial)
    wrote(args, f"mtgsap: copied {n} records to {args.dest}",
          records=n, output=args.dest)
    return 0


def cmd_filter(args):
    with open_input(args) as rec:
        mask = selected(rec, args)
        fmt = args.format or ("csv" if args.output.endswith(".csv")
                              else "rec")
        if fmt == "csv":
            from .export import write_csv
            write_csv(rec, mask, args.output, force=args.force)
        else:
            meta = dict(rec.meta)
            meta["filtered"] = dict(source=rec.path, tg=args.tg,
                                    start=args.start, end=args.end,
                                    where=args.where)
            h = rec.header
            tgs = tg_list(args)
            write(args.output, meta, rec.records[mask],
                  ring_drops=h["ring_drops"], not_written=h["not_written"],
                  end_ns=h["end_ns"], ifaces_lost=h["ifaces_lost"],
                  force=args.force,
                  extras=select_extras(rec.extras, mask,
                                       None if tgs is None else set(tgs)),
                  **extra_counts(rec))
        n = int(mask.sum())
        wrote(args, f"mtgsap: {n} of {len(rec)} records to {args.output}",
              records=n, of=len(rec), output=args.output, format=fmt)
    return 0


# --- stats ---------------------------------------------------------------------

def cmd_stats(args):
    with open_input(args) as rec:
        mask = selected(rec, args)
        percentiles = st.PERCENTILES
        if args.basic and (args.percentiles or args.pmf or args.cdf):
            raise UsageError("--basic computes no percentiles, PMF or CDF")
        _check_bins(args.bins)
        if args.basic:
            percentiles = ()
        elif args.percentiles:
            try:
                percentiles = tuple(float(p) for p in
                                    args.percentiles.split(","))
            except ValueError:
                raise UsageError("--percentiles: numbers separated by "
                                 "commas") from None
            if not all(0 <= p <= 100 for p in percentiles):
                raise UsageError("--percentiles: between 0 and 100")
        results, rows = {}, []
        for name in args.fields:
            if args.basic:
                d = st.basic(rec.records, name, mask, rec.start_ns)
                d["unit"] = "ns" if column(rec.records[:0], name).time \
                    else ""
                results[name] = d
                rows.append(dict(field=name, **d))
                continue
            col = column(rec.records, name, rec.start_ns)
            sample = col.taken(mask)
            d = st.describe(sample, percentiles)
            d["unit"] = "ns" if col.time else ""
            if args.pmf or args.cdf:
                width = (parse_duration(args.bin_width, "--bin-width")
                         if args.bin_width and col.time else
                         _number(args.bin_width, "--bin-width")
                         if args.bin_width else None)
                if width is not None and not width > 0:
                    raise UsageError("--bin-width must be positive")
                with asked_by("--bin-width", args.bin_width):
                    x, w, p, c = st.pmf(sample, args.bins, width)
                d["pmf"] = dict(value=x, width=w, p=p, cdf=c)
            results[name] = d
            rows.append(dict(field=name, **d))
        if args.json:
            answer(args, results)
            return 0
        keys = ["count", "min", "max", "mean", "variance", "sd"] + \
            [f"p{p:g}" for p in percentiles]
        answer(args, results, rows, [("field", "field")] +
               [(k, k) for k in keys] + [("unit", "unit")])
        for name, d in results.items():
            if "pmf" not in d:
                continue
            pm = d["pmf"]
            prow = [dict(value=pm["value"][i], width=pm["width"][i],
                         p=pm["p"][i], cdf=pm["cdf"][i])
                    for i in range(len(pm["p"])) if args.cdf or pm["p"][i]]
            cols = [("value", "value" if not pm["width"].any() else "from"),
                    ("width", "width"), ("p", "P"), ("cdf", "CDF")]
            if not pm["width"].any():
                cols.pop(1)
            print()
            answer(args, d, prow, cols, title=f"PMF and CDF of {name}")
    return 0


def _number(text, option):
    try:
        return float(text)
    except ValueError:
        raise UsageError(f"{option} {text}: a number") from None


def _check_bins(bins):
    """--bins N: at least 1, at most MAX_BINS."""
    if bins is not None and bins < 1:
        raise UsageError(f"--bins {bins}: at least 1")
    if bins is not None and bins > st.MAX_BINS:
        raise UsageError(f"--bins {bins}: more than {st.MAX_BINS} bins")


# --- flows and ber -------------------------------------------------------------

def _flows(rec, args):
    mask = selected(rec, args)
    return mask, fl.flows(rec.records, mask)


def cmd_flows(args):
    with open_input(args) as rec:
        mask, flows = _flows(rec, args)
        rows = []
        for f in flows:
            owd = column(rec.records[f.index], "owd")
            d = st.describe(owd.taken(), (50, 99))
            rows.append(dict(run_id=f.run_id, tg=f.tg_id, records=f.records,
                             received=f.received, lost=f.lost,
                             duplicates=f.duplicates, reordered=f.reordered,
                             bit_errors=f.bit_errors, bits=f.bits, ber=f.ber,
                             bytes=f.bytes, implausible=f.implausible,
                             owd_mean=d.get("mean"),
                             owd_p50=d.get("p50"), owd_p99=d.get("p99"),
                             owd_max=d.get("max")))
        corrupt = int((~fl.sound(rec.records) & mask).sum())
        data = dict(flows=rows, hdr_corrupt=corrupt,
                    ring_drops=rec.header["ring_drops"],
                    not_written=rec.header["not_written"])
        # Implausible sequence numbers, when a flow has some.
        odd = [("implausible", "implausible")] \
            if any(f.implausible for f in flows) else []
        answer(args, data, rows,
               [("tg", "tg"), ("received", "received"), ("lost", "lost"),
                ("duplicates", "dup"), ("reordered", "reord")] + odd +
               [("bit_errors", "bit errors"), ("ber", "BER"),
                ("owd_mean", "owd mean ns"), ("owd_p50", "p50"),
                ("owd_p99", "p99"), ("owd_max", "max")])
        if not args.json:
            print(f"header-corrupt records: {corrupt}; ring drops: "
                  f"{data['ring_drops']}; not written: {data['not_written']}")
    return 0


def cmd_ber(args):
    with open_input(args) as rec:
        _, flows = _flows(rec, args)
        rows, data = [], dict(tgs=[])
        win = parse_duration(args.window, "--window") if args.window else None
        if win is not None and win <= 0:
            raise UsageError("--window must be positive")
        for f in flows:
            row = dict(run_id=f.run_id, tg=f.tg_id, bits=f.bits,
                       bit_errors=f.bit_errors, ber=f.ber, ber_sd=f.ber_sd)
            rows.append(row)
            item = dict(row)
            if win:
                t, b, e = fl.ber_windows(rec.records, f, win, rec.start_ns)
                item["windows"] = dict(
                    start_ns=t, bits=b, bit_errors=e,
                    ber=np.divide(e, b, out=np.zeros(len(b)), where=b > 0))
            data["tgs"].append(item)
        answer(args, data, rows, [("tg", "tg"), ("bits", "bits"),
                                  ("bit_errors", "bit errors"),
                                  ("ber", "BER"), ("ber_sd", "sd")])
        if win and not args.json:
            for item in data["tgs"]:
                w = item["windows"]
                wrows = [dict(t=w["start_ns"][i] / 1e9, bits=w["bits"][i],
                              e=w["bit_errors"][i], ber=w["ber"][i])
                         for i in range(len(w["bits"]))]
                print()
                answer(args, data, wrows, [("t", "from s"), ("bits", "bits"),
                                           ("e", "bit errors"),
                                           ("ber", "BER")],
                       title=f"TG {item['tg']} over windows of {args.window}")
    return 0


# --- g821 and windows ------------------------------------------------------------

def cmd_g821(args):
    with open_input(args) as rec:
        start, end = interval(args)
        flows = fl.flows(rec.records, selected(rec, _no_interval(args)))
        rows = []
        for f in flows:
            g = fl.g821(rec.records, f, rec.start_ns, start, end)
            rows.append(dict(run_id=g.run_id, tg=g.tg_id, start_s=g.start_s,
                             seconds=g.seconds, available=g.available,
                             unavailable=g.unavailable, es=g.es, ses=g.ses,
                             minutes=g.minutes, dm=g.dm, es_pct=g.es_pct,
                             ses_pct=g.ses_pct, dm_pct=g.dm_pct))
        answer(args, dict(edition=fl.G821_EDITION, tgs=rows), rows,
               [("tg", "tg"), ("start_s", "from s"), ("seconds", "seconds"),
                ("available", "available s"), ("es_pct", "ES %"),
                ("ses_pct", "SES %"), ("dm_pct", "DM %"), ("es", "ES"),
                ("ses", "SES"), ("dm", "DM"), ("minutes", "minutes")],
               title=f"G.821 ({fl.G821_EDITION})")
    return 0


def _no_interval(args):
    """The selection without --from/--to (which the command applies to
    scheduled times itself)."""
    return argparse.Namespace(**dict(vars(args), start=None, end=None))


def cmd_windows(args):
    with open_input(args) as rec:
        win = parse_duration(args.window, "--window")
        if win <= 0:
            raise UsageError("--window must be positive")
        start, end = interval(args)
        flows = fl.flows(rec.records, selected(rec, _no_interval(args)))
        with asked_by("--window", args.window):
            w = fl.windows(rec.records, flows, win, rec.start_ns, start, end)
        rows = [dict(t=w["start_ns"][i] / 1e9, packets=w["packets"][i],
                     bytes=w["bytes"][i], bps=w["bps"][i],
                     delay=w["delay_ns"][i], jitter=w["jitter_ns"][i],
                     lost=w["lost"][i]) for i in range(len(w["packets"]))]
        answer(args, dict(window_ns=win, tgs=[f.tg_id for f in flows],
                          windows=w), rows,
               [("t", "from s"), ("packets", "packets"), ("bytes", "bytes"),
                ("bps", "bit/s"), ("delay", "delay ns"),
                ("jitter", "jitter ns"), ("lost", "lost")])
    return 0


# --- the parser --------------------------------------------------------------------

CORE = {
    "info": (cmd_info, "what a recording holds: its header, clock, flows"),
    "copy": (cmd_copy, "copy a recording safely, checking it"),
    "filter": (cmd_filter, "the records a condition selects, to a new "
                           "recording or CSV"),
    "stats": (cmd_stats, "min, max, mean, variance, percentiles, PMF and "
                         "CDF of fields, delays and jitter"),
    "flows": (cmd_flows, "per TG: received, lost, duplicates, reordered, "
                         "bit errors, one-way delay"),
    "ber": (cmd_ber, "bit error rate per TG with its standard deviation, "
                     "and over windows"),
    "g821": (cmd_g821, "CCITT G.821: available time, ES, SES, degraded "
                       "minutes per TG"),
    "windows": (cmd_windows, "D-ITG's throughput, delay, jitter and loss "
                             "over windows"),
    "ctrl": (cmd_ctrl, "the control messages received, as recorded"),
    "kept": (cmd_kept, "the payloads and wrong bits' positions kept "
                       "(the IDF's keep)"),
}
# Commands in their own modules: each has configure(parser) and
# command(args).
MODULES = {
    "fit": ("mtgsap.fit", "goodness of fit of a TG's sending process; "
                          "Hurst parameter"),
    "plot": ("mtgsap.plot", "figures: delay over time, CDF, PMF, windows, "
                            "sending times"),
    "export": ("mtgsap.export", "CSV, JSON, Parquet, pcapng"),
}


def parser(command=None):
    """The parser; of the commands in their own modules only `command`'s
    is set up (importing the others, matplotlib and all, would only slow
    every command down)."""
    p = argparse.ArgumentParser(
        prog="mtgsap", description="Analysis of mtg recordings "
        "(Documentation/analysis.rst). " + NS_FIELDS_NOTE + ".")
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name, (_, help_) in CORE.items():
        c = sub.add_parser(name, help=help_, description=help_)
        c.add_argument("recording")
        if name == "copy":
            c.add_argument("dest")
            c.add_argument("--force", action="store_true",
                           help="overwrite DEST if it exists")
            c.add_argument("--partial", action="store_true",
                           help="copy the whole records of a recording the "
                                "recorder did not finish")
            add_json(c)
            continue
        if name == "info":
            add_json(c)
            continue
        if name in ("ctrl", "kept"):
            c.add_argument("--tg", metavar="ID[,ID...]",
                           help="only these TGs' (default: all)")
            add_json(c)
            continue
        add_selection(c)
        if name == "filter":
            c.add_argument("-o", "--output", required=True,
                           help="the new recording, or CSV (by the .csv "
                                "extension or --format)")
            c.add_argument("--format", choices=("rec", "csv"))
            c.add_argument("--force", action="store_true",
                           help="overwrite the output if it exists")
            add_json(c)
            continue
        add_json(c)
        if name == "stats":
            c.add_argument("fields", nargs="+", metavar="FIELD",
                           help="fields, delays or jitters (see "
                                "Documentation/analysis.rst)")
            c.add_argument("--percentiles", metavar="P[,P...]")
            c.add_argument("--basic", action="store_true",
                           help="count, min, max, mean, variance and sd "
                                "only, in one pass at about the speed of "
                                "reading the records")
            c.add_argument("--pmf", action="store_true",
                           help="the PMF (and CDF) of each field")
            c.add_argument("--cdf", action="store_true",
                           help="as --pmf, listing empty bins too")
            c.add_argument("--bins", type=int, metavar="N")
            c.add_argument("--bin-width", metavar="WIDTH")
        if name in ("ber", "windows"):
            c.add_argument("--window", metavar="DURATION",
                           required=name == "windows",
                           help="window length, e.g. 1s, 100ms")
    for name, (module, help_) in MODULES.items():
        c = sub.add_parser(name, help=help_, description=help_)
        c.set_defaults(module=module)
        if name == command:
            importlib.import_module(module).configure(c)
    return p


def main(argv=None):
    argv = sys.argv[1:] if argv is None else list(argv)
    command = next((a for a in argv if not a.startswith("-")), None)
    args = parser(command).parse_args(argv)
    try:
        if getattr(args, "module", None):
            return importlib.import_module(args.module).command(args)
        return CORE[args.command][0](args)
    except fl.AnalysisError as e:
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
