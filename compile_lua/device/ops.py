"""Lua's arithmetic, comparisons, truth and ``and``/``or`` over translator values (:mod:`compile_lua.device.values`).

Static operands are computed in Python with Lua 5.4's rules (integer and float subtypes, floor
division and modulo, ``/`` and ``^`` always float). Traced operands use JAX at 32 bits: a Lua
integer is int32 (Lua's are 64-bit: a result past 2**31 wraps earlier), a float float32 (Lua's
are doubles). Integer ``//`` and ``%`` by zero, an error in Lua, give 0 on the device, which
cannot raise. Every traced number keeps the interval it lies in, so that strings made from it
can be counted (see :func:`compile_lua.device.values.finite_choices`).
"""
from __future__ import annotations

import math
from typing import Any, Callable

import jax.numpy as jnp

from luaparser import astnodes as n

from compile_lua.device.conversions import text_equal
from compile_lua.device.grid_values import PieceRecord
from compile_lua.device.maybe_tables import MaybeTable
from compile_lua.device.stored_functions import FnChoice
from compile_lua.device.values import (INF, PENDING, MaybeBool, MaybeNum, MaybeStr, Num, NumText, Str, as_num, bool_of,
                                       is_traced, lua_type, plain_num, present_of, select)

ARITH = ("+", "-", "*", "/", "//", "%", "^")


def maybe_of(v: Any, fail: Callable[[str], Any]) -> Any:
    """``v`` (a number, boolean or string, or nil) as the value-or-nil of its kind, present: what ``select``
    merges with a nil (a function that returns it on some paths and falls off its end on others)."""
    if v is None or isinstance(v, (MaybeNum, MaybeBool, MaybeStr)):
        return v
    kind = lua_type(v)
    if kind == "number":
        num = as_num(v)
        return MaybeNum(num.x, num.lo, num.hi, True)
    if kind == "boolean":
        return MaybeBool(jnp.asarray(v, jnp.bool_), True)
    if kind == "string" and not isinstance(v, NumText):
        return MaybeStr(v.gid, v.cands, True) if isinstance(v, Str) else v
    fail(f"a {kind} that may be nil")


def land(a: Any, b: Any) -> Any:
    """Logical and of two flags, each a Python bool or a traced boolean."""
    if a is False or b is False:
        return False
    if a is True:
        return b
    return a if b is True else jnp.logical_and(a, b)


def _static(op: str, a, b, fail):
    if op in ("//", "%") and isinstance(a, int) and isinstance(b, int) and b == 0:
        fail(f"integer {op} by zero")
    if op == "+":
        return a + b
    if op == "-":
        return a - b
    if op == "*":
        return a * b
    if op == "/":
        return float(a) / float(b) if b != 0 else (math.copysign(INF, a) * math.copysign(1, b) if a else math.nan)
    if op == "//":
        if isinstance(a, int) and isinstance(b, int):
            return a // b
        return float(math.floor(a / b)) if b != 0 else _static("/", a, b, fail)
    if op == "%":
        if isinstance(a, int) and isinstance(b, int):
            return a % b
        return math.fmod(a, b) + (b if math.fmod(a, b) * b < 0 else 0) if b != 0 else math.nan
    return float(a) ** float(b)


def _interval(op: str, a: Num, b: Num):
    """The interval of ``a op b`` (±inf where unknown)."""
    if op in ("+", "-", "*"):
        bs = (b.lo, b.hi) if op != "-" else (-b.hi, -b.lo)
        f = (lambda x, y: x * y) if op == "*" else (lambda x, y: x + y)
        vals = []
        for x in (a.lo, a.hi):
            for y in bs:
                r = f(x, y)
                vals.append(0.0 if r != r else r)
        return min(vals), max(vals)
    if op == "%" and b.lo == b.hi and b.lo > 0:
        return 0.0, (b.lo - 1 if a.is_int and b.is_int else b.lo)
    return -INF, INF


def arith(op: str, a: Any, b: Any, fail: Callable[[str], Any]) -> Any:
    """``a op b`` for op in :data:`ARITH` on numbers; ``fail(why)`` raises for other operands."""
    a, b = (0 if v is PENDING else v for v in (a, b))
    for v in (a, b):
        if lua_type(v) != "number":
            fail(f"arithmetic on a {lua_type(v)}")
    if not is_traced(a) and not is_traced(b):
        return _static(op, a, b, fail)
    a, b = as_num(a), as_num(b)
    both_int = a.is_int and b.is_int
    x, y = a.x, b.x
    if not both_int or op in ("/", "^"):
        x, y = x.astype(jnp.float32), y.astype(jnp.float32)
    if op == "+":
        r = x + y
    elif op == "-":
        r = x - y
    elif op == "*":
        r = x * y
    elif op == "/":
        r = x / y
    elif op == "//":
        r = jnp.floor_divide(x, y) if not both_int else \
            jnp.where(y == 0, 0, jnp.floor_divide(x, jnp.where(y == 0, 1, y)))
    elif op == "%":
        r = jnp.mod(x, y) if not both_int else jnp.where(y == 0, 0, jnp.mod(x, jnp.where(y == 0, 1, y)))
    else:
        r = jnp.power(x, y)
    lo, hi = _interval(op, a, b)
    return Num(r, lo, hi)


