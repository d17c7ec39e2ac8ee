"""The Lab2D grid engine's values in translated Lua (``compile_lua.device.grids`` makes and uses them): a grid
(its handle and its state), a query's result, a grid's text, a piece's user state (a reference to it, and the
state of every piece's), and how two paths' values of them merge.
"""
from __future__ import annotations

import dataclasses
from typing import Any, Callable

import jax
import jax.numpy as jnp
import numpy as np

from compile_lua.device.values import MERGERS, Str, choice_index, lua_type
from compile_lua.engine.lab2d_grid import text_size
from jaxlab.kernels.lab2d_grid import queries


@dataclasses.dataclass(frozen=True)
class GridRef:
    """A Lab2D grid made at play time (``world:createGrid``): Lua holds the grid object itself, the translator
    the name of the state variable (``slot``) whose GridStore is the grid's state."""

    slot: str
    LUA_TYPE = "userdata"


@dataclasses.dataclass(frozen=True)
class GridStore:
    """A grid's state (``jaxlab.kernels.lab2d_grid.state.GridState``), as the variable ``GridRef.slot`` holds it."""

    g: Any
    LUA_TYPE = "userdata"


@dataclasses.dataclass(frozen=True)
class PieceSet:
    """What a grid query returns (Lua: a table piece -> position): ``pieces`` int32[K] found first then -1,
    ``positions`` int32[K, 2], ``count`` int32[] how many."""

    pieces: Any
    positions: Any
    count: Any
    LUA_TYPE = "table"


@dataclasses.dataclass(frozen=True)
class GridText:
    """A grid's text made at play time: ``tostring(grid)`` (uint8[H, W + 1] character codes, rows ended by
    newlines) or a generated layout (uint8[H, W]); ``most``: the most cells each character may fill, where
    the maker knows it (a layout's pieces are counted from it, ``grids.py``)."""

    chars: Any
    most: Any = None
    LUA_TYPE = "string"


@dataclasses.dataclass(frozen=True)
class PieceRecord:
    """``grid:userState(piece)``, or a record inside it: a reference to the table the piece ``piece`` (int32[]
    handle) of the grid whose variable is ``slot`` holds, at the fields ``path`` below its top
    (``compile_lua.device.user_state``); ``present`` (bool[]) whether the piece held user state when it was read."""

    slot: str
    piece: Any
    path: tuple = ()
    present: Any = True
    LUA_TYPE = "table"


@dataclasses.dataclass(frozen=True)
class PieceStore:
    """The user state of every piece of a grid, as its variable holds it: ``x`` is ``{"present": bool[P], "fields":
    the record's stored arrays, each with a leading axis of P}`` (``layouts`` stores and fits it)."""

    x: Any
    LUA_TYPE = "userdata"


def text_chars(text: str, fail: Callable[[str, str], Any]) -> np.ndarray:
    """uint8[H, W] of a layout text (leading and trailing newlines dropped, short rows padded with spaces);
    ``fail(construct, why)`` refuses characters beyond ASCII."""
    if any(ord(c) > 127 for c in text):
        fail("a layout text with characters beyond ASCII", "a layout's cells are one ASCII character each")
    width, height = text_size(text)
    rows = text.strip("\n").split("\n")
    return np.asarray([[ord(c) for c in row.ljust(width)] for row in rows], np.uint8).reshape(height, width)


def texts_chars(v: Any, intern: Callable[[str], int], fail: Callable[[str, str], Any]) -> Any:
    """uint8[H, W] of a layout text (a str), or of the one a string from a finite set (a Str) holds at play
    time: every candidate's characters, the one it holds picked on the device. Candidates of different sizes
    are refused (``fail(construct, why)``)."""
    texts = sorted(v.cands) if isinstance(v, Str) else [v]
    tables = [text_chars(t, fail) for t in texts]
    if len({t.shape for t in tables}) > 1:
        fail("layout texts of different sizes", "the texts a layout may be have one size")
    index = choice_index(Str(v.gid, v.cands), texts, intern) if isinstance(v, Str) else 0
    return jnp.asarray(np.stack(tables))[index]


