"""``jaxlab.text``: the text-quest family's public face (TextWorld-style games as jnp state machines).

TextWorld's host API: ``make(family, seed, **options) -> Game`` (``Game.save``
writes TextWorld's JSON), ``load(path) -> Game``, ``EnvInfos``,
``start(game_or_path, infos) -> Environment`` (``reset()``, ``step(command)``;
``GameState``), ``BatchEnv`` (many games, one vmapped step), ``CommandParser``
(free text to command ids), ``jaxlab.text.gym`` (the ``textworld.gym`` drop-in).
Their home is ``jaxlab.hosts.text``.

The jaxlab API:

- ``TextEnv(games, infos)``: the jaxlab Env over a ``jaxlab.Bank`` of ``TextGame``s (with
  their ``GameInfo``; state ``TextState``): command ids as actions, text
  observations as tokens (``env.decode``, ``env.vocab``: a ``Vocab``);
  ``make_env(family, ...)`` makes one from generated games. Home: ``jaxlab.kernels.text``.
- ``read_textworld(path)``: a game saved by the ``textworld`` package -> ``GameSpec``;
  ``load_textworld(path)`` -> ``(TextGame, GameInfo)``; ``load_textworld_bank(paths)``:
  several games in one padded ``jaxlab.Bank``; ``TextWorldFormatError`` when a file does not read.
- ``GameSpec``/``compile_spec``: a game before compilation, and its compilation
  (``LogicSyntaxError``, ``GroundingError`` when it does not compile).
  Home: ``jaxlab.levels.text``, with the logic language, grounding, grammar and generators.
"""
from jaxlab.hosts.text.batch import BatchEnv
from jaxlab.hosts.text.game_api import Game, load, make
from jaxlab.hosts.text.host import EnvInfos, Environment, GameState, start
from jaxlab.hosts.text.parser import CommandParser
from jaxlab.kernels.text.env import TextEnv
from jaxlab.kernels.text.kernel import TextState
from jaxlab.levels.text.compiled_game import GameInfo, TextGame
from jaxlab.levels.text.game_spec import GameSpec, compile_spec
from jaxlab.levels.text.grounding import GroundingError
from jaxlab.levels.text.logic_text import LogicSyntaxError
from jaxlab.levels.text.textworld_import import (TextWorldFormatError, load_textworld, load_textworld_bank,
                                                 read_textworld)
from jaxlab.levels.text.vocab import Vocab
from jaxlab.registry.text import make_env

__all__ = ["BatchEnv", "CommandParser", "EnvInfos", "Environment", "Game", "GameInfo", "GameSpec", "GameState",
           "GroundingError", "LogicSyntaxError", "TextEnv", "TextGame", "TextState", "TextWorldFormatError", "Vocab",
           "compile_spec", "load", "load_textworld", "load_textworld_bank", "make", "make_env", "read_textworld",
           "start"]
