"""What translated Lua may call and index: ``math.*``, ``string.format``, tables, and the engine.

Engine calls (``game``: ``require 'dmlab.system.game'``; ``random``: ``require
'dmlab.system.random'`` or ``require 'common.random'``) become effects and inputs of the
callback (see :mod:`compile_lua.device`): ``game:addScore(n)`` / ``game:addScore(player, n)``
adds to ``effects["score"]``, ``game:finishMap()`` sets ``effects["finish"]``,
``game:episodeTimeSeconds()`` reads ``inputs["episode_time"]``; ``game:playerInfo()``, ``game:inFov`` and
``game:raycast`` read the player and the walls (``compile_lua.device.engine_reads``).
``random:*`` and ``math.random([m [, n]])`` draw from the state's key (``compile_lua.device.draws``).
Lab2D's ``system.tensor`` makes tensors (``compile_lua.device.tensors``). DMLab's
``tensor.DoubleTensor{...}``, ``tensor.Tensor{...}`` and
``tensor.ByteTensor{...}`` (``require 'dmlab.system.tensor'``) over a list of numbers make a 1-D
fixed table (float32; ByteTensor: int32 clamped to 0..255), what ``customObservation`` returns.
"""
from __future__ import annotations

import math
import re
from typing import Any, List

import jax.numpy as jnp
from luaparser import astnodes as n

from compile_lua.device import (draws, engine_reads, fixed_tables, grid_methods, grids, host_values, keyed,
                                object_variants, ops, sparse_lists, tensors, user_state)
from compile_lua.device.fixed_tables import ChosenRecord, set_item  # noqa: F401 (set_item: the interpreter's)
from compile_lua.device.global_names import global_value, module  # noqa: F401 (the interpreter's)
from compile_lua.device.host_objects import object_at, object_of
from compile_lua.device.object_variants import VariantObject
from compile_lua.device.host_values import Closure, HostFunction, HostTable
from compile_lua.device.library import Builtin, EngineFunction, Module
from compile_lua.device.maybe_tables import MaybeTable, held_table, table_of
from compile_lua.device.number_bounds import constant_key
from compile_lua.device.sparse_lists import SparseList
from compile_lua.device.conversions import concat, unbounded_text  # noqa: F401 (concat: the interpreter's)
from compile_lua.device.source import KeyCases
from compile_lua.device.grid_values import PieceRecord, PieceSet
from compile_lua.device.values import (API, PENDING, Arr, HeldRecord, Keyed, Num, TensorVal, as_num, combine_strings,
                                       held, is_traced, lua_type, select, tostring)

_MATH_CONSTANTS = {"pi": math.pi, "huge": math.inf, "maxinteger": 2**31 - 1, "mininteger": -2**31}
_MATH_UNARY = {"sqrt": jnp.sqrt, "sin": jnp.sin, "cos": jnp.cos, "tan": jnp.tan, "exp": jnp.exp,
               "asin": jnp.arcsin, "acos": jnp.arccos}
_MATH = set(_MATH_UNARY) | {"floor", "ceil", "abs", "min", "max", "log", "fmod", "modf", "random", "atan",
                            "tointeger"}
