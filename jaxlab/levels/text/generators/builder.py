"""Assemble a world: entities with TextWorld-style ids, their facts, and the GameSpec.

Ids follow TextWorld: ``r_0, r_1, ...`` rooms, ``d_`` doors, ``c_``
containers, ``s_`` supporters, ``o_`` objects, ``k_`` keys, ``f_`` food;
``P`` is the player and ``I`` the inventory. Facts are kept in the order
they were added (and each once), so a seed always yields the same spec.
"""
from __future__ import annotations

import functools
from importlib import resources
from typing import Dict, List, Optional, Sequence, Tuple

from jaxlab.levels.text.game_spec import GameSpec
from jaxlab.levels.text.generators.layout import Layout
from jaxlab.levels.text.generators.plays import Walker
from jaxlab.levels.text.grounding import Fact, QuestSpec
from jaxlab.levels.text.logic_text import Logic, parse_logic

#: facts that say room ``b`` lies in a direction from room ``a``: (predicate for b-of-a, predicate for a-of-b)
COMPASS = {"north": ("north_of", "south_of"), "south": ("south_of", "north_of"),
           "east": ("east_of", "west_of"), "west": ("west_of", "east_of")}
DOOR_STATES = ("open", "closed", "locked")


@functools.lru_cache(maxsize=1)
def house_logic() -> str:
    """The text of ``jaxlab/levels/text/data/house.twl``, the logic every generated game uses."""
    return resources.files("jaxlab.levels.text").joinpath("data/house.twl").read_text(encoding="utf-8")


def house() -> Logic:
    """The parsed house logic (cached by ``parse_logic``; read-only)."""
    return parse_logic(house_logic())


class WorldBuilder:
    """Collects the entities and initial facts of one game."""

    def __init__(self, logic_text: Optional[str] = None):
        self.logic_text = logic_text or house_logic()
        self.logic = parse_logic(self.logic_text)
        self.types: Dict[str, str] = {"P": "P", "I": "I"}
        self.names: Dict[str, Optional[str]] = {"P": None, "I": None}
        self._facts: Dict[Fact, None] = {}
        self._count: Dict[str, int] = {}
        self.descriptions: Dict[str, str] = {}

    # -- entities and facts ----------------------------------------------
    def new(self, kind: str, name: str) -> str:
        """Add an entity of type ``kind`` (``r``, ``d``, ``c``, ``s``, ``o``, ``k``, ``f``) named ``name``.

        Returns its id, e.g. ``"c_3"``.
        """
        number = self._count.get(kind, 0)
        self._count[kind] = number + 1
        ident = f"{kind}_{number}"
        self.types[ident] = kind
        self.names[ident] = name
        return ident

    def describe(self, ident: str, text: str) -> None:
        """Give entity ``ident`` the text ``examine`` prints for it."""
        self.descriptions[ident] = text

    def fact(self, name: str, *args: str) -> None:
        """Add the initial fact ``name(args)`` (once)."""
        self._facts[(name, tuple(args))] = None

    @property
    def facts(self) -> Tuple[Fact, ...]:
        """The initial facts, in the order they were added."""
        return tuple(self._facts)

    def of_kind(self, kind: str) -> List[str]:
        """Ids of the entities of type ``kind``, in creation order."""
        return [e for e, t in self.types.items() if t == kind]

    # -- the map -----------------------------------------------------------
    def rooms(self, layout: Layout, names: Sequence[str]) -> List[str]:
        """A room per layout room (named ``names[i]``) and a doorless way along each layout edge.

        Returns the room ids, in layout order.
        """
        ids = [self.new("r", name) for name in names]
        for a, b in layout.edges:
            self.connect(ids[a], ids[b], layout.direction(a, b))
        return ids

    def connect(self, a: str, b: str, direction: str) -> None:
        """Make room ``b`` lie ``direction`` of room ``a`` with an open way between them."""
        mine, theirs = COMPASS[direction]
        self.fact(mine, b, a)
        self.fact(theirs, a, b)
        self.fact("free", a, b)
        self.fact("free", b, a)

    def door(self, a: str, b: str, name: str, state: str = "closed") -> str:
        """Put a door named ``name`` on the way between connected rooms ``a`` and ``b``; returns its id.

        state: ``open`` (the way stays free), ``closed`` or ``locked``.
        """
        if state not in DOOR_STATES:
            raise ValueError(f"door state must be one of {DOOR_STATES}, got {state!r}")
        if ("free", (a, b)) not in self._facts:
            raise ValueError(f"rooms {a} and {b} are not connected")
        door = self.new("d", name)
        self.fact("link", a, door, b)
        self.fact("link", b, door, a)
        self.fact(state, door)
        if state != "open":
            del self._facts[("free", (a, b))], self._facts[("free", (b, a))]
        return door

    def door_between(self, a: str, b: str) -> str:
        """The door on the way from room ``a`` to room ``b`` (KeyError if there is none)."""
        for name, args in self._facts:
            if name == "link" and args[0] == a and args[2] == b:
                return args[1]
        raise KeyError(f"no door between {a} and {b}")

    # -- things --------------------------------------------------------------
    def thing(self, kind: str, name: str, where: str, state: Optional[str] = None) -> str:
        """Add a thing of type ``kind`` in/on/at ``where`` (see :meth:`place`); returns its id.

        state: for containers, ``open``, ``closed`` or ``locked``. Food is
        marked edible.
        """
        ident = self.new(kind, name)
        self.place(ident, where)
        if state is not None:
            if kind not in self.logic.subtypes("c") or state not in DOOR_STATES:
                raise ValueError(f"state {state!r} does not apply to a thing of type {kind!r}")
            self.fact(state, ident)
        if kind == "f":
            self.fact("edible", ident)
        return ident

    def place(self, thing: str, where: str) -> None:
        """Put ``thing`` in room, container or supporter ``where``, or in the inventory ``I``."""
        kind = self.types[where]
        if kind == "r":
            self.fact("at", thing, where)
        elif kind in self.logic.subtypes("s"):
            self.fact("on", thing, where)
        elif kind == "I" or kind in self.logic.subtypes("c"):
            self.fact("in", thing, where)
        else:
            raise ValueError(f"cannot put {thing} in {where} of type {kind!r}")

    def room_of(self, thing: str) -> str:
        """The room ``thing`` is in, through the containers and supporters that hold it."""
        for name, args in self._facts:
            if name in ("at", "in", "on") and args[0] == thing:
                where = args[1]
                return where if self.types[where] == "r" else self.room_of(where)
        raise KeyError(f"{thing} is nowhere")

    def lock(self, lockable: str, key: str) -> None:
        """Make ``key`` the one that fits door or container ``lockable``."""
        self.fact("match", key, lockable)

    def walker(self) -> Walker:
        """A Walker that plays from the facts built so far (later facts are not seen by it)."""
        return Walker(self.logic, self.facts, self.types, self.names)

    def spec(self, quests: Sequence[QuestSpec], walkthrough: Sequence[str], objective: str, name: str,
             facts: Optional[Sequence[Fact]] = None) -> GameSpec:
        """The GameSpec of the world built so far (initial ``facts`` if given instead), with the builder's
        logic (the house logic unless given)."""
        return GameSpec(logic=self.logic_text, facts=tuple(self.facts if facts is None else facts),
                         entity_types=dict(self.types),
                         entity_names=dict(self.names), quests=tuple(quests), walkthrough=tuple(walkthrough),
                         objective=objective, name=name, entity_desc=dict(self.descriptions))
