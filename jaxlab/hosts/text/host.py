"""TextWorld's host API over the jaxlab text kernel: ``EnvInfos``, ``start``, ``Environment``.

    infos = jaxlab.text.EnvInfos(admissible_commands=True, score=True, max_score=True, description=True)
    env = jaxlab.text.start("game.json", infos)        # or a jaxlab.text.Game
    state = env.reset()                                # a GameState (dict) with "feedback" + what infos asked
    state, score, done = env.step("take the apple")    # free text; never raises for a bad command

Every step runs the jitted kernel (one game, no batch axis) and decodes the
token observations to strings. Free text is parsed by
:class:`~jaxlab.hosts.text.parser.CommandParser`; a command the game does not have
gets the game's refusal text and changes nothing. For many games at once use
:class:`~jaxlab.hosts.text.batch.BatchEnv`.
"""
from __future__ import annotations

import reprlib
import warnings
from typing import List, Optional, Union

import jax
import numpy as np

from jaxlab.bank import Bank
from jaxlab.errors import unknown_name_error
from jaxlab.hosts.text.game_api import Game, game_or_load
from jaxlab.hosts.text.parser import CommandParser
from jaxlab.kernels.text.env import TextEnv
from jaxlab.levels.text.grounding import fact_text

#: the information TextWorld 1.7's EnvInfos can ask for, all supported here
INFO_NAMES = ("feedback", "description", "inventory", "location", "facts", "win_facts", "fail_facts",
              "last_action", "last_command", "game", "won", "lost", "score", "moves", "max_score", "objective",
              "entities", "typed_entities", "verbs", "command_templates", "admissible_commands",
              "possible_admissible_commands", "possible_commands", "intermediate_reward", "policy_commands")


class EnvInfos:
    """What a GameState carries besides ``feedback``: TextWorld's ``EnvInfos`` flags.

    ``EnvInfos(admissible_commands=True, score=True, extras=["walkthrough"])``;
    an unknown field raises UnknownNameError with close matches. ``extras`` name
    keys of a game's metadata (``walkthrough``, ``name``, a cooking game's
    ``recipe``, ...) reported as ``extra.<key>``; as in TextWorld, a key a game
    does not have reads None (with a warning naming the keys it has).
    """

    def __init__(self, **kwargs):
        extras = kwargs.pop("extras", None) or []
        if isinstance(extras, str) or not all(isinstance(e, str) for e in extras):
            raise TypeError(f"EnvInfos extras: expected a list of metadata keys (strings), got {extras!r}")
        self.extras: List[str] = list(extras)
        for name in INFO_NAMES:
            setattr(self, name, False)
        for name, value in kwargs.items():
            if name not in INFO_NAMES:
                raise unknown_name_error("EnvInfos field", name, INFO_NAMES + ("extras",))
            setattr(self, name, bool(value))

    @property
    def basics(self) -> List[str]:
        """The names of the requested infos (extras excluded)."""
        return [n for n in INFO_NAMES if getattr(self, n)]

    def __repr__(self) -> str:
        return f"EnvInfos({', '.join(f'{n}=True' for n in self.basics)}, extras={self.extras!r})"


class GameState(dict):
    """The game's state as TextWorld gives it: a dict (``state["feedback"]``) also readable as attributes."""

    def __getattr__(self, name):
        try:
            return self[name]
        except KeyError:
            raise AttributeError(name) from None


def checked_infos(infos, where: str) -> EnvInfos:
    """The jaxlab EnvInfos ``infos`` asks for: None (feedback only), a jaxlab EnvInfos, or TextWorld's
    (``textworld.EnvInfos``: any object with every field of ``INFO_NAMES``, read as flags, and ``extras``).
    Anything else (a string such as ``"all"``, a list of names, a dict) is a TypeError naming ``where``."""
    if infos is None or isinstance(infos, EnvInfos):
        return infos or EnvInfos()
    if isinstance(infos, type) or not all(hasattr(infos, n) for n in INFO_NAMES):
        raise TypeError(f"{where}: expected an EnvInfos (jaxlab.text.EnvInfos(score=True, ...) or "
                        f"textworld.EnvInfos) or None, got {type(infos).__name__} {reprlib.repr(infos)}")
    return EnvInfos(**{n: bool(getattr(infos, n)) for n in INFO_NAMES},
                    extras=list(getattr(infos, "extras", None) or []))


