"""Where a level's play-time callbacks are written: the script itself, or the factory module that made its api.

DeepMind Lab's level scripts are mostly one line, ``return factory.createLevelApi{...}``: the api and
its callbacks are closures made inside a factory module (``factories/*.lua``), whose locals and the
factory's arguments are their play-time state and constants. The device translator reads one
source: :func:`play_source` finds which, from where the api's live callback functions are written
(``Sandbox.defined_at``): the script, or the module that writes most of them, with the top-level
function of that module whose body holds them (the factory, spliced in by
``compile_lua.device.source.outline(..., factory=...)``).
"""
from __future__ import annotations

import dataclasses
from typing import Any, Dict, Optional, Sequence, Tuple

from luaparser import astnodes as n
from lupa.lua54 import lua_type

from compile_lua.device.source import parse
from compile_lua.loading import LoadedScript

#: the callback a decorator may answer with functions the level registers (:func:`registered`)
OBSERVATION = "customObservation"


@dataclasses.dataclass(frozen=True)
class PlaySource:
    """The Lua text the translator outlines: ``path`` (its display path, for messages), ``text``,
    ``factory`` (the name of the module's function that makes the api, or None for the script), and,
    when the api's callbacks hand their work to a module's own table (:func:`delegate`), ``api`` (that
    table's local name in the module) and ``table`` (the host table). ``observations``: the custom
    observations a decorator answers with functions the level registered (:func:`registered`) that are
    written in this source."""

    path: str
    text: str
    factory: Optional[str] = None
    api: Optional[str] = None
    table: Any = dataclasses.field(default=None, compare=False)
    observations: Tuple[str, ...] = ()


def _enclosing_function(path: str, text: str, line: int) -> Optional[str]:
    """The name of the top-level ``function M.name(...)`` of the module ``text`` whose body holds ``line``."""
    body = parse(path, text).body.body
    starts = [getattr(stmt, "line", None) or 0 for stmt in body] + [float("inf")]
    for stmt, first, following in zip(body, starts, starts[1:]):
        if first <= line < following and isinstance(stmt, n.Function) and isinstance(stmt.name, n.Index) \
                and isinstance(stmt.name.idx, n.Name):
            return stmt.name.idx.id
    return None


def wrapped_callback(sandbox, name: str, func):
    """The callback a decorator's wrapper ``func`` (the api's live ``name``) stands around: DMLab's
    decorators keep it in a local of the callback's name (``local hasEpisodeFinished =
    api.hasEpisodeFinished``) and call it from the wrapper, written in another file. Followed through
    wrappers around wrappers; ``func`` itself when it wraps none."""
    seen = set()
    while id(func) not in seen:
        seen.add(id(func))
        here = sandbox.defined_at(func)
        inner = sandbox.upvalues(func).get(name)
        there = sandbox.defined_at(inner) if lua_type(inner) == "function" else None
        if here is None or there is None or there[1] == here[1]:
            return func
        func = inner
    return func


def registered(sandbox, api, name: str) -> Dict[str, Any]:
    """The functions a decorator's wrapper answers the callback ``name`` with, by its argument: DMLab's
    ``decorators.custom_observations`` answers ``api:customObservation(obs_name)`` with ``obs[obs_name]()``,
    ``obs`` a table of the functions levels register (``addSpec``) among the wrapper's upvalues. Argument
    -> function, from the one upvalue table but ``api`` (of its callback or the wrappers that stands around,
    :func:`wrapped_callback`) whose keys are all strings and values all Lua functions, some written in
    another file than the function holding it; {} when none or several."""
    found, seen, func = [], set(), api[name] if lua_type(api) == "table" else None
    while lua_type(func) == "function" and id(func) not in seen:
        seen.add(id(func))
        here = (sandbox.defined_at(func) or (None,))[0]
        for value in sandbox.upvalues(func).values():
            if lua_type(value) != "table" or sandbox.same(value, api):
                continue
            _, count, keys, values, _ = sandbox._p.entries(value)
            entries = {keys[i]: values[i] for i in range(1, count + 1)}
            if entries and all(isinstance(k, str) and lua_type(v) == "function" for k, v in entries.items()) \
                    and any((sandbox.defined_at(v) or (here,))[0] != here for v in entries.values()):
                found.append(entries)
        func = sandbox.upvalues(func).get(name)
    return found[0] if len(found) == 1 else {}


def delegate(sandbox, name: str, func) -> Optional[Tuple[Any, Any, str]]:
    """Where the api's callback ``func`` (its ``name``) hands its work: DMLab's explore factory answers
    ``api:pickup(id)`` with ``kwargs.level:pickup(id)``, a method of a table written in another module.
    ``(table, its method, the table's local name in that module)`` for the table among ``func``'s
    upvalues (or their fields) whose ``name`` is a function written in another file that names the table
    by a local of its module; None when there is none (or several)."""
    here = sandbox.defined_at(func)
    if here is None:
        return None
    found = []
    for value in sandbox.upvalues(func).values():
        if lua_type(value) != "table":
            continue
        for table in [value] + [v for v in value.values() if lua_type(v) == "table"]:
            method = sandbox.field(table, name)
            there = sandbox.defined_at(method) if lua_type(method) == "function" else None
            if there is None or there[1] == here[1]:
                continue
            names = [k for k, v in sandbox.upvalues(method).items() if sandbox.same(v, table)]
            if len(names) == 1 and not any(sandbox.same(t, table) for t, _, _ in found):
                found.append((table, method, names[0]))
    return found[0] if len(found) == 1 else None


def play_source(loaded: LoadedScript, callbacks: Sequence[str]) -> PlaySource:
    """The source of ``loaded``'s api callbacks named in ``callbacks`` that the api defines: the script
    when it writes them (or none is a Lua function of a file), else the module that writes most of them
    (the script's own first on a tie; a decorator's wrapper counts for the callback it wraps,
    :func:`wrapped_callback`), outlined through the factory function around them."""
    sb = loaded.sandbox
    script = PlaySource(str(sb.script), loaded.path.read_text(encoding="utf-8"))
    api = loaded.returned
    if lua_type(api) != "table":
        return script
    counts = {}
    for name in callbacks:
        if lua_type(api[name]) != "function":
            continue
        func = wrapped_callback(sb, name, api[name])
        handed = delegate(sb, name, func)
        at = sb.defined_at(handed[1] if handed else func)
        if name == OBSERVATION:
            table = registered(sb, api, name)
            level = [f for f in table.values() if (sb.defined_at(f) or (None,))[0] == script.path]
            if level and at is not None and at[0] != script.path:   # the decorator answers with the script's functions
                at = sb.defined_at(level[0])
        if at is not None:
            display, real, first, _ = at
            entry = counts.setdefault((display, handed[2] if handed else None), [0, real, first, handed])
            entry[0] += 1
    if not counts:
        return script
    best = max(counts, key=lambda d: (counts[d][0], d == (script.path, None)))
    table = registered(sb, api, OBSERVATION)
    observations = {"observations": tuple(k for k, f in table.items() if (sb.defined_at(f) or (None,))[0] == best[0])}
    if best == (script.path, None):
        return dataclasses.replace(script, **observations)
    _, real, first, handed = counts[best]
    text = real.read_text(encoding="utf-8")
    if handed:
        return PlaySource(best[0], text, None, handed[2], handed[0], **observations)
    return PlaySource(best[0], text, _enclosing_function(best[0], text, first), **observations)
