"""Env-to-Env wrappers: the ``Wrapper`` base, ``AutoReset`` and ``DiscreteActions``;
``VmapAutoReset``, AutoReset for a whole batch.

Every wrapper keeps the jaxlab Env interface (``init_state``, ``advance``,
``observe``, ``reset``, ``step``, specs), so wrappers compose and stay pure:
``jax.jit(jax.vmap(wrapped.step))`` works as it does on the bare env.
"""
from __future__ import annotations

import functools
from typing import Any, Optional, Sequence

import jax
import jax.numpy as jnp
import numpy as np

from jaxlab import trace_checks
from jaxlab.env import BLOCKS_FROM, Env, select_tree, where_rows
from jaxlab.types import DiscreteArraySpec, StepType, TimeStep


class Wrapper(Env):
    """Base of Env-to-Env wrappers: every method goes to the wrapped ``env``.

    Attributes not defined on the wrapper (``num_levels``, ``fps``, ``width``,
    ``height``, ``observations``, ``action_repeat``, ``bank``, …) are read
    from the wrapped env, so a wrapped env can stand where the bare one did.
    """

    def __init__(self, env: Env):
        if not isinstance(env, Env):
            raise TypeError(f"{type(self).__name__} wraps a jaxlab Env, got {type(env).__name__}")
        self.env = env
        self.name = env.name

    def __getattr__(self, attr: str):
        # Only called when normal lookup fails; guard against recursion before __init__.
        env = self.__dict__.get("env")
        if env is None or attr.startswith("__"):
            raise AttributeError(attr)
        return getattr(env, attr)

    @property
    def unwrapped(self) -> Env:
        """The innermost (non-wrapper) env."""
        return self.env.unwrapped if isinstance(self.env, Wrapper) else self.env

    def init_state(self, key: jax.Array, *args, **kwargs) -> Any:
        """A fresh episode's state from ``key`` (extra arguments, e.g. ``level_index``, go through)."""
        return self.env.init_state(key, *args, **kwargs)

    def advance(self, state: Any, action: Any):
        """The wrapped env's advance: (state, reward float32[], terminated bool[], truncated bool[])."""
        return self.env.advance(state, action)

    def observe(self, state: Any):
        """The wrapped env's observations of ``state``: dict name -> array."""
        return self.env.observe(state)

    def observation_spec(self):
        """dict name -> ArraySpec of the wrapped env's observations."""
        return self.env.observation_spec()

    def action_spec(self):
        """The wrapped env's action spec."""
        return self.env.action_spec()

    def reset(self, key: jax.Array):
        """The wrapped env's reset from ``key`` (one PRNG key, checked when traced): (state, FIRST TimeStep)."""
        trace_checks.check_key(f"{self!r}.reset", key)
        return self.env.reset(key)

    def step(self, state: Any, action: Any):
        """The wrapped env's step (``action`` checked against ``action_spec()`` when traced): (state, TimeStep)."""
        trace_checks.check_action(f"{self!r}.step", action, self.action_spec())
        return self.env.step(state, action)

    def time_step(self, state, step_type, reward, terminated, truncated) -> TimeStep:
        """The wrapped env's TimeStep assembly (renders ``state`` once)."""
        return self.env.time_step(state, step_type, reward, terminated, truncated)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.env!r})"


def reset_key(key: jax.Array) -> jax.Array:
    """The key AutoReset starts the next episode from, split from an ended state's ``key``."""
    return jax.random.split(key)[1]


def restarted_time_step(env: Env, next_state: Any, was_done, reward, terminated, truncated) -> TimeStep:
    """The TimeStep after an auto-reset step: FIRST (reward 0, not terminated
    or truncated) where the previous state was ``done``, else MID or LAST."""
    was_done = jnp.asarray(was_done)
    ended = jnp.asarray(terminated) | jnp.asarray(truncated)
    step_type = jnp.where(was_done, StepType.FIRST, jnp.where(ended, StepType.LAST, StepType.MID)).astype(jnp.int32)
    return env.time_step(next_state, step_type,
                         jnp.where(was_done, jnp.float32(0.0), jnp.asarray(reward, jnp.float32)),
                         jnp.asarray(terminated) & ~was_done, jnp.asarray(truncated) & ~was_done)


