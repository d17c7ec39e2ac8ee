"""A grid script's ``observationSpec()`` and ``discreteActionSpec()``,
checked against what the grid kernel provides for its world.

The kernel computes every observation (WORLD.RGB, WORLD.LAYER, WORLD.TEXT
and per player n.RGB, n.REWARD, n.POSITION, n.INVENTORY when there are
items) and takes the actions n.move, n.turn and one fire action per beam
(:func:`supported_actions`); a spec may list only those, each once, with
their types, shapes and ranges in this world.
"""
from __future__ import annotations

import re
from typing import Any, Callable, Dict, Iterator, List, Optional, Sequence, Tuple

from lupa.lua54 import lua_type

from compile_lua.lab2d.fields import suggest
from compile_lua.lab2d.source import Locator, callback_def, lua_key, lua_string, player_suffix
from jaxlab.levels.lab2d.spec import GridSpec

#: observations the grid kernel provides: world-wide ones and per-player suffixes.
WORLD_OBSERVATIONS = ("WORLD.RGB", "WORLD.LAYER", "WORLD.TEXT")
PLAYER_OBSERVATIONS = ("RGB", "REWARD", "POSITION", "INVENTORY")   # INVENTORY when there are items
#: observations that are host strings, not arrays of the jitted env.
HOST_OBSERVATIONS = ("WORLD.TEXT",)
_OBS_TYPES = {
    "RGB": ("tensor.ByteTensor", "ByteTensor", "Bytes", "bytes", "uint8"),
    "REWARD": ("tensor.DoubleTensor", "DoubleTensor", "Doubles", "doubles", "float64", "tensor.FloatTensor",
               "FloatTensor", "float32"),
    "INVENTORY": ("tensor.Int32Tensor", "Int32Tensor", "Int32s", "int32"),
    "POSITION": ("tensor.Int32Tensor", "Int32Tensor", "Int32s", "int32"),
    "LAYER": ("tensor.Int32Tensor", "Int32Tensor", "Int32s", "int32"),
    "TEXT": ("String", "string"),
}
#: discrete actions: name -> (min, max).
MOVE_RANGE, TURN_RANGE, FIRE_RANGE = (0, 4), (-1, 1), (0, 1)


def supported_actions(spec: GridSpec) -> Dict[str, Tuple[int, int]]:
    """The discrete actions the grid kernel takes for ``spec``: name -> (min, max)."""
    if not spec.action_prefix:
        return {"MOVE": MOVE_RANGE}
    out: Dict[str, Tuple[int, int]] = {}
    for n in range(1, len(spec.players) + 1):
        out[f"{n}.move"] = MOVE_RANGE
        out[f"{n}.turn"] = TURN_RANGE
        for beam in spec.beams:
            out[f"{n}.{beam.action}"] = FIRE_RANGE
    return out


def observation_spec(script: Locator, api, spec: GridSpec) -> Tuple[List[Dict[str, Any]], bool]:
    """The observations of ``spec`` as dicts name/type/shape: those the
    script's ``api:observationSpec()`` lists, checked, and True; every one
    the kernel provides, and False, when the api has no observationSpec."""
    players = len(spec.players)
    kinds = PLAYER_OBSERVATIONS if spec.items else PLAYER_OBSERVATIONS[:-1]
    provided = list(WORLD_OBSERVATIONS) + [f"{n}.{o}" for n in range(1, players + 1) for o in kinds]
    entries = _spec_list(script, api, "observationSpec")
    if entries is None:
        return [{"name": n, "type": _OBS_TYPES[n.split(".")[-1]][0],
                 "shape": _shape_list(_observation_shape(spec, n.split(".")[-1], n.startswith("WORLD.")))}
                for n in provided], False

    def missing(name: str) -> str:
        extra = ""
        m = re.fullmatch(r"(\d+)\.(\w+)", name)
        if m and m.group(2) in kinds:
            extra = f" (the world has {players} player(s))"
        elif m and m.group(2) == "INVENTORY":
            extra = " (the world has no items)"
        return (f"the grid kernel does not provide observation {name!r}{extra}: "
                f"{suggest('observation', name, provided)} Observations computed by Lua code cannot be compiled")

    out = []
    for where, name, entry in _named_entries(script, entries, "observationSpec", "observation",
                                             ("name", "type", "shape"), provided, missing):
        kind = name.split(".")[-1]
        typ = entry.get("type")
        if typ is not None and typ not in _OBS_TYPES[kind]:
            raise script.error(f"{where}: observation {name!r} has type {_OBS_TYPES[kind][0]}, not {typ!r}",
                               lua_string(name), player_suffix(name), callback_def("observationSpec"))
        shape = entry.get("shape")
        expected = _observation_shape(spec, kind, name.startswith("WORLD."))
        if shape is not None:
            shape = shape if isinstance(shape, list) else [] if shape == {} else [shape]
            if not all(isinstance(d, int) for d in shape):
                raise script.error(f"{where}: shape must be a list of integers, got {entry.get('shape')!r}",
                                   lua_string(name))
            if expected is not None and (len(shape) != len(expected) or any(
                    d != -1 and d != e for d, e in zip(shape, expected))):
                raise script.error(f"{where}: observation {name!r} has shape {list(expected)} in this world, "
                                   f"not {shape} (-1 matches any size)", lua_string(name), player_suffix(name))
        out.append({"name": name, "type": _OBS_TYPES[kind][0],
                    "shape": _shape_list(expected) if expected is not None else shape})
    return out, True


