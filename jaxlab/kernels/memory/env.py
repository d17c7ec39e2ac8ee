"""MemoryTaskEnv: a first-person memory task behind dm_memorytasks' actions and observations.

The task's generator (``jaxlab.levels.dmlab.memory.tasks.MemoryTaskGenerator``) draws the episode
(``EpisodeDraw``) and each trial's Level on device; the first-person kernel runs the frames. The
agent's float32[4] action is sticky (``jaxlab.levels.dmlab.memory.actions``) and becomes DMLab's look and move
inputs: full deflection of a look slot turns ``actions.MAX_LOOK_PIXELS`` DMLab look pixels per frame
(``actions.MAX_LOOK_PIXELS * 0.1056`` degrees per frame, about 127 degrees/s at 60 frames/s); full deflection
of the move and strafe slots asks for the top speed (320 units/s).
"""
from __future__ import annotations

from typing import Optional, Sequence

import jax
import jax.numpy as jnp
import numpy as np
from flax import struct

from jaxlab.env import Env, select_tree
from jaxlab.errors import unknown_name_error
from jaxlab.kernels.first_person.frame import guarded_frame, new_episode
from jaxlab.kernels.first_person.observations import observe as observe_world
from jaxlab.kernels.first_person.state import WorldState
from jaxlab.levels.dmlab.memory import actions
from jaxlab.levels.dmlab.memory.tasks import EpisodeDraw, MemoryTaskGenerator
from jaxlab.levels.dmlab.units import DEFAULT_FPS
from jaxlab.settings import positive_setting
from jaxlab.types import ArraySpec

#: the observations dm_memorytasks gives
OBSERVATION_NAMES = ("RGB_INTERLEAVED", "AvatarPosition", "Score")


@struct.dataclass
class MemoryState:
    """One episode of a first-person memory task.

    world: the first-person state (``world.episode_level``: the current trial's Level, as drawn).
    key: PRNG key of the episode (trial draws); done: bool[] the episode has ended.
    held: float32[4] the action in force (sticky); draw: the episode's ``EpisodeDraw``.
    trial: int32[] trials finished (map restarts); trial_frames: int32[] frames into the trial.
    """

    world: WorldState
    key: jnp.ndarray
    done: jnp.ndarray
    held: jnp.ndarray
    draw: EpisodeDraw
    trial: jnp.ndarray
    trial_frames: jnp.ndarray

    @property
    def episode_return(self) -> jnp.ndarray:
        """float32[]: rewards summed over the episode (the ``Score`` observation)."""
        return self.world.episode_return


def observation_specs(names: Sequence[str], width: int, height: int):
    """dict name -> ArraySpec of memory-task observations (``OBSERVATION_NAMES``); UnknownNameError
    with suggestions for other names."""
    shapes = {"RGB_INTERLEAVED": ((height, width, 3), np.uint8), "AvatarPosition": ((3,), np.float32),
              "Score": ((), np.float32)}
    specs = {}
    for name in names:
        if name not in shapes:
            raise unknown_name_error("memory-task observation", name, OBSERVATION_NAMES)
        shape, dtype = shapes[name]
        specs[name] = ArraySpec(shape=shape, dtype=dtype, name=name)
    return specs


class MemoryTaskSettings:
    """The settings and specs every memory-task env shares (mixed into ``MemoryTaskEnv`` and
    ``PsychlabEnv``)."""

    def _apply_settings(self, task_seconds: float, width, height, observations, action_repeat,
                        episode_length_seconds, fps) -> None:
        """Check and set width, height (pixels), observations, action_repeat (frames per step), fps and
        episode_seconds (``episode_length_seconds``, default ``task_seconds``)."""
        self.width = positive_setting("width", 1, width)
        self.height = positive_setting("height", 1, height)
        self.action_repeat = positive_setting("action_repeat", 1, action_repeat)
        self.fps = positive_setting("fps", 1, fps)
        seconds = task_seconds if episode_length_seconds is None else episode_length_seconds
        self.episode_seconds = positive_setting("episode_length_seconds", 0.0, seconds)
        self.observations = (observations,) if isinstance(observations, str) else tuple(observations)
        self._specs = observation_specs(self.observations, self.width, self.height)

    @property
    def episode_frames(self) -> int:
        """The episode length in frames."""
        return int(round(self.episode_seconds * self.fps))

    def observation_spec(self):
        """dict name -> ArraySpec of the requested observations."""
        return dict(self._specs)

    def action_spec(self):
        """float32[4] in [-1, 1], ``jaxlab.levels.dmlab.memory.actions.ACTION_NAMES`` order (NaN: keep the held value)."""
        return actions.action_spec()