_TENSORS = ("DoubleTensor", "Tensor", "ByteTensor")
_FORMAT = re.compile(r"%([-+ #0]*\d*(?:\.\d+)?)([dis%fgx])")
def index(it: Any, table: Any, key: Any, node: Any) -> Any:
    """``table[key]`` / ``table.key``."""
    key = it.cases.get(id(node), key)   # the number this case of a read at a traced key reads (``KeyCases``)
    if table is API:
        count = object_variants.variants(it.env.tr, f"api.{key}")
        if count > 1:   # another object, or data of another shape, in some episodes
            return VariantObject(f"api.{key}", count)
        if f"api.{key}" in it.env.state:
            return held_table(it.env.state[f"api.{key}"], f"api.{key}")
        if key in it.o.methods and it.env.tr.host is None:
            return it.o.methods[key]
        if f"api.{key}" in it.env.tr.layout or f"api.{key}" in it.env.tr.nilable:
            return held(it.env.fresh(f"api.{key}"), f"api.{key}")
        found = object_at(it.env.tr, f"api.{key}")
        if found is not None:
            return found
        graph = it.env.tr.host
        if graph is not None:
            ref = graph.field(graph.root, key)
            if ref is None:   # nil on the host, and no callback has written it (yet)
                return PENDING if it.env.tr.discovering else None
            if (graph.node(ref) or ("",))[0] == "tensor":
                return tensors.host_tensor(it, graph, ref)
            return host_values.host_value(graph, ref, it.fail)
        it.fail(f"the api field '{key}'", "it is not set to a number, boolean, string or fixed table "
                "when the script has loaded", node)
    if table == Builtin("io"):
        if key != "flush":
            it.fail("'io'", "a kernel cannot reach files (io.flush alone is skipped)", node)
        return Builtin("io.flush")
    if table == Builtin("table"):
        if key not in ("insert", "unpack", "sort"):
            it.fail(f"table.{key}", "of Lua's table library, table.insert (at a list's end), table.sort and "
                    "table.unpack translate", node)
        return Builtin(f"table.{key}")
    if isinstance(table, Builtin) and table.name in ("math", "string"):
        if table.name == "math" and key in _MATH_CONSTANTS:
            return _MATH_CONSTANTS[key]
        if (table.name == "math" and key in _MATH) or (table.name == "string" and key == "format"):
            return Builtin(f"{table.name}.{key}")
        it.fail(f"{table.name}.{key}", "only math's functions and string.format translate; string methods "
                "work over unbounded strings", node)
    if isinstance(table, Module) and table.kind == "tensor":
        if key in _TENSORS:
            return Builtin(f"tensor.{key}")
        it.fail(f"tensor.{key}", f"only {', '.join(_TENSORS)} over a list of numbers translate", node)
    if isinstance(table, Module) and table.kind == "lab2d_tensor":
        if key in tensors.CLASSES:
            return Builtin(f"lab2d_tensor.{key}")
        it.fail(f"tensor.{key}", f"the tensor classes that compile are {', '.join(tensors.CLASSES)}", node)
    if isinstance(table, MaybeTable):   # a table that may be nil: its fields (Lua stops on nil; the device reads on)
        return index(it, table.value, key, node)
    if isinstance(table, dict) and constant_key(key) is not None:   # a number or nil whose number is known
        found = index(it, table, constant_key(key), node)
        return found if key.present is True else select(key.present, found, None, it.env.intern,
                                                        it.failer("reading a table at a key that may be nil"))
    if isinstance(table, dict) and is_traced(key) and lua_type(key) == "number" and id(node) not in it.cases:
        numbers = sorted(k for k in table if isinstance(k, int) and not isinstance(k, bool))
        if numbers:
            raise KeyCases(node, key, numbers)
    if isinstance(table, dict) and is_traced(key):
        it.fail("indexing a record with a key known only at play time", "a record's fields are names and numbers "
                "known when translating (a list built at play is walked by position: for i = #t, 1, -1)", node)
    if isinstance(table, HeldRecord) and key not in table and object_of(it.env.tr, table) is not None:
        return host_values.field(object_of(it.env.tr, table), key, it.fail)   # an object's field that is not data
    if isinstance(table, VariantObject):
        return object_variants.field(it, table, key, node)
    if isinstance(table, ChosenRecord) and key in table.partial:
        it.fail(f"reading the field {key!r} of a table read at a key known only at play time", "it holds a table in "
                "some of the list's items and nothing in others", node)
    if isinstance(table, HeldRecord):   # a record inside play-time state: its records are held there too
        return held_table(table.get(key), table.origin[0], table.origin[1] + (key,))
    if isinstance(table, dict):
        return table.get(key)
    if table is PENDING:
        return PENDING
    if isinstance(table, PieceSet):   # a query's result, keyed by piece: its position, or nil
        return grid_methods.found(it, table, key)
    if isinstance(table, PieceRecord):   # a piece's user state
        return user_state.field(it, table, key, node)
    if isinstance(table, HostTable):
        if is_traced(key):
            return host_values.host_lookup(it, table, key, node)
        written = host_values.state_key(table, key)   # a field play has written: state
        if written in it.env.state:
            return held_table(it.env.state[written], written)
        if written in it.env.tr.layout:
            return held_table(it.env.fresh(written), written)
        ref = table.graph.field(table.ref, key)
        if (table.graph.node(ref) or ("",))[0] == "tensor":
            return tensors.host_tensor(it, table.graph, ref)
        return host_values.field(table, key, it.fail)
    if isinstance(table, Keyed):
        return keyed.element(table, key)
    if isinstance(table, SparseList):
        return sparse_lists.element(table, key, it.env.intern, it.failer(f"reading {lua_type(table)} at a position"))
    if isinstance(table, (Arr, list)):
        return fixed_tables.element(it, table, key, node)
    it.fail(f"indexing a {lua_type(table)}", "only tables, api fields and math can be indexed", node)


