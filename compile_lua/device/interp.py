"""The translator's core: runs a callback's Lua tree at JAX trace time, over translator values.

Both arms of an ``if`` on a traced condition run, each on its own copy of the locals, the state, the effects
and the key, and are merged by ``jnp.where`` (:func:`compile_lua.device.values.select`). A ``return`` or
``break`` on a traced path clears a traced "still running" flag, and every later write is predicated on it.
Loops are unrolled while their condition is known at translation time (a numeric ``for`` with static bounds, a
``while``/``repeat`` false within ``iteration.MAX_UNROLL`` iterations); the script's functions are inlined, and so are
the host's functions and the closures a callback makes (``compile_lua.device.host_values``).
"""
from __future__ import annotations

from typing import Any, Dict, List

import jax.numpy as jnp
from luaparser import astnodes as n

from compile_lua.device import conversions, host_objects, host_values, iteration, ops, records, user_state
from compile_lua.device.calls import Calls
from compile_lua.device.grid_values import PieceRecord
from compile_lua.device.host_values import HostTable, UpvalueScope
from compile_lua.device.iteration import Loops
from compile_lua.device.maybe_tables import MaybeTable, table_of
from compile_lua.device.ops import land
from compile_lua.device.source import (ENGINE_MODULES, NAMED as _NAMED, VARARGS, NO_KEY, DeviceRejection, KeyCases,
                                      Outline, reject, why_rejected as _why)
from compile_lua.device.number_bounds import constant_key
from compile_lua.device.values import API, Arr, Keyed, as_num, flag_select, held, lua_type, select

_ARITH = {n.AddOp: "+", n.SubOp: "-", n.MultOp: "*", n.FloatDivOp: "/", n.FloorDivOp: "//", n.ModOp: "%", n.ExpoOp: "^"}
_ORDER = {n.LessThanOp: ("<", False), n.LessOrEqThanOp: ("<=", False), n.GreaterThanOp: ("<", True),
          n.GreaterOrEqThanOp: ("<=", True)}


