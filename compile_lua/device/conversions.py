"""Lua's ``tostring``, ``tonumber`` and ``assert`` at play time, and ``==`` on a number's text (:class:`NumText`).

- ``tostring(v)``: a value known at translation time becomes its text (Lua 5.4's, see
  :func:`compile_lua.device.values.tostring`); a traced boolean, a traced string, or a traced
  integer in a finite range (at most ``MAX_STRINGS`` values) a :class:`Str` over its texts; any
  other traced number a :class:`NumText`, whose text the host writes from the number the device
  computes (what a Lab2D ``readProperty`` returns). A table's or a function's text is an address,
  so those are refused.
- ``tonumber(v)``: a string known at translation time is read by Lua's rules
  (:func:`jaxlab.settings.lua_tonumber`: nil when it is no numeral); a number is itself; a NumText
  its number; a traced string whose every value is a numeral the number it reads (a table lookup);
  nil, booleans and tables nil. A base (``tonumber(s, 16)``) is refused.

- ``assert(v, ...)``: its arguments (:func:`assert_call`); ``error(...)``: :func:`lua_error`.
- ``a .. b``: :func:`concat`, over strings and numbers from finite sets.

Each is a Python function ``fn(interpreter, args, node) -> [result]``, which the translator calls
where the script calls the global of that name (:data:`LUA_FUNCTIONS`).
"""
from __future__ import annotations

import re
from typing import Any, List

import jax.numpy as jnp
import numpy as np

from compile_lua.device.grid_values import GridRef, GridStore, grid_text
from compile_lua.device.values import (MaybeBool, Num, NumText, Str, bool_of, choice_index, combine_strings,
                                       finite_choices, is_traced, lua_type, tostring)
from jaxlab.kernels.lab2d_grid.state import ASSERT_FAILED
from jaxlab.settings import lua_tonumber

_INT32 = (-2**31, 2**31 - 1)


def tostring_call(it: Any, args: List[Any], node: Any) -> List[Any]:
    """``tostring(v)``: [its text] (a str, Str or NumText; see the module)."""
    if not args:
        it.fail("tostring without a value", "Lua's tostring needs one (bad argument #1)", node)
    v = args[0]
    if isinstance(v, GridRef):   # Lab2D's text of the grid
        return [grid_text(it, v)]
    if lua_type(v) in ("table", "function", "userdata"):
        it.fail(f"tostring of a {lua_type(v)}", "its text is an address that only the Lua interpreter knows", node)
    if not is_traced(v):
        return [tostring(v)]
    if isinstance(v, (Str, NumText)):
        return [v]
    if isinstance(v, Num) and finite_choices(v) is None:
        return [NumText(v)]
    return [combine_strings([v], lambda vs: tostring(vs[0]), it.env.intern, lambda part: None)]


def tonumber_call(it: Any, args: List[Any], node: Any) -> List[Any]:
    """``tonumber(v)``: [the number ``v`` reads as, or None] (see the module)."""
    if not args:
        it.fail("tonumber without a value", "Lua's tonumber needs one (bad argument #1)", node)
    if len(args) > 1 and args[1] is not None:
        it.fail("tonumber with a base", "only tonumber(v) of a decimal or hexadecimal numeral translates", node)
    v = args[0]
    if isinstance(v, NumText):
        return [v.num]
    if lua_type(v) == "number":
        return [v]
    if lua_type(v) != "string":
        return [None]
    if not is_traced(v):
        return [lua_tonumber(v)]
    texts = sorted(v.cands)
    numbers = [lua_tonumber(text) for text in texts]
    floats = any(isinstance(x, float) for x in numbers)
    bad = [t for t, x in zip(texts, numbers) if x is None or not (floats or _INT32[0] <= x <= _INT32[1])]
    if bad:
        it.fail("tonumber of a string known only at play time", f"each of its values must be a numeral that fits "
                f"the device's numbers, and {bad[0]!r} may be one of them", node)
    table = jnp.asarray(numbers, jnp.float32 if floats else jnp.int32)
    return [Num(table[choice_index(v, texts, it.env.intern)], float(min(numbers)), float(max(numbers)))]


def assert_call(it: Any, args: List[Any], node: Any) -> List[Any]:
    """Lua's ``assert(v, ...)``: its arguments back. A value whose truth is known only at play time sets the
    grids' ``ASSERT_FAILED`` error bit where it fails (a kernel cannot stop with an error), or a level's
    ``SCRIPT_ERROR`` flag when it has no grids (:func:`error_where`); one known true (a number, a string, a table) passes;
    one known false is left to the call's other traces (a callback is also traced on example arguments,
    ``customObservation('')``, where a script's check of its arguments fails)."""
    if not args:
        it.fail("assert without a value", "Lua's assert takes the value to check", node)
    value = args[0]
    if lua_type(value) == "boolean" and not isinstance(value, bool):
        held = bool_of(value) & (value.present if isinstance(value, MaybeBool) else True)   # nil fails too
        error_where(it, ~held)
    return list(args)


