"""Lab2D's per-piece user state at play time: ``grid:setUserState(piece, t)`` and ``grid:userState(piece)``.

A grid whose pieces play gives user state keeps it in one state variable, ``userstate.<the grid's variable>``
(layout entry ``("pieces", P, record)``): for each of the grid's P piece slots, whether the piece holds user
state, and the fields of one record layout that all the grid's pieces share (the join of every table
``setUserState`` stores and every field play writes: a field one table lacks is nil there; a number one of
them stores as a float is a float for all), as arrays with a leading axis of P.

``grid:userState(piece)`` is a reference (:class:`~compile_lua.device.grid_values.PieceRecord`), as the Lua
table is: reading a field reads the piece's slot (a record inside it is again a reference), writing one
writes the slot, only where the path runs, so every name holding the table sees the write. ``setUserState``
replaces the piece's whole table (nil forgets it). A field holds a number, boolean, string, fixed table, a
record of those, or a view of a tensor kept in play-time state (a row of a matrix each piece adds to: the
view's start is kept per piece, its elements are the tensor's). Making or destroying a grid and removing a
piece forget the user state of its pieces.

Refused at their line: a field named by a value known only at play time, any other value in a table stored
(a function, a grid, a tensor made in the call), a table added at play time to a field no stored table has,
and writing the user state of a grid's piece before any ``setUserState`` of that grid.
"""
from __future__ import annotations

from typing import Any, Optional

import jax
import jax.numpy as jnp

from compile_lua.device.fitting import fitted
from compile_lua.device.grid_args import piece_of
from compile_lua.device.grid_values import GridRef, PieceRecord, PieceStore
from compile_lua.device.layouts import load, store, value_kind
from compile_lua.device.values import TensorVal, is_traced, lua_type
from jaxlab.kernels.lab2d_tensor import Tensor

#: the kinds a field that some pieces' tables lack may have (nil where they lack it)
SCALARS = ("int", "float", "string", "bool")


def variable(slot: str) -> str:
    """The state variable of the user state of the pieces of the grid whose variable is ``slot``."""
    return f"userstate.{slot}"


def user_state(it: Any, ref: GridRef, piece: Any) -> PieceRecord:
    """``grid:userState(piece)``: a reference to the piece's table (nil to Lua's tests where it has none)."""
    p = piece_of(piece)
    held = it.env.state.get(variable(ref.slot))
    present = held.x["present"][jnp.maximum(p, 0)] & (p >= 0) if isinstance(held, PieceStore) else jnp.bool_(False)
    return PieceRecord(ref.slot, p, (), present)


def set_user_state(it: Any, ref: GridRef, piece: Any, table: Any) -> None:
    """``grid:setUserState(piece, table)``: the piece's whole table replaced by ``table`` (a record; nil forgets
    it); the grid's layout grows to hold it."""
    if table is None:
        return forget(it, ref.slot, piece_of(piece))
    if not isinstance(table, dict):
        it.fail(f"grid:setUserState with a {lua_type(table)}", "a piece's user state compiles as a table of named "
                "fields")
    key, tr = variable(ref.slot), it.env.tr
    size = tr.layout[ref.slot][5]
    if key not in tr.layout:
        tr.define(key, ("pieces", size, _kind_of(it, table)))
        it.env.fresh(key)
    record = tr.layout[key][2]
    wide, value = _fit(it, "userState(piece)", record, table)
    if wide != record:
        tr.widen(key, ("pieces", size, wide))
    _scatter(it, ref.slot, (), wide, value, piece_of(piece), present=True)


def field(it: Any, rec: PieceRecord, key: Any, node: Any) -> Any:
    """``rec[key]``: the field's value for the piece (a record inside: a reference to it; nil for a field no
    table of the grid's pieces has)."""
    _check_key(it, key, node)
    kind = it.env.tr.layout.get(variable(rec.slot))
    sub = None if kind is None else dict(_record_at(kind[2], rec.path)[1]).get(key)
    if sub is None:
        return None
    path = rec.path + (key,)
    if sub[0] == "record":
        return PieceRecord(rec.slot, rec.piece, path, rec.present)
    x = store(kind, it.env.state[variable(rec.slot)], it.env.intern)["fields"]
    for name in path:
        x = x[name]
    at = jax.tree_util.tree_map(lambda a: a[jnp.maximum(rec.piece, 0)], x)
    if sub[0] == "view":
        _, owner, tensor_kind, shape, strides = sub
        storage = it.env.storages.get(owner, None)
        storage = it.env.state[owner].t.storage if storage is None else storage
        return TensorVal(Tensor(storage, at, tensor_kind, shape, strides), owner)
    return load(sub, at, f"{variable(rec.slot)}.{'.'.join(path)}")


def set_field(it: Any, rec: PieceRecord, key: Any, value: Any, node: Any) -> None:
    """``rec[key] = value``: the piece's field written where the path runs; a field no table has yet is added
    (nil for the other pieces)."""
    _check_key(it, key, node)
    var, tr = variable(rec.slot), it.env.tr
    kind = tr.layout.get(var)
    if kind is None:
        it.fail("writing a piece's user state before any grid:setUserState", "give the pieces their tables "
                "with setUserState (where the grid is made, or when a piece is)", node)
    top, path = kind[2], rec.path + (key,)
    name = f"userState(piece).{'.'.join(path)}"
    old = dict(_record_at(top, rec.path)[1]).get(key)
    if old is None:
        if value is None:
            return None
        old = _nilable(_kind_of(it, value))
        if old is None:
            it.fail(f"a {lua_type(value)} added to a piece's user state at play time", "the fields that hold tables "
                    "are those setUserState stores: store it there", node)
    wide, value = _fit(it, name, old, value)
    new_top = _replaced(top, rec.path, key, wide)
    if new_top != top:
        tr.widen(var, ("pieces", kind[1], new_top))
    _scatter(it, rec.slot, path, wide, value, rec.piece)


