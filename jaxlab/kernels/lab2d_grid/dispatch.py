"""Calling a level's callbacks for a piece whose state is only known on the device.

Lab2D calls the callback of the piece's *current* state. Here the state is a traced int32, so every
callback that might be called is traced once, each behind :func:`when` its key is the piece's (a
batch runs a callback only if some env calls it). Callbacks may call
the grid again (create pieces, which calls ``onAdd`` and contact callbacks, which may create more):
tracing follows such chains :data:`MAX_DEPTH` calls deep. A call deeper than that is not made; if a
play ever reaches it, the grid's ``error`` gets ``TOO_DEEP`` (the state is then not Lab2D's).
"""
from __future__ import annotations

import contextlib
import functools
from typing import Callable, Dict, Hashable, List, Mapping

import jax
import jax.numpy as jnp
import numpy as np

from jaxlab.kernels.lab2d_grid.state import TOO_DEEP, GridRules, GridState

#: how deeply callbacks may call the grid in ways that call callbacks again
MAX_DEPTH = 2
_chain: List[str] = []
_updating: List[bool] = []


@contextlib.contextmanager
def nested(what: str):
    """Trace-time bookkeeping around a callback call (``what`` names it)."""
    _chain.append(what)
    try:
        yield
    finally:
        _chain.pop()


def _too_deep(carry, branch, active):
    """The carry with ``TOO_DEEP`` set where a callback would have run."""
    flag = jnp.where(jnp.asarray(active) & (branch > 0), TOO_DEEP, 0)
    if isinstance(carry, GridState):
        return carry.replace(error=carry.error | flag)
    g, rest = carry[0], carry[1:]
    return (g.replace(error=g.error | flag),) + tuple(rest)


@contextlib.contextmanager
def updating():
    """Marks tracing inside ``update`` (Lab2D then defers removals to the end of each flush)."""
    _updating.append(True)
    try:
        yield
    finally:
        _updating.pop()


def depth() -> int:
    """How many callbacks the code being traced runs inside (``MAX_DEPTH`` stops the nesting)."""
    return len(_chain)


def in_update() -> bool:
    """Whether the code being traced runs inside ``update``."""
    return bool(_updating)


def when(pred, fn: Callable, carry):
    """``fn(carry)`` where ``pred`` (bool[]) holds, else ``carry``. Written as a loop of at most one trip,
    so that under ``vmap`` ``fn`` runs only when some env needs it (a ``cond`` would become a select
    that always runs it): the grid's many rare branches (callbacks, actions) then cost nothing in the
    batches that do not take them."""
    def body(c):
        return jnp.bool_(True), fn(c[1])
    return jax.lax.while_loop(lambda c: ~c[0] & pred, body, (jnp.bool_(False), carry))[1]


def by_key(carry, fns: Mapping[Hashable, Callable], index_of: Dict[Hashable, int], branch, active,
           call: Callable[[Callable, object], object], what: str):
    """Run ``call(fns[k], carry)`` for the key ``k`` whose branch number is ``branch`` (int32[]; 1-based
    in ``index_of``'s order, 0: none) where ``active`` (bool[]); else ``carry`` unchanged. ``carry`` is
    any pytree (the grid state, or the grid state with an answer)."""
    if not fns:
        return carry
    if len(_chain) >= MAX_DEPTH:
        return _too_deep(carry, branch, active)
    keys = sorted(index_of, key=index_of.get)

    def run(key, carry):
        with nested(f"{what}{key}"):
            return call(fns[key], carry)

    branch = jnp.where(active, branch, 0)

    def each(carry):
        for k, key in enumerate(keys, start=1):
            carry = when(branch == k, functools.partial(run, key), carry)
        return carry

    return each(carry) if len(keys) == 1 else when(branch > 0, each, carry)


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
