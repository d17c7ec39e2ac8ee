"""The Env base class shared by every jaxlab family.

A subclass supplies three pure pieces — ``init_state(key)``, ``advance(state,
action)`` and ``observe(state)`` — and the base assembles ``reset``/``step``
returning dm_env-style TimeSteps. Keeping "advance" and "observe" apart lets
wrappers (auto-reset, gymnax) choose the next state first and render once.
States must carry ``key`` (a PRNG key) and ``done`` (bool[], the episode has
ended) fields. ``reset`` and ``step`` check the form of the key and of the action
(``jaxlab.trace_checks``) when they are traced: a family only declares its ``action_spec``.
"""
from __future__ import annotations

import functools
from typing import Any, Dict, Tuple

import jax
import jax.numpy as jnp
from jax.custom_batching import custom_vmap

from jaxlab import trace_checks
from jaxlab.types import ArraySpec, StepType, TimeStep


def select_tree(pred: jnp.ndarray, on_true: Any, on_false: Any) -> Any:
    """Leafwise ``jnp.where(pred, on_true, on_false)`` over two pytrees of one structure.

    ``pred`` is a bool[] scalar (per example under vmap); both trees are
    computed, only one is kept, so no Python control flow touches traced values.
    """
    return jax.tree_util.tree_map(lambda a, b: jnp.where(pred, a, b), on_true, on_false)


#: the batch from which ``where_rows`` gathers flagged rows into blocks (below it computes every row), and
#: the batch from which it does so on an accelerator too
BLOCKS_FROM, ACCELERATOR_BLOCKS_FROM = 64, 16384


def _for_batch(axis_size: int, blocked, plain):
    """``blocked(None)`` for a vmapped batch of ``axis_size`` rows that ``where_rows`` splits into blocks,
    else ``plain(None)``: under ``BLOCKS_FROM`` rows a block would hold a handful of rows; on a GPU or
    TPU each ``lax.cond`` or loop reads its predicate back to the host, which below
    ``ACCELERATOR_BLOCKS_FROM`` rows costs more than computing every row."""
    if axis_size < BLOCKS_FROM:
        return plain(None)
    if axis_size >= ACCELERATOR_BLOCKS_FROM:
        return blocked(None)
    return jax.lax.platform_dependent(None, cpu=blocked, default=plain)


