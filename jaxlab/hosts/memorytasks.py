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
from typing import Mapping, Optional

import dm_env
import numpy as np

from jaxlab.errors import unknown_name_error
from jaxlab.hosts.checks import dict_action
from jaxlab.levels.dmlab import memory
from jaxlab.levels.dmlab.memory.actions import ACTION_NAMES, KEEP
from jaxlab.registry import memory as memory_table
from jaxlab.settings import MAX_ACTION_REPEAT, MAX_EPISODE_SECONDS, integer_value, number_value, refusal
from jaxlab.wrappers.dm_env_adapter import DmEnv

#: dm_memorytasks' settings, in its order
SETTING_NAMES = ("seed", "level_name", "width", "height", "episode_length_seconds", "num_action_repeats")
#: dm_memorytasks' seeds: any 64-bit integer, signed or unsigned (its key uses the seed modulo 2**32)
SEED_RANGE = (-(2 ** 63), 2 ** 64 - 1)
#: the actions: dict name -> float64 scalar spec in [-1, 1] (dm_memorytasks' form)
ACTION_SPECS = {name: dm_env.specs.BoundedArray((), np.float64, -1.0, 1.0, name=name) for name in ACTION_NAMES}


@dataclasses.dataclass(frozen=True)
class EnvironmentSettings:
    """dm_memorytasks' settings.

    seed: seeds the environment's PRNG (an int in [-2**63, 2**64 - 1]); level_name: a level of the
    suite (``<task>_<suffix>``, a str); width, height: RGB_INTERLEAVED size in pixels, ints, 4:3
    (default 96×72, at most 4096×3072); episode_length_seconds: the episode length in seconds of
    game time, a finite number in (0, 86400] (None: the task's own, 120 s for the first-person tasks
    as in dm_memorytasks, the original's for the PsychLab tasks); num_action_repeats: frames each
    ``step`` runs its action for (an int in [1, 100_000]; rewards summed over them). Integers may be
    numpy integers, not bools, floats or strings. ``load`` checks them.
    """

    seed: int
    level_name: str
    width: int = 96
    height: int = 72
    episode_length_seconds: Optional[float] = None
    num_action_repeats: int = 1


def _validated(settings) -> EnvironmentSettings:
    """``settings`` (EnvironmentSettings or a mapping of its fields) checked: types, ranges, the
    4:3 frame, the level name (with suggestions). TypeError for a wrong type, ValueError for a value
    out of range, each naming ``EnvironmentSettings`` and the setting."""
    where = "EnvironmentSettings"
    if isinstance(settings, Mapping):
        for key in settings:
            if key not in SETTING_NAMES:
                raise unknown_name_error("memory-task setting", key, SETTING_NAMES)
        settings = EnvironmentSettings(**settings)
    if not isinstance(settings, EnvironmentSettings):
        raise TypeError(refusal(where, "settings", "EnvironmentSettings or a dict of its fields", settings))
    width, height = memory_table.frame_size(where, settings.width, settings.height)
    seconds = settings.episode_length_seconds
    if seconds is not None:
        seconds = number_value(where, "setting 'episode_length_seconds'", seconds, 0.0, MAX_EPISODE_SECONDS,
                               low_open=True)
    if not isinstance(settings.level_name, str):
        raise TypeError(refusal(where, "setting 'level_name'", "a level name (str)", settings.level_name))
    if settings.level_name not in memory_table.LEVELS:
        raise unknown_name_error("memory-task level", settings.level_name, memory.all_level_names())
    return dataclasses.replace(
        settings, seed=integer_value(where, "setting 'seed'", settings.seed, *SEED_RANGE), width=width,
        height=height, episode_length_seconds=seconds,
        num_action_repeats=integer_value(where, "setting 'num_action_repeats'", settings.num_action_repeats, 1,
                                         MAX_ACTION_REPEAT))


def action_array(action: Mapping[str, float]) -> np.ndarray:
    """float32[4] device action (``ACTION_NAMES`` order) of a dict action name -> number in [-1, 1]
    (ints, floats, numpy scalars, 0-d arrays): the given names' values, NaN (keep the held value)
    for the others. This is ``MemoryTasksEnvironment.step``'s check
    (:func:`jaxlab.hosts.checks.dict_action`): TypeError for a non-dict or a non-number (a str, a
    bool, None, an array with dimensions), ValueError for NaN, ±inf or a value outside [-1, 1],
    UnknownNameError (with suggestions) for an unknown name; each names the call and the action."""
    out = KEEP.copy()
    for name, value in dict_action("MemoryTasksEnvironment.step", action, ACTION_SPECS).items():
        out[ACTION_NAMES.index(name)] = value
    return out


class MemoryTasksEnvironment(dm_env.Environment):
    """One memory-task level behind dm_memorytasks' ``dm_env`` interface (dict actions, sticky)."""

    def __init__(self, settings: EnvironmentSettings):
        self.settings = settings
        self.env = memory_table.make_env(settings.level_name, width=settings.width, height=settings.height,
                                         action_repeat=settings.num_action_repeats,
                                         episode_length_seconds=settings.episode_length_seconds)
        self._dm = DmEnv(self.env, seed=settings.seed)
        self._closed = False

    def _check_open(self, method: str) -> None:
        if self._closed:
            raise RuntimeError(f"MemoryTasksEnvironment.{method}() called after close(); load a new environment")

    def reset(self) -> dm_env.TimeStep:
        """Start a new episode (nothing held). RuntimeError after ``close()``."""
        self._check_open("reset")
        return self._dm.reset()

    def step(self, action: Mapping[str, float]) -> dm_env.TimeStep:
        """Apply a (partial) dict action (see ``action_array``) and advance ``num_action_repeats`` frames;
        after the episode's last step this starts a new episode. RuntimeError after ``close()``."""
        self._check_open("step")
        return self._dm.step(action_array(action))

    def observation_spec(self):
        """RGB_INTERLEAVED uint8[height, width, 3], AvatarPosition float32[3], Score float32[]."""
        return self._dm.observation_spec()

    def action_spec(self):
        """dict name -> ``BoundedArray`` float64[] in [-1, 1], one per action (dm_memorytasks' form)."""
        return dict(ACTION_SPECS)

    @property
    def state(self):
        """The device state of the running episode (privileged: for tests and tools)."""
        return self._dm.state

    def close(self) -> None:
        """Drop the episode and end the environment: ``reset`` and ``step`` then raise RuntimeError, as
        DeepMind Lab's ``Lab`` does after close (a second ``close`` does nothing)."""
        self._dm.close()
        self._closed = True

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
