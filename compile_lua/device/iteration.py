"""The generic ``for`` at play time: ``for i, v in ipairs(t) do ... end``.

A fixed table (:class:`~compile_lua.device.values.Arr`, a list of records or strings) has keys 1..n,
so the loop is unrolled over them. A table keyed by integers
(:class:`~compile_lua.device.values.Keyed`) is walked over 1, 2, ... up to the last key it has room
for, each pass running only where every key so far holds a value (Lua's ipairs stops at the first
nil: a traced condition). Any other generic for (``pairs``, ``next``, an iterator function) is
refused: its order and length are not fixed.
"""
from __future__ import annotations

import math
from typing import Any

import jax.numpy as jnp

from luaparser import astnodes as n

from compile_lua.device import host_values, keyed, ops, rolled, sparse_lists
from compile_lua.device.ops import land
from compile_lua.device.host_values import HostTable
from compile_lua.device.library import Builtin
from compile_lua.device.source import NAMED, why_rejected
from compile_lua.device.grid_values import PieceSet
from compile_lua.device.object_variants import VariantObject, each
from compile_lua.device.maybe_tables import MaybeTable, table_of
from compile_lua.device.sparse_lists import SparseList
from compile_lua.device.stored_functions import FnChoice
from compile_lua.device.values import Arr, Keyed, MaybeNum, Num, as_num, is_traced, lua_type, present_of


def _is_ipairs(it: Any, s: n.Forin) -> bool:
    """Whether ``s`` iterates ``ipairs(<one table>)`` of Lua's own ipairs (not a local of that name)."""
    call = s.iter[0] if len(s.iter) == 1 else None
    if not (isinstance(call, n.Call) and isinstance(call.func, n.Name) and call.func.id == "ipairs"
            and len(call.args) == 1):
        return False
    return not any("ipairs" in scope for scope in it.scopes) and "ipairs" not in it.o.locals \
        and "ipairs" not in it.o.functions


MAX_UNROLL = 1024


class Loops:
    """The Interpreter's loops (a mixin): numeric ``for``, ``while`` and ``repeat``, unrolled while their
    condition is known at translation time."""

    def fornum(self, s: n.Fornum) -> None:
        """A numeric ``for``, unrolled: over its passes when its bounds are known now; when its start or stop is a
        number known only at play time that lies in a known interval (a count of a list a callback built, a field
        with bounds), over every pass it may run, each only where the loop has not ended."""
        start, stop = self.expression(s.start), self.expression(s.stop)
        step = s.step if isinstance(s.step, (int, float)) else self.expression(s.step)
        if self._over_list(s, start, stop, step):
            return None
        if is_traced(start) or is_traced(stop):
            return self._bounded_for(s, start, stop, step)
        if any(not isinstance(v, (int, float)) or isinstance(v, bool) for v in (start, stop, step)) or is_traced(step):
            self.fail("a numeric for with bounds known only at play time",
                      "its start, stop and step must be numbers known when the script has loaded", s)
        if step == 0 or (stop - start) / step + 1 > MAX_UNROLL:
            self.fail("a numeric for of more than %d iterations" % MAX_UNROLL, "loops are unrolled", s)
        i, steps = start, []
        while (i <= stop) if step > 0 else (i >= stop):
            steps.append(i)
            i += step
        self.unrolled(lambda it: it < len(steps), lambda it: {s.target.id: steps[it]}, s)

    def _over_list(self, s: n.Fornum, start: Any, stop: Any, step: Any) -> bool:
        """``for i = #t, 1, -1`` or ``for i = 1, #t`` over a list a callback built (``sparse_lists``) whose length
        is known only at play: one pass per entry, where it is there, ``i`` its position (``t[i]`` reads the entry
        itself, whatever its kind: the widgets of a layer). False for any other loop."""
        length = s.start if step == -1 else s.stop if step == 1 else None
        if not (isinstance(length, n.ULengthOP) and (stop if step == -1 else start) == 1 and
                is_traced(start if step == -1 else stop)):
            return False
        t = table_of(self.expression(length.operand))
        if not isinstance(t, SparseList):
            return False
        order = [(sparse_lists.at_entry(t, entry, key), present)
                 for entry, (key, _, present) in enumerate(sparse_lists.passes(t))][::step]
        self.unrolled(lambda k: k < len(order), lambda k: {s.target.id: order[k][0]}, s, skip=lambda k: order[k][1])
        return True

    def _bounded_for(self, s: n.Fornum, start: Any, stop: Any, step: Any) -> None:
        """``for i = start, stop, step`` with a start or stop known only at play time in a finite interval."""
        low, high = (as_num(v) for v in (start, stop))
        if not isinstance(step, (int, float)) or isinstance(step, bool) or step == 0 or \
                not all(math.isfinite(b) for b in (low.lo, low.hi, high.lo, high.hi)):
            self.fail("a numeric for with bounds known only at play time", "its step must be a number known when "
                      "the script has loaded, and its start and stop lie in intervals known then (clamp them "
                      "with math.min/math.max)", s)
        passes = int(math.floor((high.hi - low.lo) / step if step > 0 else (low.hi - high.lo) / -step)) + 1
        if passes > MAX_UNROLL:
            self.fail("a numeric for of more than %d iterations" % MAX_UNROLL, "loops are unrolled", s)

        def at(k):
            return ops.arith("+", start, k * step, self.failer("a numeric for"))

        def variable(k):   # the pass's number: where the pass runs, it lies within the stop too
            i = at(k)
            if not is_traced(i):
                return i
            return Num(i.x, i.lo, min(i.hi, high.hi)) if step > 0 else Num(i.x, max(i.lo, high.lo), i.hi)

        def test(k):
            if k >= max(passes, 0):
                return False
            return ops.less("<=", at(k), stop, self.failer("a numeric for")) if step > 0 else \
                ops.less("<=", stop, at(k), self.failer("a numeric for"))
        self.unrolled(test, lambda k: {s.target.id: variable(k)}, s)

    def loop(self, s: Any) -> None:
        def test(_):
            return ops.truthy(self.expression(s.test))

        if isinstance(s, n.While):
            self.unrolled(test, lambda _: {}, s)
        else:   # repeat body until test: the test sees the body's locals
            self.unrolled(lambda it: True, lambda _: {}, s, until=s.test)

    def unrolled(self, test, scope, s: Any, until: Any = None, rolling: Any = None, skip: Any = None) -> None:
        """Unroll the loop ``s``: ``test(it)`` (Python bool or traced) before each pass, ``scope(it)`` its
        locals; ``until``: a repeat's test, run after each pass in the body's scope. ``rolling``: ``(passes,
        test, scope)`` of a loop over a play-time list, whose test and scope take a traced pass number: past
        ``rolled.ROLL_ABOVE`` passes it runs as one ``lax.fori_loop`` where its body allows
        (``compile_lua.device.rolled``). ``skip(it)``: whether the pass runs at all (pairs passes over a key whose
        value may be nil only where it holds one), after ``scope(it)``."""
        saved, self.loop_live = self.loop_live, True
        self.stack.append("loop")
        try:
            if rolling is not None and rolling[0] > rolled.ROLL_ABOVE and \
                    rolled.run_rolled(self, rolling[0], rolling[1], rolling[2], s.body.body):
                return
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
                    runs = skip(it) if skip is not None else True
                    if runs is True:
                        self.block(s.body.body, local)
                    elif runs is not False:
                        self.branch(runs, lambda: self.block(s.body.body, local), lambda: None)
        finally:
            self.stack.pop()
            self.loop_live = saved


