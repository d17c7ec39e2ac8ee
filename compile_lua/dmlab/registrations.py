"""Custom observations a level registers with DeepMind Lab's ``decorators.custom_observations``, on the device.

The decorator wraps ``api:customObservation(name)``: it answers a name with ``obs[name]()``, ``obs`` the table of
functions that levels register with ``addSpec(name, type, shape, callback)`` (``playsource.registered``), and any
other name with the level's own callback. A level's functions there read its locals and the game as it plays
(``game:playerInfo()``, ``game:inFov``, ``game:raycast``), so they are compiled as the level's own
``customObservation`` is: :func:`play_outline` outlines the play source with an ``api:customObservation`` that
answers each registered name as the decorator does (``if name == 'FOVTESTS' then return fovTest() end``), then
runs the level's own callback's body, if it has one. It is built from the source's ``addSpec`` calls whose
callback is a function of the source's top level or a call of one with constant arguments (``angleLook(180)``,
evaluated as the observation is asked for: such a call only makes the closure). A registered observation whose
``addSpec`` call is not of that form, or whose function is written in another file (the decorator's own
``INSTR``), stays tabulated (:func:`tabulated`).
"""
from __future__ import annotations

import dataclasses
from typing import Any, Dict, Iterable, Set, Tuple

from luaparser import ast as lua_ast
from luaparser import astnodes as n

from compile_lua.device.source import FunctionDef, Outline, outline, parse
from compile_lua.dmlab.playsource import OBSERVATION, PlaySource

#: the module levels register custom observations with, as ``require`` loads it
DECORATOR = "decorators.custom_observations"
_CONSTANTS = (n.Number, n.String, n.TrueExpr, n.FalseExpr, n.Nil)


def registrations(source: PlaySource, out: Outline) -> Dict[str, Tuple[Any, int]]:
    """Name -> (the callback's expression, the ``addSpec`` call's line) of each observation of
    ``source.observations`` whose ``addSpec`` call in the source (``out``: its outline) registers a function
    of the top level, or a call of one with constant arguments; a name registered by two calls is left out."""
    found: Dict[str, list] = {}
    for node in lua_ast.walk(parse(source.path, source.text)):
        if not (isinstance(node, n.Call) and isinstance(node.func, n.Index) and isinstance(node.func.value, n.Name)
                and out.modules.get(node.func.value.id) == DECORATOR and isinstance(node.func.idx, n.Name)
                and node.func.idx.id == "addSpec" and len(node.args) == 4 and isinstance(node.args[0], n.String)):
            continue
        name = node.args[0].s.decode("utf-8", "replace")
        if name in source.observations:
            found.setdefault(name, []).append((node.args[3], node.line))
    return {name: calls[0] for name, calls in found.items() if len(calls) == 1 and _simple(out, calls[0][0])}


def _simple(out: Outline, expr: Any) -> bool:
    """Whether ``expr`` names a top-level function or calls one with constant arguments (``-1`` too)."""
    if isinstance(expr, n.Name):
        return expr.id in out.functions
    return isinstance(expr, n.Call) and isinstance(expr.func, n.Name) and expr.func.id in out.functions and all(
        isinstance(a, _CONSTANTS) or (isinstance(a, n.UMinusOp) and isinstance(a.operand, n.Number))
        for a in expr.args)


def tabulated(source: PlaySource, names: Iterable[str]) -> Set[str]:
    """The observations of ``names`` (those the decorator answers with registered functions, after ``init``:
    the decorator registers its own there) whose functions are not compiled: written in another file than
    the source, or registered by an ``addSpec`` call :func:`registrations` leaves out."""
    out = outline(source.path, source.text, source.factory, source.api)
    return set(names) - set(registrations(source, out))


def play_outline(source: PlaySource) -> Outline:
    """The outline of ``source`` (``compile_lua.device.source.outline``), its ``api:customObservation`` answering
    the observations the level registers (:func:`registrations`) as the decorator does."""
    out = outline(source.path, source.text, source.factory, source.api)
    found = registrations(source, out) if source.observations else {}
    if not found:
        return out
    own = out.methods.get(OBSERVATION)
    param = own.params[1] if own is not None and len(own.params) > 1 else "name"
    answers = [n.If(n.EqToOp(n.Name(param), n.String(name.encode("utf-8"), repr(name))),
                    n.Block([n.Return([n.Call(expr, [])])]), None) for name, (expr, _) in found.items()]
    line = min(line for _, line in found.values())
    method = FunctionDef(f"{out.api}:{OBSERVATION}", ["self", param], n.Block(answers + (own.body.body if own else [])),
                         own.line if own else line, max([f.after for f in out.functions.values()] + [0]))
    return dataclasses.replace(out, methods={**out.methods, OBSERVATION: method})
