"""The first-person family's table: built-in maps and the procedural DMLab-30 levels -> ``FirstPersonEnv``;
DMLab-30's PsychLab levels -> ``PsychlabScreenEnv`` (one level each).

``LEVELS``: level name -> constructor taking ``SETTINGS`` as keywords.
"""
from __future__ import annotations

import functools
from typing import Any, Dict

from jaxlab.bank import Bank
from jaxlab.kernels.first_person.env import FirstPersonEnv
from jaxlab.kernels.psychlab.dmlab30_env import PsychlabScreenEnv
from jaxlab.levels.dmlab import dmlab30
from jaxlab.levels.dmlab.catalogue import BUILTIN, builtin_level
from jaxlab.levels.dmlab.dmlab30.psychlab import SCREEN_LEVELS
from jaxlab.settings import check_names

#: settings of a first-person level (``FirstPersonEnv``)
SETTINGS = ("width", "height", "observations", "action_repeat", "fps", "episode_length_seconds", "players")


def check(settings: Dict[str, Any]) -> None:
    """Refuse a setting name a first-person level does not take (UnknownNameError with suggestions)."""
    check_names(settings, SETTINGS)


def make_builtin(name: str, **settings) -> FirstPersonEnv:
    """A ``FirstPersonEnv`` over the one-level bank of built-in level ``name`` with ``settings``."""
    check(settings)
    return FirstPersonEnv(Bank.stack([builtin_level(name)]), name=name, **settings)


def make_generated(name: str, **settings) -> FirstPersonEnv:
    """A ``FirstPersonEnv`` drawing every episode of procedural level ``name`` on device, with ``settings``."""
    check(settings)
    return FirstPersonEnv(generator=dmlab30.generators()[name], name=name, **settings)


#: settings of a DMLab-30 PsychLab level (``PsychlabScreenEnv``)
SCREEN_SETTINGS = ("width", "height", "observations", "action_repeat", "fps", "episode_length_seconds")


def make_screen(name: str, **settings) -> PsychlabScreenEnv:
    """A ``PsychlabScreenEnv`` holding DMLab-30 PsychLab level ``name`` alone, with ``settings``."""
    check_names(settings, SCREEN_SETTINGS)
    return PsychlabScreenEnv(levels=(name,), name=name, **settings)


#: level name -> constructor (``**settings -> FirstPersonEnv | PsychlabScreenEnv``)
LEVELS = {**{name: functools.partial(make_builtin, name) for name in BUILTIN},
          **{name: functools.partial(make_generated, name) for name in dmlab30.generators()},
          **{name: functools.partial(make_screen, name) for name in SCREEN_LEVELS}}
