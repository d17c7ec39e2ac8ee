"""A level script's source as the device translator sees it: parsed with luaparser, outlined.

:func:`outline` parses a script once and finds what play time can reach: the api table (the
name the main chunk returns), the functions the script defines at its top level (``function
api:f()``, ``api.f = function``, ``local function f``, ``function f``), its top-level locals and
the modules it requires. Every node keeps its line, so :func:`reject` can say ``file:line``.
"""
from __future__ import annotations

import dataclasses
from typing import Any, Dict, List, NoReturn, Optional, Set

from luaparser import ast as lua_ast
from luaparser import astnodes as n

from compile_lua.errors import LuaScriptError

#: modules a play-time callback may use, by the name ``require`` loads them with
ENGINE_MODULES = {"dmlab.system.game": "game", "dmlab.system.random": "random", "common.random": "random",
                  "dmlab.system.tensor": "tensor", "system.random": "random", "system.tensor": "lab2d_tensor",
                  "dmlab.system.events": "events"}

#: constructs rejected wherever they appear at play time, by luaparser node type
NAMED = {n.Goto: "goto", n.Label: "a label (::name::)", n.Forin: "a generic for (for k, v in ...)",
         n.BAndOp: "bitwise and (&)",
         n.BOrOp: "bitwise or (|)", n.BXorOp: "bitwise xor (~)", n.BShiftLOp: "a shift (<<)",
         n.BShiftROp: "a shift (>>)", n.UBNotOp: "bitwise not (~)"}


#: the key of the last case of a ``KeyCases``: none of the record's numbers (the read gives nil)
NO_KEY = object()


class KeyCases(Exception):
    """Raised where a record whose keys are numbers (PsychLab's layers by number) is read at a number known only at
    play (``node``, the read; ``key``, the traced number; ``keys``, the record's numbers): the statements from
    there on run once per number, each where the key is it (``Interpreter.block``)."""

    def __init__(self, node: Any, key: Any, keys: list):
        super().__init__("key cases")
        self.node, self.key, self.keys = node, key, keys


class DeviceRejection(LuaScriptError):
    """A construct that cannot run on the device: ``file:line: <construct> cannot run on the device:
    <why>``. ``construct`` names it."""

    def __init__(self, path: str, line: Optional[int], construct: str, why: str):
        self.construct = construct
        super().__init__(path, line, f"{construct} cannot run on the device: {why}")


def reject(path: str, line: Optional[int], construct: str, why: str) -> NoReturn:
    """Raise :class:`DeviceRejection` at ``path:line``."""
    raise DeviceRejection(path, line, construct, why)


@dataclasses.dataclass
class FunctionDef:
    """A function the script defines at its top level: ``name`` (``api:pickup``, ``helper``),
    ``params`` (names; ``self`` first for a method), ``body`` (luaparser Block), ``line``,
    ``after`` (index of the top-level statement that defines it: locals declared later are not
    its upvalues)."""

    name: str
    params: List[str]
    body: n.Block
    line: int
    after: int


@dataclasses.dataclass
class Outline:
    """What a script defines at its top level.

    ``api``: the name of the table the main chunk returns (None if it returns no name);
    ``methods``: field -> FunctionDef for functions stored in the api table; ``functions``:
    name -> FunctionDef for local and global functions; ``locals``: name -> (statement index,
    line) of top-level locals; ``modules``: local name -> engine module kind (``game``,
    ``random``) or the required module's name when it is not an engine module."""

    path: str
    api: Optional[str]
    methods: Dict[str, FunctionDef]
    functions: Dict[str, FunctionDef]
    locals: Dict[str, tuple]
    modules: Dict[str, str]
    globals: Set[str]
    text: str = ""   # the source text (where a function kept in play-time state is found again)


def parse(path: str, text: str) -> n.Chunk:
    """The luaparser tree of ``text``; a syntax error becomes LuaScriptError at ``path``."""
    try:
        return lua_ast.parse(text)
    except Exception as e:   # noqa: BLE001 - luaparser raises several kinds of syntax errors
        raise LuaScriptError(path, getattr(e, "line", None), f"cannot parse the script: {e}") from None


