"""A loop over a list known only at play time, run as one ``lax.fori_loop`` instead of unrolled.

A generic ``for`` over a grid's group or query (``ipairs(grid:groupShuffled(random, 'foes'))``) has as many
passes as the grid has room for pieces: unrolled, its body is traced once per pass, and a level's program
grows with its grid. Here the body is traced once, inside ``jax.lax.fori_loop``, and carries everything a
pass may change: the locals of the scopes around the loop that hold play-time values, the call's state
variables (grids included), its effects, its key, its tensors and the loop's "still running" flag (a
``break`` clears it). Each carried value keeps its layout entry (``compile_lua.device.layouts``); where a pass
widens a local's (a number that may become nil, a string that gains values) the loop is traced again with
the wider entry; a state variable a pass widens or defines changes the translation's layouts, which
``Translation.settle`` traces again. A body that returns from the enclosing function, or replaces a local the carry cannot
hold (a function, a host table), is unrolled as before (:func:`run_rolled` answers False).
"""
from __future__ import annotations

from typing import Any, Callable, Dict, List, Optional, Tuple

import jax
import jax.numpy as jnp

from compile_lua.device.layouts import load, store, value_kind
from compile_lua.device.widening import widened
from compile_lua.device.values import Num, as_num

#: passes past which a loop over a play-time list runs as one ``lax.fori_loop``
ROLL_ABOVE = 8
#: traces of one loop while its carried layouts widen
_WIDENINGS = 4

_Slot = Tuple[str, Any, tuple]   # ("scope", (depth, name), kind) | ("state", key, kind at the loop's start)


class _Wider(Exception):
    """A pass changed what the carry holds: trace again with ``slots``."""

    def __init__(self, slots: List[_Slot]):
        super().__init__("the loop's carry widened")
        self.slots = slots


class _Unrollable(Exception):
    """The body does what a carry cannot hold."""


def _kind_of(value: Any) -> Optional[tuple]:
    """The layout entry a carried local keeps, or None for a value that is not play-time data."""
    if value is None or callable(value):
        return None
    try:
        return value_kind(value)
    except Exception:   # a host table, a module, a record of functions: not data
        return None


def _scope_slots(it: Any) -> List[_Slot]:
    return [("scope", (depth, name), kind) for depth, scope in enumerate(it.scopes) for name, value in scope.items()
            if (kind := _kind_of(value)) is not None]


def _state_slots(it: Any) -> List[_Slot]:
    return [("state", key, it.env.tr.layout[key]) for key in it.env.state if key in it.env.tr.layout]


def _stored(it: Any, slots: List[_Slot]) -> Dict[str, Any]:
    env = it.env
    carry = {"key": env.key, "live": jnp.asarray(it.loop_live, jnp.bool_),
             "score": as_num(env.effects["score"]).x.astype(jnp.float32),
             "finish": jnp.asarray(env.effects["finish"], jnp.bool_), "storages": dict(env.storages)}
    for where, at, kind in slots:
        if where == "scope":
            carry[f"scope/{at[0]}/{at[1]}"] = store(kind, it.scopes[at[0]][at[1]], env.intern)
        else:
            carry[f"state/{at}"] = store(kind, env.state[at], env.intern)
    return carry


def _loaded(it: Any, slots: List[_Slot], carry: Dict[str, Any]) -> None:
    env = it.env
    env.key, it.loop_live = carry["key"], carry["live"]
    env.effects["score"], env.effects["finish"] = Num(carry["score"]), carry["finish"]
    env.storages = dict(carry["storages"])
    for where, at, kind in slots:
        if where == "scope":
            it.scopes[at[0]][at[1]] = load(kind, carry[f"scope/{at[0]}/{at[1]}"], f"local {at[1]}")
        else:
            env.state[at] = load(kind, carry[f"state/{at}"], at)


def _after_pass(it: Any, slots: List[_Slot], before: Dict[str, Any]) -> None:
    """Check what a pass left: raises _Unrollable where it cannot be carried, _Wider where a local's layout
    entry grew. (A state variable a pass widens or defines changes the translation's layouts, which makes
    ``Translation.settle`` trace again: this trace carries it as it was.)"""
    if it.ret is not None or (it.ret_live is not True and it.ret_live is not before["ret_live"]):
        raise _Unrollable()
    grown, changed = [], False
    for where, at, kind in slots:
        if where == "scope":
            got = _kind_of(it.scopes[at[0]][at[1]])
            if got is None:
                raise _Unrollable()
            wide = got if kind[0] in ("int", "bool") and got[0] in ("float", "maybe") else widened(kind, got)
            holds = wide[0] == got[0] or (wide[0] == "maybe" and wide[1][0] == got[0])
            if not holds:   # a number that became a string, a table that became a number: not one layout
                raise _Unrollable()
            changed |= wide != kind
            grown.append((where, at, wide))
        else:
            grown.append((where, at, kind))
    carried = {(where, at) for where, at, _ in slots}
    for depth, scope in enumerate(it.scopes):   # a local that held no data before the pass, replaced
        for name, value in scope.items():
            if ("scope", (depth, name)) not in carried and value is not before["scopes"][depth].get(name):
                raise _Unrollable()
    if changed:
        raise _Wider(grown)


def run_rolled(it: Any, trips: int, test: Callable[[Any], Any], scope: Callable[[Any], Dict[str, Any]],
               body: List[Any]) -> bool:
    """Run ``trips`` passes of ``body`` as one ``lax.fori_loop``: pass i (a traced int32) runs where
    ``test(i)`` holds and every pass before it did, with ``scope(i)`` its own locals. Returns False, having
    changed nothing, where the body cannot be carried (the caller unrolls it)."""
    slots = _scope_slots(it) + _state_slots(it)
    start = it.snapshot()
    for _ in range(_WIDENINGS):
        it.restore(start)
        before = {"ret_live": it.ret_live, "scopes": [dict(s) for s in it.scopes]}
        carry = _stored(it, slots)

        # Pieces a pass creates count once per piece made before the loop (a loop over a group or a query
        # of pieces runs at most once per piece there is), not once per pass: the passes are the grid's room,
        # which counting them would grow again
        factor = max([1] + list(it.env.tr.grid_demand.values()))

        def one_pass(i, carry, slots=slots, before=before, factor=factor):
            _loaded(it, slots, carry)
            it.loop_live = it.loop_live & jnp.asarray(test(i), jnp.bool_)
            it.demand_scale *= factor
            try:
                it.block(body, scope(i))
            finally:
                it.demand_scale //= factor
            _after_pass(it, slots, before)
            return _stored(it, slots)
        try:
            carry = jax.lax.fori_loop(0, trips, one_pass, carry)
        except TypeError as mismatch:   # a pass made a tensor or a value the carry does not hold
            if "carry" not in str(mismatch) and "body_fun" not in str(mismatch):
                raise
            break
        except _Wider as wider:
            slots = wider.slots
            continue
        except _Unrollable:
            break
        it.restore(start)
        _loaded(it, slots, carry)
        return True
    it.restore(start)
    return False
