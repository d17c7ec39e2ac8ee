"""Acting in a batch of envs: the ``Agent`` (task + network), one batched step, rollouts for
training, evaluation and pictures.

A batch holds B envs of A players each; the network sees the B·A players as
one batch (env-major: player a of env b is row ``b·A + a``). Envs are stepped
with ``jax.vmap(AutoReset(env).step)``: after a LAST step the next step
ignores the action and starts a new episode (FIRST, reward 0). The transition
that starts from a LAST step is therefore not the agent's doing; it is
recorded with ``valid`` false and left out of learning.

Policies (``how``): ``'sample'`` draws from the network's distribution,
``'greedy'`` takes its most likely action, ``'random'`` draws uniformly among
the allowed actions (``params`` unused). Everything here is pure and
jit-safe.

An Agent made from ``jaxlab.sharded(env)`` keeps the env batch split over the
devices: each device resets and steps its own envs (``ShardedEnv.per_device``)
and XLA's partitioner runs the network and the PPO update data-parallel
around them (parameters replicated, gradients summed across devices). The
same code runs either way.
"""
from __future__ import annotations

import dataclasses
from typing import Any, Callable, Optional, Tuple

import flax.linen as nn
import jax
import jax.numpy as jnp
from flax import struct

from jaxlab.agents.networks import MASKED_LOGIT, network_for
from jaxlab.agents.tasks import AgentTask, Inputs, agent_task
from jaxlab.env import Env
from jaxlab.wrappers.core import AutoReset, VmapAutoReset
from jaxlab.wrappers.optimistic import OptimisticAutoReset
from jaxlab.wrappers.sharding import ShardedEnv

POLICIES = ("sample", "greedy", "random")


@dataclasses.dataclass(frozen=True)
class Agent:
    """How a learner sees an env (``task``), the actor-critic ``network`` over it and, for a
    sharded env, ``shards`` (the ``ShardedEnv`` whose devices hold the env batch; None: one device)."""

    task: AgentTask
    network: nn.Module
    shards: Optional[ShardedEnv] = None

    def over_batch(self, env_fn: Callable) -> Callable:
        """``env_fn`` (of one env) over a batch ``[B, ...]``: ``jax.vmap``, run by each device on its
        own rows when the agent is sharded."""
        batched = jax.vmap(env_fn)
        return self.shards.per_device(batched) if self.shards is not None else batched

    def unsharded(self) -> "Agent":
        """This agent on one device (for batches that do not split over the devices, e.g. one env)."""
        return dataclasses.replace(self, shards=None)

    def init(self, key: jax.Array) -> Any:
        """Fresh network parameters (a pytree) from ``key``."""
        k_env, k_net = jax.random.split(key)
        state, ts = self.task.env.reset(k_env)
        return self.network.init(k_net, self.task.inputs(state, ts))

    def logits_and_values(self, params: Any, inputs: Inputs) -> Tuple[jnp.ndarray, jnp.ndarray]:
        """(logits float32[N, K] with masked actions at MASKED_LOGIT, values float32[N]) of
        ``inputs`` (arrays with a leading player-batch axis N)."""
        return self.network.apply(params, inputs)


def make_agent(env: Env | ShardedEnv, hidden_size: int = 128) -> Agent:
    """The Agent of ``env`` (``tasks.agent_task``) with its family's network of trunk width ``hidden_size``.

    ``env`` may be ``jaxlab.sharded(env)`` of a one-env Env: the agent's env batches are then split
    over its devices (their size must be a multiple of the device count)."""
    if isinstance(env, ShardedEnv):
        if isinstance(env.env, (AutoReset, VmapAutoReset, OptimisticAutoReset)):
            raise TypeError(f"{env!r}: shard the bare env (jaxlab.sharded(env)); the learner adds its own "
                            f"AutoReset")
        task = agent_task(env.env)
        return Agent(task, network_for(task, hidden_size), env)
    task = agent_task(env)
    return Agent(task, network_for(task, hidden_size))


@struct.dataclass
class Runner:
    """A batch of B envs mid-rollout.

    states: the envs' states [B]; inputs: the network inputs of their
    current steps [B, A, ...]; last: bool[B] the current step is LAST (the
    next one starts a new episode); episode_return: float32[B, A] each
    player's return so far this episode; key: the PRNG key of the actions.
    """

    states: Any
    inputs: Inputs
    last: jnp.ndarray
    episode_return: jnp.ndarray
    key: jax.Array


@struct.dataclass
class StepRecord:
    """What one batched step records (B envs, A players).

    inputs: [B, A, ...] the inputs acted on; action, log_prob, value:
    int32/float32[B, A]; valid: bool[B] the action was played (the step did
    not start from LAST); reward: float32[B, A] each player's reward;
    discount: float32[B] 0 when the episode terminated; ended: bool[B] the
    step ended an episode; ended_return: float32[B, A] the return of the
    episode that ended (0 elsewhere).
    """

    inputs: Inputs
    action: jnp.ndarray
    log_prob: jnp.ndarray
    value: jnp.ndarray
    valid: jnp.ndarray
    reward: jnp.ndarray
    discount: jnp.ndarray
    ended: jnp.ndarray
    ended_return: jnp.ndarray


def players_first(tree: Any) -> Any:
    """[B, A, ...] leaves -> [B·A, ...]."""
    return jax.tree_util.tree_map(lambda x: x.reshape((-1,) + x.shape[2:]), tree)


