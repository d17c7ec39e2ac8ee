"""``jaxlab.make``: level names and map files to environments."""
from __future__ import annotations

from pathlib import Path
from typing import Tuple

from jaxlab.errors import unknown_name_error
from jaxlab.levels.bank import stack_levels
from jaxlab.levels.catalogue import BUILTIN, builtin_level, read_map_file
from jaxlab.levels.level import build_level
from jaxlab.world.env import FirstPersonEnv

FIRST_PERSON_SETTINGS = ("width", "height", "observations", "action_repeat", "fps", "episode_length_seconds")
TEXT_MAP_DEFAULT_SECONDS = 60.0


def level_names() -> Tuple[str, ...]:
    """Every registered level name, sorted."""
    return tuple(sorted(BUILTIN))


def make(name: str, **settings) -> FirstPersonEnv:
    """Make the environment for a level name or a text-map file.

    Args:
      name: a registered level (``jaxlab.levels.names()``), or a path to a
        DMLab text map ``*.txt`` (an optional ``*.variations.txt`` beside it is
        read too; ``L``/``S``/``F``/``W``/``M`` place lemons, strawberries,
        fungi, watermelon and mango goals).
      settings: width, height (pixels), observations (names), action_repeat
        (frames per step), fps, episode_length_seconds.

    Raises UnknownNameError (with suggestions) for unknown names or settings,
    MapError (file:line:column) for malformed maps.
    """
    for key in settings:
        if key not in FIRST_PERSON_SETTINGS:
            raise unknown_name_error("setting", key, FIRST_PERSON_SETTINGS)
    name = str(name)
    if name in BUILTIN:
        level = builtin_level(name)
    elif name.endswith(".txt") and Path(name).is_file():
        seconds = settings.get("episode_length_seconds") or TEXT_MAP_DEFAULT_SECONDS
        level = build_level(read_map_file(name), seconds)
    elif name.endswith((".lua", ".jaxlab")):
        raise ValueError(f"{name}: Lua level scripts and compiled .jaxlab files are not supported yet; "
                         "use a built-in level or a text map (.txt)")
    elif name.endswith(".txt"):
        raise FileNotFoundError(f"no such map file: {name}")
    else:
        raise unknown_name_error("level", name, level_names())
    return FirstPersonEnv(stack_levels([level]), name=name, **settings)
