"""The generic ``for`` at play time: ``for i, v in ipairs(t) do ... end``.

A fixed table (:class:`~compile_lua.device.values.Arr`, a list of records or strings) has keys 1..n,
so the loop is unrolled over them. A table keyed by integers
(:class:`~compile_lua.device.values.Keyed`) is walked over 1, 2, ... up to the last key it has room
for, each pass running only where every key so far holds a value (Lua's ipairs stops at the first
nil: a traced condition). Any other generic for (``pairs``, ``next``, an iterator function) is
refused: its order and length are not fixed.
"""
from __future__ import annotations

from typing import Any

from luaparser import astnodes as n

from compile_lua.device import keyed
from compile_lua.device.source import NAMED, why_rejected
from compile_lua.device.values import Arr, Keyed, lua_type, present_of


def _is_ipairs(it: Any, s: n.Forin) -> bool:
    """Whether ``s`` iterates ``ipairs(<one table>)`` of Lua's own ipairs (not a local of that name)."""
    call = s.iter[0] if len(s.iter) == 1 else None
    if not (isinstance(call, n.Call) and isinstance(call.func, n.Name) and call.func.id == "ipairs"
            and len(call.args) == 1):
        return False
    return not any("ipairs" in scope for scope in it.scopes) and "ipairs" not in it.o.locals \
        and "ipairs" not in it.o.functions


def forin(it: Any, s: n.Forin) -> None:
    """Run the generic for ``s`` in the Interpreter ``it`` (see the module); rejects (file:line) any other."""
    if not _is_ipairs(it, s):
        it.fail(NAMED[n.Forin], why_rejected(s), s)
    table = it.expression(s.iter[0].args[0])
    names = [t.id for t in s.targets]
    if isinstance(table, Keyed):
        passes = max(table.last, 0) if table.first <= 1 else 0

        def test(i):
            return False if i >= passes else present_of(keyed.element(table, i + 1))
    elif isinstance(table, (Arr, list)):
        passes = int(table.x.shape[0]) if isinstance(table, Arr) else len(table)

        def test(i):   # a list's items may be nil past this episode's end (``callstate.padded``)
            return False if i >= passes else True if isinstance(table, Arr) else present_of(table[i])
    else:
        it.fail(f"ipairs over a {lua_type(table)}", "only tables can be walked", s)

    def scope(i):
        values = [i + 1, it.env.builtins.index(it, table, i + 1, s)]
        return dict(zip(names, values + [None] * len(names)))
    it.unrolled(test, scope, s)
