"""The memory-task suite's table: every level name of dm_memorytasks -> ``MemoryTaskEnv`` (first-person
tasks) or ``PsychlabEnv`` (PsychLab tasks).

``LEVELS``: level name -> constructor taking ``SETTINGS`` (``memory/<name>`` and DMLab's
``contributed/psychlab/memory_suite_01/<name>`` name the same levels: ``jaxlab.levels.path_prefixes``).
"""
from __future__ import annotations

import functools
from typing import Any, Tuple, Union

from jaxlab.kernels.memory.env import MemoryTaskEnv
from jaxlab.kernels.psychlab.env import PsychlabEnv
from jaxlab.levels.dmlab import memory
from jaxlab.settings import MAX_FRAME_SIDE, check_names, integer_value

#: settings of a memory-task level (dm_memorytasks' names where it has them)
SETTINGS = ("width", "height", "observations", "action_repeat", "episode_length_seconds")
#: the RGB_INTERLEAVED frame's largest width and height (4:3 within jaxlab.settings.MAX_FRAME_SIDE)
MAX_WIDTH, MAX_HEIGHT = MAX_FRAME_SIDE, MAX_FRAME_SIDE * 3 // 4


def frame_size(where: str, width: Any, height: Any) -> Tuple[int, int]:
    """(width, height) of a memory task's RGB_INTERLEAVED frame in pixels, checked as dm_memorytasks
    takes it: integers (numpy ones too; not bools, floats or strings) in [4, MAX_WIDTH] and
    [3, MAX_HEIGHT], in the ratio 4:3. The one frame check of ``jaxlab.make`` and the
    ``jaxlab.memorytasks`` host. TypeError for a wrong type and ValueError otherwise, naming ``where``."""
    width = integer_value(where, "setting 'width'", width, 4, MAX_WIDTH)
    height = integer_value(where, "setting 'height'", height, 3, MAX_HEIGHT)
    if width * 3 != height * 4:
        raise ValueError(f"{where}: settings 'width' and 'height': RGB_INTERLEAVED is 4:3: width {width} needs "
                         f"height {width * 3 / 4:g} (or height {height} width {height * 4 / 3:g})")
    return width, height


def make_env(level_name: str, **settings) -> Union[MemoryTaskEnv, PsychlabEnv]:
    """The env of a memory-task level: ``MemoryTaskEnv`` (first-person tasks) or ``PsychlabEnv``
    (PsychLab tasks). Settings: width, height (pixels; default 96×72, 4:3: :func:`frame_size`),
    observations (RGB_INTERLEAVED, AvatarPosition, Score), action_repeat (frames per step),
    episode_length_seconds."""
    check_names(settings, SETTINGS, "memory-task setting")
    found, built = memory.build(level_name)
    kind = PsychlabEnv if found.kind == "psychlab" else MemoryTaskEnv
    env = kind(built, name=level_name, **settings)
    frame_size(f"memory task {level_name!r}", env.width, env.height)
    return env


#: level name -> constructor (``**settings -> MemoryTaskEnv | PsychlabEnv``)
LEVELS = {name: functools.partial(make_env, name) for name in memory.all_level_names()}
