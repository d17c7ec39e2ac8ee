"""PPO (clipped objective, GAE, value loss, entropy bonus) with the whole loop in one ``jax.jit``.

``make_train(config, env)`` returns ``train(key) -> (params, metrics)``: the
envs' rollouts (``lax.scan`` over ``jax.vmap(AutoReset(env).step)``) and the
updates (epochs of shuffled minibatches) all run inside one jitted
``lax.scan`` over updates. Multi-player grid levels are played by
independent learners sharing one set of parameters: every player is a row
of the batch with its own observation (its own position and facing), reward,
advantage and return.

Advantages are GAE over each player's rewards; a terminated episode cuts the
return (discount 0), a truncated one bootstraps from the value of its LAST
step. Transitions that start from a LAST step (AutoReset's restart, whose
action is ignored) carry no learning signal and are masked out.

The loop is pure: the same key gives the same parameters and metrics, except
``wall_time_s``, which reads the host clock through ``io_callback`` after
each update.
"""
from __future__ import annotations

import dataclasses
import time
from typing import Any, Callable, Dict, Tuple

import jax
import jax.numpy as jnp
import numpy as np
import optax
from jax.experimental import io_callback

from jaxlab.agents.rollout import Agent, StepRecord, collect, make_agent, players_first, start
from jaxlab.env import Env
from jaxlab.wrappers.sharding import ShardedEnv

Metrics = Dict[str, jnp.ndarray]
_CLOCK_ZERO = time.perf_counter()


