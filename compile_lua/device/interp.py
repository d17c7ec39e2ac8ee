"""The translator's core: runs a callback's Lua tree at JAX trace time, over translator values.

Both arms of an ``if`` on a traced condition run, each on its own copy of the locals, the state, the effects
and the key, and are merged by ``jnp.where`` (:func:`compile_lua.device.values.select`). A ``return`` or
``break`` on a traced path clears a traced "still running" flag, and every later write is predicated on it.
Loops are unrolled while their condition is known at translation time (a numeric ``for`` with static bounds, a
``while``/``repeat`` false within :data:`MAX_UNROLL` iterations); the script's functions are inlined.
"""
from __future__ import annotations

from typing import Any, Dict, List

import jax.numpy as jnp
from luaparser import astnodes as n

from compile_lua.device import iteration, ops, records
from compile_lua.device.source import NAMED as _NAMED, FunctionDef, Outline, reject, why_rejected as _why
from compile_lua.device.values import API, Arr, Keyed, is_traced, select

MAX_UNROLL = 1024
#: game calls that change only how the world looks; a translated callback skips them, arguments and all
LOOKS_ONLY = ("updateTexture",)
_ARITH = {n.AddOp: "+", n.SubOp: "-", n.MultOp: "*", n.FloatDivOp: "/", n.FloorDivOp: "//", n.ModOp: "%", n.ExpoOp: "^"}
_ORDER = {n.LessThanOp: ("<", False), n.LessOrEqThanOp: ("<=", False), n.GreaterThanOp: ("<", True),
          n.GreaterOrEqThanOp: ("<=", True)}


def land(a: Any, b: Any) -> Any:
    """Logical and of two flags, each a Python bool or a traced boolean."""
    if a is False or b is False:
        return False
    if a is True:
        return b
    return a if b is True else jnp.logical_and(a, b)