def negate(a: Any, fail) -> Any:
    """Lua's unary minus."""
    if lua_type(a) != "number":
        fail(f"arithmetic on a {lua_type(a)}")
    if not is_traced(a):
        return -a
    return Num(-a.x, -a.hi, -a.lo)


def equal(a: Any, b: Any, intern: Callable[[str], int]) -> Any:
    """Lua ``a == b`` (raw: tables compare by identity, so two table values are never proved equal)."""
    a, b = (None if v is PENDING else v for v in (a, b))
    if isinstance(a, PieceRecord) or isinstance(b, PieceRecord):
        return _equal_records(a, b)
    if isinstance(a, (MaybeTable, FnChoice)) or isinstance(b, (MaybeTable, FnChoice)):   # raw: only nil is known
        other = b if isinstance(a, (MaybeTable, FnChoice)) else a
        mine = a if other is b else b
        return jnp.logical_not(mine.present) if other is None else a is b
    for maybe, kind in ((MaybeNum, "number"), (MaybeBool, "boolean"), (MaybeStr, "string")):
        if isinstance(a, maybe) or isinstance(b, maybe):
            return _equal_maybe(a, b, intern, kind)
    ta, tb = lua_type(a), lua_type(b)
    if ta != tb:
        return False
    if not is_traced(a) and not is_traced(b):
        return a == b
    if ta == "number":
        return as_num(a).x.astype(jnp.float32) == as_num(b).x.astype(jnp.float32) \
            if as_num(a).is_int != as_num(b).is_int else as_num(a).x == as_num(b).x
    if ta == "string" and (isinstance(a, NumText) or isinstance(b, NumText)):
        return text_equal(a, b, intern)
    if ta == "string":
        ca, cb = (v.cands if isinstance(v, Str) else frozenset([v]) for v in (a, b))
        if not ca & cb:   # no text both may hold (``type(v) == 'table'`` of a number that may be nil)
            return False
        ga = a.gid if not isinstance(a, str) else intern(a)
        gb = b.gid if not isinstance(b, str) else intern(b)
        return jnp.asarray(ga) == jnp.asarray(gb)
    if ta == "boolean":
        return jnp.asarray(a) == jnp.asarray(b)
    if ta == "userdata":   # Lab2D tensors: kind, shape and elements
        return a.t.equal(b.t)
    return a is b


def _equal_records(a: Any, b: Any) -> Any:
    """``a == b`` where one side is a piece's user state (or a record in it): nil where the piece has none;
    one table where both are the same piece's same record."""
    if a is None or b is None:
        return jnp.logical_not((b if a is None else a).present)
    if isinstance(a, PieceRecord) and isinstance(b, PieceRecord) and (a.slot, a.path) == (b.slot, b.path):
        return (a.piece == b.piece) & a.present & b.present
    return False


#: the value of a number, boolean or string that may be nil, as if it were there
_HELD = {"number": plain_num, "boolean": bool_of, "string": lambda v: Str(v.gid, v.cands) if isinstance(v, Str) else v}


def _equal_maybe(a: Any, b: Any, intern: Callable[[str], int], kind: str) -> Any:
    """``a == b`` where one side is a value of Lua type ``kind`` that may be nil (:class:`MaybeNum`,
    :class:`MaybeBool`, :class:`MaybeStr`): nil equals only nil."""
    if lua_type(a) not in (kind, "nil") or lua_type(b) not in (kind, "nil"):
        return False
    pa, pb = jnp.asarray(present_of(a)), jnp.asarray(present_of(b))
    if a is None or b is None:
        return jnp.logical_not(pb if a is None else pa)
    same = jnp.asarray(equal(_HELD[kind](a), _HELD[kind](b), intern))
    return (pa & pb & same) | (~pa & ~pb)