def action_spec(script: Locator, api, spec: GridSpec) -> List[Dict[str, Any]]:
    """The discrete actions of ``spec`` as dicts name/min/max: those the
    script's ``api:discreteActionSpec()`` lists, checked; every one the
    kernel takes when the api has no discreteActionSpec."""
    supported = supported_actions(spec)
    entries = _spec_list(script, api, "discreteActionSpec")
    if entries is None:
        return [{"name": n, "min": lo, "max": hi} for n, (lo, hi) in supported.items()]

    def missing(name: str) -> str:
        return (f"the world has no action {name!r}: {suggest('action', name, supported)} (actions: n.move, "
                "n.turn and one fire action per beam, for players n = 1, 2, ...)")

    out = []
    for where, name, entry in _named_entries(script, entries, "discreteActionSpec", "action",
                                             ("name", "min", "max"), supported, missing):
        lo, hi = supported[name]
        if entry.get("min") != lo or entry.get("max") != hi:
            raise script.error(f"{where}: action {name!r} takes values {lo}..{hi}: declare min = {lo}, max = {hi} "
                               f"(got min = {entry.get('min')!r}, max = {entry.get('max')!r})",
                               lua_string(name), player_suffix(name), callback_def("discreteActionSpec"))
        out.append({"name": name, "min": lo, "max": hi})
    return out


def _spec_list(script: Locator, api, name: str) -> Optional[list]:
    """What ``api:<name>()`` (or an ``api.<name>`` table) gives: a list of
    tables; None when the api has no ``name``."""
    value = api[name]
    if value is None:
        return None
    raw = script.sandbox.call_method(api, name) if lua_type(value) == "function" else value
    data = script.sandbox.to_python(raw)
    if data is None or data == {}:
        return []
    if not isinstance(data, list) or not all(isinstance(e, dict) for e in data):
        raise script.error(f"api:{name}() must return a list of tables, got {data!r}"[:300], callback_def(name))
    return data


def _named_entries(script: Locator, entries: List[Dict[str, Any]], callback: str, noun: str, keys: Sequence[str],
                   known, missing: Callable[[str], str]) -> Iterator[Tuple[str, str, Dict[str, Any]]]:
    """(where, name, entry) per entry of a spec list, checked: its keys are
    among ``keys``, its name is a string in ``known`` (else ``missing(name)``
    says why not) and not listed before."""
    seen = set()
    for i, entry in enumerate(entries, 1):
        where = f"{callback}()[{i}]"
        unknown = [k for k in entry if k not in keys]
        if unknown:
            raise script.error(f"{where}: {suggest('key', str(unknown[0]), keys)}",
                               lua_key(str(unknown[0])), callback_def(callback))
        name = entry.get("name")
        if not isinstance(name, str):
            raise script.error(f"{where}: every {noun} needs a name (string), got {name!r}", callback_def(callback))
        if name not in known:
            raise script.error(f"{where}: {missing(name)}", lua_string(name), player_suffix(name),
                               callback_def(callback))
        if name in seen:
            raise script.error(f"{where}: {noun} {name!r} is listed twice", lua_string(name), player_suffix(name))
        seen.add(name)
        yield where, name, entry


def _observation_shape(spec: GridSpec, kind: str, world: bool) -> Optional[Tuple[int, ...]]:
    """The shape of an observation in ``spec`` where it is fixed, else None."""
    s = spec.sprite_size
    if kind == "RGB" and world:
        return (len(spec.map) * s, len(spec.map[0]) * s, 3)
    if kind == "RGB":
        v = spec.view
        return ((v.forward + v.backward + 1) * s, (v.left + v.right + 1) * s, 3)
    if kind == "REWARD":
        return ()
    if kind == "POSITION":
        return (2,)
    if kind == "LAYER":
        return (len(spec.map), len(spec.map[0]), len(spec.layers))
    if kind == "INVENTORY":
        return (len(spec.items),)
    return None


def _shape_list(shape: Optional[Tuple[int, ...]]) -> Optional[List[int]]:
    return None if shape is None else list(shape)