def table(it: Any, node: n.Table) -> Any:
    """A table constructor: a list of numbers or booleans becomes a fixed table (Arr), other lists and
    records stay fixed Python structures."""
    items, record = [], {}
    for f in node.fields:
        value = it.expression(f.value)
        if f.key is None:
            items.append(value)
        elif isinstance(f.key, n.Name) and not f.between_brackets:
            record[f.key.id] = value
        elif isinstance(f.key, n.String):   # ['*'] = v: a name written as a string
            record[f.key.s.decode("utf-8", "replace")] = value
        else:
            it.fail("a table constructor with computed keys ([k] = v)", "a fixed table has keys 1..n or names", node)
    if items and record:   # {1, 2, name = v}: the items at keys 1..n beside the names
        return {**{i: v for i, v in enumerate(items, start=1)}, **record}
    if record or not items:
        return record
    kinds = {lua_type(v) for v in items}
    if kinds == {"number"}:
        nums = [as_num(v) for v in items]
        dtype = jnp.int32 if all(x.is_int for x in nums) else jnp.float32
        static = tuple(items) if not any(is_traced(v) for v in items) else None
        return Arr(jnp.stack([x.x.astype(dtype) for x in nums]), static=static)
    if kinds == {"boolean"}:
        return Arr(jnp.stack([jnp.asarray(v) for v in items]))
    return items


def method(it: Any, name: str, node: Any) -> Any:
    """The api method ``name`` (defined in the script, or a function in the host's api table)."""
    if name in it.o.methods and it.env.tr.host is None:
        return it.o.methods[name]
    found = index(it, API, name, node) if it.env.tr.host or object_at(it.env.tr, f"api.{name}") else None
    if not isinstance(found, (HostFunction, Closure)):
        it.fail(f"the method api:{name}", "the script does not define it", node)
    return found


def method_of(it: Any, target: Any, name: str, node: Any) -> Any:
    """The Lua function ``target:name(...)`` calls when ``target`` is a host table (a class instance finds its
    methods through its metatable) or a table a callback made holding functions; None for the engine's
    objects (grids, worlds, views, tile sets, scenes, random, tensors)."""
    if isinstance(target, HeldRecord) and name not in target and object_of(it.env.tr, target) is not None:
        target = object_of(it.env.tr, target)   # an object's data: its methods are the host's
    if isinstance(target, HostTable) and target.kind is None:
        return host_values.field(target, name, it.fail)
    if isinstance(target, dict) and isinstance(target.get(name), (Closure, HostFunction)):
        return target[name]
    return None


def length(it: Any, v: Any, node: Any) -> Any:
    """``#v``: fixed tables, strings known at translation time, host tables."""
    v = table_of(v)   # a table that may be nil: its table (Lua stops on nil)
    if isinstance(v, HostTable):
        return host_values.length(v)
    if isinstance(v, VariantObject):
        return object_variants.length(it, v, node)
    if isinstance(v, SparseList):
        return sparse_lists.length(v)
    return fixed_tables.length(it, v, node)


def invoke(it: Any, target: Any, name: str, args: List[Any], node: Any) -> List[Any]:
    """``target:name(args)`` for the engine modules."""
    if isinstance(target, Module) and target.kind == "game":
        return engine_reads.game(it, name, args, node)
    if isinstance(target, Module) and target.kind == "random":
        return draws.invoke(it, name, args, node)
    if isinstance(target, Module) and target.kind == "events":
        return []   # events raised during play reach no kernel (the compile warns, ``interp.SKIPPED``)
    if isinstance(target, TensorVal):
        return tensors.invoke(it, target, name, args, node)
    if isinstance(target, VariantObject):
        return object_variants.invoke(it, target, name, args, node)
    if target is PENDING:
        return []
    if grid_methods.handles(target):
        return grid_methods.invoke(it, target, name, args, node)
    if lua_type(target) == "string":
        it.fail(f"the string method :{name}", "string methods work over unbounded strings", node)
    it.fail(f"the method call :{name} on a {lua_type(target)}", "only api, game, random and tensor methods "
            "translate", node)


