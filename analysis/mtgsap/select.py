# SPDX-License-Identifier: GPL-2.0-or-later
"""Which records to take: the TGs, the interval, and conditions on any
field combined with and, or, not and parentheses, e.g.

    tg_id == 2 and (owd > 5ms or wrong_bits > 0) and not csum_bad

A field alone means "is not 0". Durations take a unit (ns, us, ms, s,
min). A condition on a value a record does not have (the delay of a
record whose header failed its CRC, a test point never stamped) is
*unknown*: unknown selects nothing, and "not unknown" is unknown too
(Kleene's logic, as SQL's NULL)."""

import re

import numpy as np

from .fields import FieldError, column, parse_duration, since
from .recording import F_HDR_CORRUPT

TOKEN = re.compile(r"\s*(?:(?P<num>-?(?:0x[0-9a-fA-F]+|[0-9]+(?:\.[0-9]*)?"
                   r"(?:[eE][-+]?[0-9]+)?)(?:ns|us|ms|s|min)?)"
                   r"|(?P<op>==|!=|<=|>=|<|>|\(|\))"
                   r"|(?P<word>[A-Za-z_][A-Za-z0-9_]*))")
COMPARE = {"==": np.equal, "!=": np.not_equal, "<": np.less,
           "<=": np.less_equal, ">": np.greater, ">=": np.greater_equal}


class ExprError(ValueError):
    pass


FLIPPED = {"==": "==", "!=": "!=", "<": ">", "<=": ">=", ">": "<",
           ">=": "<="}


def compare(op, a, b):
    """a op b, exactly: numpy compares an array with a Python number
    exactly, but an unsigned with a signed array through float64; there
    the sign decides, then the values as unsigned."""
    kinds = (getattr(a, "dtype", None), getattr(b, "dtype", None))
    kinds = tuple(k.kind if k is not None else None for k in kinds)
    if kinds == ("i", "u"):
        return compare(FLIPPED[op], b, a)
    if kinds != ("u", "i"):
        return COMPARE[op](a, b)
    neg = b < 0
    same = COMPARE[op](a.astype(np.uint64), b.astype(np.uint64))
    # Below any unsigned value: a > b, a >= b and a != b hold.
    return np.where(neg, op in (">", ">=", "!="), same)


def _tokens(text):
    pos, out = 0, []
    while pos < len(text):
        if text[pos:].strip() == "":
            break
        m = TOKEN.match(text, pos)
        if not m or m.end() == pos:
            col = pos + len(text[pos:]) - len(text[pos:].lstrip()) + 1
            raise ExprError(f"filter, column {col}: cannot read "
                            f"'{text[col - 1:col + 9]}'")
        kind = m.lastgroup
        out.append((kind, m.group(kind), m.start(kind) + 1))
        pos = m.end()
    out.append(("end", "", len(text) + 1))
    return out


class _Parser:
    """Recursive descent; every node evaluates to (true, known) masks."""

    def __init__(self, text, records, start_ns):
        self.text = text
        self.toks = _tokens(text)
        self.i = 0
        self.records = records
        self.start_ns = start_ns
        self.n = len(records)

    def peek(self):
        return self.toks[self.i]

    def take(self):
        tok = self.toks[self.i]
        self.i += 1
        return tok

    def error(self, tok, what):
        return ExprError(f"filter, column {tok[2]}: {what}")

    def parse(self):
        node = self.disjunction()
        tok = self.peek()
        if tok[0] != "end":
            raise self.error(tok, f"unexpected '{tok[1]}'")
        return node

    def disjunction(self):
        t, k = self.conjunction()
        while self.peek()[1] == "or":
            self.take()
            t2, k2 = self.conjunction()
            t, k = (t & k) | (t2 & k2), (k & k2) | (k & t) | (k2 & t2)
        return t, k

    def conjunction(self):
        t, k = self.negation()
        while self.peek()[1] == "and":
            self.take()
            t2, k2 = self.negation()
            t, k = t & t2, (k & k2) | (k & ~t) | (k2 & ~t2)
        return t, k

    def negation(self):
        if self.peek()[1] == "not":
            self.take()
            t, k = self.negation()
            return ~t, k
        return self.comparison()

    def operand(self):
        tok = self.take()
        if tok[0] == "num":
            try:
                if re.search(r"(ns|us|ms|s|min)$", tok[1]):
                    return None, parse_duration(tok[1])
                return None, int(tok[1], 0) if re.fullmatch(
                    r"-?(0x[0-9a-fA-F]+|[0-9]+)", tok[1]) else float(tok[1])
            except (FieldError, ValueError) as e:
                raise self.error(tok, str(e)) from None
        if tok[0] == "word" and tok[1] not in ("and", "or", "not"):
            try:
                return tok, column(self.records, tok[1], self.start_ns)
            except FieldError as e:
                raise self.error(tok, str(e)) from None
        raise self.error(tok, f"expected a field or a number, found "
                              f"'{tok[1] or 'the end'}'")

    def comparison(self):
        tok = self.peek()
        if tok[1] == "(":
            self.take()
            node = self.disjunction()
            if self.take()[1] != ")":
                raise self.error(self.toks[self.i - 1], "expected ')'")
            return node
        left_tok, left = self.operand()
        op = self.peek()
        if op[1] not in COMPARE:
            if left_tok is None:
                raise self.error(tok, "a number alone is not a condition")
            return left.values != 0, left.valid.copy()
        self.take()
        right_tok, right = self.operand()
        known = np.ones(self.n, bool)
        vals = []
        for c in (left, right):
            if hasattr(c, "valid"):
                known &= c.valid
                vals.append(c.values)
            else:
                vals.append(c)
        if left_tok is None and right_tok is None:
            raise self.error(tok, "compare a field, not two numbers")
        return compare(op[1], vals[0], vals[1]), known


def condition(records, text, start_ns=0):
    """The records the expression selects (a bool mask)."""
    if not text.strip():
        raise ExprError("filter: empty expression")
    t, k = _Parser(text, records, start_ns).parse()
    return np.asarray(t & k, bool)


def selection(records, *, tgs=None, start=None, end=None, where=None,
              start_ns=0):
    """Mask of the records of the TGs `tgs` (None: all) whose arrival is in
    [start, end) ns after start_ns, and that the expression `where`
    selects."""
    keep = np.ones(len(records), bool)
    if tgs:
        keep &= np.isin(records["tg_id"], list(tgs)) & \
            ((records["flags"] & F_HDR_CORRUPT) == 0)
    t = since(records["rx_ns"], start_ns)
    if start is not None:
        keep &= t >= start
    if end is not None:
        keep &= t < end
    if where is not None:
        keep &= condition(records, where, start_ns)
    return keep
