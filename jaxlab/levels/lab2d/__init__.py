"""Built-in grid levels (Lab2D-style): each module has ``DEFAULT_SETTINGS`` and ``build(settings) -> GridSpec``.

``MODULES``: level name -> its module; ``build(name, settings)`` its ``GridSpec``. The registry
(``jaxlab.registry.grid``) makes their envs.
"""
from __future__ import annotations

from typing import Any, Mapping, Optional

from jaxlab.errors import unknown_name_error
from jaxlab.levels.lab2d import chase_eat, clean_up, commons_harvest, pushbox, running_with_scissors
from jaxlab.levels.lab2d.spec import GridSpec

#: level name -> module with DEFAULT_SETTINGS and build(settings)
MODULES = {module.__name__.rsplit(".", 1)[1]: module
           for module in (chase_eat, clean_up, commons_harvest, pushbox, running_with_scissors)}


def build(name: str, settings: Optional[Mapping[str, Any]] = None) -> GridSpec:
    """The GridSpec of built-in level ``name`` with ``settings`` (Lab2D-style
    camelCase names, merged over the level's DEFAULT_SETTINGS)."""
    if name not in MODULES:
        raise unknown_name_error("grid level", name, MODULES)
    return MODULES[name].build(dict(settings or {}))
