"""Which DMLab callbacks depend on play, found in the play source (``compile_lua.dmlab.playtime`` compiles them).

A callback depends on play when it reads or writes a variable (a top-level local, a field of ``api``/``self``)
that a play-time callback (``pickup``, ``canPickup``, ``hasEpisodeFinished``, ``customObservation``,
``screenMessages``, the hooks of :mod:`compile_lua.dmlab.hooks`, or a function they call) assigns, or reads the
game's clock or player (``game:episodeTimeSeconds()``, ``game:playerInfo()``). A call of an api function that
another file set (a decorator's ``api.setInstruction(text)``) writes the variables that function assigns
(``compile_lua.device.upvalues``: ``setters``), as if the caller assigned them.
"""
from __future__ import annotations

import dataclasses
from typing import Dict, List, Mapping, Set

from luaparser import ast as lua_ast
from luaparser import astnodes as n

from compile_lua.device.source import FunctionDef, Outline, reject, written
from compile_lua.dmlab.episode import SCREEN
from compile_lua.dmlab.hooks import HOOKS, PLAYER_ID

#: callbacks jaxlab compiles onto the device when they depend on play, with example arguments
COMPILED = {"canPickup": (0, PLAYER_ID), "pickup": (0, PLAYER_ID), "hasEpisodeFinished": (0.0,),
            "customObservation": ("",), "screenMessages": (SCREEN,)}
#: compiled callbacks that may read the play state but not change it
READ_ONLY = ("canPickup", "customObservation", "screenMessages")
#: what a callback reads of the game as it plays (``game:<name>()``): it depends on play
ENGINE_READS = ("episodeTimeSeconds", "playerInfo", "inFov", "raycast", "renderCustomView")
#: DMLab's play-time callbacks (tabulated unless compiled; the hooks always compiled)
PLAY = ("pickup", "canPickup", "hasEpisodeFinished", "customObservation", "screenMessages") + HOOKS


def reachable(out: Outline, name: str) -> List[FunctionDef]:
    """The api method ``name`` and every top-level function or api method it calls, transitively."""
    found: Dict[str, FunctionDef] = {}
    todo = [out.methods[name]]
    while todo:
        f = todo.pop()
        if f.name in found:
            continue
        found[f.name] = f
        for node in lua_ast.walk(f.body):
            if isinstance(node, n.Name) and node.id in out.functions:
                todo.append(out.functions[node.id])
            elif isinstance(node, n.Invoke) and isinstance(node.func, n.Name) and node.func.id in out.methods:
                todo.append(out.methods[node.func.id])
            elif isinstance(node, n.Index) and isinstance(node.idx, n.Name) and node.idx.id in out.methods \
                    and isinstance(node.value, n.Name) and node.value.id in ("self", out.api):
                todo.append(out.methods[node.idx.id])
    return list(found.values())


def touched_keys(out: Outline, fdefs: List[FunctionDef], setters: Mapping[str, Set[str]] = {}) -> Set[str]:
    """State keys (``local.<name>``, ``api.<field>``) the functions ``fdefs`` name, ``game.<name>`` for
    the game's play-time values they read (:data:`ENGINE_READS`), and the variables of the api's ``setters``
    (api field -> state keys it assigns) they name."""
    keys: Set[str] = set(_set_through(out, fdefs, setters))
    for f in fdefs:
        for node in lua_ast.walk(f.body):
            if isinstance(node, n.Invoke) and isinstance(node.source, n.Name) and isinstance(node.func, n.Name) \
                    and out.modules.get(node.source.id) == "game" and node.func.id in ENGINE_READS:
                keys.add(f"game.{node.func.id}")
            elif isinstance(node, n.Name) and node.id in out.locals:
                keys.add(f"local.{node.id}")
            elif isinstance(node, n.Index) and isinstance(node.value, n.Name) and isinstance(node.idx, n.Name) \
                    and node.value.id in ("self", out.api) and node.notation == n.IndexNotation.DOT:
                keys.add(f"api.{node.idx.id}")
    return keys


def _invoked(out: Outline, fdefs: List[FunctionDef], plain: Set[str]) -> Set[str]:
    """State keys (``api.<field>``, ``local.<name>``) of the objects whose methods the functions ``fdefs`` call
    (``self._timers:update(t)``, a tensor's element ``t(i):val(x)``): a method may change its object's data.
    ``plain``: keys that hold a string, number or boolean (``s:byte(1)`` calls a string method)."""
    keys: Set[str] = set()
    for f in fdefs:
        for node in lua_ast.walk(f.body):
            if not isinstance(node, n.Invoke):
                continue
            source = node.source
            while isinstance(source, n.Call):
                source = source.func
            if isinstance(source, n.Name) and source.id in out.locals and source.id not in out.modules \
                    and source.id != out.api:
                keys.add(f"local.{source.id}")
            elif isinstance(source, n.Index) and isinstance(source.value, n.Name) and isinstance(source.idx, n.Name) \
                    and source.value.id in ("self", out.api) and source.notation == n.IndexNotation.DOT:
                keys.add(f"api.{source.idx.id}")
    return keys - plain


def _set_through(out: Outline, fdefs: List[FunctionDef], setters: Mapping[str, Set[str]]) -> Set[str]:
    """The state keys the api's ``setters`` (api field -> the keys it assigns) write where ``fdefs`` name them."""
    keys: Set[str] = set()
    for f in fdefs:
        for node in lua_ast.walk(f.body):
            if isinstance(node, n.Index) and isinstance(node.value, n.Name) and isinstance(node.idx, n.Name) \
                    and node.value.id in ("self", out.api) and node.idx.id in setters:
                keys |= set(setters[node.idx.id])
    return keys


def play_callbacks(out: Outline, plain: Set[str] = frozenset(),
                   setters: Mapping[str, Set[str]] = {}) -> Dict[str, Set[str]]:
    """Play-time callbacks of ``out`` that depend on play, and the hooks it defines -> the play state keys
    they touch (an object's method call counts as a write to it, unless ``plain`` names its key: one holding a
    string, number or boolean; naming one of the api's ``setters``, api field -> the keys it assigns, writes
    those). Raises DeviceRejection for a callback that depends on play and is not compiled, or a read-only one
    that changes play state."""
    defined = [name for name in PLAY if name in out.methods]
    reach = {name: reachable(out, name) for name in defined}
    functions = {f.name: f for fs in reach.values() for f in fs}
    play_state = written(dataclasses.replace(out, methods={}, functions=functions))
    play_state |= _invoked(out, list(functions.values()), plain) | _set_through(out, list(functions.values()), setters)
    play_state |= {f"game.{g}" for g in ENGINE_READS}
    found = {}
    for name in defined:
        keys = touched_keys(out, reach[name], setters) & play_state
        if not keys and name not in HOOKS:
            continue
        if name not in COMPILED and name not in HOOKS:
            reject(out.path, out.methods[name].line, f"api:{name} reading play-time state ({', '.join(sorted(keys))})",
                   f"jaxlab compiles {', '.join(COMPILED)} onto the device; {name} must depend only on "
                   "what init, start and nextMap set")
        changes = {k for k in written(dataclasses.replace(out, methods={}, functions={f.name: f for f in reach[name]}))
                   if not k.startswith("local.") or k[len("local."):] in out.locals}   # not the function's own locals
        if name in READ_ONLY and changes:
            reject(out.path, out.methods[name].line, f"api:{name} changing {sorted(changes)[0]}",
                   "it is a question the engine asks, not an event; only pickup and hasEpisodeFinished may "
                   "change play-time state")
        found[name] = keys
    return found