def observation_names(infos: EnvInfos) -> tuple:
    """The TextEnv observations a host env computes to answer ``infos``."""
    names = ["feedback", "admissible", "score", "won", "lost", "moves"]
    names += [n for n in ("description", "inventory", "intermediate_reward") if getattr(infos, n)]
    return tuple(names + ["policy"] * infos.policy_commands)


def checked_command(command, where: str) -> str:
    """``command`` when it is a str; else a TypeError naming ``where``, the type and the value."""
    if not isinstance(command, str):
        raise TypeError(f"{where}: expected a command string (str), got {type(command).__name__} "
                        f"{reprlib.repr(command)}")
    return command


class Environment:
    """One text game played from the host with TextWorld's ``Environment`` interface.

    Args:
      game: a :class:`Game` (``jaxlab.text.make`` / ``load``).
      infos: the EnvInfos to report (default: feedback only).
      max_steps: optional episode length in commands (the game is done after it).
    """

    def __init__(self, game: Game, infos: Optional[EnvInfos] = None, max_steps: Optional[int] = None):
        self.game = game_or_load(game, "Environment: game")
        self.infos = checked_infos(infos, "Environment: infos")
        self.env = TextEnv(Bank.stack([game.game]), [game.info], name=game.name, max_steps=max_steps,
                           observations=observation_names(self.infos), text_length=None)
        self.parser = CommandParser(game.info.commands)
        self._reset = jax.jit(self.env.reset)
        self._step = jax.jit(self.env.step)
        self._key = jax.random.PRNGKey(0)
        self._state = None
        self.state: Optional[GameState] = None
        self._obs = None

    def seed(self, seed: Optional[int] = None) -> List[int]:
        """Seed the key of the next episodes (the game itself is fixed); returns ``[seed]``."""
        self._key = jax.random.PRNGKey(0 if seed is None else int(seed))
        return [0 if seed is None else int(seed)]

    def reset(self) -> GameState:
        """Start the game from the beginning; returns the first GameState."""
        self._key, key = jax.random.split(self._key)
        self._state, ts = self._reset(key)
        self.state = self._game_state(ts, command=None, action=None)
        return self.state

    def step(self, command: str) -> tuple:
        """Play ``command`` (free text): ``(GameState, score, done)`` as TextWorld returns them.

        Raises TypeError for anything but a str (nothing is played)."""
        if self._state is None:
            raise RuntimeError("call reset() before step()")
        command_id = self.parser.parse(checked_command(command, "Environment.step"))
        applied = command_id >= 0 and bool(np.asarray(self._obs["admissible"])[command_id])
        self._state, ts = self._step(self._state, np.int32(command_id))
        self.state = self._game_state(ts, command=command.strip(),
                                      action=self.game.info.commands[command_id] if applied else None)
        return self.state, self.state["score"], self.state["done"]

    def copy(self) -> "Environment":
        """An independent Environment at the same point of the same game (TextWorld's ``env.copy()``):
        stepping one leaves the other as it was. The compiled functions are shared."""
        twin = object.__new__(Environment)
        twin.__dict__.update(self.__dict__)
        twin.state = GameState(self.state) if self.state is not None else None
        return twin

    def render(self, mode: str = "human") -> Optional[str]:
        """The last feedback: printed (``human``) or returned (``text``/``ansi``)."""
        text = self.state["feedback"] if self.state is not None else ""
        if mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        """End the game (a new ``reset`` starts it again)."""
        self._state, self.state = None, None

    # --- GameState assembly ------------------------------------------------------------------

    def _game_state(self, ts, command: Optional[str], action: Optional[str]) -> GameState:
        obs = jax.device_get(ts.observation)
        self._obs = obs
        info, asked = self.game.info, self.infos
        state = GameState(feedback=self.env.decode(obs["feedback"]))
        state["raw"] = state["feedback"]
        state["score"] = float(obs["score"])
        state["won"], state["lost"] = bool(obs["won"]), bool(obs["lost"])
        state["done"] = bool(ts.last())
        state["moves"] = int(obs["moves"])
        admissible = np.asarray(obs["admissible"])[:len(info.commands)]
        if asked.admissible_commands:
            state["admissible_commands"] = [c for c, ok in zip(info.commands, admissible) if ok]
        for name in ("description", "inventory"):
            if getattr(asked, name):
                state[name] = self.env.decode(obs[name])
        if asked.policy_commands:
            state["policy_commands"] = [info.commands[i] for i in np.asarray(obs["policy"]) if i >= 0]
        if asked.intermediate_reward:
            state["intermediate_reward"] = float(obs["intermediate_reward"])
        if asked.last_command:
            state["last_command"] = command
        if asked.last_action:
            state["last_action"] = action
        if asked.facts or asked.location:
            facts = self.true_facts()
            if asked.facts:
                state["facts"] = facts
            if asked.location:
                state["location"] = location(self.game, facts)
        state.update(game_infos(self.game, asked))
        return state

    def true_facts(self) -> List[tuple]:
        """The facts true now, ``(predicate, entity ids)``, sorted (see ``true_facts``)."""
        return true_facts(self.game, np.asarray(jax.device_get(self._state.facts)))


