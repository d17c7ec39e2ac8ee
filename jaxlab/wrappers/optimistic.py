"""``OptimisticAutoReset``: auto-reset for a batch that draws only a few new episodes per step.

``VmapAutoReset`` draws a new episode for every env of the batch whenever any
episode ended. When episodes end at different times (as they soon do in
training) that is nearly every step, and for a level generated on the device
(DMLab-30) drawing a level costs far more than a step. This wrapper draws at
most ``resets_per_step`` new episodes per step (the idea of Craftax's
optimistic resets): the first ``resets_per_step`` envs that ended (in batch
order) get exactly the episode ``AutoReset`` would give them (from their own
key), and any further env that ended on the same step starts a copy of one of
those fresh episodes (same level and start) with a key of its own, so its
play diverges from there. With ``resets_per_step`` at least the number of
episodes that end on any one step, results equal ``VmapAutoReset``'s.
"""
from __future__ import annotations

import functools
from typing import Any

import jax
import jax.numpy as jnp

from jaxlab import trace_checks
from jaxlab.env import Env
from jaxlab.wrappers.core import VmapAutoReset, reset_key, restarted_time_step, select_tree


class OptimisticAutoReset(VmapAutoReset):
    """A batch auto-reset computing at most ``resets_per_step`` new episodes per step (see the module).

    ``reset(keys[B])`` and ``step(states[B], actions[B])`` take and return
    batched pytrees; jit them directly (no ``vmap``). The batch's states must
    carry a ``key`` (every jaxlab state does).
    """

    def __init__(self, env: Env, resets_per_step: int):
        super().__init__(env)
        if isinstance(resets_per_step, bool) or not isinstance(resets_per_step, int) or resets_per_step < 1:
            raise ValueError(f"resets_per_step must be a positive int, got {resets_per_step!r}")
        self.resets_per_step = resets_per_step

    def step(self, states: Any, actions: Any):
        """(states, TimeSteps) for a batch: FIRST of a new episode where ``states.done``, else a normal step."""
        env = self.env
        was_done = jnp.asarray(states.done)
        trace_checks.check_action(f"{self!r}.step", actions, env.action_spec(), was_done.shape[:1])
        k = min(self.resets_per_step, was_done.shape[0])
        stepped, reward, terminated, truncated = jax.vmap(env.advance)(states, actions)

        def with_resets(stepped):
            keys = jax.vmap(reset_key)(states.key)                      # [B] each env's next-episode key
            first = jnp.nonzero(was_done, size=k, fill_value=0)[0]      # the first k envs that ended
            fresh = jax.vmap(env.init_state)(keys[first])
            rank = jnp.cumsum(was_done) - 1                             # order among the ended envs
            copied = jax.tree_util.tree_map(lambda a: a[rank % k], fresh)
            overflow = rank >= k
            own_key = jax.vmap(lambda key: jax.random.split(key)[0])(keys)
            copied = copied.replace(key=jax.vmap(select_tree)(overflow, own_key, copied.key))
            return jax.vmap(select_tree)(was_done, copied, stepped)

        next_states = jax.lax.cond(was_done.any(), with_resets, lambda stepped: stepped, stepped)
        return next_states, jax.vmap(functools.partial(restarted_time_step, env))(
            next_states, was_done, reward, terminated, truncated)

    def __repr__(self) -> str:
        return f"OptimisticAutoReset({self.env!r}, resets_per_step={self.resets_per_step})"
