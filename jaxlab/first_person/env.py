"""FirstPersonEnv: DMLab-style first-person levels behind the jaxlab Env API."""
from __future__ import annotations

from typing import Mapping, Optional, Sequence, Tuple

import jax
import jax.numpy as jnp

from jaxlab.env import Env
from jaxlab.bank import Bank
from jaxlab.levels.dmlab.level import Level
from jaxlab.first_person import actions
from jaxlab.first_person.constants import DEFAULT_FPS
from jaxlab.first_person.frame import frame, new_episode
from jaxlab.first_person.observations import custom_specs, observation_specs, observe
from jaxlab.first_person.state import WorldState
from jaxlab.settings import positive_setting


class FirstPersonEnv(Env):
    """A bank of first-person levels with DMLab's actions, observations and timing.

    Args:
      bank: a ``Bank`` of first-person ``Level``s (``Bank.stack``); each episode samples one.
      name: the level name.
      width, height: frame size in pixels (DMLab's default 320×240).
      observations: observation names (see ``world.observations``), and
        names of the bank's custom observations (``Level.custom_obs``).
      action_repeat: frames per agent step (DMLab's ``num_steps``); rewards
        are summed and the frame is rendered once, after the last.
      fps: frames per second of game time.
      episode_length_seconds: overrides the level's episode length.
    """

    def __init__(self, bank: Bank, name: str = "", width: int = 320, height: int = 240,
                 observations: Sequence[str] = ("RGB_INTERLEAVED",), action_repeat: int = 1,
                 fps: int = DEFAULT_FPS, episode_length_seconds: Optional[float] = None):
        self.name = name
        self.width = positive_setting("width", 1, width)
        self.height = positive_setting("height", 1, height)
        self.action_repeat = positive_setting("action_repeat", 1, action_repeat)
        self.fps = positive_setting("fps", 1, fps)
        if isinstance(observations, str):
            observations = (observations,)
        self.observations = tuple(observations)
        self._specs = observation_specs(self.observations, self.width, self.height, custom_specs(bank.levels))
        if episode_length_seconds is not None:
            seconds = positive_setting("episode_length_seconds", 0.0, episode_length_seconds)
            bank = Bank(bank.levels.replace(episode_seconds=jnp.full_like(bank.levels.episode_seconds, seconds)))
        self.bank = bank

    @property
    def num_levels(self) -> int:
        """Number of levels (episodes variants) in the bank."""
        return self.bank.size

    def level(self, state: WorldState) -> Level:
        """The Level of ``state``'s episode."""
        return self.bank.get(state.level_index)

    def episode_frames(self, level: Level) -> jnp.ndarray:
        """int32[]: the episode length of ``level`` in frames."""
        return jnp.round(level.episode_seconds * self.fps).astype(jnp.int32)

    def init_state(self, key: jax.Array, level_index=None) -> WorldState:
        """A new episode: the level at ``level_index`` (int32[]) or one sampled with ``key``."""
        k_level, k_episode = jax.random.split(key)
        if level_index is None:
            level_index = self.bank.sample_index(k_level)
        return new_episode(self.bank.get(level_index), level_index, k_episode)

    def advance(self, state: WorldState, action):
        """Run ``action_repeat`` frames of ``action`` (int32[7], clipped to the
        spec). Frames past the episode's end are not run. Returns (state,
        reward float32[], terminated bool[], truncated bool[])."""
        level = self.level(state)
        limit = self.episode_frames(level)
        action = jnp.clip(jnp.asarray(action, jnp.int32), actions.ACTION_MIN, actions.ACTION_MAX)

        def one_frame(_, carry):
            state, total = carry
            after, reward = frame(level, state, action, self.fps)
            after = after.replace(done=after.frames >= limit)
            running = ~state.done
            state = jax.tree_util.tree_map(lambda new, old: jnp.where(running, new, old), after, state)
            return state, total + jnp.where(running, reward, 0.0)

        state, reward = jax.lax.fori_loop(0, self.action_repeat, one_frame, (state, jnp.float32(0.0)))
        return state, reward, jnp.bool_(False), state.done

    def observe(self, state: WorldState):
        """The requested observations of ``state`` (see ``world.observations.observe``)."""
        return observe(self.level(state), state, self.observations, self.width, self.height)

    def observation_spec(self):
        """dict name -> ArraySpec of the requested observations (custom ones:
        the bank's shape without the bank axis, uint8 or float32)."""
        return dict(self._specs)

    def action_spec(self):
        """BoundedArraySpec int32[7]; ``.minimum``/``.maximum`` give the ranges
        and ``world.actions.ACTION_NAMES`` the seven DMLab action names."""
        return actions.action_spec()

    @property
    def discrete_actions(self) -> Mapping[str, Tuple[int, ...]]:
        """DMLab's 9-action IMPALA set, name -> int[7] action row (forward,
        backward, strafe and look left/right, look left/right + forward,
        fire): ``DiscreteActions(env)``'s default table."""
        return actions.DISCRETE_ACTIONS
