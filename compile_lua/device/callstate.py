"""One traced call's values: :class:`Env` (the state, effects, key and inputs a callback works on), and how a
value written to a state variable fits its layout (:func:`fitted`; layouts: ``compile_lua.device.layouts``).

``Env`` holds one call's variables as translator values (``compile_lua.device.values``), its effects, its key,
the engine's inputs and the newest version of every tensor storage, and is what an ``if`` on a traced condition
snapshots, restores and merges.
"""
from __future__ import annotations

from typing import Any, Callable, Dict

import jax.numpy as jnp

from compile_lua.device import builtins, keyed
from compile_lua.device.grid_values import GridRef
from compile_lua.device.host_values import HOST_FIELD, parse_state_key, plain
from compile_lua.device.layouts import DTYPE, layout_kind, load, start_value, store, value_kind, widened, zero_value
from compile_lua.device.values import (Arr, MaybeBool, MaybeNum, MaybeStr, NumText, Str, TensorVal, as_num, bool_of,
                                       lua_type, present_of)


class Env:
    """One traced call: the state (key -> translator value), effects, key, inputs, the string table."""

    def __init__(self, tr: Any, state: Dict[str, Any], inputs: Dict[str, Any]):
        self.tr, self.builtins, self.inputs = tr, builtins, inputs
        self.key = state["key"]
        self.state = dict(tr.constants)
        self.state.update({k: load(tr.layout[k], x, k) for k, x in state["vars"].items()})
        self.storages = {k: v.t.storage for k, v in self.state.items() if isinstance(v, TensorVal)}
        self.effects = {"score": 0, "finish": False}
        self.defining = False   # whether writing an unknown api field makes it state (Lab2D's start)

    def intern(self, text: str) -> int:
        return self.tr.intern(text)

    def snapshot(self) -> Dict[str, Any]:
        return {"state": dict(self.state), "effects": dict(self.effects), "key": self.key,
                "storages": dict(self.storages)}

    def restore(self, snap: Dict[str, Any]) -> None:
        self.state, self.effects, self.key = dict(snap["state"]), dict(snap["effects"]), snap["key"]
        self.storages = dict(snap["storages"])

    def merge(self, c: Any, sel: Callable, a: Dict[str, Any], b: Dict[str, Any]) -> Dict[str, Any]:
        key = a["key"] if a["key"] is b["key"] else jnp.where(c, a["key"], b["key"])
        storages = {**a["storages"], **b["storages"]}
        storages.update({k: jnp.where(c, a["storages"][k], b["storages"][k]) for k in a["storages"]
                         if k in b["storages"] and a["storages"][k] is not b["storages"][k]})
        return {"state": {k: sel(a["state"][k], b["state"][k]) for k in a["state"] if k in b["state"]},
                "effects": {k: sel(a["effects"][k], b["effects"][k]) for k in a["effects"]}, "key": key,
                "storages": storages}

    def fresh(self, key: str) -> Any:
        """The value of state ``key`` that this call has not seen yet: an api field that is nil when the
        script has loaded and that play sets (``tr.nilable``) becomes state holding a number (or, once a
        string is written, a string) or nil, starting nil; a variable that became state inside one arm of
        an ``if`` starts from its zero value (``Translation.settle`` traces again with it in the state)."""
        if key not in self.tr.layout:
            self.tr.define(key, ("maybe", ("int",)))
        kind = self.tr.layout[key]
        self.state[key] = load(kind, store(kind, start_value(kind, zero_value(kind)), self.intern), key)
        return self.state[key]

    def write(self, it: Any, key: str, value: Any) -> None:
        """``state[key] = value`` on the live path; widens the layout (int to float, more strings). In a
        callback that defines state (``self.defining``), an api field that is not yet state becomes state."""
        nilable = key in self.tr.nilable and not self.defining and lua_type(value) in ("number", "string", "nil")
        if key not in self.state and (key in self.tr.layout or nilable):
            self.fresh(key)
        if key not in self.tr.layout and self.tr.host is not None and key.startswith(("api.", HOST_FIELD)):
            self._define_host_field(it, key, value)
        if key not in self.tr.layout:
            if not (self.defining and key.startswith("api.")) or lua_type(value) == "nil":
                it.fail(f"assigning {key}", "play-time state is what the script holds when it has loaded "
                        "(and, in a Lab2D level, what start sets): set it there first")
            kind = value_kind(value)
            if kind is None:
                it.fail(f"assigning a {lua_type(value)} to {key}", "play-time state holds numbers, booleans, strings "
                        "from a finite set, fixed tables and tensors")
            self.tr.define(key, kind)
            self.state[key] = load(kind, store(kind, start_value(kind, zero_value(kind)), self.intern), key)
        kind = self.tr.layout[key]
        wide, value = fitted(it, key, kind, value)
        if wide != kind:
            self.tr.widen(key, wide)
        self.state[key] = it.predicated(value, self.state[key])

    def _define_host_field(self, it: Any, key: str, value: Any) -> None:
        """A write to an api field of a level whose api lives on the host (``tr.host``), or to a field of a table
        kept on the host (``host_values.state_key``): the field becomes state,
        starting from the host's number, string or boolean (or the data of a host table it replaces); a field nil
        on the host starts nil (numbers and strings) or at its zero value (grids, pieces' tables)."""
        graph = self.tr.host
        held = graph.field(*parse_state_key(graph, key))
        if graph.node(held) is not None:   # a table made on the host, replaced at play time: state from its data
            data = plain(graph, held)
            kind = layout_kind(data) if data is not None else None
            if kind is None:
                it.fail(f"assigning {key}", "it holds a table made on the host that is not data (numbers, "
                        "strings, booleans and tables of them), which play time only reads")
            self.tr.define(key, kind, data)
        elif held is not None:
            self.tr.define(key, layout_kind(held), held)
        else:
            kind = value_kind(value) if lua_type(value) != "nil" else ("maybe", ("int",))
            if kind is None and isinstance(value, dict) and not value:   # an empty table, keyed later
                kind = layout_kind({})
            if kind is None:
                it.fail(f"assigning a {lua_type(value)} to {key}", "play-time state holds numbers, booleans, "
                        "strings from a finite set, fixed tables, tensors and grids")
            scalar = kind[0] in ("int", "float", "string", "bool")
            self.tr.define(key, ("maybe", kind) if scalar else kind)
        kind = self.tr.layout[key]
        self.state[key] = load(kind, store(kind, start_value(kind, self.tr.start[key]), self.intern), key)


