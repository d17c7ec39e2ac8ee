"""The grid family's table: the built-in Lab2D-style levels -> ``GridEnv``.

``LEVELS``: level name -> constructor taking ``observations``, ``layouts`` (see ``GridEnv``) and the
level's Lab2D-style settings (``jaxlab.levels.lab2d``: each level's ``DEFAULT_SETTINGS``).
"""
from __future__ import annotations

import functools

from jaxlab.kernels.grid.env import GridEnv
from jaxlab.levels import lab2d

#: settings of a grid level that go to the GridEnv rather than to the level
ENV_SETTINGS = ("observations", "layouts")


def make_grid_level(name: str, **settings) -> GridEnv:
    """A ``GridEnv`` of built-in level ``name``: ``observations`` and ``layouts`` go to the env, the
    other ``settings`` to the level (UnknownNameError with suggestions for names it does not have)."""
    options = {key: settings.pop(key) for key in ENV_SETTINGS if key in settings}
    return GridEnv(lab2d.build(name, settings), **options)


#: level name -> constructor (``**settings -> GridEnv``)
LEVELS = {name: functools.partial(make_grid_level, name) for name in lab2d.MODULES}