class AutoReset(Wrapper):
    """Start the next episode automatically, dm_env style.

    ``step`` on a state whose ``done`` is set ignores the action and returns
    the FIRST time step of a new episode (reward 0, discount 1), whose state
    comes from ``env.init_state`` with a key split from the ended state's
    ``key``. Otherwise it steps normally (MID, or LAST when the episode ends).
    The next state is chosen before observing, so each call renders exactly
    once; it is jit- and vmap-safe (each batch element resets on its own).
    Under ``vmap`` only the rows whose episode ended compute a new one
    (``jaxlab.env.where_rows``: a block of 1/16 of the batch when they fit),
    with the same result as computing every row and selecting.
    """

    def step(self, state: Any, action: Any):
        """(state, TimeStep): FIRST of a new episode if ``state.done``, else a normal step.
        ``action`` is checked against ``action_spec()`` when traced."""
        trace_checks.check_action(f"{self!r}.step", action, self.action_spec())
        was_done = jnp.asarray(state.done)
        stepped, reward, terminated, truncated = self.env.advance(state, action)
        env = self.env
        next_state = where_rows(was_done, lambda key, _: env.init_state(reset_key(key)), lambda _, kept: kept,
                                (state.key, stepped), shares=(16,))
        return next_state, restarted_time_step(self.env, next_state, was_done, reward, terminated, truncated)


