"""One traced call's values: :class:`Env` (the state, effects, key and inputs a callback works on); a value
written to a state variable is fitted to its layout by ``compile_lua.device.fitting``.

``Env`` holds one call's variables as translator values (``compile_lua.device.values``), its effects, its key,
the engine's inputs and the newest version of every tensor storage, and is what an ``if`` on a traced condition
snapshots, restores and merges.
"""
from __future__ import annotations

from typing import Any, Callable, Dict

import jax.numpy as jnp

from compile_lua.device import builtins, records
from compile_lua.device.fitting import fitted
from compile_lua.device.widening import widened
from compile_lua.device.host_values import HOST_FIELD, HostTable, parse_state_key, plain, state_key
from compile_lua.device.layouts import UNSET, holds, layout_kind, load, start_value, store, value_kind, zero_value
from compile_lua.device.maybe_tables import TABLE_KINDS, MaybeTable, table_of
from compile_lua.device.sparse_lists import SparseList, StateRef
from compile_lua.device.values import API, HeldRecord, held, lua_type, tensors_in


class Env:
    """One traced call: the state (key -> translator value), effects, key, inputs, the string table."""

    def __init__(self, tr: Any, state: Dict[str, Any], inputs: Dict[str, Any]):
        self.tr, self.builtins, self.inputs = tr, builtins, inputs
        self.key = state["key"]
        self.state = dict(tr.constants)
        self.state.update({k: load(tr.layout[k], x, k) for k, x in state["vars"].items()})
        self.state.update({k: self.followed(self.state[k]) for k in state["vars"] if holds(tr.layout[k], "ref")})
        self.storages = {t.owner: t.t.storage for v in self.state.values() for t in tensors_in(v)}
        self.effects = {"score": 0, "finish": False}
        self.defining = False   # whether writing an unknown api field makes it state (Lab2D's start)
        self.unsettled = set()   # state keys holding lists whose layout the value at the call's end widens
        self.start_kinds = dict(tr.layout)   # the layout as the call began (``unsettled`` widens from it)
        self.kept_lists: Dict[str, tuple] = {}   # the kinds ``unsettled`` keys had where a path was left (``keep``)

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
            self.tr.define(key, UNSET)
        kind = self.tr.layout[key]
        self.state[key] = load(kind, store(kind, start_value(kind, zero_value(kind)), self.intern), key)
        if holds(kind, "ref"):
            self.state[key] = self.followed(self.state[key])
        return self.state[key]

    def settled_kind(self, it: Any, key: str, value: Any, final: bool = False) -> tuple:
        """The layout entry of ``unsettled`` state ``key`` holding ``value``: fitted from the layout as the call
        began, joined with the kinds kept where paths were left (``final``: at the call's end; else ``value``'s kind
        is kept too: a path the trace goes on past, ``Interpreter.branch``, leaves it here)."""
        wide, _ = fitted(it, key, self.start_kinds.get(key, self.tr.layout[key]), value)
        if key in self.kept_lists:
            wide = widened(wide, self.kept_lists[key])
        if not final:
            self.kept_lists[key] = wide
        return wide

    def followed(self, value: Any) -> Any:
        """``value`` loaded from the state with each :class:`StateRef` in its lists the table it names, read from
        the state now (a record there, held at its place)."""
        if isinstance(value, StateRef):
            now = self.state.get(value.key)
            for name in value.path:
                now = table_of(now)
                now = now.get(name) if isinstance(now, dict) else None
            return held(table_of(now), value.key, value.path) if now is not None else None
        if isinstance(value, SparseList):
            return SparseList(tuple((self.followed(v), p) for v, p in value.entries), value.kept, value.loaded)
        if isinstance(value, list):
            return [self.followed(v) for v in value]
        if isinstance(value, dict) and not isinstance(value, HeldRecord):
            return {k: self.followed(v) for k, v in value.items()}
        if isinstance(value, MaybeTable):
            return MaybeTable(self.followed(value.value), value.present)
        return value

    def upvalue(self, scope: Any, name: str) -> Any:
        """Upvalue ``name`` of a host function's scope (``host_values.UpvalueScope``): the state's value where
        play-time state holds its variable (``compile_lua.device.upvalues``), else the host's."""
        key = scope.cells.get(name)
        if key in self.state:
            return held(self.state[key], key)
        return held(self.fresh(key), key) if key in self.tr.layout else scope[name]

    def write(self, it: Any, key: str, value: Any) -> None:
        """``state[key] = value`` on the live path; widens the layout (int to float, more strings). In a
        callback that defines state (``self.defining``), an api field that is not yet state becomes state."""
        nilable = key in self.tr.nilable and not self.defining and lua_type(value) in ("number", "string", "table", "nil")
        if key not in self.state and (key in self.tr.layout or nilable):
            self.fresh(key)
        if key not in self.tr.layout and (self.tr.host is not None and key.startswith("api.") or
                                          self._graph() is not None and key.startswith(HOST_FIELD)):
            self._define_host_field(it, key, value)
        if key not in self.tr.layout and key.startswith(HOST_FIELD):
            it.fail("assigning a field of an object kept on the host", "play-time state is what an api field or a "
                    "top-level local holds when the script has loaded (an object's own numbers, strings and tables); "
                    "an object reached through another one, and a field it lacks then, are read-only")
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
        written = value   # the table the script assigned, which its locals may hold
        wide, value = fitted(it, key, kind, value)
        if wide != kind and holds(wide, "list"):   # a list's slots widen by what it holds when the call ends
            self.unsettled.add(key)              # (a list sorted after it is built keeps its slots' kinds)
        elif wide != kind:
            self.tr.widen(key, wide)
        self.state[key] = it.predicated(value, self.state[key])
        records.refresh(it, key, written)

    def kept_table(self, it: Any, holder: Any, field: Any, table: Any) -> Any:
        """``table``, a table made on the host that play writes at a key: when it is held in a field of a table
        kept on the host (an object's, or the api's of a level whose api lives there), that field becomes state
        from the host's data, as when play replaces it (``_define_host_field``), and its value is returned;
        ``table`` otherwise."""
        if self.tr.host is None or not isinstance(field, str) or not (holder is API or isinstance(holder, HostTable)):
            return table
        key = f"api.{field}" if holder is API else state_key(holder, field)
        if key not in self.tr.layout:
            self._define_host_field(it, key, None)
        elif key not in self.state:
            self.fresh(key)
        return self.state[key]

    def _graph(self) -> Any:
        """The host objects' graph a field of a table kept on the host is read from: the api's (a Lab2D level whose
        api lives on the host), else the first episode's objects' (``host_objects``), or None."""
        if self.tr.host is not None:
            return self.tr.host
        return self.tr.object_graphs[0] if self.tr.object_graphs else None

    def _nil_until_written(self, kind: tuple) -> bool:
        """Whether a field of a table kept on the host that holds a table of entry ``kind`` may be nil at play: in a
        DMLab level (its objects' tables, which play adds and removes by name), not in a Lab2D level's api."""
        return self.tr.host is None and kind[0] in TABLE_KINDS

    def _define_host_field(self, it: Any, key: str, value: Any) -> None:
        """A write to an api field of a level whose api lives on the host (``tr.host``), or to a field of a table
        kept on the host (``host_values.state_key``): the field becomes state,
        starting from the host's number, string or boolean (or the data of a host table it replaces); a field nil
        on the host starts nil (numbers and strings) or at its zero value (grids, pieces' tables)."""
        graph = self._graph()
        table, name = parse_state_key(graph, key)
        if table[:1] == ("ref",) and table[1] not in graph.nodes:
            it.fail(f"assigning {key}", "it is a field of a table of an object another episode holds (a variant, "
                    "compile_lua.device.object_variants): play writes the first episode's objects' tables")
        held = graph.field(table, name)
        if graph.node(held) is not None:   # a table made on the host, replaced at play time: state from its data
            data = plain(graph, held)
            kind = layout_kind(data) if data is not None else None
            if kind is None:
                it.fail(f"assigning {key}", "it holds a table made on the host that is not data (numbers, "
                        "strings, booleans and tables of them), which play time only reads")
            self.tr.define(key, ("maybe", kind) if self._nil_until_written(kind) else kind, data)
        elif held is not None:
            self.tr.define(key, layout_kind(held), held)
        else:
            kind = value_kind(value) if lua_type(value) != "nil" else UNSET
            if kind is None and isinstance(value, dict) and not value:   # an empty table, keyed later
                kind = layout_kind({})
            if kind is None:
                it.fail(f"assigning a {lua_type(value)} to {key}", "play-time state holds numbers, booleans, "
                        "strings from a finite set, fixed tables, tensors and grids")
            nilable = kind[0] in ("int", "float", "string", "bool") or self._nil_until_written(kind)
            self.tr.define(key, ("maybe", kind) if nilable else kind)
        kind = self.tr.layout[key]
        self.state[key] = load(kind, store(kind, start_value(kind, self.tr.start[key]), self.intern), key)
