"""Memory-task speed benchmark: a memory-task level under ``VmapAutoReset`` with uniform random float
actions in [-1, 1] (every slot given each step), or the fixed maze ``nav_maze_static_01`` with its 9
discrete actions as the baseline, stepped as a jitted ``lax.scan``; the RGB_INTERLEAVED frame (and
AvatarPosition and Score) ride in the scan carry, so every frame is rendered."""
from __future__ import annotations

import jax
import jax.numpy as jnp

import jaxlab
from jaxlab.bench.timing import initial_carry, make_rollout
from jaxlab.levels.dmlab import memory
from jaxlab.registry import memory as memory_table
from jaxlab.wrappers import DiscreteActions, VmapAutoReset

BASELINE = "nav_maze_static_01"
CPU_BATCHES = (1, 16, 256, 1024)
ACCELERATOR_BATCHES = CPU_BATCHES + (4096, 16384)
#: env steps per timed scan by default
STEPS = 20
#: dm_memorytasks runs inside DeepMind Lab, so it is never measured side by side
ORIGINAL_NOTE = "runs on DeepMind Lab, which is not pip-installable (it builds with Bazel); not measured"


def default_levels() -> list:
    """One level per task: ``<task>_train`` (``_train_large`` where the task has no ``_train``)."""
    names = set(memory.all_level_names())
    return [f"{t}_train" if f"{t}_train" in names else f"{t}_train_large" for t in memory.TASK_NAMES]


def make_env(level: str, width: int = 96, height: int = 72, action_repeat: int = 1):
    """The env of ``level`` (a memory-task level, or ``BASELINE`` under ``DiscreteActions``) rendering the
    uint8[height, width, 3] frame."""
    if level == BASELINE:
        return DiscreteActions(jaxlab.make(level, width=width, height=height, observations=("RGB_INTERLEAVED",),
                                           action_repeat=action_repeat))
    return memory_table.make_env(level, width=width, height=height, action_repeat=action_repeat)


def level_rollout(env, batch: int, steps: int, seed: int = 0):
    """``(rollout, carry)``: the jitted ``carry -> carry`` scan of ``steps`` ``VmapAutoReset`` steps of
    ``batch`` envs of ``env`` (``make_env``'s) with uniform random actions (int32[batch] discrete ones
    where ``env`` has ``num_actions``, else float32[batch, 4] in [-1, 1]), and its first carry
    (``timing.initial_carry``)."""
    if hasattr(env, "num_actions"):
        def policy(key, _):
            return jax.random.randint(key, (batch,), 0, env.num_actions, dtype=jnp.int32)
    else:
        def policy(key, _):
            return jax.random.uniform(key, (batch,) + env.action_spec().shape, jnp.float32, -1.0, 1.0)
    carry = initial_carry(env, batch, seed)
    return make_rollout(env, steps, policy, batched_step=VmapAutoReset(env).step), carry
