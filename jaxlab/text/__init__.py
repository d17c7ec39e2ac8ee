"""TextWorld-style text games as jnp state machines (``jaxlab.text``).

- ``GameSpec``/``compile_spec``: a game before compilation (generators and importers make one).
- ``read_textworld(path)``: a game saved by the ``textworld`` package -> GameSpec.
- ``load_textworld(path)``: a game saved by the ``textworld`` package -> ``(TextGame, GameInfo)``.
- ``load_textworld_bank(paths)``: several games stacked into one padded ``jaxlab.Bank``.
- ``TextEnv(games, infos)``: the jaxlab Env over a ``Bank`` of games (``Bank.stack``; command ids as actions;
  text observations as tokens, ``env.decode`` / ``env.vocab``).
- ``narration``: the game's text composed on device; ``grammar``: what it says;
  ``Vocab``: word-level tokens (``vocab``).
- ``kernel``: ``initial_state``, ``admissible``, ``step`` on one game (pure, jit/vmap).
- ``parse_logic``: the TextWorld logic language; ``ground_world``: grounding.

TextWorld's host API: ``make(family, seed, **options) -> Game`` (``Game.save``
writes TextWorld's JSON), ``load(path) -> Game``, ``EnvInfos``,
``start(game_or_path, infos) -> Environment`` (``reset()``, ``step(command)``),
``BatchEnv`` (many games, one vmapped step), ``CommandParser`` (free text).
"""
from jaxlab.text.batch import BatchEnv
from jaxlab.text.env import TextEnv
from jaxlab.text.compiled_game import GameInfo, TextGame
from jaxlab.text.game_api import Game, load, make, make_env
from jaxlab.text.grounding import EventSpec, GroundingError, QuestSpec, ground_world
from jaxlab.text.kernel import TextState, admissible, initial_state, step
from jaxlab.text.host import EnvInfos, Environment, GameState, start
from jaxlab.text.logic_text import Logic, LogicSyntaxError, parse_logic
from jaxlab.text.parser import CommandParser
from jaxlab.text.textworld_import import TextWorldFormatError, load_textworld, load_textworld_bank, read_textworld
from jaxlab.text.vocab import Vocab
from jaxlab.text.game_spec import GameSpec, compile_spec

__all__ = ["EventSpec", "GameInfo", "GroundingError", "Logic", "LogicSyntaxError", "QuestSpec", "TextEnv",
           "TextGame", "TextState", "TextWorldFormatError", "admissible", "ground_world",
           "initial_state", "load_textworld", "load_textworld_bank", "parse_logic",
           "step", "read_textworld", "Vocab", "GameSpec", "compile_spec", "BatchEnv", "CommandParser", "EnvInfos",
           "Environment", "Game", "GameState", "load", "make", "make_env", "start"]
