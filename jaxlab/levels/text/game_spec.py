"""A text game before compilation: the :class:`GameSpec` every source produces.

Generators (``jaxlab.levels.text.generators``) and the TextWorld importer
(``jaxlab.levels.text.textworld_import``) both describe a game as a GameSpec: the
logic (rules in TextWorld's logic language), the initial facts, the entities
with their types, names and descriptions, the quests, the walkthrough and the
objective text. :func:`compile_spec` turns one into the fixed-shape
:class:`~jaxlab.levels.text.compiled_game.TextGame` and its host-side
:class:`~jaxlab.levels.text.compiled_game.GameInfo`.
"""
from __future__ import annotations

import dataclasses
from typing import Any, Mapping, Optional, Tuple

from jaxlab.levels.text.compiled_game import GameInfo, TextGame, game_on_device
from jaxlab.levels.text.grounding import Fact, QuestSpec, ground_world
from jaxlab.levels.text.logic_text import parse_logic
from jaxlab.levels.text.tables import compile_text


@dataclasses.dataclass(frozen=True)
class GameSpec:
    """Everything needed to compile one text game.

    logic: the game logic as text (TextWorld's logic language, see ``logic_text``).
    facts: the initial facts ``(predicate, entity ids)``.
    entity_types: entity id -> type name (``r`` room, ``d`` door, ``c``
      container, ``s`` supporter, ``o`` portable object, ``k`` key, ``f`` food,
      ``P`` player, ``I`` inventory; subtypes as the logic declares).
    entity_names: entity id -> display name (``None``: the entity has none, as
      TextWorld's player and inventory).
    quests: the quests, in order.
    walkthrough: commands that win the game (empty if unknown).
    objective: the objective text shown at the start.
    entity_desc: entity id -> description text (rooms: their introduction;
      things: what ``examine`` prints); missing ids get a generated one.
    name: a short name of the game (family and settings), for reprs and files.
    path: the file the spec was read from ("" if built in memory).
    metadata: the game's other metadata (TextWorld's ``metadata``, e.g. a cooking game's ``recipe``),
      JSON values; ``walkthrough`` and ``name`` are the fields above.
    """

    logic: str
    facts: Tuple[Fact, ...]
    entity_types: Mapping[str, str]
    entity_names: Mapping[str, Optional[str]]
    quests: Tuple[QuestSpec, ...]
    walkthrough: Tuple[str, ...] = ()
    objective: str = ""
    entity_desc: Mapping[str, str] = dataclasses.field(default_factory=dict)
    name: str = ""
    path: str = ""
    metadata: Mapping[str, Any] = dataclasses.field(default_factory=dict)


def compile_spec(spec: GameSpec, on_device: bool = True) -> Tuple[TextGame, GameInfo]:
    """Compile a GameSpec: ``(game, info)``.

    ``game`` is a TextGame (see ``grounding.ground_world`` for its axes;
    its winning policy starts as the walkthrough, see ``policy``) with its
    text (``tables.compile_text``: the grammar's sentences over the entity
    names, types, descriptions, grounded actions and facts); ``info``
    the host-side GameInfo with the spec's walkthrough, objective, path and
    the words of the text beyond the shipped vocabulary. Raises
    LogicSyntaxError for logic that does not parse and GroundingError for a
    world the logic cannot ground. With ``on_device=False`` the game's arrays stay numpy arrays
    (what a worker process hands back, see ``compile_pool``).
    """
    logic = parse_logic(spec.logic)
    game, info = ground_world(logic, spec.facts, spec.quests, dict(spec.entity_types), dict(spec.entity_names),
                               spec.walkthrough)
    info = dataclasses.replace(info, walkthrough=tuple(spec.walkthrough), objective=spec.objective,
                               path=spec.path)
    text, words = compile_text(spec, logic, game, info)
    game = game.replace(**text)
    return game_on_device(game) if on_device else game, dataclasses.replace(info, words=words)

