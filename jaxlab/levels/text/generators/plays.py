"""Play a game on the host while generating it: grounded actions and a checked walker.

An :class:`Act` is one rule of the logic with its placeholders bound to
entity ids; :func:`ground` gives its precondition and postcondition facts
and :func:`command` its command text, exactly as the compiled game will
print it. A :class:`Walker` applies acts to a set of facts, refusing any act
whose preconditions do not hold, so a walkthrough built with it is playable
by construction; it also knows the map well enough to route the player.
"""
from __future__ import annotations

import dataclasses
import re
from collections import deque
from typing import Dict, Iterable, List, Mapping, Optional, Tuple

from jaxlab.levels.text.grounding import Fact
from jaxlab.levels.text.logic_text import Logic

#: compass fact name -> the direction it names (``north_of(b, a)``: b is north of a)
COMPASS_FACTS = {"north_of": "north", "south_of": "south", "east_of": "east", "west_of": "west"}

PlanStep = Tuple[Tuple[Fact, ...], Tuple[Fact, ...]]


@dataclasses.dataclass(frozen=True)
class Act:
    """A grounded rule: ``rule`` name and ``binding`` (placeholder name, entity id) pairs."""

    rule: str
    binding: Tuple[Tuple[str, str], ...]

    @classmethod
    def of(cls, rule: str, binding: Mapping[str, str]) -> "Act":
        """The Act of ``rule`` with ``binding`` (placeholder name -> entity id)."""
        return cls(rule, tuple(sorted(binding.items())))

    def __getitem__(self, placeholder: str) -> str:
        """The entity bound to ``placeholder``."""
        return dict(self.binding)[placeholder]


def _bind(act: Act, preds) -> Tuple[Fact, ...]:
    values = dict(act.binding)
    return tuple((p.name, tuple(values.get(x.name, x.name) for x in p.params)) for p in preds)


def ground(logic: Logic, act: Act) -> Tuple[Tuple[Fact, ...], Tuple[Fact, ...]]:
    """``(preconditions, postconditions)`` of ``act`` as facts (constants ``P``, ``I`` bind to themselves)."""
    rule = logic.rules[act.rule]
    return _bind(act, rule.pre), _bind(act, rule.post)


def added(logic: Logic, act: Act) -> Tuple[Fact, ...]:
    """The facts ``act`` makes true (postconditions that are not preconditions), in the rule's order."""
    pre, post = ground(logic, act)
    return tuple(f for f in post if f not in pre)


def command(logic: Logic, act: Act, names: Mapping[str, Optional[str]]) -> str:
    """The command text of ``act``: the rule's template with entity names (ids where a name is missing)."""
    values = dict(act.binding)
    return re.sub(r"\{([^{}]*)\}", lambda m: str(names.get(values[m.group(1)]) or values[m.group(1)]),
                  logic.commands[act.rule])


def applicable(logic: Logic, state: Iterable[Fact], types: Mapping[str, str], rules: Iterable[str],
               side: str = "pre") -> List[Act]:
    """Every act of the named ``rules`` whose preconditions (``side="pre"``) or postconditions
    (``side="post"``: acts that could just have happened) all hold in ``state``, sorted.

    Placeholders take entities of their type or a subtype (``o`` takes keys
    and food too), distinct placeholders distinct entities, as in grounding.
    """
    by_name: Dict[str, List[Tuple[str, ...]]] = {}
    for name, args in state:
        by_name.setdefault(name, []).append(args)
    index: Dict[tuple, List[Tuple[str, ...]]] = {}  # (name, position, entity) -> argument tuples, filled lazily
    fits = {t: set(logic.subtypes(t)) for t in logic.types}
    out: List[Act] = []

    def candidates(pred, binding):
        """Argument tuples of facts that may match ``pred``, looked up by a bound argument if any."""
        best = by_name.get(pred.name, [])
        for i, ph in enumerate(pred.params):
            if ph.name in binding:
                key = (pred.name, i, binding[ph.name])
                if key not in index:
                    index[key] = [args for args in by_name.get(pred.name, ()) if len(args) > i and args[i] == key[2]]
                if len(index[key]) < len(best):
                    best = index[key]
        return best

    def search(rule: str, preds, binding: Dict[str, str]) -> None:
        if not preds:
            out.append(Act.of(rule, binding))
            return
        # Match the predicate with the most arguments bound already: fewest candidates.
        k = max(range(len(preds)), key=lambda j: sum(ph.name in binding for ph in preds[j].params))
        pred, rest = preds[k], preds[:k] + preds[k + 1:]
        for args in candidates(pred, binding):
            if len(args) != len(pred.params):
                continue
            new = dict(binding)
            for ph, ent in zip(pred.params, args):
                if new.get(ph.name, ent) != ent or (ph.name not in new and (
                        ent in new.values() or types.get(ent) not in fits[ph.type])):
                    break
                new[ph.name] = ent
            else:
                search(rule, rest, new)

    for rule in rules:
        constants = {ph.name: ph.name for ph in logic.rules[rule].placeholders if Logic.is_constant(ph.type)}
        search(rule, getattr(logic.rules[rule], side), constants)
    return sorted(out, key=lambda a: (a.rule, a.binding))