@dataclasses.dataclass(frozen=True)
class PPOConfig:
    """PPO's settings.

    total_env_steps: env steps to train for (one step of one env, whatever its player count); rounded
      down to whole updates of ``num_envs × rollout_length`` steps (at least one update).
    num_envs: B, envs stepped together; rollout_length: T, steps per env between updates.
    update_epochs: passes over each rollout; num_minibatches: minibatches per pass (the B·A·T samples are
      shuffled each pass; the remainder of an uneven split is left out of that pass).
    learning_rate: Adam's step size, decayed linearly to 0 over training when ``anneal_lr``.
    gamma: discount per step; gae_lambda: GAE's λ; clip_eps: the ratio clip (and the value clip).
    entropy_coef, value_coef: weights of the entropy bonus and the value loss; max_grad_norm: global
      gradient-norm clip. hidden_size: width of the network's trunk.
    """

    total_env_steps: int = 1_000_000
    num_envs: int = 64
    rollout_length: int = 32
    update_epochs: int = 4
    num_minibatches: int = 4
    learning_rate: float = 2.5e-4
    anneal_lr: bool = True
    gamma: float = 0.99
    gae_lambda: float = 0.95
    clip_eps: float = 0.2
    entropy_coef: float = 0.01
    value_coef: float = 0.5
    max_grad_norm: float = 0.5
    hidden_size: int = 128

    @property
    def steps_per_update(self) -> int:
        """Env steps per update: ``num_envs × rollout_length``."""
        return self.num_envs * self.rollout_length

    @property
    def num_updates(self) -> int:
        """Updates in a run: ``total_env_steps // steps_per_update``, at least 1."""
        return max(1, self.total_env_steps // self.steps_per_update)

    def check(self, num_agents: int) -> None:
        """Raise ValueError naming the setting that cannot work with ``num_agents`` players per env."""
        for name in ("total_env_steps", "num_envs", "rollout_length", "update_epochs", "num_minibatches",
                     "hidden_size"):
            if int(getattr(self, name)) < 1:
                raise ValueError(f"PPOConfig.{name} must be a positive integer, got {getattr(self, name)!r}")
        samples = self.steps_per_update * num_agents
        if self.num_minibatches > samples:
            raise ValueError(f"PPOConfig.num_minibatches = {self.num_minibatches} is more than the "
                             f"{samples} samples of a rollout (num_envs × rollout_length × players)")


def advantages_and_targets(record: StepRecord, last_values: jnp.ndarray, gamma: float,
                           gae_lambda: float) -> Tuple[jnp.ndarray, jnp.ndarray]:
    """GAE of a rollout: (advantages, value targets), float32[T, B, A], 0 where not ``valid``.

    ``record`` holds [T, B, ...] steps; ``last_values`` float32[B, A] are the values of the
    steps after the last one (the bootstrap).
    """
    valid = record.valid[..., None].astype(jnp.float32)
    next_values = jnp.concatenate([record.value[1:], last_values[None]])
    discount = gamma * record.discount[..., None]
    deltas = record.reward + discount * next_values - record.value

    def backwards(next_advantage, step):
        delta, discount, valid = step
        advantage = valid * (delta + discount * gae_lambda * next_advantage)
        return advantage, advantage

    _, advantages = jax.lax.scan(backwards, jnp.zeros_like(last_values), (deltas, discount, valid), reverse=True)
    return advantages, valid * (advantages + record.value)


def ppo_loss(agent: Agent, config: PPOConfig, params: Any, batch: Dict[str, Any]) -> Tuple[jnp.ndarray, Metrics]:
    """(loss float32[], its parts) on one minibatch of S samples: ``inputs`` [S, ...], ``action``,
    ``log_prob``, ``value``, ``advantage``, ``target`` [S] and ``weight`` [S] (1 valid, 0 masked)."""
    logits, values = agent.logits_and_values(params, batch["inputs"])
    log_probs = jax.nn.log_softmax(logits)
    log_prob = jnp.take_along_axis(log_probs, batch["action"][:, None], axis=-1)[:, 0]
    weight = batch["weight"]
    count = jnp.maximum(weight.sum(), 1.0)

    def mean(x):
        return jnp.sum(x * weight) / count

    advantage = batch["advantage"]
    advantage = (advantage - mean(advantage)) / (jnp.sqrt(mean((advantage - mean(advantage)) ** 2)) + 1e-8)
    log_ratio = log_prob - batch["log_prob"]
    ratio = jnp.exp(log_ratio)
    clipped_ratio = jnp.clip(ratio, 1.0 - config.clip_eps, 1.0 + config.clip_eps)
    policy_loss = mean(-jnp.minimum(ratio * advantage, clipped_ratio * advantage))
    clipped_values = batch["value"] + jnp.clip(values - batch["value"], -config.clip_eps, config.clip_eps)
    value_loss = 0.5 * mean(jnp.maximum((values - batch["target"]) ** 2, (clipped_values - batch["target"]) ** 2))
    entropy = mean(-jnp.sum(jnp.exp(log_probs) * log_probs, axis=-1))
    loss = policy_loss + config.value_coef * value_loss - config.entropy_coef * entropy
    return loss, {"policy_loss": policy_loss, "value_loss": value_loss, "entropy": entropy,
                  "approx_kl": mean((ratio - 1.0) - log_ratio),
                  "clip_fraction": mean((jnp.abs(ratio - 1.0) > config.clip_eps).astype(jnp.float32))}


def wall_clock(after: jnp.ndarray) -> jnp.ndarray:
    """float32[]: host seconds (since this module was imported) once ``after`` has been computed."""
    return io_callback(lambda _: np.float32(time.perf_counter() - _CLOCK_ZERO),
                       jax.ShapeDtypeStruct((), jnp.float32), after)


def make_train(config: PPOConfig, env: Env | ShardedEnv) -> Callable[[jax.Array], Tuple[Any, Metrics]]:
    """A jitted ``train(key) -> (params, metrics)`` of PPO on ``env`` (a grid, text or first-person env;
    see ``jaxlab.agents.tasks``), or on ``jaxlab.sharded(env)``: the envs then run split over the
    devices (``config.num_envs`` a multiple of their count) and the update data-parallel.

    ``metrics`` holds one row per update (U = ``config.num_updates``):
    ``env_steps`` float32[U] (env steps played so far), ``episode_return``
    float32[U, A] (each player's mean return over the episodes that ended
    during the update's rollout; NaN when none did), ``episodes`` int32[U]
    (how many ended), ``policy_loss``, ``value_loss``, ``entropy``,
    ``approx_kl``, ``clip_fraction`` float32[U] (means over the update's
    minibatches) and ``wall_time_s`` float32[U] (seconds since training
    started running, compilation excluded).
    """
    agent = make_agent(env, config.hidden_size)
    config.check(agent.task.num_agents)
    samples = config.steps_per_update * agent.task.num_agents
    minibatch_size = samples // config.num_minibatches
    optimizer_steps = config.num_updates * config.update_epochs * config.num_minibatches
    learning_rate = (optax.linear_schedule(config.learning_rate, 0.0, optimizer_steps) if config.anneal_lr
                     else config.learning_rate)
    optimizer = optax.chain(optax.clip_by_global_norm(config.max_grad_norm), optax.adam(learning_rate, eps=1e-5))
    gradient = jax.grad(lambda params, batch: ppo_loss(agent, config, params, batch), has_aux=True)

    def minibatch_step(carry, batch):
        params, opt_state = carry
        grads, parts = gradient(params, batch)
        updates, opt_state = optimizer.update(grads, opt_state, params)
        return (optax.apply_updates(params, updates), opt_state), parts

    def epoch(carry, key, samples_of_rollout):
        order = jax.random.permutation(key, samples)[:minibatch_size * config.num_minibatches]
        minibatches = jax.tree_util.tree_map(
            lambda x: x[order].reshape((config.num_minibatches, minibatch_size) + x.shape[1:]), samples_of_rollout)
        return jax.lax.scan(minibatch_step, carry, minibatches)

    def update(carry, index):
        params, opt_state, runner, key, started = carry
        runner, record = collect(agent, params, runner, config.rollout_length)
        _, last_values = agent.logits_and_values(params, players_first(runner.inputs))
        advantages, targets = advantages_and_targets(record, last_values.reshape(record.value.shape[1:]),
                                                     config.gamma, config.gae_lambda)
        weight = jnp.broadcast_to(record.valid[..., None], record.action.shape).astype(jnp.float32)
        rollout = {"inputs": record.inputs, "action": record.action, "log_prob": record.log_prob,
                   "value": record.value, "advantage": advantages, "target": targets, "weight": weight}
        flat = jax.tree_util.tree_map(lambda x: x.reshape((samples,) + x.shape[3:]), rollout)
        key, k_epochs = jax.random.split(key)
        (params, opt_state), parts = jax.lax.scan(
            lambda c, k: epoch(c, k, flat), (params, opt_state), jax.random.split(k_epochs, config.update_epochs))
        episodes = record.ended.sum()
        metrics = {name: value.mean() for name, value in parts.items()}
        metrics.update(
            env_steps=(index + 1).astype(jnp.float32) * config.steps_per_update,
            episode_return=jnp.where(episodes > 0, record.ended_return.sum(axis=(0, 1)) / episodes, jnp.nan),
            episodes=episodes.astype(jnp.int32),
            wall_time_s=wall_clock(metrics["policy_loss"]) - started)
        return (params, opt_state, runner, key, started), metrics

    def train(key: jax.Array) -> Tuple[Any, Metrics]:
        k_params, k_envs, k_updates = jax.random.split(key, 3)
        params = agent.init(k_params)
        runner = start(agent, k_envs, config.num_envs)
        started = wall_clock(runner.episode_return.sum())
        carry = (params, optimizer.init(params), runner, k_updates, started)
        (params, *_), metrics = jax.lax.scan(update, carry, jnp.arange(config.num_updates))
        return params, metrics

    return jax.jit(train)