def _select_text(c: Any, a: Any, b: Any, intern: Callable[[str], int], fail: Callable[[str], Any]) -> GridText:
    """A grid text (a generated layout) on one path and a layout text (a string from a finite set) or another
    grid text on the other: the characters of either, of one shape."""
    shape = (a if isinstance(a, GridText) else b).chars.shape

    def chars(v):
        if isinstance(v, GridText):
            return v.chars, v.most
        if not isinstance(v, (str, Str)):
            fail(f"a layout on one path and a {lua_type(v)} on another")
        texts = sorted(v.cands) if isinstance(v, Str) else [v]
        table = texts_chars(v, intern, lambda construct, why: fail(f"{construct}: {why}"))
        if table.shape != shape:
            fail("layouts of different sizes on two paths")
        return table, {ch: max(t.count(ch) for t in texts) for ch in set("".join(texts))}
    (x, mx), (y, my) = chars(a), chars(b)
    most = None if mx is None or my is None else {k: max(mx[k], my[k]) for k in set(mx) & set(my)}
    return GridText(jnp.where(c, x, y), most)


def _select_grid(c: Any, a: Any, b: Any, intern: Callable[[str], int], fail: Callable[[str], Any]) -> Any:
    """One grid on both paths (its handle), or its state on each."""
    if isinstance(a, GridRef) and a == b:
        return a
    if isinstance(a, GridStore) and isinstance(b, GridStore):
        return GridStore(jax.tree_util.tree_map(lambda x, y: jnp.where(c, x, y), a.g, b.g))
    fail(f"a {lua_type(a)} on one path and a {lua_type(b)} on another")


def grid_text(it: Any, ref: GridRef) -> GridText:
    """``tostring(grid)``."""
    rules = it.env.tr.grid_rules.get(ref.slot)
    if rules is None:
        it.fail("tostring of a grid used before the callback that makes it", "api:start makes the grid")
    return GridText(queries.to_text(rules, it.env.state[ref.slot].g))


def _select_record(c: Any, a: Any, b: Any, intern: Callable[[str], int], fail: Callable[[str], Any]) -> PieceRecord:
    """One piece's user state or another's (the same fields of one grid's)."""
    if not (isinstance(a, PieceRecord) and isinstance(b, PieceRecord)) or (a.slot, a.path) != (b.slot, b.path):
        fail(f"a {lua_type(a)} on one path and a {lua_type(b)} on another")
    return PieceRecord(a.slot, jnp.where(c, a.piece, b.piece), a.path, jnp.where(c, a.present, b.present))


def _union(a: Any, b: Any, fail: Callable[[str], Any]) -> tuple:
    """Two versions of the arrays of one variable, the one a field more than the other (a path that added it):
    each with the other's fields too (zeros where it lacks them), of the wider dtype."""
    if isinstance(a, dict) and isinstance(b, dict):
        keys = list(a) + [k for k in b if k not in a]
        pairs = {k: _union(a[k], b[k], fail) if k in a and k in b else
                 (a[k], jax.tree_util.tree_map(jnp.zeros_like, a[k])) if k in a else
                 (jax.tree_util.tree_map(jnp.zeros_like, b[k]), b[k]) for k in keys}
        return {k: p[0] for k, p in pairs.items()}, {k: p[1] for k, p in pairs.items()}
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        pairs = [_union(x, y, fail) for x, y in zip(a, b)]
        return [p[0] for p in pairs], [p[1] for p in pairs]
    if hasattr(a, "shape") and hasattr(b, "shape") and a.shape == b.shape:
        dtype = jnp.result_type(a, b)
        return a.astype(dtype), b.astype(dtype)
    fail("pieces' user state of two layouts on two paths")


def _select_store(c: Any, a: Any, b: Any, intern: Callable[[str], int], fail: Callable[[str], Any]) -> PieceStore:
    x, y = _union(a.x, b.x, fail)
    return PieceStore(jax.tree_util.tree_map(lambda u, v: jnp.where(c, u, v), x, y))


MERGERS.update({GridText: _select_text, GridRef: _select_grid, GridStore: _select_grid, PieceRecord: _select_record,
                PieceStore: _select_store})
