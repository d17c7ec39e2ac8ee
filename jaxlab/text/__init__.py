"""TextWorld-style text games as jnp state machines (``jaxlab.text``).

TextWorld's host API: ``make(family, seed, **options) -> Game`` (``Game.save``
writes TextWorld's JSON), ``load(path) -> Game``, ``EnvInfos``,
``start(game_or_path, infos) -> Environment`` (``reset()``, ``step(command)``;
``GameState``), ``BatchEnv`` (many games, one vmapped step), ``CommandParser``
(free text to command ids).

The jaxlab API:

- ``TextEnv(games, infos)``: the jaxlab Env over a ``jaxlab.Bank`` of ``TextGame``s (with
  their ``GameInfo``; state ``TextState``): command ids as actions, text
  observations as tokens (``env.decode``, ``env.vocab``: a ``Vocab``);
  ``make_env(family, ...)`` makes one from generated games.
- ``read_textworld(path)``: a game saved by the ``textworld`` package -> ``GameSpec``;
  ``load_textworld(path)`` -> ``(TextGame, GameInfo)``; ``load_textworld_bank(paths)``:
  several games in one padded ``jaxlab.Bank``; ``TextWorldFormatError`` when a file does not read.
- ``GameSpec``/``compile_spec``: a game before compilation, and its compilation
  (``LogicSyntaxError``, ``GroundingError`` when it does not compile).

The kernel (``kernel.initial_state``/``admissible``/``step``), the logic
language (``logic_text``), grounding (``grounding``), narration and grammar
live in their modules.
"""
from jaxlab.text.batch import BatchEnv
from jaxlab.text.compiled_game import GameInfo, TextGame
from jaxlab.text.env import TextEnv
from jaxlab.text.game_api import Game, load, make, make_env
from jaxlab.text.game_spec import GameSpec, compile_spec
from jaxlab.text.grounding import GroundingError
from jaxlab.text.host import EnvInfos, Environment, GameState, start
from jaxlab.text.kernel import TextState
from jaxlab.text.logic_text import LogicSyntaxError
from jaxlab.text.parser import CommandParser
from jaxlab.text.textworld_import import TextWorldFormatError, load_textworld, load_textworld_bank, read_textworld
from jaxlab.text.vocab import Vocab

__all__ = ["BatchEnv", "CommandParser", "EnvInfos", "Environment", "Game", "GameInfo", "GameSpec", "GameState",
           "GroundingError", "LogicSyntaxError", "TextEnv", "TextGame", "TextState", "TextWorldFormatError", "Vocab",
           "compile_spec", "load", "load_textworld", "load_textworld_bank", "make", "make_env", "read_textworld",
           "start"]