def true_facts(game: Game, truth) -> List[tuple]:
    """The facts of ``game`` true in a state whose changing facts are ``truth`` (bool[F]), as
    ``(predicate, entity ids)``, sorted: the never-changing facts of the world and the true changing
    ones."""
    info, spec = game.info, game.spec
    dynamic = set(info.facts)
    static = {f for f in spec.facts if fact_text(f) not in dynamic}
    changing = {_parse_fact(t) for t, on in zip(info.facts, truth) if on}
    return sorted(static | changing)


def location(game: Game, facts: List[tuple]) -> Optional[str]:
    """The name of the room the player is in, from ``true_facts``; None if nowhere."""
    rooms = [f[1][1] for f in facts if f[0] == "at" and f[1][0] == "P"]
    return game.spec.entity_names.get(rooms[0]) if rooms else None


def game_infos(game: Game, asked: EnvInfos) -> dict:
    """The requested infos that depend on the game alone (``Game.textworld_infos``, computed once per
    game), ``game`` and ``extra.<key>`` for each extra (a key the game lacks reads None, with a
    warning naming the keys it has, once per game and key)."""
    out = {name: value for name, value in game.textworld_infos.items() if getattr(asked, name)}
    if asked.game:
        out["game"] = game
    metadata = game.metadata
    for extra in asked.extras:
        if extra not in metadata and (extra, id(game)) not in _WARNED:
            _WARNED.add((extra, id(game)))
            warnings.warn(str(unknown_name_error(f"metadata key of game {game.name!r}", extra, tuple(metadata))),
                          stacklevel=3)
        out[f"extra.{extra}"] = metadata.get(extra)
    return out


_WARNED: set = set()


def _parse_fact(text: str) -> tuple:
    name, args = text[:-1].split("(", 1)
    return name, tuple(a.strip() for a in args.split(",") if a.strip())


def start(game_or_path: Union[Game, str], infos: Optional[EnvInfos] = None, max_steps: Optional[int] = None,
          request_infos: Optional[EnvInfos] = None) -> Environment:
    """TextWorld's ``textworld.start``: an :class:`Environment` playing a Game or a ``.json`` game file.
    ``request_infos`` is TextWorld's name for ``infos`` (give one of them; see :func:`checked_infos`).
    TypeError for a ``game_or_path`` that is neither a Game nor a path, or ``infos`` that are not EnvInfos."""
    if infos is not None and request_infos is not None:
        raise TypeError("start: give infos or request_infos, not both")
    name = "infos" if request_infos is None else "request_infos"
    asked = checked_infos(infos if request_infos is None else request_infos, f"start: {name}")
    return Environment(game_or_load(game_or_path, "start: game_or_path"), asked, max_steps=max_steps)