def _walker(it: Any, s: n.Forin):
    """'ipairs' or 'pairs' when ``s`` iterates Lua's own ``ipairs(<one table>)`` or ``pairs(<one table>)``
    (or a local holding it), else None."""
    call = s.iter[0] if len(s.iter) == 1 else None
    if not (isinstance(call, n.Call) and isinstance(call.func, n.Name) and len(call.args) == 1):
        return None
    if _is_ipairs(it, s):
        return "ipairs"
    name = call.func.id
    for scope in reversed(it.scopes):
        if name in scope:
            value = scope[name]
            return value.name if isinstance(value, Builtin) and value.name in ("pairs", "ipairs") else None
    if name == "pairs" and (it.free_globals or ("pairs" not in it.o.locals and "pairs" not in it.o.functions)):
        return "pairs"
    return None


def _after(it: Any, s: n.Forin) -> Any:
    """For ``for k, v in next, t[, k0]`` (Lua's own next): the key it starts after (None: from the start);
    else False."""
    if len(s.iter) not in (2, 3) or not (isinstance(s.iter[0], n.Name) and s.iter[0].id == "next"):
        return False
    if any("next" in scope for scope in it.scopes) or (not it.free_globals and "next" in it.o.locals):
        return False
    start = it.expression(s.iter[2]) if len(s.iter) == 3 else None
    if start is not None and not isinstance(start, int):
        it.fail("next from a key known only at play time", "start it from nil or an integer written in the "
                "script", s)
    return start


def forin(it: Any, s: n.Forin) -> None:
    """Run the generic for ``s`` in the Interpreter ``it`` (see the module); rejects (file:line) any other."""
    after = _after(it, s)
    if after is not False:   # next over a list: its keys after ``after`` in order (as ipairs would)
        table = it.expression(s.iter[1])
        if not isinstance(table, (Keyed, Arr, list)):
            it.fail(f"next over a {lua_type(table)}", "next walks lists here (keys 1..n)", s)
        return _list(it, s, table, [t.id for t in s.targets], after or 0)
    walker = _walker(it, s)
    if walker is None:
        it.fail(NAMED[n.Forin], why_rejected(s), s)
    _walk(it, s, it.expression(s.iter[0].args[0]), walker)


