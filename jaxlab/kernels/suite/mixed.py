"""``SuiteEnv``: one env whose batch mixes first-person levels and DMLab-30's PsychLab screen levels.

DMLab-30 holds both: 26 levels are first-person worlds (``FirstPersonEnv`` over a
``MixedGenerator``), four are PsychLab screens (``PsychlabScreenEnv``). Both take DMLab's int32[7]
action and give the same observation names and specs, so the suite carries one state of each in
every episode and keeps the one its level belongs to: ``level_index`` (int32[], into ``levels``)
picks the family and the level within it. Under ``vmap`` every env runs both (the other one on a
level nobody sees), so a batch costs about the sum of the two families' steps; the screen's is
small beside the world's.
"""
from __future__ import annotations

from typing import Mapping, Sequence, Tuple

import jax
import jax.numpy as jnp
import numpy as np
from flax import struct

from jaxlab.env import Env, select_tree
from jaxlab.kernels.first_person.env import FirstPersonEnv
from jaxlab.kernels.psychlab.dmlab30_env import PsychlabScreenEnv, ScreenState
from jaxlab.kernels.first_person.state import WorldState
from jaxlab.levels.dmlab import actions
from jaxlab.levels.dmlab.instructions import decode as decode_instruction


@struct.dataclass
class SuiteState:
    """One episode of the suite: key (the PRNG key the next episode of an auto-reset starts from is
    the families' own); done bool[]; level_index int32[] into ``SuiteEnv.levels``; world: the
    first-person state; screen: the PsychLab screen state (one of the two is the episode's)."""

    key: jnp.ndarray
    done: jnp.ndarray
    level_index: jnp.ndarray
    world: WorldState
    screen: ScreenState


class SuiteEnv(Env):
    """First-person and PsychLab screen levels in one batch.

    Args:
      world: the ``FirstPersonEnv`` of the suite's first-person levels (its generator's levels);
      screen: the ``PsychlabScreenEnv`` of its screen levels, with the same frame size, observations,
      action repeat and fps; levels: every level name in ``level_index`` order, each one of
      ``world.levels`` or ``screen.levels``; name: the suite's name.
    """

    def __init__(self, world: FirstPersonEnv, screen: PsychlabScreenEnv, levels: Sequence[str], name: str):
        if world.observation_spec() != screen.observation_spec():
            raise ValueError("the suite's first-person and screen levels must give the same observations")
        self.world, self.screen, self.name = world, screen, name
        self.levels = tuple(levels)
        self.observations = world.observations
        on_screen = [n in screen.levels for n in self.levels]
        self._on_screen = np.asarray(on_screen, bool)
        self._within = np.asarray([screen.levels.index(n) if s else world.levels.index(n)
                                   for n, s in zip(self.levels, on_screen)], np.int32)

    @property
    def num_levels(self) -> int:
        """The number of levels in the suite."""
        return len(self.levels)

    @property
    def generator(self):
        """The first-person levels' ``MixedGenerator``."""
        return self.world.generator

    def on_screen(self, level_index) -> jnp.ndarray:
        """bool[]: suite level ``level_index`` (int32[]) is a PsychLab screen level."""
        return jnp.asarray(self._on_screen)[level_index]

    def init_state(self, key: jax.Array, level_index=None) -> SuiteState:
        """A new episode of suite level ``level_index`` (int32[]; uniform over the suite when None)."""
        k_level, k_world, k_screen, key = jax.random.split(key, 4)
        if level_index is None:
            level_index = jax.random.randint(k_level, (), 0, self.num_levels)
        level_index = jnp.asarray(level_index, jnp.int32)
        within = jnp.asarray(self._within)[level_index]
        screen = self.on_screen(level_index)
        return SuiteState(key=key, done=jnp.bool_(False), level_index=level_index,
                          world=self.world.init_state(k_world, jnp.where(screen, 0, within)),
                          screen=self.screen.init_state(k_screen, jnp.where(screen, within, 0)))

    def advance(self, state: SuiteState, action) -> Tuple[SuiteState, jnp.ndarray, jnp.ndarray, jnp.ndarray]:
        """Both families advance with ``action`` (int32[7]); the episode's family's reward (float32[]),
        terminated and truncated (bool[]) are kept."""
        world, w_reward, w_term, w_trunc = self.world.advance(state.world, action)
        screen, s_reward, s_term, s_trunc = self.screen.advance(state.screen, action)
        on = self.on_screen(state.level_index)
        done = jnp.where(on, screen.done, world.done)
        state = state.replace(done=done, world=world, screen=screen)
        return (state, jnp.where(on, s_reward, w_reward), jnp.where(on, s_term, w_term),
                jnp.where(on, s_trunc, w_trunc))

    def observe(self, state: SuiteState):
        """The requested observations of the episode's family (both are computed)."""
        return select_tree(self.on_screen(state.level_index), self.screen.observe(state.screen),
                           self.world.observe(state.world))

    def observation_spec(self):
        """dict name -> ArraySpec (the families' common specs)."""
        return self.world.observation_spec()

    def action_spec(self):
        """DMLab's BoundedArraySpec int32[7]."""
        return actions.action_spec()

    @property
    def discrete_actions(self) -> Mapping[str, Tuple[int, ...]]:
        """DMLab's 9-action IMPALA set, name -> int[7] action row."""
        return actions.DISCRETE_ACTIONS

    def decode(self, tokens):
        """The instruction string of INSTR tokens (int32[..., INSTRUCTION_LENGTH]; a list for a batch)."""
        return decode_instruction(tokens)
