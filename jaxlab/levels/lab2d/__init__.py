"""Built-in grid levels (Lab2D-style): each module has ``DEFAULT_SETTINGS`` and ``build(settings) -> GridSpec``.

``LEVELS`` is this family's table for the registry: level name -> constructor
taking ``observations``, ``layouts`` (see ``GridEnv``) and the level's
Lab2D-style settings, and returning a ``GridEnv``.
"""
from __future__ import annotations

import functools
from typing import Any, Mapping, Optional

from jaxlab.errors import unknown_name_error
from jaxlab.levels.lab2d import chase_eat, clean_up, commons_harvest, pushbox, running_with_scissors
from jaxlab.grid.spec import GridSpec

#: level name -> module with DEFAULT_SETTINGS and build(settings)
MODULES = {module.__name__.rsplit(".", 1)[1]: module
           for module in (chase_eat, clean_up, commons_harvest, pushbox, running_with_scissors)}
#: settings of a grid level that go to the GridEnv rather than to the level
ENV_SETTINGS = ("observations", "layouts")


def build(name: str, settings: Optional[Mapping[str, Any]] = None) -> GridSpec:
    """The GridSpec of built-in level ``name`` with ``settings`` (Lab2D-style
    camelCase names, merged over the level's DEFAULT_SETTINGS)."""
    if name not in MODULES:
        raise unknown_name_error("grid level", name, MODULES)
    return MODULES[name].build(dict(settings or {}))


def make_grid_level(name: str, **settings):
    """A ``GridEnv`` of built-in level ``name``: ``observations`` and ``layouts`` go to the env, the
    other ``settings`` to the level (UnknownNameError with suggestions for names it does not have)."""
    from jaxlab.grid.env import GridEnv

    options = {key: settings.pop(key) for key in ENV_SETTINGS if key in settings}
    return GridEnv(build(name, settings), **options)


#: level name -> constructor (``**settings -> GridEnv``)
LEVELS = {name: functools.partial(make_grid_level, name) for name in MODULES}
