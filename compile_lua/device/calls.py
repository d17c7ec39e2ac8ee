"""The interpreter's calls (a mixin of :class:`compile_lua.device.interp.Interpreter`): function values made at play,
calls of the script's, the host's and stored functions (each inlined), and ``table.insert``.
"""
from __future__ import annotations

from typing import Any, Dict, List

from luaparser import astnodes as n

from compile_lua.device import conversions, host_values, records, sparse_lists
from compile_lua.device.host_values import Closure, HostFunction
from compile_lua.device.library import LUA_ERROR, Builtin, Module
from compile_lua.device.maybe_tables import table_of
from compile_lua.device.ops import maybe_of
from compile_lua.device.source import VARARGS, DeviceRejection, FunctionDef, VarArgs
from compile_lua.device.stored_functions import FnChoice, call_choice
from compile_lua.device.values import API, is_traced, lua_type, select


#: DMLab's logging module, whose messages play skips (``Calls.skipped_call``)
LOG_MODULE = "common/log.lua"


class Calls:
    """Calls, for the Interpreter."""

    def closure(self, node: Any) -> Closure:
        """The function ``node`` (a function expression or statement) made here: it sees the scopes it is
        made in."""
        fdef = host_values.function_def(self.path, node, f"{self.path}:{node.line}")
        return Closure(fdef, list(self.scopes), self.path, self.free_globals)

    def callable(self, f: Any) -> Any:
        """A Closure for a host function, else ``f``."""
        return host_values.closure_of(f, self.fail) if isinstance(f, HostFunction) else f

    def call(self, e: Any) -> List[Any]:
        """A call's results (a list)."""
        line, self.line = self.line, getattr(e, "line", None) or self.line
        try:
            if isinstance(e, n.Invoke):
                target = self.expression(e.source)
                if target == Module("events"):   # an event raised at play reaches no kernel (the compile warns)
                    return self.skipped_call(e)
                args = self.expressions(e.args, None)
                if target is API:
                    return self.inline(self.callable(self.env.builtins.method(self, e.func.id, e)), [API] + args)
                method = self.env.builtins.method_of(self, target, e.func.id, e)
                if isinstance(method, FnChoice):
                    return call_choice(self, method, [target] + args)
                if isinstance(method, (FunctionDef, Closure, HostFunction)):
                    return self.inline(self.callable(method), [target] + args)
                return self.env.builtins.invoke(self, target, e.func.id, args, e)
            func = self.expression(e.func)
            if isinstance(func, HostFunction) and host_values.written_in(func, LOG_MODULE):
                return self.skipped_call(e)
            if func == Builtin("table.insert"):
                return self.insert(e)
            if func == Builtin("table.sort"):
                return self.sort(e)
            if func == LUA_ERROR:   # Lua stops here: the flag is set (the path goes on), the message is never read
                return conversions.lua_error(self)
            args = self.expressions(e.args, None)
            if isinstance(func, FnChoice):
                return call_choice(self, func, args)
            if isinstance(func, (FunctionDef, Closure, HostFunction)):
                return self.inline(self.callable(func), args)
            return self.env.builtins.call(self, func, args, e)
        finally:
            self.line = line

    def skipped_call(self, e: Any) -> List[Any]:
        """``events:add(...)`` or a log message (DMLab's ``common.log``: "purely informational", never a branch) at
        play, which reach no kernel: its arguments run for what they change, as Lua's would; one the device cannot
        compute (a text made of numbers known only at play time) is left out with the call. No values."""
        start = self.snapshot()
        try:
            self.expressions(e.args, None)
        except DeviceRejection:
            self.restore(start)
        return []

    def insert(self, e: n.Call) -> List[Any]:
        """``table.insert(t, v)``: ``t`` (a list a name or field holds) with ``v`` at its end (``sparse_lists``)."""
        if len(e.args) != 2:
            self.fail("table.insert at a position", "a list grows at its end here: table.insert(t, v)", e)
        t, value = self.expressions(e.args, None)
        t = table_of(t)   # a list that may be nil: its list (Lua stops on nil)
        if not sparse_lists.can_hold(t):
            self.fail(f"table.insert into a {lua_type(t)}", "it grows a list a callback builds (local t = {})", e)
        self.assign(e.args[0], sparse_lists.inserted(t, value))
        return []

    def sort(self, e: n.Call) -> List[Any]:
        """``table.sort(t)``: ``t`` (a list a callback built, of numbers or strings known when translating) in
        ascending order (``sparse_lists.sorted_list``)."""
        t = self.expression(e.args[0]) if len(e.args) == 1 else None
        if not isinstance(t, sparse_lists.SparseList):
            self.fail("table.sort of this table" if len(e.args) == 1 else "table.sort with an order function",
                      "it sorts a list a callback built of numbers or strings known when translating", e)
        self.assign(e.args[0], sparse_lists.sorted_list(t, self.failer("table.sort")))
        return []

    def appended(self, target: n.Index, value: Any) -> bool:
        """``t[#t + 1] = value`` where ``t`` is a list a callback builds (``table.insert``'s other spelling) and the
        value is a table or known when translating (a traced number grows a table keyed by integers instead,
        ``compile_lua.device.keyed``): ``value`` appended; False for any other assignment."""
        idx = target.idx
        if target.notation == n.IndexNotation.DOT or not (
                isinstance(idx, n.AddOp) and isinstance(idx.right, n.Number) and idx.right.n == 1 and
                isinstance(idx.left, n.ULengthOP) and _same_place(idx.left.operand, target.value)):
            return False
        t = self.expression(target.value)
        if not (isinstance(t, sparse_lists.SparseList) or (sparse_lists.can_hold(t) and not isinstance(t, list) and (
                lua_type(value) == "table" or not is_traced(value)))):
            return False
        self.assign(target.value, sparse_lists.inserted(t, value))
        return True

    def inline(self, f: Any, args: List[Any]) -> List[Any]:
        """Run the script's function ``f`` (a FunctionDef, or a Closure in its own scopes and file) in place,
        on ``args``; recursion is rejected."""
        made = f if isinstance(f, Closure) else None
        f = made.fdef if made else f
        if f.name in self.stack:
            self.fail(f"recursion ({f.name} calls itself)", "functions are inlined, so a call chain must end")
        saved = (self.scopes, self.ret, self.ret_live, self.loop_live, self.guard, self.path, self.free_globals)
        self.guard = self.live()
        self.outer.append(self.scopes)
        self.scopes, self.ret, self.ret_live, self.loop_live = [], None, True, True
        if made:
            self.scopes, self.path, self.free_globals = list(made.scopes), made.path, made.free_globals
        self.stack.append(f.name)
        try:
            fixed = f.params[:-1] if f.params[-1:] == [VARARGS] else f.params
            params = dict(zip(fixed, (list(args) + [None] * len(fixed))[:len(fixed)]))
            if len(fixed) < len(f.params):
                params[VARARGS] = VarArgs(args[len(fixed):])
            passed = {name: value for name, value in params.items() if isinstance(value, dict)}
            finals: Dict[str, Any] = {}
            self.block(f.body.body, params, finals)
            if self.ret and self.ret_live is not False:   # where no return ran, the end gives nils (Lua's)
                partial = f"{f.name} returning a table on some paths and nothing on others"
                self.ret = [select(self.ret_live, None, maybe_of(v, lambda why: self.fail(partial, why, f)),
                                   self.env.intern, self.failer("return")) for v in self.ret]
            records.written_back(self, f, passed, finals)
            return list(self.ret or [])
        finally:
            self.stack.pop()
            self.outer.pop()
            self.scopes, self.ret, self.ret_live, self.loop_live, self.guard, self.path, self.free_globals = saved


def _same_place(a: Any, b: Any) -> bool:
    """Whether the expressions ``a`` and ``b`` name one place: a name, or the same chain of fields from one."""
    if isinstance(a, n.Name) and isinstance(b, n.Name):
        return a.id == b.id
    if isinstance(a, n.Index) and isinstance(b, n.Index) and a.notation == b.notation:
        same_key = (isinstance(a.idx, n.Name) and isinstance(b.idx, n.Name) and a.idx.id == b.idx.id) or \
            (isinstance(a.idx, n.String) and isinstance(b.idx, n.String) and a.idx.s == b.idx.s) or \
            (isinstance(a.idx, n.Number) and isinstance(b.idx, n.Number) and a.idx.n == b.idx.n)
        return same_key and _same_place(a.value, b.value)
    return False