def outline(path: str, text: str, factory: Optional[str] = None, api: Optional[str] = None) -> Outline:
    """Parse ``text`` (the script at ``path``) and outline its top level (see :class:`Outline`). A script
    that returns a function (a Lab2D level factory) is outlined as its top level followed by that
    function's body, whose parameters count as top-level locals: the api it makes is what plays.
    ``factory``: ``text`` is a module whose function of that name (``function M.<factory>(...)``, a
    DMLab level factory such as ``createLevelApi``) makes the api: the module is outlined as its top level
    (its final ``return`` left out) followed by that function's body, the same way. ``api``: the name of
    the top-level local table that stands for the api (a module's own table that the api's callbacks
    hand their work to), instead of the name the chunk returns."""
    body = parse(path, text).body.body
    body, params = _module_factory_chunk(path, body, factory) if factory else _factory_chunk(body)
    out = Outline(path, None, {}, {}, {}, {}, set(), text)
    for param in params:
        out.locals[param.id] = (len(body), getattr(param, "line", None))
    if api is not None:
        out.api = api
    elif body and isinstance(body[-1], n.Return) and len(body[-1].values) == 1 \
            and isinstance(body[-1].values[0], n.Name):
        out.api = body[-1].values[0].id
    for i, stmt in enumerate(body):
        if isinstance(stmt, n.LocalAssign):
            for j, target in enumerate(stmt.targets):
                if target.id in out.locals or target.id in out.functions:
                    out.locals[target.id] = (i, stmt.line, "twice")
                else:
                    out.locals[target.id] = (i, stmt.line)
                value = stmt.values[j] if j < len(stmt.values) else None
                module = _required(value)
                if module is not None:
                    out.modules[target.id] = ENGINE_MODULES.get(module, module)
                elif isinstance(value, n.AnonymousFunction):
                    out.functions[target.id] = _define(target.id, value.args, value.body, stmt.line, i, path)
        elif isinstance(stmt, n.LocalFunction):
            out.locals[stmt.name.id] = (i, stmt.line)
            out.functions[stmt.name.id] = _define(stmt.name.id, stmt.args, stmt.body, stmt.line, i, path)
        elif isinstance(stmt, n.Method) and isinstance(stmt.source, n.Name) and stmt.source.id in (out.api, None):
            out.methods[stmt.name.id] = _define(f"{stmt.source.id}:{stmt.name.id}", [n.Name("self")] + list(stmt.args),
                                                stmt.body, stmt.line, i, path)
        elif isinstance(stmt, n.Function):
            if isinstance(stmt.name, n.Name):
                out.functions[stmt.name.id] = _define(stmt.name.id, stmt.args, stmt.body, stmt.line, i, path)
                out.globals.add(stmt.name.id)
            elif isinstance(stmt.name, n.Index) and isinstance(stmt.name.idx, n.Name):
                out.methods[stmt.name.idx.id] = _define(_dotted(stmt.name), stmt.args, stmt.body, stmt.line, i, path)
        elif isinstance(stmt, n.Assign):
            for j, target in enumerate(stmt.targets):
                value = stmt.values[j] if j < len(stmt.values) else None
                if isinstance(target, n.Index) and isinstance(target.value, n.Name) \
                        and isinstance(target.idx, n.Name) and target.notation == n.IndexNotation.DOT \
                        and isinstance(value, n.AnonymousFunction):
                    out.methods[target.idx.id] = _define(_dotted(target), value.args, value.body, stmt.line, i, path)
                elif isinstance(target, n.Name):
                    out.globals.add(target.id)
    return out


def _factory_chunk(body: List[Any]) -> tuple:
    """``(statements, parameters)`` of the chunk whose api plays: for a chunk ending in ``return
    function(...) ... end`` (or ``return f``, ``f`` a function it defines at its top level), its other
    statements then the function's body, and the function's parameters; else ``(body, [])``."""
    last = body[-1] if body else None
    if not isinstance(last, n.Return) or len(last.values) != 1:
        return body, []
    made = last.values[0]
    if isinstance(made, n.Name):
        made = next((s for s in body[:-1] if isinstance(s, (n.LocalFunction, n.Function))
                     and isinstance(s.name, n.Name) and s.name.id == made.id), None)
    if not isinstance(made, (n.AnonymousFunction, n.LocalFunction, n.Function)):
        return body, []
    return body[:-1] + list(made.body.body), [a for a in made.args if isinstance(a, n.Name)]


