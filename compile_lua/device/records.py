"""Writing a field of a record (a table of named fields, e.g. the ``actions`` DMLab's ``modifyControl``
receives): ``t.name = v`` / ``t['name'] = v``.

A record is a Python dict of translator values (:mod:`compile_lua.device.values`); a write makes a new
dict, which the interpreter binds back to the name it was written through, so both arms of a traced
``if`` keep their own copy. Lua tables are shared references, so this is only exact while that name is
the table's one name: a record held by a local or argument is written only in the function that made it
or the callback's own body (where every name that may hold it is in view), through that name or a chain of
fields from it (``t.a.b = v``, each inner record held once), and never while another name holds it. A record
kept in play-time state (an api field, ``self.pos.x = v``, or a top-level local, and the records inside them)
is written through that field or name, anywhere. A record read from the state is a
:class:`~compile_lua.device.values.HeldRecord` knowing where it was read (``local a = self.s.actions``): a write
through a local holding it is written to the state too, and after any write to a state variable every local
holding a record of it (:func:`refresh`) holds the record there now, as Lua's names for one table would see it;
a local holding a table the state has since replaced keeps the old one.
"""
from __future__ import annotations

from typing import Any, Dict, Iterable

import jax.numpy as jnp
from luaparser import astnodes as n

from compile_lua.device import host_values
from compile_lua.device.fixed_tables import ChosenRecord
from compile_lua.device.maybe_tables import MaybeTable, table_of
from compile_lua.device.host_values import HostTable, UpvalueScope
from compile_lua.device.values import API, HeldRecord, MaybeBool, MaybeNum, as_num, is_traced, lua_type


def _holds(value: Any, table: Dict[str, Any]) -> bool:
    """Whether ``value`` is ``table`` (or the state's dict a HeldRecord ``table`` was read from) or a record or
    list that contains it."""
    source = getattr(table, "source", None)
    value = table_of(value)   # a table that may be nil holds what its table holds
    if value is table or (source is not None and value is source):
        return True
    if isinstance(value, dict):
        return any(_holds(v, table) for v in value.values())
    if isinstance(value, list):
        return any(_holds(v, table) for v in value)
    return False


def _holders(scopes: Iterable[Dict[str, Any]], table: Dict[str, Any]):
    """The names (innermost scope last) whose values are or contain ``table``, but for those holding another
    record read from the same state as ``table`` (a HeldRecord), which :func:`refresh` keeps up to date."""
    def synced(value):
        return value is not table and isinstance(table, HeldRecord) and isinstance(value, HeldRecord) and \
            value.origin[0] == table.origin[0]
    return [name for scope in scopes for name, value in scope.items() if _holds(value, table) and not synced(value)]


def _kept(holder: Any) -> bool:
    """Whether a record read from a field of ``holder`` is kept in state: the api's, a host table's, or a record's
    read from the state (an object's data: ``self._layers[k] = {}`` in its method)."""
    return holder is API or isinstance(table_of(holder), (HostTable, HeldRecord))


def _nested_in(scopes: Iterable[Dict[str, Any]], table: Dict[str, Any]) -> bool:
    """Whether a name of ``scopes`` holds ``table`` inside another table (not as its own value)."""
    return any(value is not table and _holds(value, table) for scope in scopes for value in scope.values())


def _occurrences(value: Any, table: Dict[str, Any]) -> int:
    """How many times ``table`` is ``value`` or sits inside it."""
    value = table_of(value)
    if value is table:
        return 1
    items = value.values() if isinstance(value, dict) else value if isinstance(value, list) else ()
    return sum(_occurrences(v, table) for v in items)


def _base(it: Any, holder: Any) -> Any:
    """Where the chain of fields ``holder`` (the node a record is read through: ``t``, ``t.a``, ``self.a.b``)
    starts: "kept" for a record kept in play-time state (under an api field, a field of a host object or a
    top-level local), the plain local's Name it starts from, or None (a call's result, another expression)."""
    node = holder
    while isinstance(node, n.Index):
        if _kept(it.expression(node.value)):
            return "kept"
        node = node.value
    if not isinstance(node, n.Name):
        return None
    if f"local.{node.id}" in it.env.state and not any(node.id in scope for scope in it.scopes):
        return "kept"
    return node


