"""Import games saved by the ``textworld`` package (``game.json``).

``read_textworld(path)`` reads a game's serialised world facts, quests, entity
infos and logic (``KB.logic``) into a :class:`GameSpec`; ``load_textworld``
compiles that into a :class:`TextGame` plus its host-side :class:`GameInfo`. No ``textworld`` import is needed.
Every problem raises a :class:`TextWorldFormatError` (a ``ValueError``)
naming the file and what is wrong.
"""
from __future__ import annotations

import json
import os
from typing import Any, Dict, List, Mapping, Optional, Tuple

from jaxlab.bank import Bank
from jaxlab.registry import COMPILED_GAME_SUFFIXES
from jaxlab.text.compiled_game import GameInfo, TextGame
from jaxlab.text.grounding import EventSpec, Fact, GroundingError, QuestSpec
from jaxlab.text.logic_text import LogicSyntaxError, parse_logic
from jaxlab.text.game_spec import GameSpec, compile_spec

SUPPORTED_VERSIONS = (1,)
REQUIRED_KEYS = ("world", "quests", "infos", "KB")


class TextWorldFormatError(ValueError):
    """A file that cannot be imported as a TextWorld game; ``path`` names it."""

    def __init__(self, path: str, message: str):
        super().__init__(f"{path}: {message}")
        self.path = path


class _Reader:
    """Reads the JSON structures, recording types of entities as it goes."""

    def __init__(self, path: str):
        self.path = path
        self.types: Dict[str, str] = {}

    def fail(self, message: str) -> TextWorldFormatError:
        return TextWorldFormatError(self.path, message)

    def fact(self, data: Any, where: str) -> Fact:
        try:
            name = data["name"]
            args = data["arguments"]
            if not isinstance(name, str) or not isinstance(args, list):
                raise TypeError
            ids = []
            for arg in args:
                ident, typ = arg["name"], arg["type"]
                if not isinstance(ident, str) or not isinstance(typ, str):
                    raise TypeError
                known = self.types.setdefault(ident, typ)
                if known != typ:
                    raise self.fail(f"{where}: entity {ident!r} has type {typ!r} here and {known!r} elsewhere")
                ids.append(ident)
        except (KeyError, TypeError):
            raise self.fail(f"{where}: expected a fact {{name, arguments: [{{name, type}}]}}, got {data!r:.120}") from None
        return name, tuple(ids)

    def facts(self, data: Any, where: str) -> List[Fact]:
        if not isinstance(data, list):
            raise self.fail(f"{where}: expected a list of facts")
        return [self.fact(d, f"{where}[{i}]") for i, d in enumerate(data)]

    def event(self, data: Any, where: str) -> EventSpec:
        if not isinstance(data, Mapping) or not isinstance(data.get("condition"), Mapping):
            raise self.fail(f"{where}: expected an event with a 'condition'")
        condition = self.facts(data["condition"].get("preconditions"), f"{where}.condition.preconditions")
        actions = data.get("actions") or []
        if not isinstance(actions, list):
            raise self.fail(f"{where}.actions: expected a list")
        plan = []
        for i, action in enumerate(actions):
            if not isinstance(action, Mapping):
                raise self.fail(f"{where}.actions[{i}]: expected an action")
            pre = self.facts(action.get("preconditions"), f"{where}.actions[{i}].preconditions")
            post = self.facts(action.get("postconditions"), f"{where}.actions[{i}].postconditions")
            plan.append((tuple(dict.fromkeys(pre)), tuple(f for f in dict.fromkeys(post) if f not in pre)))
        return EventSpec(tuple(condition), tuple(plan))

    def quest(self, data: Any, where: str) -> QuestSpec:
        if not isinstance(data, Mapping):
            raise self.fail(f"{where}: expected a quest object")
        wins = data.get("win_events", [])
        fails = data.get("fail_events", [])
        if not isinstance(wins, list) or not isinstance(fails, list):
            raise self.fail(f"{where}: win_events and fail_events must be lists")
        if not wins and not fails:
            raise self.fail(f"{where}: a quest needs at least one winning or failing event")
        reward = data.get("reward")
        if reward is None:
            reward = 1 if wins else 0
        if not isinstance(reward, (int, float)) or isinstance(reward, bool):
            raise self.fail(f"{where}.reward: expected a number, got {reward!r}")
        optional, repeatable = bool(data.get("optional", False)), bool(data.get("repeatable", False))
        if repeatable and not optional:
            raise self.fail(f"{where}: a repeatable quest must be optional")
        return QuestSpec(tuple(self.event(e, f"{where}.win_events[{i}]") for i, e in enumerate(wins)),
                         tuple(self.event(e, f"{where}.fail_events[{i}]") for i, e in enumerate(fails)),
                         float(reward), optional, repeatable)

    def infos(self, data: Any) -> Tuple[Dict[str, Optional[str]], Dict[str, str]]:
        """(entity id -> name, entity id -> description) from TextWorld's ``infos``."""
        try:
            pairs = [(k, v) for k, v in (data.items() if isinstance(data, Mapping) else data)]
            names = {str(k): v.get("name") for k, v in pairs}
            descriptions = {str(k): v["desc"] for k, v in pairs if isinstance(v.get("desc"), str)}
        except (TypeError, ValueError, AttributeError):
            raise self.fail("infos: expected [[entity id, {name, type, ...}], ...]") from None
        return names, descriptions


def game_json_path(path: str) -> str:
    """The ``.json`` game file ``path`` names: itself, or for a compiled game (``registry.COMPILED_GAME_SUFFIXES``)
    the ``.json`` beside it, as TextWorld reads it (TextWorldFormatError if that is missing)."""
    root, suffix = os.path.splitext(path)
    if suffix not in COMPILED_GAME_SUFFIXES:
        return path
    if not os.path.isfile(root + ".json"):
        raise TextWorldFormatError(path, f"a compiled game; its TextWorld .json ({root + '.json'}) is missing "
                                         "(jaxlab plays the .json that tw-make saves beside it)")
    return root + ".json"


