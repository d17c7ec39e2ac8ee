"""Wrappers and front ends over jaxlab Envs.

- ``AutoReset(env)``: ``step`` after LAST starts the next episode (FIRST).
- ``VmapAutoReset(env)``: the same for a whole batch (jit its ``step`` directly,
  no vmap), computing resets only on steps where some episode ended.
- ``OptimisticAutoReset(env, resets_per_step)``: the same, drawing at most
  ``resets_per_step`` new episodes a step (for levels generated on device).
- ``DiscreteActions(env, table=None)``: int32 index actions into a table of env actions
  (by default the env's ``discrete_actions``).
- ``CheckedActions(env)``: action values (NaN, out of range) checked under jit with
  ``jax.experimental.checkify`` (opt-in; by default the kernels clip them).
- ``GymnaxAdapter(env)``: gymnax's ``reset(key, params)`` / ``step(key, state, action, params)``.
- ``DmEnv(env, seed)``: a host ``dm_env.Environment`` over one instance.
- ``sharded(env, devices=None)`` / ``ShardedEnv``: one batch split over every device
  (``jax.sharding`` mesh axis ``"batch"``); ``jaxlab.sharded`` is the same.

Env-to-Env wrappers keep the Env interface and compose:
``AutoReset(DiscreteActions(jaxlab.make(...)))``.
"""
from jaxlab.wrappers.checked import CheckedActions
from jaxlab.wrappers.core import AutoReset, DiscreteActions, VmapAutoReset, Wrapper, select_tree
from jaxlab.wrappers.dm_env_adapter import DmEnv
from jaxlab.wrappers.gymnax import EnvParams, GymnaxAdapter
from jaxlab.wrappers.optimistic import OptimisticAutoReset
from jaxlab.wrappers.sharding import ShardedEnv, sharded
from jaxlab.wrappers.spaces import Box, Dict, Discrete

__all__ = ["AutoReset", "Box", "CheckedActions", "Dict", "Discrete", "DiscreteActions", "DmEnv", "EnvParams",
           "GymnaxAdapter", "OptimisticAutoReset", "ShardedEnv", "VmapAutoReset", "Wrapper",
           "select_tree", "sharded"]
