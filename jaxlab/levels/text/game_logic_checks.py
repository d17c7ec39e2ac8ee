"""The checks of a game file against its own logic, once ``game_schema.check_game`` has checked its shape.

:func:`check_game_logic` refuses, with one :class:`TextWorldFormatError` naming the field:

- a world fact that relates a room to itself: a room entity (type ``r`` or a subtype) given twice in
  one fact, as ``east_of(r_0, r_0)`` or ``link(r_0, d_0, r_0)``;
- an action of a quest's event (``quests[i].win_events[j].actions[k].name``, failing events too)
  that names no rule of ``KB.logic`` (TextWorld's actions are rule instances; the condition is not
  an action);
- a quest with winning events of which none can ever happen. The check is per predicate and sound:
  a predicate can hold if a world fact has it or some rule makes it true whose preconditions' predicates
  can all hold (a fixpoint over the rules, one pass over each rule's preconditions: linear in the
  logic's size, whatever the world); an event whose condition needs a predicate that cannot hold
  never happens. Aliases count as their expansion. A quest it passes may still be unwinnable (facts
  on particular entities, deleted facts and the order of actions are not followed); a quest it
  refuses can never be won. Quests with only failing events are not quests to win, and pass.
"""
from __future__ import annotations

import dataclasses
import functools
from typing import Any, Dict, FrozenSet, List, Mapping, Set, Tuple

from jaxlab.errors import unknown_name_error
from jaxlab.levels.text.game_schema import TextWorldFormatError
from jaxlab.levels.text.logic_text import parse_logic

#: TextWorld's room type: the rooms are its entities and those of its subtypes
ROOM_TYPE = "r"


@dataclasses.dataclass(frozen=True)
class LogicTables:
    """What the checks read of a logic: its rule names; per rule, the predicate names of its
    preconditions and of what it makes true; alias name -> the predicate names it expands to; the
    room types."""

    rules: FrozenSet[str]
    effects: Tuple[Tuple[FrozenSet[str], FrozenSet[str]], ...]
    aliases: Dict[str, FrozenSet[str]]
    rooms: FrozenSet[str]


@functools.lru_cache(maxsize=32)
def logic_tables(logic_text: str) -> LogicTables:
    """The :class:`LogicTables` of a logic text that parses (cached per text)."""
    logic = parse_logic(logic_text)
    effects = tuple((frozenset(p.name for p in rule.pre), frozenset(p.name for p in rule.added))
                    for rule in logic.rules.values())
    aliases: Dict[str, Set[str]] = {}
    for (name, _), (_, replacement) in logic.aliases.items():
        aliases.setdefault(name, set()).update(p.name for p in replacement)
    return LogicTables(frozenset(logic.rules), effects, {k: frozenset(v) for k, v in aliases.items()},
                       frozenset(logic.subtypes(ROOM_TYPE)))


def reachable_predicates(tables: LogicTables, initial: Set[str]) -> Set[str]:
    """The predicate names that can hold, starting from ``initial`` (the world's) and applying rules
    whose preconditions' predicates can all hold (with aliases expanded), each rule's preconditions
    counted once: linear in the size of the rules."""
    waiting = [len(pre) for pre, _ in tables.effects]
    needed_by: Dict[str, List[int]] = {}
    for r, (pre, _) in enumerate(tables.effects):
        for name in pre:
            needed_by.setdefault(name, []).append(r)
    reached: Set[str] = set()
    todo = list(initial) + [name for pre, post in tables.effects if not pre for name in post]
    while todo:
        name = todo.pop()
        if name in reached:
            continue
        reached.add(name)
        todo.extend(tables.aliases.get(name, ()))
        for r in needed_by.get(name, ()):
            waiting[r] -= 1
            if waiting[r] == 0:
                todo.extend(tables.effects[r][1])
    return reached


def check_game_logic(data: Mapping[str, Any], path: str) -> None:
    """Check a game's parsed JSON ``data``, already passed by ``game_schema.check_game``, against its
    logic (module docstring). ``path`` names the file. Returns None; raises TextWorldFormatError
    ``"<path>: <field path>: <problem>"`` at the first problem."""
    tables = logic_tables(data["KB"]["logic"])
    for i, fact in enumerate(data["world"]):
        rooms = [arg["name"] for arg in fact["arguments"] if arg["type"] in tables.rooms]
        twice = next((room for n, room in enumerate(rooms) if room in rooms[:n]), None)
        if twice is not None:
            args = ", ".join(arg["name"] for arg in fact["arguments"])
            raise TextWorldFormatError(path, f"world[{i}]: {fact['name']}({args}) relates room {twice!r} to "
                                             "itself (a room's exits and links lead to other rooms)")
    for i, quest in enumerate(data["quests"]):
        for kind in ("win_events", "fail_events"):
            for j, event in enumerate(quest.get(kind, [])):
                for k, action in enumerate(event.get("actions", [])):
                    if action["name"] not in tables.rules:
                        problem = unknown_name_error("KB.logic rule", action["name"], tables.rules)
                        raise TextWorldFormatError(path, f"quests[{i}].{kind}[{j}].actions[{k}].name: {problem}")
    reached = reachable_predicates(tables, {fact["name"] for fact in data["world"]})

    def can_hold(name: str) -> bool:
        return name in reached or (name in tables.aliases and tables.aliases[name] <= reached)

    for i, quest in enumerate(data["quests"]):
        wins = quest.get("win_events", [])
        missing = [next((k for k, f in enumerate(e["condition"]["preconditions"]) if not can_hold(f["name"])), None)
                   for e in wins]
        if wins and None not in missing:
            fact = wins[0]["condition"]["preconditions"][missing[0]]
            which = "none of its winning events can happen; the first" if len(wins) > 1 else "its winning event"
            raise TextWorldFormatError(path, f"quests[{i}].win_events[0].condition.preconditions[{missing[0]}]: "
                                             f"quest {i} cannot be won: {which} needs predicate {fact['name']!r}, "
                                             "which no world fact has and no rule of KB.logic that can apply "
                                             "makes true")