def _module_factory_chunk(path: str, body: List[Any], factory: str) -> tuple:
    """``(statements, parameters)`` of a module whose top-level ``function M.<factory>(...)`` (or
    ``M.<factory> = function(...)``) makes the api: the module's other statements but its last
    ``return``, then the function's body, and the function's parameters. Rejects a module without it."""
    def made(stmt):
        if isinstance(stmt, n.Function) and isinstance(stmt.name, n.Index) and isinstance(stmt.name.idx, n.Name) \
                and stmt.name.idx.id == factory:
            return stmt
        if isinstance(stmt, n.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], n.Index) \
                and isinstance(stmt.targets[0].idx, n.Name) and stmt.targets[0].idx.id == factory \
                and len(stmt.values) == 1 and isinstance(stmt.values[0], n.AnonymousFunction):
            return stmt.values[0]
        return None
    found = [(i, made(stmt)) for i, stmt in enumerate(body) if made(stmt) is not None]
    if len(found) != 1:
        reject(path, None, f"the level factory {factory}", "the module does not define it once at its top level "
               f"(`function M.{factory}(...)`)")
    i, fn = found[0]
    rest = body[:i] + body[i + 1:]
    if rest and isinstance(rest[-1], n.Return):
        rest = rest[:-1]
    return rest + list(fn.body.body), [a for a in fn.args if isinstance(a, n.Name)]


def _dotted(node: n.Index) -> str:
    return f"{node.value.id}.{node.idx.id}"


def _define(name, args, body, line, index, path) -> FunctionDef:
    return FunctionDef(name, parameters(args), body, line, index)


#: the parameter name a function's ``...`` is bound to (its extra arguments, a :class:`VarArgs`)
VARARGS = "..."


class VarArgs(tuple):
    """The extra arguments a function of ``...`` was called with (the values ``...`` expands to)."""


def parameters(args: List[Any]) -> List[str]:
    """The parameter names of a luaparser function's ``args``: ``...`` (Lua's varargs, always last) as
    :data:`VARARGS`."""
    return [VARARGS if isinstance(a, n.Varargs) else a.id for a in args]


def _required(value) -> Optional[str]:
    """The module name of ``require 'name'`` / ``require('name')``; None for anything else."""
    if isinstance(value, n.Call) and isinstance(value.func, n.Name) and value.func.id == "require" \
            and len(value.args) == 1 and isinstance(value.args[0], n.String):
        return value.args[0].s.decode("utf-8", "replace")
    return None


def written(out: Outline) -> Set[str]:
    """``local.<name>`` and ``api.<field>`` of every variable or api/self field some function of the script
    assigns (``x = ...``, ``api.f = ...``, ``t[i] = ...`` writes ``t``). The others keep their start value
    through play and are constants of the translation."""
    names: Set[str] = set()
    for f in list(out.methods.values()) + list(out.functions.values()):
        for node in lua_ast.walk(f.body):
            if isinstance(node, n.Assign):
                for t in node.targets:
                    while isinstance(t, n.Index) and not (isinstance(t.value, n.Name) and t.value.id in
                                                          ("self", out.api) and t.notation == n.IndexNotation.DOT):
                        t = t.value
                    if isinstance(t, n.Name):
                        names.add(f"local.{t.id}")
                    elif isinstance(t, n.Index):
                        names.add(f"api.{t.idx.id}")
    return names


def why_rejected(node: Any) -> str:
    """Why a construct of :data:`NAMED` cannot run on the device."""
    if isinstance(node, (n.Goto, n.Label)):
        return "jumps have no fixed-shape form"
    if isinstance(node, n.Forin):
        return "iterators (pairs, next, functions) walk tables whose keys are not fixed; use ipairs or a numeric for"
    return "jaxlab's kernels have no integer bit operations on Lua numbers"
