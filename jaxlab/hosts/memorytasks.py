"""dm_memorytasks' host API over jaxlab's memory tasks: ``EnvironmentSettings`` and ``load``.

::

    import jaxlab.memorytasks as dm_memorytasks
    settings = dm_memorytasks.EnvironmentSettings(seed=1, level_name="spot_diff_train")
    env = dm_memorytasks.load(settings)          # a dm_env.Environment; no Docker, no DeepMind Lab
    ts = env.reset()
    ts = env.step({"STRAFE_LEFT_RIGHT": -1.0})    # strafe left
    ts = env.step({"MOVE_BACK_FORWARD": 1.0})     # still strafing left, and moving
    ts.observation["RGB_INTERLEAVED"], ts.observation["AvatarPosition"], ts.observation["Score"]

Actions are sticky: a value holds until a new one is given, and a partial dict changes only its keys.
Every episode runs on device (one jitted step per call); ``seed`` seeds the first episode's key.
"""
from __future__ import annotations

import dataclasses
import math
from typing import Mapping, Optional

import dm_env
import numpy as np

from jaxlab.errors import unknown_name_error
from jaxlab.levels.dmlab import memory
from jaxlab.memory.actions import ACTION_NAMES, KEEP
from jaxlab.wrappers.dm_env_adapter import DmEnv

#: dm_memorytasks' settings, in its order
SETTING_NAMES = ("seed", "level_name", "width", "height", "episode_length_seconds", "num_action_repeats")


@dataclasses.dataclass(frozen=True)
class EnvironmentSettings:
    """dm_memorytasks' settings.

    seed: seeds the environment's PRNG; level_name: a level of the suite (``<task>_<suffix>``);
    width, height: RGB_INTERLEAVED size in pixels, 4:3 (default 96×72); episode_length_seconds: the
    episode length in seconds of game time (None: the task's own, 120 s for the first-person tasks as
    in dm_memorytasks, the original's for the PsychLab tasks); num_action_repeats: frames each
    ``step`` runs its action for (rewards summed over them).
    """

    seed: int
    level_name: str
    width: int = 96
    height: int = 72
    episode_length_seconds: Optional[float] = None
    num_action_repeats: int = 1


def _checked_int(name: str, value, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"setting {name}: expected an int, got {value!r}")
    if not low <= int(value) <= high:
        raise ValueError(f"setting {name} = {value} is outside [{low}, {high}]")
    return int(value)


def _validated(settings) -> EnvironmentSettings:
    """``settings`` (EnvironmentSettings or a mapping of its fields) checked: types, ranges, the
    4:3 frame, the level name (with suggestions)."""
    if isinstance(settings, Mapping):
        for key in settings:
            if key not in SETTING_NAMES:
                raise unknown_name_error("memory-task setting", key, SETTING_NAMES)
        settings = EnvironmentSettings(**settings)
    if not isinstance(settings, EnvironmentSettings):
        raise TypeError(f"expected EnvironmentSettings, got {type(settings).__name__}")
    _checked_int("seed", settings.seed, -(2 ** 63), 2 ** 64 - 1)
    width = _checked_int("width", settings.width, 4, 4096)
    height = _checked_int("height", settings.height, 3, 3072)
    if width * 3 != height * 4:
        raise ValueError(f"RGB_INTERLEAVED is 4:3: width {width} needs height {width * 3 / 4:g} "
                         f"(or height {height} width {height * 4 / 3:g})")
    _checked_int("num_action_repeats", settings.num_action_repeats, 1, 10_000)
    seconds = settings.episode_length_seconds
    if seconds is not None:
        if isinstance(seconds, bool) or not isinstance(seconds, (int, float, np.number)) \
                or not math.isfinite(seconds) or not 0 < seconds <= 86_400:
            raise ValueError(f"setting episode_length_seconds = {seconds!r}: expected a number in (0, 86400]")
    if settings.level_name not in memory.LEVELS:
        raise unknown_name_error("memory-task level", str(settings.level_name), memory.all_level_names())
    return settings


def action_array(action: Mapping[str, float]) -> np.ndarray:
    """float32[4] device action of a dict action: the given names' values, NaN (keep the held value)
    for the others. Unknown names (with suggestions), non-numbers, NaN/inf and values outside
    [-1, 1] raise."""
    if not isinstance(action, Mapping):
        raise TypeError(f"a memory-task action is a dict of {', '.join(ACTION_NAMES)}, got {type(action).__name__}")
    out = KEEP.copy()
    for name, value in action.items():
        if name not in ACTION_NAMES:
            raise unknown_name_error("action", str(name), ACTION_NAMES)
        if isinstance(value, bool) or not isinstance(value, (int, float, np.number)) or np.ndim(value):
            raise TypeError(f"action {name}: expected a number in [-1, 1], got {value!r}")
        if not math.isfinite(float(value)) or not -1.0 <= float(value) <= 1.0:
            raise ValueError(f"action {name} = {value} is outside [-1, 1]")
        out[ACTION_NAMES.index(name)] = float(value)
    return out


class MemoryTasksEnvironment(dm_env.Environment):
    """One memory-task level behind dm_memorytasks' ``dm_env`` interface (dict actions, sticky)."""

    def __init__(self, settings: EnvironmentSettings):
        self.settings = settings
        self.env = memory.make_env(settings.level_name, width=settings.width, height=settings.height,
                                   action_repeat=settings.num_action_repeats,
                                   episode_length_seconds=settings.episode_length_seconds)
        self._dm = DmEnv(self.env, seed=settings.seed)

    def reset(self) -> dm_env.TimeStep:
        """Start a new episode (nothing held)."""
        return self._dm.reset()

    def step(self, action: Mapping[str, float]) -> dm_env.TimeStep:
        """Apply a (partial) dict action (see ``action_array``) and advance ``num_action_repeats`` frames;
        after the episode's last step this starts a new episode."""
        return self._dm.step(action_array(action))

    def observation_spec(self):
        """RGB_INTERLEAVED uint8[height, width, 3], AvatarPosition float32[3], Score float32[]."""
        return self._dm.observation_spec()

    def action_spec(self):
        """dict name -> ``BoundedArray`` float64[] in [-1, 1], one per action (dm_memorytasks' form)."""
        return {name: dm_env.specs.BoundedArray((), np.float64, -1.0, 1.0, name=name) for name in ACTION_NAMES}

    @property
    def state(self):
        """The device state of the running episode (privileged: for tests and tools)."""
        return self._dm.state

    def close(self) -> None:
        """Drop the episode."""
        self._dm.close()

    def __repr__(self) -> str:
        return f"MemoryTasksEnvironment({self.settings.level_name!r})"


def load(settings) -> MemoryTasksEnvironment:
    """A ``dm_env.Environment`` of ``settings`` (``EnvironmentSettings`` or a dict of its fields)."""
    return MemoryTasksEnvironment(_validated(settings))


def load_from_docker(settings, name: Optional[str] = None) -> MemoryTasksEnvironment:
    """dm_memorytasks' loader name, for drop-in use: the same as ``load`` (no container is started;
    ``name`` is accepted and ignored)."""
    return load(settings)


__all__ = ["EnvironmentSettings", "MemoryTasksEnvironment", "action_array", "load", "load_from_docker"]
