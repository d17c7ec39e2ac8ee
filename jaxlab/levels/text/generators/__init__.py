"""Seeded generators of text quests in TextWorld's families.

``make_spec(family, seed, **options)`` returns a :class:`~jaxlab.text.GameSpec`
(compile it with ``jaxlab.text.compile_spec``); the same family, seed and
options always give the same spec. Every game uses the house logic of
``jaxlab/levels/text/data/house.twl`` (tw-cooking adds its kitchen rules) and has a
walkthrough that wins it.

Families and their options (defaults in brackets):

- ``tw-coin_collector``: ``level`` 1-300 [1] (see ``coin_collector``);
- ``tw-treasure_hunter``: ``level`` 1-30 [1] (see ``treasure_hunter``);
- ``tw-simple``: ``rewards`` dense|balanced|sparse [dense], ``goal``
  detailed|brief|none [detailed], ``test`` [False] (see ``simple``);
- ``tw-cooking``: ``recipe`` 1-5 [1], ``take`` [0], ``go`` 1|6|9|12 [1], ``open``, ``cook``, ``cut``
  [False], ``recipe_seed`` [0], ``split`` train|valid|test|None [None] (see ``cooking``; its
  logic adds ``data/cooking.twl``);
- ``tw-custom``: ``world_size`` [5], ``nb_objects`` [10], ``quest_length``
  [5], ``quest_breadth`` [1], ``theme`` [house] (see ``custom``).

Modules: ``theme`` (words), ``layout`` (room graphs on a grid), ``builder``
(entities and facts), ``plays`` (acts and a checked walker), ``quests``
(quest shapes), ``chaining`` (quests found backwards from their goal),
``objective`` (objective texts), ``options`` (checking options), one module
per family.
"""
from __future__ import annotations

from types import ModuleType
from typing import Any, Dict

from jaxlab.errors import unknown_name_error
from jaxlab.levels.text.game_spec import GameSpec
from jaxlab.levels.text.generators import coin_collector, cooking, custom, simple, treasure_hunter

_MODULES: Dict[str, ModuleType] = {m.FAMILY: m for m in (coin_collector, treasure_hunter, simple, custom, cooking)}
#: the family names
FAMILIES = tuple(_MODULES)


def _module(family: str) -> ModuleType:
    if family not in _MODULES:
        raise unknown_name_error("text game family", family, FAMILIES)
    return _MODULES[family]


def make_spec(family: str, seed: int = 0, **options) -> GameSpec:
    """The GameSpec of one game of ``family`` drawn with ``seed`` and the family's ``options``.

    Raises UnknownNameError (a KeyError and ValueError, with close matches)
    for an unknown family or option name, ValueError for an option value out
    of its range or choices, or a seed that is not a non-negative integer.
    """
    return _module(family).make(seed, **options)


def family_options(family: str) -> Dict[str, Any]:
    """The options of ``family`` with their default values."""
    return dict(_module(family).DEFAULTS)


__all__ = ["FAMILIES", "make_spec", "family_options"]