def set_field(it: Any, table: Any, key: Any, value: Any, target: n.Index) -> Dict[str, Any]:
    """The record ``table`` with ``table[key] = value`` on the live path (the old value elsewhere);
    ``value`` nil removes the field. ``it`` is the running Interpreter, ``target`` the assignment's
    target node, whose table is a local's record or one of its fields' (``t.a.b = v``: the interpreter
    writes the new inner record back field by field). Rejects (file:line) a write to anything but a record,
    through anything but a chain of fields from a name, in a helper function, under a key known only at
    play time, or to a record with two names."""
    construct = "writing a field of this table"
    if isinstance(table, ChosenRecord):
        it.fail("writing a field of a table read at a key known only at play time", "it is chosen on the device "
                "from the list's items, a copy: write the list's item at a key known when the script is translated",
                target)
    if not isinstance(table, dict):
        it.fail(construct, "only api fields, fixed tables of numbers or booleans and records (tables of "
                "named fields) can be written at play time", target)
    base = _base(it, target.value)
    field = isinstance(base, str)
    if field:   # a record kept in state (an api field, a top-level local): no local of a running function holds it
        names = _holders([scope for scopes in it.outer + [it.scopes] for scope in scopes], table)
        if names:
            it.fail(f"writing a field of a table that the local {names[0]} holds too", "a table may only be "
                    "written through one name (Lua tables are shared references): write it through the "
                    "api field alone", target)
    elif base is None:
        it.fail("writing a field of a table that no name holds", "write a record through the local or "
                "argument that holds it", target)
    if not field and len(it.stack) > 1 and _nested_in([s for scopes in it.outer for s in scopes], table):
        it.fail(f"writing a field of a table in {it.stack[-1]}", "a record a function is passed is written back to "
                "the names of its callers that hold it, not to a table that holds it inside another (a shared "
                "reference, not followed on the device): pass the record itself", target)
    if is_traced(key) or not (isinstance(key, str) or (isinstance(key, int) and not isinstance(key, bool) and
                                                       lua_type(value) in ("table", "nil"))):
        it.fail("writing a record field whose name is known only at play time" if is_traced(key) else
                f"writing the key {key!r} of a record", "a record's fields are names fixed when it is "
                "made", target)
    names = [] if field else _holders(it.scopes, table)
    if not field and (names != [base.id] or _occurrences(it.lookup(base.id, base), table) != 1):
        it.fail(f"writing a field of a table that {len(names)} names hold ({', '.join(names)})",
                "a table may only be written through the one name that holds it (Lua tables are "
                "shared references)", target)
    new = dict(table)
    if value is None and it.live() is True:
        new.pop(key, None)
    else:
        if key not in table and lua_type(value) == "boolean" and not isinstance(value, MaybeBool):
            value = MaybeBool(jnp.asarray(value, jnp.bool_), True)   # a new name: nil where the path does not run
        elif key not in table and lua_type(value) == "number" and not isinstance(value, MaybeNum):
            value = MaybeNum(as_num(value).x, as_num(value).lo, as_num(value).hi, True)
        new[key] = it.predicated(value, table.get(key))
    if not field and isinstance(table, HeldRecord):   # a local holding a record of play-time state: the state too
        state_key, path = table.origin
        it.env.write(it, state_key, _replaced(it, it.env.state[state_key], path, new))
        new = HeldRecord(new, table.origin)
    return new


