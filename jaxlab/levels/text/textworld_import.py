"""Import games saved by the ``textworld`` package (``game.json``).

``read_textworld(path)`` reads a game's serialised world facts, quests, entity
infos and logic (``KB.logic``) into a :class:`GameSpec`; ``load_textworld``
compiles that into a :class:`TextGame` plus its host-side :class:`GameInfo`. No ``textworld`` import is needed.
The file is read and checked against TextWorld's format first
(``game_schema``: limits, shapes, the logic's predicates and types, finite
numbers, no control characters in text), then against its own logic
(``game_logic_checks``: no room related to itself, event actions that are
rules, quests that can be won); every problem raises a :class:`TextWorldFormatError` (a
``ValueError``) naming the file, the field and what is wrong.
"""
from __future__ import annotations

import os
from typing import Any, Dict, Mapping, Tuple

from jaxlab.bank import Bank
from jaxlab.levels.text.compiled_game import GameInfo, TextGame
from jaxlab.levels.text.game_logic_checks import check_game_logic
from jaxlab.levels.text.game_schema import TextWorldFormatError, check_game, read_game_json
from jaxlab.levels.text.game_spec import GameSpec, compile_spec
from jaxlab.levels.text.grounding import EventSpec, Fact, GroundingError, QuestSpec

#: TextWorld's compiled games: jaxlab plays the ``.json`` saved beside them
COMPILED_GAME_SUFFIXES = (".z1", ".z2", ".z3", ".z4", ".z5", ".z6", ".z7", ".z8", ".ulx")
#: the suffixes of a TextWorld game file
GAME_SUFFIXES = (".json",) + COMPILED_GAME_SUFFIXES


class _Reader:
    """Turns a game's JSON, already checked by ``game_schema.check_game``, into GameSpec parts, recording
    each entity's type in the order the facts name them (world, then quests)."""

    def __init__(self):
        self.types: Dict[str, str] = {}

    def fact(self, data: Mapping[str, Any]) -> Fact:
        for arg in data["arguments"]:
            self.types.setdefault(arg["name"], arg["type"])
        return data["name"], tuple(arg["name"] for arg in data["arguments"])

    def event(self, data: Mapping[str, Any]) -> EventSpec:
        condition = [self.fact(f) for f in data["condition"]["preconditions"]]
        plan = []
        for action in data.get("actions", []):
            pre = [self.fact(f) for f in action["preconditions"]]
            post = [self.fact(f) for f in action["postconditions"]]
            plan.append((tuple(dict.fromkeys(pre)), tuple(f for f in dict.fromkeys(post) if f not in pre)))
        return EventSpec(tuple(condition), tuple(plan))

    def quest(self, data: Mapping[str, Any]) -> QuestSpec:
        wins, fails = data.get("win_events", []), data.get("fail_events", [])
        reward = data.get("reward")
        return QuestSpec(tuple(self.event(e) for e in wins), tuple(self.event(e) for e in fails),
                         float((1 if wins else 0) if reward is None else reward),
                         data.get("optional", False), data.get("repeatable", False))


def game_json_path(path: str) -> str:
    """The ``.json`` game file ``path`` names: itself, or for a compiled game (``COMPILED_GAME_SUFFIXES``)
    the ``.json`` beside it, as TextWorld reads it (TextWorldFormatError if that is missing)."""
    root, suffix = os.path.splitext(path)
    if suffix not in COMPILED_GAME_SUFFIXES:
        return path
    if not os.path.isfile(root + ".json"):
        raise TextWorldFormatError(path, f"a compiled game; its TextWorld .json ({root + '.json'}) is missing "
                                         "(jaxlab plays the .json that tw-make saves beside it)")
    return root + ".json"


def read_textworld(path) -> GameSpec:
    """Read a game saved by TextWorld (``textworld.Game.save``, the ``.json`` beside a ``.z8``; a ``.z8``
    or ``.ulx`` path reads that ``.json``) as a GameSpec.

    Entity names and descriptions come from the game's ``infos``, the
    walkthrough from its metadata. Raises TextWorldFormatError (a ValueError
    naming ``path`` and the field) for a missing, oversized or too deeply
    nested file, invalid JSON, JSON that does not fit TextWorld's format
    (``game_schema.check_game``: missing or unknown keys, wrong types, facts
    whose predicate, arity or types the game's logic does not declare,
    non-finite numbers, control characters other than newline and tab in any
    text), an unsupported format version, logic that does not parse (with its
    line and column), or a game its logic contradicts (``game_logic_checks``:
    a room related to itself, an event action that is no rule, a quest that
    cannot be won).
    """
    path = game_json_path(os.fspath(path))
    data = read_game_json(path)
    check_game(data, path)
    check_game_logic(data, path)
    reader = _Reader()
    facts = [reader.fact(f) for f in data["world"]]
    quests = [reader.quest(q) for q in data["quests"]]
    names = {ident: info.get("name") for ident, info in data["infos"]}
    descriptions = {ident: info["desc"] for ident, info in data["infos"] if isinstance(info.get("desc"), str)}
    for ident in reader.types:
        names.setdefault(ident, None)
    metadata = data.get("metadata", {})
    return GameSpec(logic=data["KB"]["logic"], facts=tuple(facts), entity_types=dict(reader.types),
                    entity_names=names, quests=tuple(quests), walkthrough=tuple(metadata.get("walkthrough", ())),
                    objective=data.get("objective") or "", entity_desc=descriptions,
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
    from jaxlab.levels.text.compile_pool import compile_many
    from jaxlab.levels.text.tables import share_vocab

    loaded = compile_many([read_textworld(p) for p in paths], processes, compile_textworld)
    if not loaded:
        raise ValueError("load_textworld_bank needs at least one path")
    games, infos, _ = share_vocab([g for g, _ in loaded], [i for _, i in loaded])
    return Bank.stack(games), infos