class Interpreter:
    """Runs one callback at trace time. ``env`` (a :class:`compile_lua.device.translate.Env`) holds the
    state, effects, key, inputs and string table; builtins come from ``env.builtins``."""

    def __init__(self, outline: Outline, env: Any):
        self.o, self.env, self.path, self.line = outline, env, outline.path, None
        self.scopes: List[Dict[str, Any]] = []
        self.outer: List[List[Dict[str, Any]]] = []   # the scopes of the functions that called this one
        self.ret, self.ret_live, self.loop_live, self.guard, self.stack = None, True, True, True, []

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

    def branch(self, c: Any, then, otherwise) -> None:
        """Run ``then()`` where the traced flag ``c`` holds and ``otherwise()`` where not; merge."""
        start = self.snapshot()
        then()
        a = self.snapshot()
        self.restore(start)
        otherwise()
        b = self.snapshot()
        sel = self.merger(c, a, b)
        merged = {"scopes": [{k: sel(sa[k], sb[k]) for k in sa if k in sb}
                             for sa, sb in zip(a["scopes"], b["scopes"])],
                  "ret_live": _flag(c, a["ret_live"], b["ret_live"]),
                  "loop_live": _flag(c, a["loop_live"], b["loop_live"])}
        if a["ret"] is None or b["ret"] is None:
            merged["ret"] = a["ret"] if b["ret"] is None else b["ret"]
        elif len(a["ret"]) != len(b["ret"]):
            self.fail("a function returning different numbers of values", "each path must return as many")
        else:
            merged["ret"] = [sel(x, y) for x, y in zip(a["ret"], b["ret"])]
        merged.update(self.env.merge(c, sel, a, b))
        self.restore(merged)

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
                return scope[name]
        if name in self.o.locals or name in self.o.functions:
            if name == self.o.api:
                return API
            if name in self.o.modules:
                return self.env.builtins.module(self, self.o.modules[name], name)
            if name in self.o.functions:
                return self.o.functions[name]
            if f"local.{name}" in self.env.state:
                return self.env.state[f"local.{name}"]
            self.fail(f"the top-level local '{name}'", "its value is not a number, boolean, string or "
                      "fixed table when the script has loaded", node)
        return self.env.builtins.global_value(self, name, node)

    def assign_name(self, name: str, value: Any, node: Any) -> None:
        for scope in reversed(self.scopes):
            if name in scope:
                scope[name] = self.predicated(value, scope[name])
                return
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

    def block(self, stmts: List[Any], scope: Dict[str, Any] = None) -> None:
        """Run statements in a new scope, stopping where every path has returned or broken out."""
        self.scopes.append(scope if scope is not None else {})
        try:
            for stmt in stmts:
                if self.live() is False:
                    break
                self.line = getattr(stmt, "line", None) or self.line
                self.statement(stmt)
        finally:
            self.scopes.pop()

    def statement(self, s: Any) -> None:
        if isinstance(s, n.Forin):
            return iteration.forin(self, s)
        if type(s) in _NAMED:
            self.fail(_NAMED[type(s)], _why(s), s)
        if isinstance(s, n.LocalAssign):
            values = self.expressions(s.values, len(s.targets))
            for t, v in zip(s.targets, values):
                if isinstance(v, Arr) and v.owner is None:
                    v = Arr(v.x, f"local {t.id}")
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

    def assign(self, target: Any, value: Any) -> None:
        if isinstance(target, n.Name):
            return self.assign_name(target.id, value, target)
        if not isinstance(target, n.Index):
            self.fail("this assignment", "its target is not a name or a table field", target)
        table = self.expression(target.value)
        key = self.key(target)
        if table is API:
            return self.env.write(self, f"api.{key}", value)
        if isinstance(table, Keyed) and not table.x.size and isinstance(key, str):
            table = {}   # an empty table written at names: a record of them (``callstate.widened``)
        if isinstance(table, (Arr, Keyed)):
            owner = target.value.id if isinstance(target.value, n.Name) else None
            field = target.value.idx.id if isinstance(target.value, n.Index) else None
            names = {f"local {owner}", f"local.{owner}", f"api.{field}"}
            if table.owner not in names:
                self.fail("writing a table through a second name", "a table may only be written through the "
                          "name that holds it (Lua tables are shared references)", target)
            return self.assign(target.value, self.env.builtins.set_item(self, table, key, value))
        return self.assign(target.value, records.set_field(self, table, key, value, target))

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
        self.branch(c, lambda: self.block(s.body.body), rest)

    def fornum(self, s: n.Fornum) -> None:
        start, stop = self.expression(s.start), self.expression(s.stop)
        step = s.step if isinstance(s.step, (int, float)) else self.expression(s.step)
        if any(is_traced(v) or not isinstance(v, (int, float)) or isinstance(v, bool) for v in (start, stop, step)):
            self.fail("a numeric for with bounds known only at play time",
                      "its start, stop and step must be numbers known when the script has loaded", s)
        if step == 0 or (stop - start) / step + 1 > MAX_UNROLL:
            self.fail("a numeric for of more than %d iterations" % MAX_UNROLL, "loops are unrolled", s)
        i, steps = start, []
        while (i <= stop) if step > 0 else (i >= stop):
            steps.append(i)
            i += step
        self.unrolled(lambda it: it < len(steps), lambda it: {s.target.id: steps[it]}, s)

    def loop(self, s: Any) -> None:
        def test(_):
            return ops.truthy(self.expression(s.test))

        if isinstance(s, n.While):
            self.unrolled(test, lambda _: {}, s)
        else:   # repeat body until test: the test sees the body's locals
            self.unrolled(lambda it: True, lambda _: {}, s, until=s.test)

    def unrolled(self, test, scope, s: Any, until: Any = None) -> None:
        """Unroll the loop ``s``: ``test(it)`` (Python bool or traced) before each pass, ``scope(it)`` its
        locals; ``until``: a repeat's test, run after each pass in the body's scope."""
        saved, self.loop_live = self.loop_live, True
        self.stack.append("loop")
        try:
            for it in range(MAX_UNROLL + 1):
                if it == MAX_UNROLL:
                    self.fail(f"a {'while' if isinstance(s, n.While) else 'repeat'} loop that runs past "
                              f"{MAX_UNROLL} passes", "its condition must become false at translation time "
                              f"within {MAX_UNROLL} passes (count with a local: while i <= 10 and ...)", s)
                c = test(it)
                if c is False or self.live() is False:
                    break
                if c is not True:
                    self.loop_live = land(self.loop_live, c)
                local = scope(it)
                if until is not None:
                    self.scopes.append(local)
                    try:
                        for stmt in s.body.body:
                            if self.live() is False:
                                break
                            self.statement(stmt)
                        done = ops.truthy(self.expression(until))
                    finally:
                        self.scopes.pop()
                    if done is True:
                        break
                    if done is not False:
                        self.loop_live = land(self.loop_live, jnp.logical_not(done))
                else:
                    self.block(s.body.body, local)
        finally:
            self.stack.pop()
            self.loop_live = saved

    # -- expressions ------------------------------------------------------------------------------------

    def expressions(self, nodes: List[Any], want: Any) -> List[Any]:
        """Lua's multiple values: the last expression (a call) may give several; pad with nil to ``want``."""
        out: List[Any] = []
        for i, node in enumerate(nodes):
            if i == len(nodes) - 1 and isinstance(node, (n.Call, n.Invoke)):
                out.extend(self.call(node))
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
            return ops.arith(_ARITH[type(e)], self.expression(e.left), self.expression(e.right),
                             self.failer(f"'{_ARITH[type(e)]}'"))
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
            return self.env.builtins.length(self, self.expression(e.operand), e)
        if isinstance(e, n.Concat):
            return self.env.builtins.concat(self, self.expression(e.left), self.expression(e.right))
        if isinstance(e, n.Table):
            return self.env.builtins.table(self, e)
        self.fail(f"the expression {type(e).__name__}", "the translator does not know it", e)

    # -- calls ------------------------------------------------------------------------------------------

    def call(self, e: Any) -> List[Any]:
        """A call's results (a list)."""
        line, self.line = self.line, getattr(e, "line", None) or self.line
        try:
            if isinstance(e, n.Invoke):
                target = self.expression(e.source)
                if getattr(target, "kind", None) == "game" and e.func.id in LOOKS_ONLY:
                    return []   # it changes how the world looks: jaxlab draws its own (not evaluated)
                args = self.expressions(e.args, None)
                if target is API:
                    return self.inline(self.env.builtins.method(self, e.func.id, e), [API] + args)
                return self.env.builtins.invoke(self, target, e.func.id, args, e)
            func = self.expression(e.func)
            args = self.expressions(e.args, None)
            if isinstance(func, FunctionDef):
                return self.inline(func, args)
            return self.env.builtins.call(self, func, args, e)
        finally:
            self.line = line

    def inline(self, f: FunctionDef, args: List[Any]) -> List[Any]:
        """Run the script's function ``f`` in place, on ``args``; recursion is rejected."""
        if f.name in self.stack:
            self.fail(f"recursion ({f.name} calls itself)", "functions are inlined, so a call chain must end")
        saved = (self.scopes, self.ret, self.ret_live, self.loop_live, self.guard)
        self.guard = self.live()
        self.outer.append(self.scopes)
        self.scopes, self.ret, self.ret_live, self.loop_live = [], None, True, True
        self.stack.append(f.name)
        try:
            self.block(f.body.body, dict(zip(f.params, (list(args) + [None] * len(f.params))[:len(f.params)])))
            if self.ret is not None and self.ret_live is not False:
                self.fail(f"{f.name} returning values on some paths only", "every path must return the same "
                          "number of values (add a return at its end)", f)
            return list(self.ret or [])
        finally:
            self.stack.pop()
            self.outer.pop()
            self.scopes, self.ret, self.ret_live, self.loop_live, self.guard = saved


def _flag(c: Any, a: Any, b: Any) -> Any:
    if a is b or (isinstance(a, bool) and isinstance(b, bool) and a == b):
        return a
    return jnp.where(c, a, b)
