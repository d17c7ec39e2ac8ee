"""Built-in grid levels (Lab2D-style): each module has ``DEFAULT_SETTINGS`` and ``build(settings) -> GridSpec``.

``MODULES``: level name -> its module; ``build(name, settings)`` its ``GridSpec``. The registry
(``jaxlab.registry.grid``) makes their envs.
"""
from __future__ import annotations

from typing import Any, Mapping, Optional

from jaxlab.errors import unknown_name_error
from jaxlab.levels.lab2d import clean_up, commons_harvest, predator_prey, pushbox, running_with_scissors
from jaxlab.levels.lab2d.spec import GridSpec

#: level name -> module with DEFAULT_SETTINGS and build(settings). ``pushbox`` plays dmlab2d's pushbox rules
#: (tested against dmlab2d); the others are jaxlab's own games, named apart from dmlab2d's levels (``lab2d/<name>``
#: compiles those from the installed dmlab2d package) with their differences in docs/grid.md
MODULES = {"pushbox": pushbox, "jaxlab_clean_up": clean_up, "jaxlab_commons_harvest": commons_harvest,
           "jaxlab_predator_prey": predator_prey, "jaxlab_running_with_scissors": running_with_scissors}

#: dmlab2d's level names that jaxlab's hand-written games once had -> what ``jaxlab.make`` says when asked
RENAMED = {
    dmlab2d_name: f"{dmlab2d_name!r} is not a jaxlab level name: dmlab2d's own {dmlab2d_name} is "
                  f"'lab2d/{dmlab2d_name}' (compiled from the installed dmlab2d package's scripts); jaxlab's "
                  f"hand-written game in its place, with other rules (docs/grid.md), is {ours!r}"
    for dmlab2d_name, ours in (("chase_eat", "jaxlab_predator_prey"), ("clean_up", "jaxlab_clean_up"),
                               ("commons_harvest", "jaxlab_commons_harvest"),
                               ("running_with_scissors", "jaxlab_running_with_scissors"))}


def build(name: str, settings: Optional[Mapping[str, Any]] = None) -> GridSpec:
    """The GridSpec of built-in level ``name`` with ``settings`` (Lab2D-style
    camelCase names, merged over the level's DEFAULT_SETTINGS)."""
    if name not in MODULES:
        raise unknown_name_error("grid level", name, MODULES)
    return MODULES[name].build(dict(settings or {}))