_WANT = {"bool": "boolean", "int": "number", "float": "number", "string": "string", "array": "table",
         "tensor": "userdata", "record": "table", "tuple": "table"}
_TYPE = {"array": Arr, "record": dict, "tuple": list}


def fitted(it: Any, key: str, kind: tuple, value: Any) -> tuple:
    """``(kind widened to hold value, value as the state keeps it)`` for writing ``value`` to the state
    variable (or field of one) ``key`` of ``kind``: an integer variable takes a float (it becomes float),
    a string variable more strings, a table its own length and fields, a tensor its kind and shape.
    Anything else is rejected at the running line (``it.fail``)."""
    if kind[0] == "maybe":
        return _fitted_maybe(it, key, kind, value)
    if kind[0] == "gridref":
        if value != GridRef(kind[1]):
            it.fail(f"assigning a {lua_type(value)} to {key}", "it holds a grid: play-time state keeps one grid there")
        return kind, value
    if kind[0] == "grid":
        return kind, value
    if kind[:2] == ("keyed", "none") and isinstance(value, dict) and value:   # {} at load, names set in play
        kind = widened(kind, value_kind(value))
    if kind[0] == "keyed":
        return keyed.fitted(it, key, kind, value)
    if isinstance(value, (MaybeNum, MaybeBool, MaybeStr)) and value.present is not True:
        it.fail(f"assigning a {lua_type(value)} that may be nil to {key}", f"it holds a {lua_type(value)} when the "
                "script has loaded; only an api field that is nil then (numbers) may be nil during play")
    if isinstance(value, MaybeBool):
        value = value.x
    want = _WANT[kind[0]]
    if lua_type(value) != want or not isinstance(value, _TYPE.get(kind[0], object)):
        it.fail(f"assigning a {lua_type(value)} to {key}", f"it holds a {want} when the script has loaded; "
                "play-time state keeps one kind of value")
    if isinstance(value, NumText):
        it.fail(f"assigning tostring of a number to {key}", "that text is written on the host; keep the number "
                "in the state and call tostring where it is returned")
    if kind[0] == "int" and not as_num(value).is_int:
        return ("float",), value
    if kind[0] == "string" and isinstance(value, (str, Str)):
        cands = value.cands if isinstance(value, Str) else frozenset([value])
        return (kind if cands <= kind[1] else ("string", kind[1] | cands)), value
    if kind[0] == "array":
        if value.x.shape != (kind[2],):
            it.fail(f"a table that changes length ({key})", f"it has {kind[2]} items when the script has loaded")
        if value.owner not in (None, key):
            it.fail(f"assigning the table {value.owner} to {key}", "two names for one table (Lua tables are "
                    "shared references) cannot be followed on the device")
        to_float = kind[1] == "int" and jnp.issubdtype(value.x.dtype, jnp.floating)
        return (("array", "float", kind[2]) if to_float else kind), Arr(value.x, key)
    if kind[0] == "tensor" and (value.t.kind, value.t.shape) != kind[1:]:
        it.fail(f"assigning a {value.t.kind} tensor of shape {list(value.t.shape)} to {key}",
                f"it holds a {kind[1]} tensor of shape {list(kind[2])}: play-time state keeps one kind and shape")
    if kind[0] == "record" and isinstance(value, dict) and set(value) != {k for k, _ in kind[1]} and all(
            sub[0] == "maybe" for k, sub in kind[1] if k not in value):   # a table of names: nil where unset
        kind = widened(kind, value_kind(value))
        value = {k: value.get(k) for k, sub in kind[1] if k in value or sub[0] == "maybe"}
    if kind[0] == "record":
        if set(value) != {k for k, _ in kind[1]}:
            it.fail(f"a table whose fields change ({key}: {', '.join(sorted(value))})", "it has the fields "
                    f"{', '.join(k for k, _ in kind[1])} when the script has loaded; a record keeps its fields")
        fields = [(k, fitted(it, f"{key}.{k}", sub, value[k])) for k, sub in kind[1]]
        return ("record", tuple((k, w) for k, (w, _) in fields)), {k: v for k, (_, v) in fields}
    if kind[0] == "tuple":
        if len(value) != len(kind[1]):
            it.fail(f"a table that changes length ({key})", f"it has {len(kind[1])} items when the script has loaded")
        items = [fitted(it, f"{key}[{i + 1}]", sub, v) for i, (sub, v) in enumerate(zip(kind[1], value))]
        return ("tuple", tuple(w for w, _ in items)), [v for _, v in items]
    return kind, value