def _walk(it: Any, s: n.Forin, table: Any, walker: str) -> None:
    """The generic for ``s`` over ``table`` with ``walker`` (``pairs`` or ``ipairs``); over an api field that holds
    another shape in some episodes, the loop runs over each variant (``object_variants.each``)."""
    names = [t.id for t in s.targets]
    table = table_of(table)   # nil where Lua stops: its table
    if isinstance(table, VariantObject):
        return each(it, table, lambda member: _walk(it, s, member, walker))
    if isinstance(table, (HostTable, dict)) or (walker == "pairs" and isinstance(table, (Arr, list))):
        return _static_keys(it, s, table, names, walker)
    if isinstance(table, PieceSet) and walker == "pairs":
        return _pieces(it, s, table, names)
    if isinstance(table, SparseList):   # a list a callback built: each entry where it was inserted
        entries = sparse_lists.passes(table)
        return it.unrolled(lambda i: i < len(entries), lambda i: dict(zip(names, [*entries[i][:2], None])), s,
                           skip=lambda i: entries[i][2])
    if walker == "pairs" and isinstance(table, Keyed) and not table.x.size:
        return None   # a table that holds no key (it grows when play writes one: the callback is traced again)
    if walker == "pairs":
        it.fail("pairs over a table whose keys are known only at play time", "walk it with ipairs (keys 1..n) "
                "or keep it on the host", s)
    _list(it, s, table, names, 0)


def _static_keys(it: Any, s: n.Forin, table: Any, names, walker: str) -> None:
    """A generic for over a table whose keys are known now (a host table, a record, a fixed list): unrolled,
    ipairs over 1..n, pairs over 1..n then the other keys sorted."""
    if isinstance(table, HostTable):   # its keys on the host, and those play has set (state of their own)
        prefix = host_values.state_key(table, "")
        added = [k[len(prefix):] for k in it.env.tr.layout if k.startswith(prefix)]
        keys = host_values.pairs_order(list(dict.fromkeys(host_values.keys(table) + added)))
        if walker == "ipairs":
            keys = list(range(1, host_values.length(table) + 1))
    elif isinstance(table, dict):
        keys = [] if walker == "ipairs" else host_values.pairs_order(list(table))
    else:
        keys = list(range(1, (int(table.x.shape[0]) if isinstance(table, Arr) else len(table)) + 1))

    held = {}

    def scope(i):   # pairs skips a key whose value is nil (a field of a record that may be nil: where it is)
        value = it.env.builtins.index(it, table, keys[i], s)
        held[i] = present_of(value) if not isinstance(value, (MaybeTable, FnChoice)) else value.present
        values = [keys[i], table_of(value)]
        return dict(zip(names, values + [None] * len(names)))
    it.unrolled(lambda i: i < len(keys), scope, s, skip=held.get)


def _pieces(it: Any, s: n.Forin, found: PieceSet, names) -> None:
    """``for piece, position in pairs(grid:query...(...))``: one pass per piece found (in the grid's order)."""
    def scope(i):
        piece = found.pieces[i]
        values = [MaybeNum(piece, -1, 2**31 - 1, piece >= 0), Arr(found.positions[i])]
        return dict(zip(names, values + [None] * len(names)))
    passes = int(found.pieces.shape[0])
    it.unrolled(lambda i: False if i >= passes else i < found.count, scope, s,
                rolling=(passes, lambda i: i < found.count, scope))


def _list(it: Any, s: n.Forin, table: Any, names, after: int) -> None:
    """Walk the keys after ``after`` of a list (a fixed table, a list of values, a table keyed by integers),
    unrolled, stopping at the first nil (as ipairs does)."""
    if isinstance(table, Keyed):
        passes = max(table.last - after, 0) if table.first <= 1 else 0

        def test(i):
            return False if i >= passes else present_of(keyed.element(table, after + i + 1))
    elif isinstance(table, (Arr, list)):
        passes = max((int(table.x.shape[0]) if isinstance(table, Arr) else len(table)) - after, 0)

        def test(i):   # a list's items may be nil past this episode's end (``layouts.padded``)
            return False if i >= passes else True if isinstance(table, Arr) else present_of(table[after + i])
    else:
        it.fail(f"ipairs over a {lua_type(table)}", "only tables can be walked", s)

    def scope(i):
        key = after + i + 1 if isinstance(i, int) else Num(i + (after + 1))
        values = [key, it.env.builtins.index(it, table, key, s)]
        return dict(zip(names, values + [None] * len(names)))

    def test_at(i):   # test, for a pass number known only at play time
        return present_of(keyed.element(table, Num(i + (after + 1)))) if isinstance(table, Keyed) else True
    it.unrolled(test, scope, s, rolling=None if isinstance(table, list) else (passes, test_at, scope))