def call(it: Any, func: Any, args: List[Any], node: Any) -> List[Any]:
    """``func(args)`` for ``math.*``, ``string.format``, the tensor constructors and ``t(i, ...)``; a Python
    function is called as ``func(it, args, node)``."""
    if isinstance(func, TensorVal):
        return [tensors.call(it, func, args, node)]
    if func is PENDING:
        return []
    if func == EngineFunction("pushbox.generate"):
        return grids.generate_pushbox(it, args, node)
    if callable(func):
        return func(it, args, node)
    if func == Builtin("io.flush"):
        return []
    if not isinstance(func, Builtin) or "." not in func.name:
        it.fail(f"calling a {lua_type(func)}", "only the script's own functions, math.* and string.format can "
                "be called", node)
    name = func.name.split(".", 1)[1]
    if func.name == "table.unpack":
        return _unpack(it, args, node)
    if func.name.startswith("tensor."):
        return [_tensor(it, name, args, node)]
    if func.name.startswith("lab2d_tensor."):
        return [tensors.construct(it, name, args, node)]
    if func.name == "string.format":
        return [_format(it, args, node)]
    if name == "random":
        bounds = [1, args[0]] if len(args) == 1 else args
        return [draws.draw(it, bounds, True, node) if bounds else draws.uniform(it)]
    if any(lua_type(a) != "number" for a in args) or not args:
        it.fail(f"math.{name} without numbers", "math functions take numbers", node)
    static = not any(is_traced(a) for a in args)
    if name in ("min", "max"):
        if static:
            return [(min if name == "min" else max)(args)]
        best = args[0]
        for a in args[1:]:
            first = ops.less("<", a, best, it.failer(f"math.{name}")) if name == "min" else \
                ops.less("<", best, a, it.failer(f"math.{name}"))
            x, y = as_num(a), as_num(best)
            dtype = jnp.int32 if x.is_int and y.is_int else jnp.float32
            lo = (min if name == "min" else max)(x.lo, y.lo)
            hi = (min if name == "min" else max)(x.hi, y.hi)
            best = Num(jnp.where(first, x.x.astype(dtype), y.x.astype(dtype)), lo, hi)
        return [best]
    if name == "modf":
        return _modf(args[0])
    if static:
        return [_static_math(it, name, args)]
    x = as_num(args[0])
    if name in ("floor", "ceil"):
        if x.is_int:
            return [x]
        f = jnp.floor if name == "floor" else jnp.ceil
        g = math.floor if name == "floor" else math.ceil
        return [Num(f(x.x).astype(jnp.int32), g(x.lo) if math.isfinite(x.lo) else x.lo,
                    g(x.hi) if math.isfinite(x.hi) else x.hi)]
    if name == "abs":
        return [Num(jnp.abs(x.x), 0.0 if x.lo < 0 < x.hi else min(abs(x.lo), abs(x.hi)), max(abs(x.lo), abs(x.hi)))]
    if name == "fmod":
        y = as_num(args[1])
        return [Num(jnp.fmod(x.x, y.x) if x.is_int and y.is_int else jnp.fmod(x.x.astype(jnp.float32), y.x))]
    if name == "log" and len(args) > 1:
        return [Num(jnp.log(x.x.astype(jnp.float32)) / jnp.log(as_num(args[1]).x.astype(jnp.float32)))]
    if name in ("tointeger", "atan"):
        it.fail(f"math.{name} on a traced number", "it has no fixed-type form on the device", node)
    fn = jnp.log if name == "log" else _MATH_UNARY[name]
    return [Num(fn(x.x.astype(jnp.float32)))]


def _unpack(it: Any, args: List[Any], node: Any) -> List[Any]:
    """``table.unpack(t)``: the items of a list whose length is known now."""
    t = table_of(args[0]) if args else None
    if isinstance(t, HostTable):
        return [index(it, t, i, node) for i in range(1, host_values.length(t) + 1)]
    if isinstance(t, Arr):
        return [index(it, t, i, node) for i in range(1, int(t.x.shape[0]) + 1)]
    if isinstance(t, list):
        return list(t)
    it.fail(f"table.unpack of a {lua_type(t)}", "it unpacks lists whose length is known when the level compiles",
            node)


