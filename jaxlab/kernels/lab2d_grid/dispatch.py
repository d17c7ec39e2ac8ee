"""Calling a level's callbacks for a piece whose state is only known on the device.

Lab2D calls the callback of the piece's *current* state. Here the state is a traced int32, so every
callback that might be called is traced once, as a branch of a ``lax.switch`` whose branch 0 does
nothing (the piece's state has no such callback, or the call is not ``active``). Callbacks may call
the grid again (create pieces, which calls ``onAdd``, which may create more): :data:`MAX_DEPTH`
bounds how deeply such calls nest while tracing, and a deeper one is refused with the chain of
callbacks that led there.
"""
from __future__ import annotations

import contextlib
import functools
from typing import Callable, Dict, Hashable, List, Mapping

import jax
import jax.numpy as jnp
import numpy as np

from jaxlab.kernels.lab2d_grid.state import GridRules, GridState

#: how deeply callbacks may call the grid in ways that call callbacks again
MAX_DEPTH = 6
_chain: List[str] = []
_updating: List[bool] = []


class CallbackNestingError(RuntimeError):
    """Callbacks call each other (through the grid) more deeply than :data:`MAX_DEPTH`."""


@contextlib.contextmanager
def nested(what: str):
    """Trace-time bookkeeping around a callback call (``what`` names it for the error)."""
    if len(_chain) >= MAX_DEPTH:
        raise CallbackNestingError("grid callbacks nest deeper than %d calls: %s" % (MAX_DEPTH, " -> ".join(_chain)))
    _chain.append(what)
    try:
        yield
    finally:
        _chain.pop()


@contextlib.contextmanager
def updating():
    """Marks tracing inside ``update`` (Lab2D then defers removals to the end of each flush)."""
    _updating.append(True)
    try:
        yield
    finally:
        _updating.pop()


def in_update() -> bool:
    """Whether the code being traced runs inside ``update``."""
    return bool(_updating)


def by_key(carry, fns: Mapping[Hashable, Callable], index_of: Dict[Hashable, int], branch, active,
           call: Callable[[Callable, object], object], what: str):
    """Run ``call(fns[k], carry)`` for the key ``k`` whose branch number is ``branch`` (int32[]; 1-based
    in ``index_of``'s order, 0: none) where ``active`` (bool[]); else ``carry`` unchanged. ``carry`` is
    any pytree (the grid state, or the grid state with an answer)."""
    if not fns:
        return carry
    keys = sorted(index_of, key=index_of.get)

    def run(key, carry):
        with nested(f"{what}{key}"):
            return call(fns[key], carry)

    branches = [lambda c: c] + [functools.partial(run, k) for k in keys]
    return jax.lax.switch(jnp.where(active, branch, 0), branches, carry)


def state_branch(rules: GridRules, keys, state):
    """({state id: branch}, int32[] the branch of ``state`` (int32[], -1: none; 0 where it has none))."""
    index_of = {s: k + 1 for k, s in enumerate(sorted(keys))}
    table = np.zeros(rules.world.num_states + 1, np.int32)
    for s, k in index_of.items():
        table[s] = k
    return index_of, jnp.asarray(table)[state]


def pair_branch(rules: GridRules, keys, state, other, num_other: int):
    """({(state, other): branch}, int32[] the branch of the pair (0 where it has none)); ``other`` is
    a contact, update or hit id (int32[], -1: none) of ``num_other``."""
    index_of = {key: k + 1 for k, key in enumerate(sorted(keys))}
    table = np.zeros((rules.world.num_states + 1, num_other + 1), np.int32)
    for (s, o), k in index_of.items():
        table[s, o] = k
    return index_of, jnp.asarray(table)[state, other]


def for_state(rules: GridRules, g: GridState, fns: Mapping[int, Callable], state, active,
              call: Callable[[Callable, GridState], GridState], what: str) -> GridState:
    """Run the callback of ``state`` (int32[]; -1: none) in ``fns`` (keyed by state id) with ``call``."""
    if not fns:
        return g
    index_of, branch = state_branch(rules, fns, state)
    return by_key(g, fns, index_of, branch, active, call, what)


def for_pair(rules: GridRules, g: GridState, fns: Mapping[tuple, Callable], state, other, num_other: int, active,
             call: Callable[[Callable, GridState], GridState], what: str) -> GridState:
    """Run the callback keyed ``(state, other)`` (int32[] each, -1: none) in ``fns`` with ``call``."""
    if not fns:
        return g
    index_of, branch = pair_branch(rules, fns, state, other, num_other)
    return by_key(g, fns, index_of, branch, active, call, what)
