"""Host-side games: :class:`Game` (a GameSpec with its compiled arrays), ``make``, ``load``, ``save``.

``make("tw-coin_collector", level=5, seed=0)`` generates a game as
TextWorld's ``tw-make`` does; ``load("game.json")`` reads a game saved by
TextWorld or by :meth:`Game.save`, which writes TextWorld's own JSON format
(the world facts, quests with their action plans, entity infos, the logic,
the walkthrough and the objective), so the ``textworld`` package can load
and play jaxlab's generated games too.
"""
from __future__ import annotations

import dataclasses
import functools
import itertools
import json
import os
import re
import reprlib
from typing import Dict, List, Optional, Tuple, Union

from jaxlab.levels.text.compiled_game import GameInfo, TextGame
from jaxlab.levels.text.game_spec import GameSpec, compile_spec
from jaxlab.levels.text.grounding import EventSpec, Fact, QuestSpec
from jaxlab.levels.text.logic_text import Logic, parse_logic


#: TextWorld's direction names, listed after the objects in ``entities``
DIRECTIONS = ("north", "south", "east", "west")


@dataclasses.dataclass(frozen=True)
class Game:
    """A text game: its GameSpec, its compiled TextGame (one game, no bank axis) and its GameInfo."""

    spec: GameSpec
    game: TextGame
    info: GameInfo

    @classmethod
    def from_spec(cls, spec: GameSpec) -> "Game":
        """Compile ``spec`` (see ``world.compile_spec``)."""
        game, info = compile_spec(spec)
        return cls(spec, game, info)

    @property
    def walkthrough(self) -> Tuple[str, ...]:
        """Commands that win the game."""
        return self.info.walkthrough

    @property
    def objective(self) -> str:
        """The objective text."""
        return self.spec.objective

    @property
    def max_score(self) -> float:
        """The highest score the game can give (TextWorld's ``max_score``)."""
        return float(self.game.max_score)

    @property
    def name(self) -> str:
        """The game's name (family, settings and seed for generated games; the file stem for loaded ones)."""
        return self.spec.name

    @property
    def metadata(self) -> dict:
        """TextWorld's ``game.metadata``: the walkthrough, the name and the game's other metadata
        (what ``EnvInfos(extras=[...])`` reads)."""
        return {**self.spec.metadata, "walkthrough": list(self.walkthrough), "name": self.name}

    @functools.cached_property
    def textworld_infos(self) -> dict:
        """The EnvInfos that depend on the game alone, computed as TextWorld computes them (once per
        game): ``max_score``, ``objective``, ``entities`` (named non-room entities in the game's order,
        then the four ``DIRECTIONS``), ``typed_entities`` ([(name, type)]), ``verbs``,
        ``command_templates``, ``possible_commands`` (every template over every object name),
        ``possible_admissible_commands`` (templates over type-correct names) and
        ``win_facts``/``fail_facts`` (per quest, per event, the condition's facts as ``(predicate,
        names)``)."""
        spec = self.spec
        logic = parse_logic(spec.logic)
        named = [(n, spec.entity_types[i]) for i, n in spec.entity_names.items()
                 if n and spec.entity_types.get(i) not in (None, "r")]
        objects = [n for n, _ in named]
        templates = sorted(set(logic.commands.values()))
        slot = re.compile(r"{(.*?)}")
        possible = sorted(slot.sub("{}", t).format(*names) for t in set(slot.sub("{}", t) for t in templates)
                          for names in itertools.product(objects, repeat=t.count("{")))
        by_type: Dict[str, List[str]] = {}
        for name, kind in named:
            by_type.setdefault(kind, []).append(name)
        typed_templates = sorted({slot.sub("{{{}}}", t).format(*kinds) for t in templates
                                  for kinds in itertools.product(*[logic.subtypes(a) or (a,)
                                                                   for a in slot.findall(t)])})
        admissible = sorted(slot.sub("{}", t).format(*names) for t in typed_templates
                            for names in itertools.product(*[by_type.get(a, []) for a in slot.findall(t)]))

        def readable(fact) -> tuple:
            return fact[0], tuple(spec.entity_names.get(a) or a for a in fact[1])

        return {"max_score": self.max_score, "objective": spec.objective, "entities": objects + list(DIRECTIONS),
                "typed_entities": named, "verbs": sorted({t.split()[0] for t in templates}),
                "command_templates": templates, "possible_commands": possible,
                "possible_admissible_commands": admissible,
                "win_facts": [[tuple(map(readable, e.condition)) for e in q.win_events] for q in spec.quests],
                "fail_facts": [[tuple(map(readable, e.condition)) for e in q.fail_events] for q in spec.quests]}

    def save(self, path) -> str:
        """Write the game as a TextWorld ``.json`` game file at ``path``; returns the path written."""
        path = os.fspath(path)
        with open(path, "w", encoding="utf-8") as f:
            json.dump(textworld_json(self.spec), f)
        return path


def make(family: str = "tw-custom", seed: int = 0, **options) -> Game:
    """Generate a game: ``family`` is ``tw-coin_collector``, ``tw-treasure_hunter``, ``tw-simple`` or
    ``tw-custom``; ``options`` are the family's (``level``; ``rewards``, ``goal``, ``test``;
    ``world_size``, ``nb_objects``, ``quest_length``, ``quest_breadth``, ``theme``).

    Raises UnknownNameError (with suggestions) for unknown families or options
    and ValueError for out-of-range values.
    """
    from jaxlab.levels.text.generators import make_spec

    return Game.from_spec(make_spec(family, seed=seed, **options))