#: the state variable (bool) a level without grids keeps its play-time errors in (:func:`error_where`)
SCRIPT_ERROR = "error.script"


def error_where(it: Any, failed: Any) -> None:
    """Where traced ``failed`` holds on the running path, Lua stops with an error (a failed assert, a table
    written at a nil key). A kernel cannot stop with an error: in a level with grids, every grid's error gets
    ``ASSERT_FAILED`` (read with the grids' other error bits); in one without, the play state's
    :data:`SCRIPT_ERROR` flag is set (it stays set; the callbacks go on as Lua would after a caught error)."""
    failed = jnp.asarray(it.live(), jnp.bool_) & failed
    grids = [k for k, v in it.env.state.items() if isinstance(v, GridStore)]
    for k in grids:
        g = it.env.state[k].g
        it.env.state[k] = GridStore(g.replace(error=g.error | jnp.where(failed, ASSERT_FAILED, 0)))
    if grids:
        return
    if SCRIPT_ERROR not in it.env.tr.layout:
        it.env.tr.define(SCRIPT_ERROR, ("bool",), False)
    it.env.state[SCRIPT_ERROR] = jnp.asarray(it.env.state.get(SCRIPT_ERROR, False), jnp.bool_) | failed


def lua_error(it: Any) -> list:
    """Lua's ``error(...)`` on the running path: the error flag is set there (:func:`error_where`), where Lua
    stops the callback. A kernel cannot stop: the path goes on, and what it computes after the error is not
    Lua's (the flag stays set; ``Lab.step`` raises). No values."""
    error_where(it, jnp.bool_(True))
    return []


def type_call(it: Any, args: List[Any], node: Any) -> List[Any]:
    """``type(v)``: the name of ``v``'s Lua type, known when translating ('nil' where a value that may be nil is
    nil: one of the two names, chosen on the device)."""
    v = args[0] if args else None
    name, present = lua_type(v), getattr(v, "present", True)
    if present is True or name == "nil":
        return [name]
    gid = jnp.where(present, it.env.intern(name), it.env.intern("nil")).astype(jnp.int32)
    return [Str(gid, frozenset([name, "nil"]))]


def collectgarbage_call(it: Any, args: List[Any], node: Any) -> List[Any]:
    """``collectgarbage(...)``: nothing to collect in a kernel; Lua's count of kilobytes in use reads 0."""
    return [0]


#: the Lua globals this module translates, by name
LUA_FUNCTIONS = {"tostring": tostring_call, "tonumber": tonumber_call, "assert": assert_call, "type": type_call,
                 "collectgarbage": collectgarbage_call}


def text_equal(a: Any, b: Any, intern) -> Any:
    """Lua ``a == b`` where one side is a :class:`NumText` and the other a string (a str, Str or NumText):
    whether the number's text is the other string. A Python bool or a traced boolean."""
    if not isinstance(a, NumText):
        a, b = b, a
    if isinstance(b, NumText):
        return a.num.x == b.num.x if a.num.is_int == b.num.is_int else False
    if isinstance(b, Str):
        found = jnp.bool_(False)
        for text in b.cands:
            same = _shows(a.num, text)
            if same is not False:
                found = jnp.logical_or(found, jnp.logical_and(b.gid == intern(text), same))
        return found
    return _shows(a.num, b)


def _shows(num: Num, text: str) -> Any:
    """Whether ``tostring(num) == text``: the one number of ``num``'s subtype whose text ``text`` is."""
    if num.is_int:
        if not re.fullmatch(r"-?[0-9]+", text) or str(int(text)) != text or not _INT32[0] <= int(text) <= _INT32[1]:
            return False
        return num.x == int(text)
    try:
        value = np.float32(float(text))
    except ValueError:
        return False
    if tostring(float(value)) != text:
        return False
    return num.x == value


def concat(it: Any, a: Any, b: Any) -> Any:
    """``a .. b`` over strings and numbers whose values come from finite sets."""
    for v in (a, b):
        if lua_type(v) not in ("string", "number"):
            it.fail(f"'..' with a {lua_type(v)}", "only strings and numbers concatenate")
    return combine_strings([a, b], lambda vs: tostring(vs[0]) + tostring(vs[1]), it.env.intern,
                           unbounded_text(it, "'..'"))


def unbounded_text(it: Any, what: str):
    """A ``fail(part)`` for text ``what`` makes of a part with no finite set of values."""
    def fail(part):
        it.fail(f"{what} over a value with no finite set", "strings are ids into a table built ahead of time, "
                "so each part must be a string from a finite set or an integer in a known range of at most "
                "4096 values (clamp it with math.min/math.max)")
    return fail
