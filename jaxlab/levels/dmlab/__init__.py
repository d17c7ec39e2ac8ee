"""First-person (DeepMind Lab) levels: text maps, the compiled ``Level``, the built-in catalogue,
the procedural DMLab-30 levels (``dmlab30``), the memory-task suite (``memory``) and PsychLab's
task data (``psychlab``).

``level_names()``: every first-person level name (built-in maps, DMLab-30's procedural levels and
its PsychLab screen levels, ``dmlab30.psychlab``); ``PATH_PREFIXES``:
DMLab level paths that name the same levels (``contributed/dmlab30/explore_goal_locations_small``).
The registry (``jaxlab.registry.first_person``) makes their envs.
"""
from __future__ import annotations

from typing import Tuple

from jaxlab.levels.dmlab import dmlab30
from jaxlab.levels.dmlab.catalogue import BUILTIN

PATH_PREFIXES = (dmlab30.PATH_PREFIX,)


def level_names() -> Tuple[str, ...]:
    """Every first-person level name: the built-in maps, then the DMLab-30 levels jaxlab has (the
    procedural ones, then the PsychLab screen levels)."""
    from jaxlab.levels.dmlab.dmlab30.psychlab import SCREEN_LEVELS
    return tuple(BUILTIN) + tuple(dmlab30.generators()) + tuple(SCREEN_LEVELS)