def checked_game_path(path, where: str, or_game: bool = False) -> str:
    """``path`` (str or os.PathLike) as a str; else a TypeError naming ``where``, what it expects (with
    ``or_game``: a Game too), the type and the value."""
    if not isinstance(path, (str, os.PathLike)):
        expected = "a jaxlab.text.Game or a game file path" if or_game else "a game file path"
        raise TypeError(f"{where}: expected {expected} (str or os.PathLike), got {type(path).__name__} "
                        f"{reprlib.repr(path)}")
    return os.fspath(path)


def load(path) -> Game:
    """Read a TextWorld ``.json`` game (saved by ``textworld`` or :meth:`Game.save`).

    The file is checked against TextWorld's format and its own logic before use (``game_schema``,
    ``game_logic_checks``). Raises TypeError for a ``path`` that is not a str or os.PathLike, and
    TextWorldFormatError (naming the file and the field) for a missing, corrupt or unsupported file.
    """
    from jaxlab.levels.text.textworld_import import compile_textworld, read_textworld

    spec = read_textworld(checked_game_path(path, "load: path"))
    return Game(spec, *compile_textworld(spec))


def game_or_load(game_or_path: Union[Game, str, os.PathLike], where: str) -> Game:
    """``game_or_path`` if it is a Game, else the game :func:`load` reads from that path; TypeError
    naming ``where`` for anything else (None, a number, a list, ...)."""
    if isinstance(game_or_path, Game):
        return game_or_path
    return load(checked_game_path(game_or_path, where, or_game=True))


# --- TextWorld's JSON format -------------------------------------------------------------------

def _fact_json(fact: Fact, types) -> dict:
    return {"name": fact[0], "arguments": [{"name": e, "type": types[e]} for e in fact[1]]}


@functools.lru_cache(maxsize=8)
def _rule_effects(logic_text: str):
    """rule name -> (placeholders, pre predicates, post predicates) of a logic."""
    logic = parse_logic(logic_text)
    return {name: (rule.placeholders, rule.pre, rule.post) for name, rule in logic.rules.items()}


def _ground(pred, binding) -> Fact:
    return pred.name, tuple(binding[p] for p in pred.params)


def _plan_action(spec: GameSpec, step) -> dict:
    """A plan step ``(pre facts, added facts)`` as TextWorld's action: the rule instance it is."""
    pre, add = set(step[0]), set(step[1])
    types = spec.entity_types
    for name, (placeholders, rule_pre, rule_post) in _rule_effects(spec.logic).items():
        for binding in _bindings(placeholders, rule_pre, pre, types):
            post = [_ground(p, binding) for p in rule_post]
            if {_ground(p, binding) for p in rule_pre} == pre and set(post) - pre == add:
                return {"name": name, "preconditions": [_fact_json(f, types) for f in step[0]],
                        "postconditions": [_fact_json(f, types) for f in dict.fromkeys(post)],
                        "command_template": None, "reverse_name": None, "reverse_command_template": None}
    raise ValueError(f"game {spec.name!r}: no rule of its logic does the plan step {sorted(pre)} -> {sorted(add)}")


def _bindings(placeholders, rule_pre, facts, types):
    """Assignments of ``placeholders`` to entities that map every rule precondition into ``facts``."""
    out: List[Dict] = [{p: p.type for p in placeholders if Logic.is_constant(p.type)}]  # P and I are themselves
    for pred in rule_pre:
        grown = []
        for binding in out:
            for name, args in facts:
                if name != pred.name or len(args) != len(pred.params):
                    continue
                new = dict(binding)
                if all(new.setdefault(p, a) == a for p, a in zip(pred.params, args)):
                    grown.append(new)
        out = grown
    return [b for b in out if len(b) == len(placeholders)]


def _event_json(spec: GameSpec, event: EventSpec) -> dict:
    condition = [_fact_json(f, spec.entity_types) for f in event.condition]
    return {"commands": [], "actions": [_plan_action(spec, step) for step in event.plan],
            "condition": {"name": "trigger", "preconditions": condition, "postconditions": condition,
                          "command_template": None, "reverse_name": None, "reverse_command_template": None}}


def _quest_json(spec: GameSpec, quest: QuestSpec) -> dict:
    return {"desc": "", "reward": quest.reward, "commands": [], "optional": quest.optional,
            "repeatable": quest.repeatable,
            "win_events": [_event_json(spec, e) for e in quest.win_events],
            "fail_events": [_event_json(spec, e) for e in quest.fail_events]}


def _info_json(ident: str, spec: GameSpec) -> dict:
    name: Optional[str] = spec.entity_names.get(ident)
    return {"id": ident, "type": spec.entity_types[ident], "name": name, "noun": name, "adj": None,
            "desc": spec.entity_desc.get(ident), "room_type": None, "definite": None, "indefinite": None,
            "synonyms": None}


def textworld_json(spec: GameSpec) -> dict:
    """The JSON object TextWorld's ``Game.save`` would write for ``spec`` (format version 1)."""
    return {
        "version": 1,
        "world": [_fact_json(f, spec.entity_types) for f in spec.facts],
        "grammar": {},
        "quests": [_quest_json(spec, q) for q in spec.quests],
        "infos": [[e, _info_json(e, spec)] for e in spec.entity_types],
        "KB": {"logic": spec.logic, "text_grammars_path": ""},
        "metadata": {**spec.metadata, "walkthrough": list(spec.walkthrough), "name": spec.name},
        "objective": spec.objective,
    }
