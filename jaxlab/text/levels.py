"""The text-quest family's table for the registry: family name (``tw-coin_collector``, ...) -> constructor
taking ``seed``, ``num_games``, the family's options and the TextEnv's settings (see ``game_api.make_env``)."""
from __future__ import annotations

import functools

from jaxlab.text.generators import FAMILIES


def _make(family: str, **settings):
    from jaxlab.text.game_api import make_env

    return make_env(family, **settings)


#: family name -> constructor (``**settings -> TextEnv``)
LEVELS = {family: functools.partial(_make, family) for family in FAMILIES}