def _tensor(it: Any, name: str, args: List[Any], node: Any) -> Any:
    """``tensor.<name>{numbers}``: a 1-D fixed table, float32 (ByteTensor: int32 in 0..255); ``tensor.<name>(d1,
    ...)`` (sizes known at translation time): a tensor of zeros of that shape (``tensors.construct``), written
    through its views (``t(i):val(x)``)."""
    if args and name in tensors.CLASSES and all(lua_type(a) == "number" for a in args):
        # DMLab reads a size as Lua 5.1's lua_tointeger does: a float known now is truncated (512 * 0.1 is 51)
        sizes = [math.trunc(a) if isinstance(a, float) and math.isfinite(a) else a for a in args]
        return tensors.construct(it, name, sizes, node)
    if len(args) != 1 or not isinstance(args[0], Arr) or args[0].x.dtype == jnp.bool_:
        it.fail(f"tensor.{name} of anything but a list of numbers", "a tensor on the device is a fixed "
                "1-D list of numbers ({a, b, ...})", node)
    x = args[0].x
    return Arr(jnp.clip(x.astype(jnp.int32), 0, 255) if name == "ByteTensor" else x.astype(jnp.float32))


def _modf(x: Any) -> List[Any]:
    """``math.modf(x)``: the integral part (an integer stays one; a float's toward zero, a float) and the fraction."""
    if isinstance(x, int) or (isinstance(x, Num) and x.is_int):
        return [x, 0.0]
    if not is_traced(x):
        whole = float(math.trunc(x)) if math.isfinite(x) else x
        return [whole, x - whole if math.isfinite(x) else 0.0]
    whole = jnp.trunc(x.x)
    return [Num(whole, x.lo, x.hi), Num(jnp.where(jnp.isfinite(x.x), x.x - whole, 0.0), -1.0, 1.0)]


def _static_math(it: Any, name: str, args: List[Any]) -> Any:
    x = args[0]
    if name in ("floor", "ceil"):
        r = (math.floor if name == "floor" else math.ceil)(x) if math.isfinite(x) else x
        return int(r) if isinstance(r, int) or (isinstance(r, float) and r.is_integer()) else r
    if name == "abs":
        return abs(x)
    if name == "fmod":
        return math.fmod(x, args[1]) if not (isinstance(x, int) and isinstance(args[1], int)) \
            else int(math.fmod(x, args[1]))
    if name == "log":
        return math.log(x, args[1]) if len(args) > 1 else math.log(x)
    if name == "tointeger":
        return int(x) if float(x).is_integer() else None
    if name == "atan":
        return math.atan2(x, args[1] if len(args) > 1 else 1.0)
    return float(getattr(math, name)(x))


def _format(it: Any, args: List[Any], node: Any) -> Any:
    """``string.format(fmt, ...)``: the format known at translation time; %d/%i/%s/%x/%% over finite
    sets, %f/%g over values known at translation time."""
    if not args or not isinstance(args[0], str):
        it.fail("string.format with a format known only at play time", "the format must be a string literal", node)
    fmt, values = args[0], args[1:]
    specs = [m for m in _FORMAT.finditer(fmt) if m.group(2) != "%"]
    if len(specs) > len(values):
        it.fail("string.format with too few arguments", f"the format has {len(specs)} directives", node)

    def make(vs):
        out, i = [], 0
        for piece in re.split(r"(%[-+ #0]*\d*(?:\.\d+)?[dis%fgx])", fmt):
            if not piece.startswith("%") or len(piece) < 2:
                out.append(piece)
            elif piece == "%%":
                out.append("%")
            else:
                v = vs[i]
                i += 1
                out.append(piece.replace("i", "d") % (tostring(v) if piece[-1] == "s" else v))
        return "".join(out)
    for m, v in zip(specs, values):
        if m.group(2) in "fg" and is_traced(v):
            it.fail(f"string.format %{m.group(2)} of a number known only at play time",
                    "floats have no finite set of strings", node)
    return combine_strings(values[:len(specs)], make, it.env.intern, unbounded_text(it, "string.format"))
