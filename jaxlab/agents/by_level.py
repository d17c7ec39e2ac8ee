"""Evaluation level by level on an env of many levels (a ``jaxlab.suite``, or a bank of first-person levels).

Each evaluation env starts an episode of a level chosen by the caller
(``env.init_state(key, level_index)``), plays it with the trained or the
uniform random policy, and counts its first episode only: the env is
stepped without AutoReset, so after its LAST step it stays there (reward 0)
while the others finish. ``steps`` caps the episodes: an episode still
running after ``steps`` agent steps counts the return it had then, and is
reported as not ended (``ended`` false), so capped and whole episodes
can be told apart.

Both policies run through one compiled program (``random`` is a traced
flag, not a static choice): on the CPU, compiling a suite's step costs
minutes, so two policies should not pay for it twice.
"""
from __future__ import annotations

from typing import Any, Dict, Tuple

import jax
import jax.numpy as jnp
import numpy as np

from jaxlab.agents.networks import MASKED_LOGIT
from jaxlab.agents.rollout import Agent, players_first
from jaxlab.types import StepType


def level_rows(num_levels: int, episodes_per_level: int) -> np.ndarray:
    """int32[num_levels · episodes_per_level]: the level index of each evaluation env, level-major
    (``episodes_per_level`` envs of level 0, then of level 1, ...)."""
    return np.repeat(np.arange(num_levels, dtype=np.int32), episodes_per_level)


def evaluate_levels(agent: Agent, params: Any, key: jax.Array, level_index: jnp.ndarray, random: jnp.ndarray,
                    steps: int) -> Dict[str, jnp.ndarray]:
    """Play one episode in each of B envs, env b on level ``level_index[b]`` (int32[B]), for at most
    ``steps`` agent steps, sampling from the network's policy (``random`` false: bool[], may be traced)
    or uniformly over the allowed actions (``random`` true: ``params`` still given, unused).

    Returns a dict: ``return`` float32[B, A] each player's return of the episode (its return so far
    where ``steps`` cut it), ``ended`` bool[B] the episode ended within ``steps``, ``level`` int32[B]
    the level each env played (its state's ``level_index``: what ``mean_by_level`` groups by) and
    ``episode_steps`` int32[B] the episode's time limit in agent steps (a first-person env's
    ``episode_frames`` over its ``action_repeat``). Pure; jit it with ``steps`` static
    (``functools.partial``)."""
    task = agent.task
    bare = task.env.env   # the learner's env without AutoReset: after LAST it stays LAST, reward 0
    k_envs, k_act = jax.random.split(key)
    keys = jax.random.split(k_envs, level_index.shape[0])
    states = agent.over_batch(task.env.init_state)(keys, level_index)
    first = jax.vmap(lambda s: task.env.time_step(s, jnp.int32(StepType.FIRST), jnp.float32(0.0),
                                                  jnp.bool_(False), jnp.bool_(False)))(states)
    limit = jax.vmap(lambda s: task.env.episode_frames(task.env.level(s)))(states)
    num_envs, num_agents = level_index.shape[0], task.num_agents

    def body(carry, k):
        states, inputs, ended, returns = carry
        flat = players_first(inputs)
        logits, _ = agent.logits_and_values(params, flat)
        logits = jnp.where(random, jnp.where(flat["mask"], 0.0, MASKED_LOGIT), logits)
        actions = jax.random.categorical(k, logits).reshape(num_envs, num_agents).astype(jnp.int32)
        states, ts = agent.over_batch(bare.step)(states, jax.vmap(task.env_action)(actions))
        returns = returns + jnp.where(ended[:, None], 0.0, jax.vmap(task.rewards)(ts))
        return (states, jax.vmap(task.inputs)(states, ts), ended | ts.last(), returns), None

    carry = (states, jax.vmap(task.inputs)(states, first), jnp.zeros(num_envs, bool),
             jnp.zeros((num_envs, num_agents), jnp.float32))
    (states, _, ended, returns), _ = jax.lax.scan(body, carry, jax.random.split(k_act, steps))
    repeat = task.env.action_repeat
    return {"return": returns, "ended": ended, "level": states.level_index,
            "episode_steps": (limit + repeat - 1) // repeat}


def mean_by_level(values: np.ndarray, level_index: np.ndarray, num_levels: int) -> Tuple[np.ndarray, np.ndarray]:
    """(float64[num_levels] the mean of ``values`` (float[B], or [B, A]: averaged over players too) over
    the envs of each level (NaN for a level without envs), int[num_levels] how many envs each level had),
    from each env's level ``level_index`` (int[B])."""
    values = np.asarray(values, np.float64).reshape(len(level_index), -1).mean(axis=1)
    level_index = np.asarray(level_index)
    counts = np.bincount(level_index, minlength=num_levels)
    sums = np.bincount(level_index, weights=values, minlength=num_levels)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(counts > 0, sums / np.maximum(counts, 1), np.nan), counts
