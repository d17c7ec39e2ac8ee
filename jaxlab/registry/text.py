"""The text family's table: TextWorld's game families (``tw-coin_collector``, ...) -> ``TextEnv``.

``LEVELS``: family name -> constructor taking ``seed``, ``num_games``, the family's options and
``ENV_SETTINGS`` (see :func:`make_env`).
"""
from __future__ import annotations

import functools

from jaxlab.bank import Bank
from jaxlab.kernels.text.env import TextEnv
from jaxlab.levels.text.compile_pool import compile_many
from jaxlab.levels.text.generators import FAMILIES, make_spec
from jaxlab.levels.text.textworld_import import load_textworld
from jaxlab.settings import check_names, check_settings

#: settings of ``make_env`` that go to the TextEnv rather than to the generator
ENV_SETTINGS = ("max_steps", "observations", "text_length")


def make_env(family: str, seed: int = 0, num_games: int = 1, **settings) -> TextEnv:
    """A TextEnv over ``num_games`` generated games (seeds ``seed``, ``seed + 1``, ...), one drawn per episode.

    ``settings`` holds the generator's options (see ``jaxlab.text.make``) and the
    TextEnv's (``max_steps``, ``observations``, ``text_length``); these, ``seed`` and ``num_games``
    are checked by :func:`jaxlab.settings.check_settings` (TypeError / ValueError naming them). This is
    what ``jaxlab.make("tw-coin_collector", level=5, seed=0)`` returns.
    Many games are compiled in parallel processes (``compile_pool.compile_many``).
    """
    env_settings = check_settings("jaxlab.text.make_env", {"seed": seed, "num_games": num_games, **{
        k: settings.pop(k) for k in ENV_SETTINGS if k in settings}})
    seed, num_games = env_settings.pop("seed"), env_settings.pop("num_games")
    compiled = compile_many([make_spec(family, seed=seed + i, **settings) for i in range(num_games)])
    return TextEnv(Bank.stack([g for g, _ in compiled]), [i for _, i in compiled], name=family, **env_settings)


def make_game_file(path: str, **settings) -> TextEnv:
    """A TextEnv over one TextWorld game file (``.json``, or the ``.json`` beside a ``.z8``/``.ulx``);
    ``settings``: ``ENV_SETTINGS``."""
    check_names(settings, ENV_SETTINGS)
    game, info = load_textworld(path)
    return TextEnv(Bank.stack([game]), [info], name=path, **settings)


#: family name -> constructor (``**settings -> TextEnv``)
LEVELS = {family: functools.partial(make_env, family) for family in FAMILIES}
