"""First-person (DeepMind Lab) levels: text maps, the compiled ``Level``, the built-in catalogue,
the procedural DMLab-30 levels.

``LEVELS`` is this family's table for the registry: level name -> constructor
taking the first-person settings (width, height, observations,
action_repeat, fps, episode_length_seconds) and returning a ``FirstPersonEnv``.
``PATH_PREFIXES``: DMLab level paths that name the same levels
(``contributed/dmlab30/explore_goal_locations_small``).
"""
from __future__ import annotations

import functools

from jaxlab.levels.dmlab import dmlab30
from jaxlab.levels.dmlab.catalogue import BUILTIN, builtin_level

PATH_PREFIXES = (dmlab30.PATH_PREFIX,)


def make_builtin(name: str, **settings):
    """A ``FirstPersonEnv`` over the one-level bank of built-in level ``name`` with ``settings``."""
    from jaxlab.bank import Bank
    from jaxlab.first_person.env import FirstPersonEnv
    from jaxlab.registry import FIRST_PERSON_SETTINGS, _check_settings

    _check_settings(settings, FIRST_PERSON_SETTINGS)
    return FirstPersonEnv(Bank.stack([builtin_level(name)]), name=name, **settings)


def make_generated(name: str, **settings):
    """A ``FirstPersonEnv`` drawing every episode of procedural level ``name`` on device, with ``settings``."""
    from jaxlab.first_person.env import FirstPersonEnv
    from jaxlab.registry import FIRST_PERSON_SETTINGS, _check_settings

    _check_settings(settings, FIRST_PERSON_SETTINGS)
    return FirstPersonEnv(generator=dmlab30.generators()[name], name=name, **settings)


#: level name -> constructor (``**settings -> FirstPersonEnv``)
LEVELS = {**{name: functools.partial(make_builtin, name) for name in BUILTIN},
          **{name: functools.partial(make_generated, name) for name in dmlab30.generators()}}
