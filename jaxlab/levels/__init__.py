"""Every built-in level, one sub-package per family: ``dmlab`` (first-person maps, the catalogue,
DMLab-30, the memory-task suite, PsychLab's task data), ``lab2d`` (grid worlds) and ``text`` (text
quests: logic, grounding, generators, TextWorld's files). Levels are data and generators; they import
only core.

``names(family=None)``: every level name of every family; ``path_prefixes(family)``: the DMLab
level paths that name them too (the registry makes their envs).
"""
from __future__ import annotations

from typing import Optional, Tuple

from jaxlab.errors import unknown_name_error

#: the families, in the order ``names`` lists them: first person, grid, text, the memory-task suite
FAMILIES = ("dmlab", "lab2d", "text", "memory")


def family_names(family: str) -> Tuple[str, ...]:
    """The level names of ``family`` (``dmlab``, ``lab2d``, ``text`` or ``memory``); each family's
    modules are imported on first use."""
    if family == "dmlab":
        from jaxlab.levels.dmlab import level_names
        return level_names()
    if family == "lab2d":
        from jaxlab.levels.lab2d import MODULES
        return tuple(MODULES)
    if family == "text":
        from jaxlab.levels.text.generators import FAMILIES as TEXT_FAMILIES
        return TEXT_FAMILIES
    if family == "memory":
        from jaxlab.levels.dmlab.memory import all_level_names
        return all_level_names()
    raise unknown_name_error("level family", family, FAMILIES)


def path_prefixes(family: str) -> Tuple[str, ...]:
    """The level-path prefixes that name ``family``'s levels too (``contributed/dmlab30/``, ``memory/``, ...)."""
    if family == "dmlab":
        from jaxlab.levels.dmlab import PATH_PREFIXES
        return PATH_PREFIXES
    if family == "memory":
        from jaxlab.levels.dmlab.memory import PATH_PREFIXES
        return PATH_PREFIXES
    return ()


def names(family: Optional[str] = None) -> Tuple[str, ...]:
    """Every level name, sorted; with ``family`` (``dmlab``, ``lab2d``, ``text``, ``memory``) only that family's."""
    families = FAMILIES if family is None else (family,)
    return tuple(sorted(name for f in families for name in family_names(f)))


__all__ = ["FAMILIES", "family_names", "names", "path_prefixes"]