def forget(it: Any, slot: str, piece: Optional[Any] = None) -> None:
    """The user state of ``piece`` (every piece's, for None) of the grid whose variable is ``slot`` forgotten,
    where the path runs."""
    key = variable(slot)
    if key not in it.env.state:
        return
    kind = it.env.tr.layout[key]
    x = store(kind, it.env.state[key], it.env.intern)
    if piece is None:
        x = {**x, "present": jnp.where(it.live(), False, x["present"])}
    else:
        ok = (piece >= 0) & it.live()
        p = jnp.maximum(piece, 0)
        x = {**x, "present": x["present"].at[p].set(jnp.where(ok, False, x["present"][p]))}
    it.env.state[key] = PieceStore(x)


def resized(tr: Any, slot: str, size: int) -> None:
    """Room for the user state of ``size`` pieces, once the grid whose variable is ``slot`` has it."""
    kind = tr.layout.get(variable(slot))
    if kind is not None and kind[1] != size:
        tr.widen(variable(slot), ("pieces", size, kind[2]))


def _check_key(it: Any, key: Any, node: Any) -> None:
    if is_traced(key) or not isinstance(key, str):
        it.fail("a piece's user state at a key known only at play time" if is_traced(key) else
                f"a piece's user state at the key {key!r}", "its fields are names fixed ahead of time", node)


def _record_at(record: tuple, path: tuple) -> tuple:
    for name in path:
        record = dict(record[1])[name]
    return record


def _replaced(record: tuple, path: tuple, key: str, kind: tuple) -> tuple:
    """The record layout ``record`` with the field ``key`` of its record at ``path`` of layout ``kind``."""
    fields = dict(record[1])
    if path:
        fields[path[0]] = _replaced(fields[path[0]], path[1:], key, kind)
    else:
        fields[key] = kind
    return ("record", tuple(sorted(fields.items())))


def _nilable(kind: tuple) -> Optional[tuple]:
    """The layout of a field of ``kind`` that some pieces' tables lack (nil there); None for a table's."""
    return kind if kind[0] == "maybe" else ("maybe", kind) if kind[0] in SCALARS else None


def _kind_of(it: Any, value: Any) -> tuple:
    """The layout of a value stored in a piece's user state."""
    if isinstance(value, TensorVal):
        kept = it.env.tr.layout.get(value.owner) if value.owner is not None else None
        if kept is None or kept[0] != "tensor":
            it.fail("a tensor made in this call, kept in a piece's user state", "keep the tensor in play-time state "
                    "(an api field, or a tensor made on the host) and store a view of it")
        return ("view", value.owner, value.t.kind, value.t.shape, value.t.strides)
    if isinstance(value, dict) and all(isinstance(k, str) for k in value):
        return ("record", tuple(sorted((k, _kind_of(it, v)) for k, v in value.items() if v is not None)))
    kind = None if isinstance(value, PieceRecord) else value_kind(value)
    if kind is None or kind[0] in ("grid", "gridref", "tensor", "pieces", "fn"):
        it.fail(f"a {lua_type(value)} in a piece's user state", "a piece's table holds numbers, booleans, strings, "
                "fixed tables, records of them and views of tensors kept in play-time state")
    return kind


def _fit(it: Any, name: str, kind: tuple, value: Any) -> tuple:
    """``(kind widened to hold value, value as stored)`` for ``value`` written where ``kind`` is kept."""
    if kind[0] == "view" or isinstance(value, TensorVal):
        if _kind_of(it, value) != kind:
            it.fail(f"assigning a {lua_type(value)} to {name}", "it holds a view of one shape of one tensor kept in "
                    "play-time state")
        return kind, value
    if kind[0] != "record" or not isinstance(value, dict):
        return fitted(it, name, kind, value)
    fields, out_kinds, out = dict(kind[1]), [], {}
    for k in sorted(set(fields) | {k for k, v in value.items() if v is not None}):
        sub, v = fields.get(k), value.get(k)
        if sub is None or v is None:
            sub = _nilable(sub or _kind_of(it, v))
            if sub is None:
                it.fail(f"pieces' tables with and without the table {name}.{k}", "the fields of pieces' tables that "
                        "hold tables are the same in every table stored")
        wide, out[k] = _fit(it, f"{name}.{k}", sub, v)
        out_kinds.append((k, wide))
    return ("record", tuple(out_kinds)), out


def _scatter(it: Any, slot: str, path: tuple, kind: tuple, value: Any, piece: Any, present: bool = False) -> None:
    """``value`` (of layout ``kind``) written at the fields ``path`` of the table of ``piece``, where the path
    runs (and ``present``: the piece holds a table from now on)."""
    key, env = variable(slot), it.env
    x = store(env.tr.layout[key], env.state[key], env.intern)
    ok = (piece >= 0) & it.live()
    p = jnp.maximum(piece, 0)

    def put(a, s):
        return a.at[p].set(jnp.where(ok, jnp.asarray(s).astype(a.dtype), a[p]))

    def into(tree, names):
        if not names:
            return jax.tree_util.tree_map(put, tree, store(kind, value, env.intern))
        return {**tree, names[0]: into(tree[names[0]], names[1:])}
    x = {"present": put(x["present"], True) if present else x["present"], "fields": into(x["fields"], path)}
    env.state[key] = PieceStore(x)