class MemoryTaskEnv(MemoryTaskSettings, Env):
    """A first-person memory task for one split.

    Args:
      generator: the split's ``MemoryTaskGenerator``.
      name: the level name; width, height: frame size in pixels (dm_memorytasks: 96×72, 4:3);
      observations: names among ``OBSERVATION_NAMES``; action_repeat: frames per agent step
        (``num_action_repeats``; rewards summed, one frame rendered); episode_length_seconds:
        overrides the task's (default 120 s); fps: frames per second of game time.
    """

    def __init__(self, generator: MemoryTaskGenerator, name: str = "", width: int = 96, height: int = 72,
                 observations: Sequence[str] = OBSERVATION_NAMES, action_repeat: int = 1,
                 episode_length_seconds: Optional[float] = None, fps: int = DEFAULT_FPS):
        self.generator = generator
        self.name = name or generator.name
        self._apply_settings(generator.episode_seconds, width, height, observations, action_repeat,
                             episode_length_seconds, fps)

    def init_state(self, key: jax.Array) -> MemoryState:
        """A new episode: the draw, the first trial's Level and the player at its spawn, nothing held."""
        k_draw, k_trial, k_world, key = jax.random.split(key, 4)
        draw = self.generator.draw(k_draw)
        level = self.generator.trial(k_trial, draw, jnp.int32(0))
        world = new_episode(level, 0, k_world, carry_level=True)
        return MemoryState(world=world, key=key, done=jnp.bool_(False), held=jnp.zeros((4,), jnp.float32),
                           draw=draw, trial=jnp.int32(0), trial_frames=jnp.int32(0))

    def advance(self, state: MemoryState, action):
        """Apply ``action`` (float32[4], NaN: keep the held value) and run ``action_repeat`` frames.
        Returns (state, reward float32[], terminated bool[], truncated bool[])."""
        held = actions.sticky(state.held, action)
        agent = actions.first_person_action(held)
        gen = self.generator
        key, k_next = jax.random.split(state.key)
        # drawn once per agent step, ready for a restart; None: the level stays, the player respawns
        next_map = gen.trial(k_next, state.draw, state.trial + 1) if gen.new_level_per_trial else None
        limit = jnp.int32(self.episode_frames)

        def one_frame(_, carry):
            world, trial, trial_frames, total = carry
            stored = world.episode_level
            shown = gen.shown(stored, state.draw, trial_frames.astype(jnp.float32) / self.fps)
            scripted, forced = gen.scripted_action(shown, world, state.draw, trial_frames)
            world, reward, restarted = guarded_frame(shown, world, jnp.where(scripted, forced, agent), self.fps,
                                                     limit, next_map)
            if next_map is not None:
                world = world.replace(episode_level=select_tree(restarted, next_map, stored))
            trial_frames = jnp.where(restarted, 0, trial_frames + (~world.done).astype(jnp.int32))
            return world, trial + restarted.astype(jnp.int32), trial_frames, total + reward

        world, trial, trial_frames, reward = jax.lax.fori_loop(
            0, self.action_repeat, one_frame, (state.world, state.trial, state.trial_frames, jnp.float32(0.0)))
        state = state.replace(world=world, key=key, done=world.done, held=held, trial=trial,
                              trial_frames=trial_frames)
        return state, reward, world.finished, world.done & ~world.finished

    def shown_level(self, state: MemoryState):
        """The Level as the player sees it now (moving objects moved)."""
        return self.generator.shown(state.world.episode_level, state.draw,
                                    state.trial_frames.astype(jnp.float32) / self.fps)

    def observe(self, state: MemoryState):
        """The requested observations: RGB_INTERLEAVED uint8[H, W, 3]; AvatarPosition float32[3] (x, y, z)
        in game units (a cell is 100; z: feet over the floor); Score float32[] (the episode's return)."""
        out = {}
        if "RGB_INTERLEAVED" in self.observations:
            out.update(observe_world(self.shown_level(state), state.world, ("RGB_INTERLEAVED",),
                                     self.width, self.height))
        if "AvatarPosition" in self.observations:
            w = state.world
            out["AvatarPosition"] = jnp.stack([w.pos[0], w.pos[1], w.z]).astype(jnp.float32)
        if "Score" in self.observations:
            out["Score"] = state.world.episode_return.astype(jnp.float32)
        return {name: out[name] for name in self.observations}

    def episode_stimuli(self, state: MemoryState) -> jnp.ndarray:
        """int32[M] the stimulus ids the current trial's Level shows (-1 pads), read from the Level."""
        return self.generator.stimuli_shown(state.world.episode_level, state.draw)

    def oracle_action(self, state: MemoryState) -> jnp.ndarray:
        """float32[4]: the task's privileged policy (it reads the state) for this state."""
        return self.generator.oracle(self.shown_level(state), state.world, state.draw, state.trial,
                                     state.trial_frames)
