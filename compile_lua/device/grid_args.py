"""Arguments of Lab2D's grid methods as the translator receives them: pieces (int32 handles, -1 for nil), names
of states, groups, layers and hits, orientations, positions, and numbers the level must fix ahead of time."""
from __future__ import annotations

from typing import Any

import jax.numpy as jnp

from compile_lua.device.host_values import data
from compile_lua.device.values import Arr, MaybeNum, Num, as_num, choice_index, finite_choices, lua_type
from jaxlab.errors import unknown_name_error
from jaxlab.levels.lab2d.grid_world import ORIENTATIONS


def piece_of(v: Any) -> Any:
    """int32[] handle of a piece value (-1 for nil)."""
    if v is None:
        return jnp.int32(-1)
    if isinstance(v, MaybeNum):
        return jnp.where(jnp.asarray(v.present), v.x, -1).astype(jnp.int32)
    return as_num(v).x.astype(jnp.int32)


def piece_value(x: Any, slots: int) -> MaybeNum:
    """A piece handle (int32[], -1 none) of a grid of ``slots`` piece slots as Lua sees it: nil where there is
    no piece, a number below ``slots`` (a handle is a slot) where there is."""
    return MaybeNum(x.astype(jnp.int32), -1, slots - 1, x >= 0)


def named(it: Any, value: Any, names, what: str) -> Any:
    """The id of a name in ``names``: an int for a string known now, int32[] for a traced string from a
    finite set."""
    names = list(names)
    if isinstance(value, str):
        if value not in names:
            it.fail(f"the {what} {value!r}", str(unknown_name_error(what, value, names)))
        return names.index(value)
    choices = finite_choices(value) if lua_type(value) == "string" else None
    if choices is None:
        it.fail(f"a {what} that is a {lua_type(value)}", f"a {what} is named by a string")
    table = jnp.asarray([names.index(c) if c in names else -1 for c in choices], jnp.int32)
    return table[choice_index(value, choices, it.env.intern)]


def orientation(it: Any, value: Any) -> Any:
    if isinstance(value, (int, Num)) and not isinstance(value, bool):
        return jnp.mod(as_num(value).x, 4).astype(jnp.int32)
    return named(it, value, ORIENTATIONS, "orientation")


def position(it: Any, value: Any) -> Any:
    """int32[2] of ``{x, y}``."""
    value = data(value)
    if isinstance(value, Arr) and value.x.shape == (2,):
        return value.x.astype(jnp.int32)
    if isinstance(value, list) and len(value) == 2:
        return jnp.stack([as_num(v).x.astype(jnp.int32) for v in value])
    it.fail(f"a position that is a {lua_type(value)}", "positions are tables {x, y} of two integers")


def static_int(it: Any, value: Any, what: str) -> int:
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    it.fail(f"{what} known only at play time", f"{what} must be an integer known when the level is compiled")