def read_json(path: str) -> Dict[str, Any]:
    """The parsed JSON object of ``path``; TextWorldFormatError if missing, unreadable or not an object."""
    if not os.path.exists(path):
        raise TextWorldFormatError(path, "no such file")
    if os.path.isdir(path):
        raise TextWorldFormatError(path, "is a directory, not a game file")
    try:
        with open(path, "r", encoding="utf-8") as f:
            data = json.load(f)
    except UnicodeDecodeError:
        raise TextWorldFormatError(path, "not a text file (expected a TextWorld game .json; "
                                         "compiled .z8/.ulx games cannot be imported)") from None
    except json.JSONDecodeError as err:
        raise TextWorldFormatError(path, f"invalid JSON at line {err.lineno}, column {err.colno}: {err.msg}") from None
    if not isinstance(data, dict):
        raise TextWorldFormatError(path, f"not a TextWorld game: the JSON is a {type(data).__name__}, not an object")
    return data


def read_textworld(path) -> GameSpec:
    """Read a game saved by TextWorld (``textworld.Game.save``, the ``.json`` beside a ``.z8``; a ``.z8``
    or ``.ulx`` path reads that ``.json``) as a GameSpec.

    Entity names and descriptions come from the game's ``infos``, the
    walkthrough from its metadata. Raises TextWorldFormatError (a ValueError
    naming ``path``) for a missing file, invalid JSON, JSON that is not a
    TextWorld game (missing keys, malformed facts or quests), an unsupported
    format version, or logic that does not parse (with its line and column).
    """
    path = game_json_path(os.fspath(path))
    data = read_json(path)
    missing = [k for k in REQUIRED_KEYS if k not in data]
    if missing:
        raise TextWorldFormatError(path, f"not a TextWorld game: missing key(s) {', '.join(missing)} "
                                         f"(expected {', '.join(REQUIRED_KEYS)})")
    version = data.get("version", 1)
    if version not in SUPPORTED_VERSIONS:
        raise TextWorldFormatError(path, f"unsupported TextWorld game version {version!r} "
                                         f"(supported: {', '.join(map(str, SUPPORTED_VERSIONS))})")
    kb = data["KB"]
    if not isinstance(kb, Mapping) or not isinstance(kb.get("logic"), str):
        raise TextWorldFormatError(path, "KB.logic: expected the game logic as a string")
    try:
        parse_logic(kb["logic"])
    except LogicSyntaxError as err:
        raise TextWorldFormatError(path, f"cannot parse KB.logic: {err}") from None
    reader = _Reader(path)
    facts = reader.facts(data["world"], "world")
    if not isinstance(data["quests"], list):
        raise TextWorldFormatError(path, "quests: expected a list")
    quests = [reader.quest(q, f"quests[{i}]") for i, q in enumerate(data["quests"])]
    names, descriptions = reader.infos(data["infos"])
    for ident in reader.types:
        names.setdefault(ident, None)
    metadata = data.get("metadata") if isinstance(data.get("metadata"), Mapping) else {}
    walkthrough = metadata.get("walkthrough")
    objective = data.get("objective")
    return GameSpec(logic=kb["logic"], facts=tuple(facts), entity_types=dict(reader.types), entity_names=names,
                     quests=tuple(quests), walkthrough=tuple(walkthrough or ()),
                     objective=objective if isinstance(objective, str) else "", entity_desc=descriptions,
                     name=os.path.splitext(os.path.basename(path))[0], path=path,
                     metadata={k: v for k, v in metadata.items() if k not in ("walkthrough", "name")})


def load_textworld(path) -> Tuple[TextGame, GameInfo]:
    """Load and compile a game saved by TextWorld: :func:`read_textworld` then ``compile_spec``.

    Returns ``(game, info)``: the :class:`TextGame` (F facts, G grounded
    actions, K commands; see ``grounding.ground_world``) and its
    :class:`GameInfo` (command strings, fact names, entity names,
    walkthrough, objective, path). Raises TextWorldFormatError as
    :func:`read_textworld` does, and for logic that cannot be grounded.
    """
    return compile_textworld(read_textworld(path))


def compile_textworld(spec: GameSpec) -> Tuple[TextGame, GameInfo]:
    """``compile_spec`` of a spec read by :func:`read_textworld`; a world its logic cannot ground
    raises TextWorldFormatError naming the file."""
    try:
        return compile_spec(spec)
    except GroundingError as err:
        raise TextWorldFormatError(spec.path, f"unsupported logic: {err}") from None


def load_textworld_bank(paths, processes=None) -> Tuple[Bank, Tuple[GameInfo, ...]]:
    """Load several TextWorld games and stack them into one bank (shared padded shapes).

    Returns ``(bank, infos)``: a ``Bank`` of ``len(paths)`` TextGames
    (``bank.levels`` arrays have that leading axis) and one GameInfo per
    game, in order; the games share one vocabulary (``tables.share_vocab``:
    every info has the same ``words``). Many games are compiled in
    ``processes`` processes (``compile_pool.compile_many``; default: one per core).
    """
    from jaxlab.text.compile_pool import compile_many
    from jaxlab.text.tables import share_vocab

    loaded = compile_many([read_textworld(p) for p in paths], processes, compile_textworld)
    if not loaded:
        raise ValueError("load_textworld_bank needs at least one path")
    games, infos, _ = share_vocab([g for g, _ in loaded], [i for _, i in loaded])
    return Bank.stack(games), infos