def where_rows(flag: jnp.ndarray, fn, default, args: tuple, shares: Tuple[int, ...] = (16, 4)) -> Any:
    """``fn(*args)`` where ``flag`` (bool[]) holds, else ``default(*args)``; under ``jax.vmap`` ``fn``
    runs only on the rows whose flag holds.

    For work that most rows of a batch skip (a rare, costly rule). Unbatched it is a ``lax.cond``.
    Vmapped (``jax.custom_batching.custom_vmap``), the flagged rows of the B rows are gathered into a
    block of ceil(B / share) rows for the first of ``shares`` whose block holds them all, ``fn`` runs
    on the block and its results are written over ``default``'s (with no row flagged, ``fn`` does not
    run at all); when more rows are flagged than the largest block holds, ``fn`` runs on them block
    after block of that size (a loop), so each block size is compiled once and no copy of ``fn`` runs
    on every row. Either way each row equals
    ``jnp.where(flag, fn(*args), default(*args))``, so results do not depend on the batch, its size
    or jit. Batches under ``BLOCKS_FROM`` rows compute every row and select; so do batches under
    ``ACCELERATOR_BLOCKS_FROM`` on a GPU or TPU, where each ``lax.cond`` or loop reads its predicate
    back to the host.

    fn, default: pure functions of ``*args`` returning pytrees of one structure; they must close over
    no traced value, not even one made inside a jit such as ``jnp.zeros(n)`` (pass such values in
    ``args``, a tuple pytree whose unbatched leaves are not copied per row). shares: static ints >= 1,
    each a block of 1/share of the batch; the smallest block that holds the flagged rows is used.
    """
    @custom_vmap
    def run(flag, args):
        return jax.lax.cond(flag, lambda a: fn(*a), lambda a: default(*a), args)

    @run.def_vmap
    def batched(axis_size, in_batched, flag, args):
        flag = flag if in_batched[0] else jnp.broadcast_to(flag, (axis_size,))
        axes = jax.tree_util.tree_map(lambda b: 0 if b else None, in_batched[1])
        base = jax.vmap(lambda a: default(*a), in_axes=(axes,))(args)
        count = jnp.sum(flag)

        def block_at(rows):  # fn on the rows ``rows`` (axis_size: none), written over ``out``
            picked = jax.tree_util.tree_map(lambda a, b: a[jnp.minimum(rows, axis_size - 1)] if b else a,
                                            args, in_batched[1])
            return jax.vmap(lambda a: fn(*a), in_axes=(axes,))(picked)

        def write(out, rows, block):
            return jax.tree_util.tree_map(lambda b, o: b.at[rows].set(o, mode="drop"), out, block)

        def block_of(size):
            def sparse(_):
                rows = jnp.nonzero(flag, size=size, fill_value=axis_size)[0]
                return write(base, rows, block_at(rows))
            return sparse

        def blocks_of(size):  # as many blocks of ``size`` rows as the flagged rows fill
            def looped(_):
                order = jnp.nonzero(flag, size=-(-axis_size // size) * size, fill_value=axis_size)[0]

                def one(i, out):
                    rows = jax.lax.dynamic_slice(order, (i * size,), (size,))
                    return write(out, rows, block_at(rows))
                return jax.lax.fori_loop(0, (count + size - 1) // size, one, base)
            return looped

        def dense(_):
            out = jax.vmap(lambda a: fn(*a), in_axes=(axes,))(args)
            return jax.tree_util.tree_map(
                lambda b, o: jnp.where(flag.reshape(flag.shape + (1,) * (o.ndim - 1)), o, b), base, out)

        sizes = sorted({-(-axis_size // share) for share in shares if share > 1})
        tiered = blocks_of(sizes[-1]) if sizes else dense
        for size in sizes[-2::-1]:
            tiered = functools.partial(jax.lax.cond, count <= size, block_of(size), tiered)
        tiered = functools.partial(jax.lax.cond, count == 0, lambda _: base, tiered)   # nothing flagged
        result = _for_batch(axis_size, tiered, dense)
        return result, jax.tree_util.tree_map(lambda _: True, result)

    return run(flag, args)


def in_blocks(plain, blocked, args: tuple) -> Any:
    """``plain(*args)``, or ``blocked(*args)`` for the batches where ``where_rows`` gathers rows into
    blocks (a vmapped batch of at least ``BLOCKS_FROM`` rows on the CPU, of ``ACCELERATOR_BLOCKS_FROM``
    on a GPU or TPU); ``blocked`` must give ``plain``'s result. For a fast path that pays off only in
    blocks (a short path with ``where_rows`` for the rest): unbatched and small batches compile and run
    ``plain`` alone. plain, blocked: as ``where_rows``'s ``fn`` (no closed-over traced value)."""
    @custom_vmap
    def run(args):
        return plain(*args)

    @run.def_vmap
    def batched(axis_size, in_batched, args):
        axes = jax.tree_util.tree_map(lambda b: 0 if b else None, in_batched[0])

        def over(f):
            return lambda _: jax.vmap(lambda a: f(*a), in_axes=(axes,))(args)

        result = _for_batch(axis_size, over(blocked), over(plain))
        return result, jax.tree_util.tree_map(lambda _: True, result)

    return run(args)


class Env:
    """Base environment: pure ``reset(key)`` and ``step(state, action)``.

    Both are safe under ``jax.jit`` and ``jax.vmap``; the same key gives the
    same trajectory whatever the batch size.
    """

    #: level name, for repr and errors
    name: str = ""

    def init_state(self, key: jax.Array) -> Any:
        """A fresh episode's state from ``key`` (PRNG key)."""
        raise NotImplementedError

    def advance(self, state: Any, action: Any) -> Tuple[Any, jnp.ndarray, jnp.ndarray, jnp.ndarray]:
        """Advance one agent step: (state, reward float32[], terminated bool[], truncated bool[])."""
        raise NotImplementedError

    def observe(self, state: Any) -> Dict[str, jnp.ndarray]:
        """The requested observations of ``state``: dict name -> array."""
        raise NotImplementedError

    def observation_spec(self) -> Dict[str, ArraySpec]:
        """Specs of the requested observations: dict name -> ArraySpec."""
        raise NotImplementedError

    def action_spec(self) -> Any:
        """Spec of the action accepted by ``step``: an ArraySpec, or a dict name -> ArraySpec for dict actions."""
        raise NotImplementedError

    def reset(self, key: jax.Array) -> Tuple[Any, TimeStep]:
        """Start an episode from ``key`` (one PRNG key: ``jax.random.key(seed)`` or a raw uint32[2]):
        (state, FIRST TimeStep with reward 0, discount 1). A key of another form raises
        TypeError/ValueError when traced (``jaxlab.trace_checks.check_key``)."""
        trace_checks.check_key(f"{self!r}.reset", key)
        state = self.init_state(key)
        return state, self.time_step(state, jnp.int32(StepType.FIRST), jnp.float32(0.0),
                                     jnp.bool_(False), jnp.bool_(False))

    def step(self, state: Any, action: Any) -> Tuple[Any, TimeStep]:
        """Advance one agent step: (state, TimeStep). A step after LAST keeps
        returning LAST with zero reward; wrap in ``wrappers.AutoReset`` to
        start the next episode instead. An action not of ``action_spec()``'s
        form raises TypeError/ValueError when traced (``trace_checks.check_action``)."""
        trace_checks.check_action(f"{self!r}.step", action, self.action_spec())
        state, reward, terminated, truncated = self.advance(state, action)
        step_type = jnp.where(terminated | truncated, StepType.LAST, StepType.MID).astype(jnp.int32)
        return state, self.time_step(state, step_type, reward, terminated, truncated)

    def time_step(self, state, step_type, reward, terminated, truncated) -> TimeStep:
        """Assemble a TimeStep, rendering the observations of ``state`` once."""
        return TimeStep(
            step_type=step_type,
            reward=jnp.asarray(reward, jnp.float32),
            discount=jnp.where(terminated, 0.0, 1.0).astype(jnp.float32),
            observation=self.observe(state),
            extras={"terminated": jnp.asarray(terminated), "truncated": jnp.asarray(truncated), **self.extras(state)},
        )

    def extras(self, state: Any) -> Dict[str, jnp.ndarray]:
        """A family's own entries of a TimeStep's ``extras`` for ``state`` (arrays; none by default)."""
        return {}

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.name!r})"