def _with_resets(env: Env, was_done, keys, stepped):
    """``stepped`` (a batch of B states) with a new episode from ``env.init_state(reset_key(keys[i]))``
    in every row i where ``was_done`` (bool[B]). When the ended rows fit in a block of ceil(B / 16)
    (and B >= ``BLOCKS_FROM``), only that block's episodes are drawn and written into their rows;
    otherwise every row's is drawn and the ended rows' kept. The rows are the same either way."""
    batch = was_done.shape[0]
    block = -(-batch // 16)

    def every_row(stepped):
        fresh = jax.vmap(env.init_state)(jax.vmap(reset_key)(keys))
        return jax.vmap(select_tree)(was_done, fresh, stepped)

    def ended_rows(stepped):
        rows = jnp.nonzero(was_done, size=block, fill_value=batch)[0]          # batch: an unused slot
        picked = jax.tree_util.tree_map(lambda k: k[jnp.minimum(rows, batch - 1)], keys)
        fresh = jax.vmap(env.init_state)(jax.vmap(reset_key)(picked))
        return jax.tree_util.tree_map(lambda s, f: s.at[rows].set(f, mode="drop"), stepped, fresh)

    if batch < BLOCKS_FROM:
        return every_row(stepped)
    return jax.lax.cond(jnp.sum(was_done) <= block, ended_rows, every_row, stepped)


class VmapAutoReset:
    """``AutoReset`` for a whole batch, resetting only when some env needs it.

    This wrapper takes the batch as a whole (Jumanji's ``VmapAutoResetWrapper``
    idea): it steps every env and draws new episodes behind a ``lax.cond`` on
    "any env done", so steps where no episode ended pay nothing for resets
    (one predicate per step, which suits a GPU). When the ended envs fit in a
    block of 1/16 of the batch, only theirs are drawn; else every env's.
    ``jax.vmap(AutoReset(env).step)`` works per row instead
    (``jaxlab.env.where_rows``). Results are identical to
    ``jax.vmap(AutoReset(env).step)``, same keys and all.

    ``reset(keys[B])`` and ``step(states[B], actions[B])`` take and return
    batched pytrees; jit them directly (no ``vmap``).
    """

    def __init__(self, env: Env):
        if not isinstance(env, Env):
            raise TypeError(f"VmapAutoReset wraps a jaxlab Env, got {type(env).__name__}")
        self.env = env
        self.name = env.name

    def reset(self, keys: jax.Array):
        """Start B episodes: (states, TimeSteps), batched over ``keys`` (PRNG keys [B], or raw uint32[B, 2];
        checked when traced)."""
        trace_checks.check_key(f"{self!r}.reset", keys, trace_checks.leading_batch(keys))
        return jax.vmap(self.env.reset)(keys)

    def step(self, states: Any, actions: Any):
        """(states, TimeSteps) for a batch: FIRST of a new episode where ``states.done``, else a normal step.
        ``actions`` (one env's action with a leading axis B) are checked against ``action_spec()`` when traced."""
        env = self.env
        was_done = jnp.asarray(states.done)
        trace_checks.check_action(f"{self!r}.step", actions, env.action_spec(), was_done.shape[:1])
        stepped, reward, terminated, truncated = jax.vmap(env.advance)(states, actions)

        next_states = jax.lax.cond(was_done.any(), functools.partial(_with_resets, env, was_done, states.key),
                                   lambda stepped: stepped, stepped)
        return next_states, jax.vmap(functools.partial(restarted_time_step, env))(
            next_states, was_done, reward, terminated, truncated)

    def observation_spec(self):
        """dict name -> ArraySpec of one env's observations."""
        return self.env.observation_spec()

    def action_spec(self):
        """One env's action spec."""
        return self.env.action_spec()

    def __repr__(self) -> str:
        return f"VmapAutoReset({self.env!r})"


class DiscreteActions(Wrapper):
    """Index actions: an int32[] index into ``table`` (int32[N, A]) picks the env action.

    The default table is the env's own ``discrete_actions`` (name -> action
    row), e.g. DMLab's 9-action IMPALA set on a first-person env (forward,
    backward, strafe left/right, look left/right, look left/right + forward,
    fire). Indices outside ``[0, N)`` are clipped into range inside jit (as
    the bare env clips its actions); the host front ends (``DmEnv``) reject
    them instead.

    Args:
      env: the wrapped env; each table row must be valid for its action spec.
      table: int32[N, A] action rows; None takes ``env.discrete_actions``
        (TypeError when the env has none).
      names: optional N names of the rows (``action_names``); by default the
        env's names when ``table`` is its ``discrete_actions``, else
        ``action_0``, ``action_1``, ...
    """

    def __init__(self, env: Env, table=None, names: Optional[Sequence[str]] = None):
        super().__init__(env)
        defaults = getattr(env, "discrete_actions", None)
        if table is None:
            if defaults is None:
                raise TypeError(f"{env!r} has no default discrete actions (no `discrete_actions`); "
                                f"pass DiscreteActions(env, table=...) with int32[N, A] action rows")
            table = list(defaults.values())
        table = np.asarray(table)
        if table.ndim != 2 or table.shape[0] == 0:
            raise ValueError(f"table must be a non-empty [N, A] array of actions, got shape {table.shape}")
        inner = env.action_spec()
        if table.shape[1:] != tuple(inner.shape):
            raise ValueError(f"table rows have shape {table.shape[1:]}, the env's actions {tuple(inner.shape)}")
        if table.dtype.kind not in "iu":
            raise ValueError(f"table must hold integers, got dtype {table.dtype}")
        table = table.astype(np.dtype(inner.dtype))
        for i, row in enumerate(table):
            try:
                inner.validate(row)
            except ValueError as err:
                raise ValueError(f"table row {i}: {err}") from None
        if names is None and defaults is not None and np.array_equal(table, list(defaults.values())):
            names = tuple(defaults)
        if names is not None and len(names) != len(table):
            raise ValueError(f"{len(names)} names for {len(table)} table rows")
        self.table = table
        self.action_names = tuple(names) if names is not None else tuple(f"action_{i}" for i in range(len(table)))

    @property
    def num_actions(self) -> int:
        """N, the number of discrete actions."""
        return int(self.table.shape[0])

    def env_action(self, action) -> jnp.ndarray:
        """The env action (int32[A]) for index ``action`` (int[]), clipped into [0, N)."""
        index = jnp.clip(jnp.asarray(action).astype(jnp.int32), 0, self.num_actions - 1)
        return jnp.asarray(self.table)[index]

    def advance(self, state: Any, action: Any):
        """Advance with the table row ``action`` (int32[]): (state, reward, terminated, truncated)."""
        return self.env.advance(state, self.env_action(action))

    def step(self, state: Any, action: Any):
        """Step with the table row ``action`` (an integer index, int32[]; checked when traced): (state, TimeStep)."""
        trace_checks.check_action(f"{self!r}.step", action, self.action_spec())
        return self.env.step(state, self.env_action(action))

    def action_spec(self) -> DiscreteArraySpec:
        """DiscreteArraySpec: int32[] in [0, N), ``num_values`` = N."""
        n = self.num_actions
        return DiscreteArraySpec(shape=(), dtype=np.int32, name="action", minimum=0, maximum=n - 1,
                                 num_values=n)
