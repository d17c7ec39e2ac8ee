"""``GymnaxAdapter``: a jaxlab Env with gymnax's functional interface.

PureJaxRL-style training loops run unchanged::

    env = GymnaxAdapter(DiscreteActions(jaxlab.make("seekavoid_arena_01", width=96, height=72,
                                                    action_repeat=4)))
    params = env.default_params
    obs, state = jax.vmap(env.reset, in_axes=(0, None))(keys, params)
    obs, state, reward, done, info = jax.vmap(env.step, in_axes=(0, 0, 0, None))(keys, state, action, params)
"""
from __future__ import annotations

from typing import Any, Dict, Optional, Tuple

import jax
import jax.numpy as jnp
import numpy as np
from flax import struct

from jaxlab import trace_checks
from jaxlab.env import Env
from jaxlab.wrappers.core import reset_key, select_tree
from jaxlab.wrappers.spaces import Dict as DictSpace, Discrete, space_from_spec


@struct.dataclass
class EnvParams:
    """gymnax-style environment parameters. jaxlab settings (frame size,
    action repeat, episode length) are fixed when the env is made, so this
    carries nothing; it exists so gymnax call signatures work."""


class GymnaxAdapter:
    """gymnax interface over a jaxlab Env, with gymnax's auto-reset.

    ``step`` advances the env; when the episode ends (terminated or
    truncated) the returned state and observation are those of a fresh
    episode started from ``key`` (the step's reward, ``done`` and ``info``
    still describe the step that ended). The state is chosen before
    observing, so each step renders once.

    Observations: the single array when the env has one observation (e.g.
    uint8[H, W, 3] for RGB_INTERLEAVED), else the dict name -> array.
    Actions: whatever the env takes (wrap in ``DiscreteActions`` for a
    ``Discrete(9)`` action space).
    """

    def __init__(self, env: Env):
        if not isinstance(env, Env):
            raise TypeError(f"GymnaxAdapter wraps a jaxlab Env, got {type(env).__name__}")
        self.env = env
        specs = env.observation_spec()
        if not specs:
            raise ValueError("GymnaxAdapter needs at least one observation; make the env with observations=(...)")
        self._obs_names = tuple(specs)
        self._obs_specs = specs

    @property
    def name(self) -> str:
        """The wrapped env's level name."""
        return self.env.name

    @property
    def default_params(self) -> EnvParams:
        """The (empty) EnvParams."""
        return EnvParams()

    @property
    def num_actions(self) -> int:
        """Number of discrete actions, or the length of a vector action."""
        space = self.action_space()
        return space.n if isinstance(space, Discrete) else int(np.prod(space.shape))

    def _pick(self, observation: Dict[str, jnp.ndarray]):
        if len(self._obs_names) == 1:
            return observation[self._obs_names[0]]
        return observation

    def reset(self, key: jax.Array, params: Optional[EnvParams] = None) -> Tuple[Any, Any]:
        """Start an episode from ``key`` (one PRNG key, checked when traced): (observation, state)."""
        trace_checks.check_key(f"{self!r}.reset", key)
        state = self.env.init_state(key)
        return self._pick(self.env.observe(state)), state

    def step(self, key: jax.Array, state: Any, action: Any, params: Optional[EnvParams] = None):
        """One agent step: (observation, state, reward float32[], done bool[], info).

        ``info``: ``discount`` (float32[], 0 on termination else 1),
        ``terminated`` and ``truncated`` (bool[]). On ``done`` the state and
        observation are of a new episode started from ``key``. ``key`` and ``action`` are checked
        (one PRNG key, ``action_space()``'s form) when traced.
        """
        trace_checks.check_key(f"{self!r}.step", key)
        trace_checks.check_action(f"{self!r}.step", action, self.env.action_spec())
        stepped, reward, terminated, truncated = self.env.advance(state, action)
        terminated, truncated = jnp.asarray(terminated), jnp.asarray(truncated)
        done = terminated | truncated
        next_state = select_tree(done, self.env.init_state(reset_key(key)), stepped)
        info = {
            "discount": jnp.where(terminated, 0.0, 1.0).astype(jnp.float32),
            "terminated": terminated,
            "truncated": truncated,
        }
        obs = self._pick(self.env.observe(next_state))
        return obs, next_state, jnp.asarray(reward, jnp.float32), done, info

    def action_space(self, params: Optional[EnvParams] = None):
        """Discrete(n) for index actions, else a Box with the action bounds (int32[7] for DMLab actions)."""
        return space_from_spec(self.env.action_spec())

    def observation_space(self, params: Optional[EnvParams] = None):
        """Box of the single observation (uint8 frames in [0, 255], float32
        vectors unbounded), or a Dict of Boxes when several are requested."""
        spaces = {name: space_from_spec(spec) for name, spec in self._obs_specs.items()}
        return spaces[self._obs_names[0]] if len(spaces) == 1 else DictSpace(spaces)

    def __repr__(self) -> str:
        return f"GymnaxAdapter({self.env!r})"


__all__ = ["EnvParams", "GymnaxAdapter"]