class Walker:
    """Plays acts from a world's initial facts, checking each act's preconditions.

    Args:
      logic: the parsed game logic.
      facts: the initial facts.
      types: entity id -> type name.
      names: entity id -> display name.
    """

    def __init__(self, logic: Logic, facts: Iterable[Fact], types: Mapping[str, str],
                 names: Mapping[str, Optional[str]]):
        self.logic, self.types, self.names = logic, dict(types), dict(names)
        self.state = set(facts)
        self.states: List[frozenset] = [frozenset(self.state)]
        self.acts: List[Act] = []
        self.ways: Dict[str, Dict[str, str]] = {}  # room -> {neighbouring room: direction}
        self.doors: Dict[Tuple[str, str], str] = {}  # (room, room) -> door
        for name, args in self.state:
            if name in COMPASS_FACTS:
                self.ways.setdefault(args[1], {})[args[0]] = COMPASS_FACTS[name]
            elif name == "link":
                self.doors[(args[0], args[2])] = args[1]

    # -- state ---------------------------------------------------------------
    @property
    def here(self) -> str:
        """The room the player is in."""
        return next(args[1] for name, args in self.state if name == "at" and args[0] == "P")

    def holds(self, name: str, *args: str) -> bool:
        """Whether the fact ``name(args)`` is true now."""
        return (name, args) in self.state

    def where(self, thing: str) -> Tuple[str, str]:
        """``(predicate, place)`` of a thing: ``("at", room)``, ``("in", container or I)`` or ``("on", supporter)``."""
        for name, args in self.state:
            if name in ("at", "in", "on") and args[0] == thing:
                return name, args[1]
        raise KeyError(f"{thing} is nowhere")

    @property
    def commands(self) -> List[str]:
        """The command texts of the acts played so far."""
        return [command(self.logic, a, self.names) for a in self.acts]

    def plan(self) -> Tuple[PlanStep, ...]:
        """Each act played as ``(preconditions, added facts)``, the form of an EventSpec plan."""
        return tuple((ground(self.logic, a)[0], added(self.logic, a)) for a in self.acts)

    # -- acting --------------------------------------------------------------
    def do(self, rule: str, binding: Mapping[str, str]) -> Act:
        """Apply ``rule`` with ``binding`` (``r`` defaults to the player's room); returns the Act.

        Raises RuntimeError when the act would not be admissible here (a
        generator bug: the walkthrough would not play).
        """
        binding = dict(binding)
        phs = self.logic.rules[rule].placeholders
        if "r" not in binding and any(ph.name == "r" for ph in phs):
            binding["r"] = self.here
        for ph in phs:   # interchangeable entities (a limited inventory's slots): the first that fit
            if ph.name not in binding and ph.type in self.INTERCHANGEABLE:
                binding[ph.name] = self._first_fitting(rule, ph, binding)
        for ph in phs:
            ent = binding.get(ph.name, ph.name if Logic.is_constant(ph.type) else None)
            if ent is None or self.types.get(ent) not in self.logic.subtypes(ph.type):
                raise RuntimeError(f"{rule}: placeholder {ph.name} cannot take {ent!r}")
        act = Act.of(rule, binding)
        pre, post = ground(self.logic, act)
        missing = [f for f in pre if f not in self.state]
        if missing:
            raise RuntimeError(f"{command(self.logic, act, self.names)!r} is not possible: {missing} are false")
        self.state.difference_update(pre)
        self.state.update(post)
        self.acts.append(act)
        self.states.append(frozenset(self.state))
        return act

    #: types whose entities are alike: a rule's placeholder of one of these types, left unbound, is
    #: bound by ``do`` to the first entity (by id) whose facts fit the rule
    INTERCHANGEABLE = ("slot",)

    def _first_fitting(self, rule: str, ph, binding: Mapping[str, str]) -> Optional[str]:
        """The first entity of ``ph``'s type, not bound yet, for which every precondition of ``rule``
        on ``ph`` and already bound placeholders holds now (None if there is none)."""
        taken = set(binding.values())
        for ent in sorted(e for e, t in self.types.items() if t in self.logic.subtypes(ph.type) and e not in taken):
            trial = {**binding, ph.name: ent}
            if all((p.name, tuple(trial[x.name] for x in p.params)) in self.state
                   for p in self.logic.rules[rule].pre
                   if ph in p.params and all(x.name in trial for x in p.params)):
                return ent
        return None

    def play(self, act: Act) -> Act:
        """Apply ``act`` (see :meth:`do`)."""
        return self.do(act.rule, dict(act.binding))

    def go(self, room: str) -> Act:
        """Walk to the neighbouring ``room`` (the way must be free)."""
        return self.do(f"go/{self.ways[self.here][room]}", {"r'": room})

    def open(self, thing: str) -> Act:
        """Open a door next to the player or a container in the room, unlocking it first with a carried key."""
        kind = "d" if self.types[thing] == "d" else "c"
        binding = {kind: thing}
        if kind == "d":
            binding["r'"] = next(b for (a, b), d in self.doors.items() if d == thing and a == self.here)
        if self.holds("locked", thing):
            key = next(args[0] for name, args in self.state if name == "match" and args[1] == thing)
            self.do(f"unlock/{kind}", {**binding, "k": key})
        return self.do(f"open/{kind}", binding)

    def through(self, room: str) -> None:
        """Walk to the neighbouring ``room``, opening (and unlocking) the door between if there is one."""
        door = self.doors.get((self.here, room))
        if door is not None and not self.holds("open", door):
            self.open(door)
        self.go(room)

    def route(self, room: str) -> List[str]:
        """A shortest list of rooms leading to ``room`` (excluding here) through ways that are free,
        or shut by a door that is closed or locked with a key the player carries."""
        before = {self.here: self.here}
        todo = deque([self.here])
        while todo:
            cur = todo.popleft()
            for nxt in sorted(self.ways.get(cur, {})):
                if nxt not in before and self._passable(cur, nxt):
                    before[nxt] = cur
                    todo.append(nxt)
        if room not in before:
            raise RuntimeError(f"no way from {self.here} to {room}")
        path = [room]
        while path[-1] != self.here:
            path.append(before[path[-1]])
        return path[-2::-1]

    def _passable(self, a: str, b: str) -> bool:
        door = self.doors.get((a, b))
        if door is None or not self.holds("locked", door):
            return True
        return any(name == "match" and args[1] == door and self.holds("in", args[0], "I")
                   for name, args in self.state)

    def travel(self, room: str) -> None:
        """Walk to ``room`` along :meth:`route`, opening doors on the way."""
        for nxt in self.route(room):
            self.through(nxt)

    def take(self, thing: str) -> Act:
        """Pick up ``thing`` where it is in the player's room, opening its container first if needed."""
        how, place = self.where(thing)
        if how == "at":
            return self.do("take", {"o": thing})
        kind = "c" if self.types[place] in self.logic.subtypes("c") else "s"
        if kind == "c" and not self.holds("open", place):
            self.open(place)
        return self.do(f"take/{kind}", {kind: place, "o": thing})

    def put(self, thing: str, place: str) -> Act:
        """Put the carried ``thing`` on a supporter or into a container (opening it if needed)."""
        if self.types[place] in self.logic.subtypes("s"):
            return self.do("put", {"s": place, "o": thing})
        if not self.holds("open", place):
            self.open(place)
        return self.do("insert", {"c": place, "o": thing})