def less(op: str, a: Any, b: Any, fail) -> Any:
    """Lua ``a < b`` (op ``<``) or ``a <= b`` (op ``<=``) on numbers, or on static strings."""
    ta, tb = lua_type(a), lua_type(b)
    if ta == tb == "string" and not is_traced(a) and not is_traced(b):
        return a < b if op == "<" else a <= b
    if ta != "number" or tb != "number":
        note = " (only strings known at translation time can be ordered)" if ta == tb == "string" else ""
        fail(f"comparing a {ta} with a {tb}{note}")
    if not is_traced(a) and not is_traced(b):
        return a < b if op == "<" else a <= b
    a, b = as_num(a), as_num(b)
    if all(math.isfinite(v) for v in (a.lo, a.hi, b.lo, b.hi)):   # decided by what the numbers may be
        if a.hi < b.lo or (op == "<=" and a.hi <= b.lo):
            return True
        if a.lo > b.hi or (op == "<" and a.lo >= b.hi):
            return False
    x, y = (a.x, b.x) if a.is_int == b.is_int else (a.x.astype(jnp.float32), b.x.astype(jnp.float32))
    return x < y if op == "<" else x <= y


def truthy(v: Any) -> Any:
    """Lua truth: nil and false are false, everything else (0 and "" too) true; a traced boolean
    stays traced."""
    if v is None or v is False or v is PENDING:
        return False
    if isinstance(v, (MaybeNum, MaybeStr)):
        return v.present
    if isinstance(v, MaybeBool):
        return jnp.logical_and(v.present, v.x)
    if isinstance(v, (PieceRecord, MaybeTable, FnChoice)):   # a piece's user state, a table or function or nil
        return v.present
    if hasattr(v, "dtype") and not isinstance(v, (Num, Str)) and v.dtype == jnp.bool_:
        return v
    return True


def static_bool(v: Any):
    """``v`` as a Python bool when known at translation time, else None."""
    return v if isinstance(v, bool) else None


def logical(it: Any, e: Any) -> Any:
    """``a and b`` / ``a or b`` with Lua's values and short circuit (b runs only where needed).
    Lua's conditional ``c and x or y`` on a traced ``c``, where ``x`` is a number, string or table
    (never false or nil), is ``x`` where ``c`` holds and ``y`` elsewhere, so ``x`` and ``y`` may differ
    in kind from ``c``."""
    if isinstance(e, n.OrLoOp) and isinstance(e.left, n.AndLoOp):
        start = it.snapshot()
        c = truthy(it.expression(e.left.left))
        if not isinstance(c, bool):
            out = {}
            it.branch(c, lambda: out.update(a=it.expression(e.left.right)),
                      lambda: out.update(b=it.expression(e.right)))
            if lua_type(out["a"]) in ("number", "string", "table"):
                return select(c, out["a"], out["b"], it.env.intern, it.failer("'c and x or y' over two kinds of value"))
        it.restore(start)   # as written: 'and', then 'or'
    a = it.expression(e.left)
    c = truthy(a)
    is_and = isinstance(e, n.AndLoOp)
    if isinstance(c, bool):
        return it.expression(e.right) if c == is_and else a
    out = {}

    def right():
        out["b"] = it.expression(e.right)
    kind = it.failer(f"'{'and' if is_and else 'or'}' over two kinds of value")
    if is_and:
        it.branch(c, right, lambda: None)
        if isinstance(a, (MaybeNum, MaybeStr)) and lua_type(out["b"]) == "boolean":
            return jnp.logical_and(c, out["b"])   # 'x and test' of an x that may be nil: false where x is nil
        if lua_type(a) == "boolean" and lua_type(out["b"]) != "boolean":
            # 'flag and x' (x a value that may be nil): false, or x; read for its truth, as tests read it
            return jnp.logical_and(c, truthy(out["b"]))
        return select(c, out["b"], a, it.env.intern, kind)
    it.branch(c, lambda: None, right)
    return select(c, a, out["b"], it.env.intern, kind)


def narrow(it: Any, test: Any) -> None:
    """In the arm of ``if x then`` where ``x`` (a local's name, luaparser node ``test``) holds, ``x`` is not nil: a
    string or number that may be nil (MaybeStr, MaybeNum) is, there, the string or number it holds."""
    if not isinstance(test, n.Name):
        return
    for scope in reversed(it.scopes):
        if test.id in scope:
            v = scope[test.id]
            if isinstance(v, MaybeStr) and type(scope) is dict:
                scope[test.id] = Str(v.gid, v.cands)
            elif isinstance(v, MaybeNum) and type(scope) is dict:
                scope[test.id] = Num(v.x, v.lo, v.hi)
            elif isinstance(v, MaybeTable) and type(scope) is dict:
                scope[test.id] = v.value
            return
