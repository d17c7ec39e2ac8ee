"""Built-in grid levels: each module has ``DEFAULT_SETTINGS`` and ``build(settings) -> WorldSpec``."""
from __future__ import annotations

from typing import Any, Mapping, Optional, Tuple

from jaxlab.errors import unknown_name_error
from jaxlab.grid.levels import chase_eat, clean_up, commons_harvest, pushbox, running_with_scissors
from jaxlab.grid.spec import WorldSpec

#: level name -> module with DEFAULT_SETTINGS and build(settings)
LEVELS = {
    "chase_eat": chase_eat,
    "clean_up": clean_up,
    "commons_harvest": commons_harvest,
    "pushbox": pushbox,
    "running_with_scissors": running_with_scissors,
}


def names() -> Tuple[str, ...]:
    """The built-in grid level names, sorted."""
    return tuple(sorted(LEVELS))


def build(name: str, settings: Optional[Mapping[str, Any]] = None) -> WorldSpec:
    """The WorldSpec of built-in level ``name`` with ``settings`` (Lab2D-style
    camelCase names, merged over the level's DEFAULT_SETTINGS)."""
    if name not in LEVELS:
        raise unknown_name_error("grid level", name, LEVELS)
    return LEVELS[name].build(dict(settings or {}))