class Interpreter(Calls, Loops):
    """Runs one callback at trace time. ``env`` (a :class:`compile_lua.device.translate.Env`) holds the
    state, effects, key, inputs and string table; builtins come from ``env.builtins``."""

    def __init__(self, outline: Outline, env: Any):
        self.o, self.env, self.path, self.line = outline, env, outline.path, None
        self.scopes: List[Dict[str, Any]] = []
        self.outer: List[List[Dict[str, Any]]] = []   # the scopes of the functions that called this one
        self.ret, self.ret_live, self.loop_live, self.guard, self.stack = None, True, True, True, []
        self.free_globals = False   # inside a host function: names not in scope are globals
        self.demand_scale = 1   # pieces a createPiece here counts for: more inside a rolled loop (``rolled``)
        self.replaced = None   # (state key, fields' path) of a table of the state the running write replaces
        self.cases: Dict[int, Any] = {}   # id of a read at a traced key -> the number of the case running

    # -- errors, flags, snapshots ------------------------------------------------------------------------

    def fail(self, construct: str, why: str, node: Any = None):
        """Reject ``construct`` at the current line (or ``node``'s)."""
        reject(self.path, getattr(node, "line", None) or self.line, construct, why)

    def failer(self, construct: str):
        """A ``fail(why)`` for helpers that name only the reason."""
        return lambda why: self.fail(construct, why)

    def live(self) -> Any:
        """Whether the current path still runs (False once it returned or broke out)."""
        return land(self.guard, land(self.ret_live, self.loop_live))

    def snapshot(self) -> Dict[str, Any]:
        """Everything an ``if`` arm may change, copied."""
        return {"scopes": [dict(s) for s in self.scopes], "ret": self.ret, "ret_live": self.ret_live,
                "loop_live": self.loop_live, **self.env.snapshot()}

    def restore(self, snap: Dict[str, Any]) -> None:
        """Continue from ``snap`` (its dicts are copied again)."""
        self.scopes = [dict(s) for s in snap["scopes"]]
        self.ret, self.ret_live, self.loop_live = snap["ret"], snap["ret_live"], snap["loop_live"]
        self.env.restore(snap)

    def branch(self, c: Any, then, otherwise, statements: bool = False) -> None:
        """Run ``then()`` where the traced flag ``c`` holds and ``otherwise()`` where not; merge. ``statements``:
        the arms are statements (an ``if``'s), which make no value the caller reads."""
        start = self.snapshot()
        self._arm(then, start, statements)
        a = self.snapshot()
        self.restore(start)
        self._arm(otherwise, start, statements)
        self.restore(self.merged(c, a, self.snapshot()))

    def _arm(self, run, start: Dict[str, Any], statements: bool) -> None:
        """Run one arm of a branch; while the translation settles, an arm of statements that stops leaves things
        as they were at ``start`` and the trace goes on (``Translation.deferred``: the stop is reported if it is
        still met once the state has stopped changing)."""
        try:
            run()
        except DeviceRejection as why:
            if not (statements and self.env.tr.settling):
                raise
            for key in sorted(self.env.unsettled):   # the lists the arm built keep their kinds
                if key in self.env.state:
                    self.env.settled_kind(self, key, self.env.state[key])
            self.env.tr.deferred = self.env.tr.deferred or why
            self.restore(start)

    def merged(self, c: Any, a: Dict[str, Any], b: Dict[str, Any]) -> Dict[str, Any]:
        """The snapshot of two paths' snapshots ``a`` (where traced ``c`` holds) and ``b`` (where not), merged."""
        sel = self.merger(c, a, b)
        merged = {"scopes": [{k: sel(sa[k], sb[k]) for k in sa if k in sb}
                             for sa, sb in zip(a["scopes"], b["scopes"])],
                  "ret_live": flag_select(c, a["ret_live"], b["ret_live"]),
                  "loop_live": flag_select(c, a["loop_live"], b["loop_live"])}
        if a["ret"] is None or b["ret"] is None:
            merged["ret"] = a["ret"] if b["ret"] is None else b["ret"]
        elif len(a["ret"]) != len(b["ret"]):
            self.fail("a function returning different numbers of values", "each path must return as many")
        else:
            merged["ret"] = [sel(x, y) for x, y in zip(a["ret"], b["ret"])]
        merged.update(self.env.merge(c, sel, a, b))
        return merged

    def merger(self, c: Any, a: Dict[str, Any], b: Dict[str, Any]):
        """select(c, x, y) where a nil on a path that has ended gives way to the other value."""
        dead_a = land(a["ret_live"], a["loop_live"]) is False
        dead_b = land(b["ret_live"], b["loop_live"]) is False

        def sel(x, y):
            if x is None and dead_a:
                return y
            if y is None and dead_b:
                return x
            return select(c, x, y, self.env.intern, self.failer("a value merged from two paths"))
        return sel

    # -- names ------------------------------------------------------------------------------------------

    def lookup(self, name: str, node: Any) -> Any:
        """The value of ``name``: a local, a top-level local (state, function, module), a global."""
        for scope in reversed(self.scopes):
            if name in scope:
                return self.env.upvalue(scope, name) if isinstance(scope, UpvalueScope) else scope[name]
        if self.free_globals:
            return self.env.builtins.global_value(self, name, node)
        if name in self.o.locals or name in self.o.functions:
            if name == self.o.api:
                return API
            if name in self.o.modules and (self.o.modules[name] in ENGINE_MODULES.values() or
                                           host_objects.object_at(self.env.tr, f"local.{name}") is None):
                return self.env.builtins.module(self, self.o.modules[name], name)
            if name in self.o.functions:
                return self.o.functions[name]
            if f"local.{name}" in self.env.state:
                return held(self.env.state[f"local.{name}"], f"local.{name}")
            return host_objects.top_level_local(self, name, node)
        return self.env.builtins.global_value(self, name, node)

    def assign_name(self, name: str, value: Any, node: Any) -> None:
        for scope in reversed(self.scopes):
            if name in scope:
                if isinstance(scope, UpvalueScope) and scope.cells.get(name) in self.env.tr.layout:
                    return self.env.write(self, scope.cells[name], value)   # a decorator's local play changes
                if isinstance(scope, UpvalueScope):
                    self.fail(f"assigning the upvalue '{name}' of a function made on the host", "play-time state "
                              "lives in the api's fields (self.x = ...) or in a local that an api function "
                              "written in another file (a decorator's setter) assigns", node)
                scope[name] = self.predicated(value, scope[name])
                return
        if self.free_globals:
            self.fail(f"assigning the global '{name}'", "play-time state lives in the api's fields", node)
        if f"local.{name}" in self.env.state:
            self.env.write(self, f"local.{name}", value)
            return
        what = "a global variable" if name not in self.o.locals else f"the top-level local '{name}'"
        self.fail(f"assigning {what} ('{name}')" if "global" in what else f"assigning {what}",
                  "play-time state must be a top-level local or an api field that holds a number, boolean, "
                  "string or fixed table when the script has loaded", node)

    def predicated(self, new: Any, old: Any) -> Any:
        """``new`` where the path still runs, ``old`` elsewhere."""
        live = self.live()
        if live is True or (old is None and land(self.ret_live, self.loop_live) is True):
            return new
        return select(live, new, old, self.env.intern, self.failer("an assignment after a traced return"))

    # -- statements -------------------------------------------------------------------------------------

    def block(self, stmts: List[Any], scope: Dict[str, Any] = None, finals: Dict[str, Any] = None) -> None:
        """Run statements in a new scope, stopping where every path has returned or broken out; ``finals``
        (a dict) gets the scope's last values (an ``if`` inside replaces the scope's dict with merged copies)."""
        self.scopes.append(scope if scope is not None else {})
        try:
            self._statements(stmts)
        finally:
            if finals is not None:
                finals.update(self.scopes[-1])
            self.scopes.pop()

    def _statements(self, stmts: List[Any]) -> None:
        """Run ``stmts`` in the current scope; from a read of a record at a number known only at play
        (``KeyCases``), the rest runs once per number the record has, each where the key is that number, and once
        where it is none of them (the read gives nil)."""
        for i, stmt in enumerate(stmts):
            if self.live() is False:
                break
            self.line = getattr(stmt, "line", None) or self.line
            start = self.snapshot()
            try:
                self.statement(stmt)
            except KeyCases as cases:
                self.restore(start)
                return self._cases(cases, stmts[i:], 0)
        return None

    def _cases(self, cases: KeyCases, rest: List[Any], k: int) -> None:
        """The case of the record's ``k``-th number, else the later ones; past the last, the read gives nil."""
        number = cases.keys[k] if k < len(cases.keys) else NO_KEY
        self.cases[id(cases.node)] = number
        try:
            if number is NO_KEY:
                return self._statements(rest)
            self.branch(as_num(cases.key).x == number, lambda: self._statements(rest),
                        lambda: self._cases(cases, rest, k + 1), statements=True)
        finally:
            self.cases.pop(id(cases.node), None)
        return None

    def statement(self, s: Any) -> None:
        if isinstance(s, n.Forin):
            return iteration.forin(self, s)
        if isinstance(s, n.LocalFunction):
            self.scopes[-1][s.name.id] = None
            self.scopes[-1][s.name.id] = self.closure(s)
            return None
        if isinstance(s, (n.Function, n.Method)):
            return self.assign(s.name if isinstance(s, n.Function) else n.Index(s.name, s.source), self.closure(s))
        if type(s) in _NAMED:
            self.fail(_NAMED[type(s)], _why(s), s)
        if isinstance(s, n.LocalAssign):
            values = self.expressions(s.values, len(s.targets))
            for t, v in zip(s.targets, values):
                if isinstance(v, Arr) and v.owner is None:
                    v = Arr(v.x, f"local {t.id}", v.static)
                self.scopes[-1][t.id] = v
        elif isinstance(s, n.Assign):
            values = self.expressions(s.values, len(s.targets))
            for t, v in zip(s.targets, values):
                self.assign(t, v)
        elif isinstance(s, (n.Call, n.Invoke)):
            self.call(s)
        elif isinstance(s, (n.If, n.ElseIf)):
            self.if_(s)
        elif isinstance(s, n.Fornum):
            self.fornum(s)
        elif isinstance(s, (n.While, n.Repeat)):
            self.loop(s)
        elif isinstance(s, n.Return):
            values = self.expressions(s.values, None)
            here = land(self.ret_live, self.loop_live)
            self.ret = values if here is True or self.ret is None else \
                [select(here, v, r, self.env.intern, self.failer("return")) for v, r in zip(values, self.ret)]
            self.ret_live = False
        elif isinstance(s, n.Break):
            if not self.stack or self.stack[-1] != "loop":
                self.fail("break", "there is no loop to leave", s)
            self.loop_live = False
        elif isinstance(s, n.Do):
            self.block(s.body.body)
        elif not isinstance(s, n.SemiColon):
            self.fail(f"the statement {type(s).__name__}", "the translator does not know it", s)

    def assign(self, target: Any, value: Any, writeback: bool = False) -> None:
        """``target = value``; ``writeback``: a record a field's write made, written back along ``t.a.b = v``."""
        if not isinstance(target, (n.Name, n.Index)):
            self.fail("this assignment", "its target is not a name or a table field", target)
        if isinstance(target, n.Index) and not writeback and self.appended(target, value):
            return
        table, key = (None, target.id) if isinstance(target, n.Name) else (self.expression(target.value),
                                                                           self.key(target))
        if constant_key(key) is not None and isinstance(table_of(table), dict):   # a number or nil: Lua stops
            key = constant_key(key)                                                # where it is nil
        if not writeback and isinstance(value, dict):   # a table of the state replaced by another
            self.replaced = records.placed_at(self, target, table, key)
        if isinstance(target, n.Name):
            return self.assign_name(target.id, value, target)
        if table is API:
            return self.env.write(self, f"api.{key}", value)
        if isinstance(table, PieceRecord):   # a piece's user state: a table kept per piece
            return user_state.set_field(self, table, key, value, target)
        if isinstance(table, HostTable) and isinstance(key, str):   # a field of an object kept on the host
            return self.env.write(self, host_values.state_key(table, key), value)
        if isinstance(table, HostTable) and table.kind is None and isinstance(target.value, n.Index):
            table = self.env.kept_table(self, self.expression(target.value.value), self.key(target.value), table)
        if isinstance(table, Keyed) and not table.x.size and (isinstance(key, str) or (
                isinstance(key, int) and not isinstance(key, bool) and lua_type(value) == "table")):
            table = {}   # an empty table written at names, or tables at integers: a record (``layouts.widened``)
        if isinstance(table, (Arr, Keyed)):
            owner = target.value.id if isinstance(target.value, n.Name) else None
            field = target.value.idx.id if isinstance(target.value, n.Index) else None
            names = {f"local {owner}", f"local.{owner}", f"api.{field}"}
            if field is not None and isinstance(base := self.expression(target.value.value), HostTable):
                names.add(host_values.state_key(base, field))   # a table kept in a host object's field
            if table.owner not in names:
                self.fail("writing a table through a second name", "a table may only be written through the "
                          "name that holds it (Lua tables are shared references)", target)
            return self.assign(target.value, self.env.builtins.set_item(self, table, key, value), True)
        if isinstance(table, MaybeTable):   # a table that may be nil: its fields (Lua stops on nil; here it is kept)
            new = records.set_field(self, table.value, key, value, target)
            return self.assign(target.value, MaybeTable(new, table.present), True)
        return self.assign(target.value, records.set_field(self, table, key, value, target), True)

    def key(self, node: n.Index) -> Any:
        """The key of ``t.k`` (a str) or ``t[k]`` (a value)."""
        if node.notation == n.IndexNotation.DOT:
            return node.idx.id
        return self.expression(node.idx)

    def if_(self, s: Any) -> None:
        c = ops.truthy(self.expression(s.test))
        if c is True:
            return self.block(s.body.body)
        rest = (lambda: self.statement(s.orelse)) if isinstance(s.orelse, n.ElseIf) else \
            (lambda: self.block(s.orelse.body)) if s.orelse is not None else (lambda: None)
        if c is False:
            return rest()
        self.branch(c, lambda: (ops.narrow(self, s.test), self.block(s.body.body)), rest, statements=True)

    # -- expressions ------------------------------------------------------------------------------------

    def expressions(self, nodes: List[Any], want: Any) -> List[Any]:
        """Lua's multiple values: the last expression (a call) may give several; pad with nil to ``want``."""
        out: List[Any] = []
        for i, node in enumerate(nodes):
            if i == len(nodes) - 1 and isinstance(node, (n.Call, n.Invoke)):
                out.extend(self.call(node))
            elif i == len(nodes) - 1 and isinstance(node, (n.Varargs, n.Dots)):
                out.extend(self.lookup(VARARGS, node))
            else:
                out.append(self.expression(node))
        if want is not None:
            out = (out + [None] * want)[:want]
        return out

    def expression(self, e: Any) -> Any:
        """The value of one expression (the first, for a call)."""
        if type(e) in _NAMED:
            self.fail(_NAMED[type(e)], _why(e), e)
        if isinstance(e, n.Number):
            return e.n
        if isinstance(e, n.String):
            return e.s.decode("utf-8", "replace")
        if isinstance(e, (n.TrueExpr, n.FalseExpr)):
            return isinstance(e, n.TrueExpr)
        if isinstance(e, n.Nil):
            return None
        if isinstance(e, n.Name):
            return self.lookup(e.id, e)
        if isinstance(e, n.Index):
            return self.env.builtins.index(self, self.expression(e.value), self.key(e), e)
        if isinstance(e, (n.Call, n.Invoke)):
            values = self.call(e)
            return values[0] if values else None
        if type(e) in _ARITH:
            a, b = self.expression(e.left), self.expression(e.right)
            if a is None or b is None:   # Lua stops: "attempt to perform arithmetic on a nil value"
                conversions.lua_error(self)
                return 0
            return ops.arith(_ARITH[type(e)], a, b, self.failer(f"'{_ARITH[type(e)]}'"))
        if type(e) in _ORDER:
            op, swap = _ORDER[type(e)]
            a, b = self.expression(e.left), self.expression(e.right)
            return ops.less(op, *((b, a) if swap else (a, b)), self.failer(f"'{op}'"))
        if isinstance(e, (n.EqToOp, n.NotEqToOp)):
            r = ops.equal(self.expression(e.left), self.expression(e.right), self.env.intern)
            return r if isinstance(e, n.EqToOp) else (not r if isinstance(r, bool) else jnp.logical_not(r))
        if isinstance(e, (n.AndLoOp, n.OrLoOp)):
            return ops.logical(self, e)
        if isinstance(e, n.ULNotOp):
            c = ops.truthy(self.expression(e.operand))
            return not c if isinstance(c, bool) else jnp.logical_not(c)
        if isinstance(e, n.UMinusOp):
            return ops.negate(self.expression(e.operand), self.failer("unary minus"))
        if isinstance(e, n.ULengthOP):
            operand = self.expression(e.operand)
            if operand is None:   # Lua stops: "attempt to get length of a nil value"
                conversions.lua_error(self)
                return 0
            return self.env.builtins.length(self, operand, e)
        if isinstance(e, n.Concat):
            return self.env.builtins.concat(self, self.expression(e.left), self.expression(e.right))
        if isinstance(e, n.Table):
            return self.env.builtins.table(self, e)
        if isinstance(e, n.AnonymousFunction):
            return self.closure(e)
        if isinstance(e, (n.Varargs, n.Dots)):   # the first of a function's extra arguments
            extra = self.lookup(VARARGS, e)
            return extra[0] if extra else None
        self.fail(f"the expression {type(e).__name__}", "the translator does not know it", e)