def start(agent: Agent, key: jax.Array, num_envs: int) -> Runner:
    """A Runner of ``num_envs`` fresh episodes (env keys split from ``key``)."""
    k_envs, k_act = jax.random.split(key)
    keys = jax.random.split(k_envs, num_envs)
    if agent.shards is not None:
        agent.shards.check_batch(keys, f"the batch of num_envs={num_envs}")
    states, ts = agent.over_batch(agent.task.env.reset)(keys)
    return Runner(states, jax.vmap(agent.task.inputs)(states, ts), ts.last(),
                  jnp.zeros((num_envs, agent.task.num_agents), jnp.float32), k_act)


def policy_logits(agent: Agent, params: Any, inputs: Inputs, how: str) -> Tuple[jnp.ndarray, jnp.ndarray]:
    """(logits float32[N, K], values float32[N]) of policy ``how`` on ``inputs`` ([N, ...]): the
    network's, or for ``'random'`` equal logits over the allowed actions and zero values."""
    if how not in POLICIES:
        raise ValueError(f"unknown policy {how!r}; expected one of {POLICIES}")
    if how == "random":
        mask = inputs["mask"]
        return jnp.where(mask, 0.0, MASKED_LOGIT), jnp.zeros(mask.shape[0], jnp.float32)
    return agent.logits_and_values(params, inputs)


def batched_step(agent: Agent, params: Any, runner: Runner, how: str = "sample") -> Tuple[Runner, StepRecord]:
    """Act in every env of ``runner`` by policy ``how`` and step them once: (next Runner, StepRecord)."""
    task = agent.task
    num_envs, num_agents = runner.last.shape[0], task.num_agents
    key, k_act = jax.random.split(runner.key)
    logits, values = policy_logits(agent, params, players_first(runner.inputs), how)
    actions = jnp.argmax(logits, axis=-1) if how == "greedy" else jax.random.categorical(k_act, logits)
    log_probs = jnp.take_along_axis(jax.nn.log_softmax(logits), actions[:, None], axis=-1)[:, 0]
    per_env = (num_envs, num_agents)
    actions = actions.reshape(per_env).astype(jnp.int32)
    states, ts = agent.over_batch(task.env.step)(runner.states, jax.vmap(task.env_action)(actions))
    rewards = jax.vmap(task.rewards)(ts)
    ended = ts.last()
    episode_return = runner.episode_return + rewards
    record = StepRecord(runner.inputs, actions, log_probs.reshape(per_env), values.reshape(per_env),
                        ~runner.last, rewards, ts.discount, ended, jnp.where(ended[:, None], episode_return, 0.0))
    runner = Runner(states, jax.vmap(task.inputs)(states, ts), ended,
                    jnp.where(ended[:, None], 0.0, episode_return), key)
    return runner, record


def collect(agent: Agent, params: Any, runner: Runner, steps: int) -> Tuple[Runner, StepRecord]:
    """``steps`` batched steps sampling from the policy (``lax.scan``): (Runner, StepRecord with [T, B, ...])."""
    return jax.lax.scan(lambda r, _: batched_step(agent, params, r), runner, None, length=steps)


def first_episode_returns(ended: jnp.ndarray, ended_return: jnp.ndarray) -> Tuple[jnp.ndarray, jnp.ndarray]:
    """(float32[B, A] the return of each env's first finished episode, bool[B] it finished) from a
    rollout's ``ended`` bool[T, B] and ``ended_return`` float32[T, B, A]."""
    first = jnp.argmax(ended, axis=0)
    returns = jnp.take_along_axis(ended_return, first[None, :, None], axis=0)[0]
    return returns, ended.any(axis=0)


def evaluate(agent: Agent, params: Optional[Any], key: jax.Array, num_envs: int, steps: int,
             how: str = "sample") -> Tuple[jnp.ndarray, jnp.ndarray]:
    """Play ``num_envs`` envs for ``steps`` steps by policy ``how`` (``'random'``: ``params`` may be None).

    Returns (float32[A] the mean return per player of each env's first
    episode, int32[] how many envs finished one). Counting first episodes
    only keeps short episodes from weighing more; give ``steps`` at least
    the episode length so every env finishes. Not jitted here: jit
    ``functools.partial(evaluate, agent, num_envs=..., steps=...)`` with
    ``static_argnames="how"``.
    """
    def body(runner, _):
        runner, record = batched_step(agent, params, runner, how)
        return runner, (record.ended, record.ended_return)

    _, (ended, ended_return) = jax.lax.scan(body, start(agent, key, num_envs), None, length=steps)
    returns, finished = first_episode_returns(ended, ended_return)
    count = finished.sum()
    return (jnp.where(finished[:, None], returns, 0.0).sum(axis=0) / jnp.maximum(count, 1),
            count.astype(jnp.int32))


def rollout_frames(agent: Agent, params: Optional[Any], key: jax.Array, steps: int,
                   how: str = "sample") -> Tuple[jnp.ndarray, jnp.ndarray]:
    """One env played for ``steps`` steps by policy ``how``: (uint8[T, H, W, 3] the picture before each
    step (``task.frame``: the first-person view, the grid's WORLD.RGB), float32[T, A] the rewards).
    Text tasks have no picture (ValueError). A sharded agent plays its one env on one device."""
    agent = agent.unsharded()
    task = agent.task

    def body(runner, _):
        picture = task.frame(*jax.tree_util.tree_map(lambda x: x[0], (runner.states, runner.inputs)))
        runner, record = batched_step(agent, params, runner, how)
        return runner, (picture, record.reward[0])

    _, (frames, rewards) = jax.lax.scan(body, start(agent, key, 1), None, length=steps)
    return frames, rewards