def _fitted_maybe(it: Any, key: str, kind: tuple, value: Any) -> tuple:
    """``fitted`` for a field that holds a number or nil (``("maybe", ("int",) | ("float",))``) or a string
    from a finite set or nil (``("maybe", ("string", set))``; a field no write has given a number or a
    string yet is ``("maybe", ("int",))``)."""
    text = kind[1][0] == "string"
    if kind[1][0] == "bool":   # a name of a table of names that play sets to booleans
        if value is not None and lua_type(value) != "boolean":
            it.fail(f"assigning a {lua_type(value)} to {key}", "it holds booleans or nil")
        return kind, MaybeBool(bool_of(value) if value is not None else jnp.bool_(False), present_of(value))
    if value is None:
        return kind, (MaybeStr(jnp.int32(0), kind[1][1], False) if text else
                      MaybeNum(jnp.zeros((), DTYPE[kind[1][0]]), 0.0, 0.0, False))
    if lua_type(value) == "string" and not isinstance(value, NumText) and (text or kind == ("maybe", ("int",))):
        cands = (value.cands if isinstance(value, Str) else frozenset([value])) | (kind[1][1] if text else set())
        gid = value.gid if isinstance(value, Str) else jnp.int32(it.env.intern(value))
        return ("maybe", ("string", cands)), MaybeStr(gid, cands, present_of(value))
    if lua_type(value) != "number" or text:
        it.fail(f"assigning a {lua_type(value)} to {key}", "it is nil when the script has loaded and play sets "
                "it: such a field holds numbers or strings from a finite set (one kind of them) or nil")
    num = as_num(value)
    wide = ("maybe", ("float",)) if kind[1][0] == "float" or not num.is_int else kind
    present = value.present if isinstance(value, MaybeNum) else True
    return wide, MaybeNum(num.x, num.lo, num.hi, present)