def placed_at(it: Any, target: Any, holder: Any, key: Any):
    """``(state key, path of fields)`` where the assignment to ``target`` (``holder[key] = t``, or a name ``key``)
    puts a table in play-time state (a top-level local, an api field, a host object's field, a field of a record
    read from the state), else None."""
    if isinstance(target, n.Name):
        kept = f"local.{key}" in it.env.state and not any(key in scope for scope in it.scopes)
        return (f"local.{key}", ()) if kept else None
    if holder is API and isinstance(key, str):
        return f"api.{key}", ()
    if isinstance(holder, HostTable) and isinstance(key, str):
        return host_values.state_key(holder, key), ()
    if isinstance(holder, HeldRecord):
        return holder.origin[0], holder.origin[1] + (key,)
    return None


def _replaced(it: Any, root: Any, path: tuple, new: Dict[str, Any]) -> Dict[str, Any]:
    """``root`` (a record) with the record at fields ``path`` replaced by ``new``."""
    if not path:
        return new
    inner = root.get(path[0]) if isinstance(root, dict) else None
    if isinstance(inner, MaybeTable) and isinstance(inner.value, dict):   # a table that may be nil: where it is
        return {**root, path[0]: MaybeTable(_replaced(it, inner.value, path[1:], new), inner.present)}
    if not isinstance(root, dict) or not isinstance(root.get(path[0]), dict):
        it.fail("writing a field of a table that play-time state no longer holds", "a local kept a record that "
                "the state has since replaced: write the new record through its own field")
    return {**root, path[0]: _replaced(it, root[path[0]], path[1:], new)}


def refresh(it: Any, state_key: str, written: Any = None) -> None:
    """After state ``state_key`` was written (``written``: the value assigned): every local of the running
    functions that holds a record read from it, or a record that the assignment put there (``self.x = t``),
    holds the record there now (Lua's names for one shared table see each write)."""
    value = it.env.state[state_key]
    placed = dict(_paths(written, ()))   # id of each record the assignment put in the state -> its fields' path
    replaced, it.replaced = it.replaced, None
    for scope in [s for scopes in it.outer for s in scopes] + it.scopes:
        for name, v in list(scope.items()):
            if isinstance(v, HeldRecord) and v.origin[0] == state_key and replaced is not None and \
                    replaced[0] == state_key and v.origin[1][:len(replaced[1])] == replaced[1]:
                if it.live() is not True:
                    it.fail(f"replacing a table that the local {name} holds, on a path known only at play time",
                            "the local would hold the old table on one path and follow the state on the other")
                scope[name] = dict(v)   # it holds the old table, no longer the state's
                continue
            if isinstance(v, HeldRecord) and v.origin[0] == state_key:
                path = v.origin[1]
            elif isinstance(v, dict) and not isinstance(v, HeldRecord) and id(v) in placed:
                path = placed[id(v)]
            else:
                continue
            now = value
            for f in path:
                now = now.get(f) if isinstance(now, dict) else None
                now = table_of(now)
            if isinstance(now, dict):
                scope[name] = HeldRecord(now, (state_key, path))


def _paths(value: Any, path: tuple):
    """(id, path of fields) of ``value`` and of every record inside it, when it is a record."""
    if isinstance(value, dict):
        yield id(value), path
        for k, v in value.items():
            yield from _paths(v, path + (k,))


def written_back(it: Any, f: Any, passed: Dict[str, Any], finals: Dict[str, Any]) -> None:
    """After function ``f`` ran inline: each record it was passed (``passed``: parameter -> the record) and wrote
    (``finals``: parameter -> its record at the end) is the new value of its callers' names that hold it, and of
    the play-time state that holds it."""
    for name, record in passed.items():
        if finals.get(name) is record or not isinstance(finals.get(name), dict):
            continue
        for scope in [s for scopes in it.outer for s in scopes]:
            for held, value in list(scope.items()):
                if value is record and not isinstance(scope, UpvalueScope):
                    scope[held] = finals[name]
        for key, value in list(it.env.state.items()):   # an api field's record, passed in
            if value is record and key in it.env.tr.layout:
                it.env.write(it, key, finals[name])
            elif value is record:
                it.fail(f"{f.name} writing the table {key} holds", "it is not play-time state: write it through "
                        "the field itself (self.x.y = ...) somewhere in play", f)
