"""The memory-task suite's table: every level name of dm_memorytasks -> ``MemoryTaskEnv`` (first-person
tasks) or ``PsychlabEnv`` (PsychLab tasks).

``LEVELS``: level name -> constructor taking ``SETTINGS`` (``memory/<name>`` and DMLab's
``contributed/psychlab/memory_suite_01/<name>`` name the same levels: ``jaxlab.levels.path_prefixes``).
"""
from __future__ import annotations

import functools
from typing import Union

from jaxlab.kernels.memory.env import MemoryTaskEnv
from jaxlab.kernels.psychlab.env import PsychlabEnv
from jaxlab.levels.dmlab import memory
from jaxlab.settings import check_names

#: settings of a memory-task level (dm_memorytasks' names where it has them)
SETTINGS = ("width", "height", "observations", "action_repeat", "episode_length_seconds")


def make_env(level_name: str, **settings) -> Union[MemoryTaskEnv, PsychlabEnv]:
    """The env of a memory-task level: ``MemoryTaskEnv`` (first-person tasks) or ``PsychlabEnv``
    (PsychLab tasks). Settings: width, height (pixels; default 96×72), observations (RGB_INTERLEAVED,
    AvatarPosition, Score), action_repeat (frames per step), episode_length_seconds."""
    check_names(settings, SETTINGS, "memory-task setting")
    found, built = memory.build(level_name)
    if found.kind == "psychlab":
        return PsychlabEnv(built, name=level_name, **settings)
    return MemoryTaskEnv(built, name=level_name, **settings)


#: level name -> constructor (``**settings -> MemoryTaskEnv | PsychlabEnv``)
LEVELS = {name: functools.partial(make_env, name) for name in memory.all_level_names()}
