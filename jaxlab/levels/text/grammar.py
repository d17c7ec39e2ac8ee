"""The house-theme grammar: what a game says, written as conditional sentences.

:func:`narrate` turns a compiled game's world (a :class:`World`) into a
:class:`Script`: lists of :class:`Seg` sentences, each with the facts that
must hold (``pos``) and must not hold (``neg``) for it to be said, and a
kind (see ``narration``: plain, list item, header, fallback, first-of). The
sentences are our own, in TextWorld's manner:

- a room: ``-= Kitchen =-``, its introduction, what stands in it (containers
  with their state and, when open, their contents; supporters and what lies
  on them; things on the floor) and one line per exit (doors open/closed);
- the inventory: ``You are carrying: an apple.`` / ``You are carrying nothing.``;
- per grounded action its success text (and the view shown after it: the new
  room after ``go``, the room after ``look``, the contents after ``open``,
  the state after ``examine``, the inventory), per command its refusal
  (the first that applies of a few reasons, else a fallback per verb);
- the objective (at the start), the unknown-command text, won and lost.

Predicates and rules are read by TextWorld's names (``at``, ``in``, ``on``,
``open``, ``closed``, ``locked``, ``link``, ``eaten``; ``take``, ``go/east``,
...; the player is ``P``, the inventory ``I``). A rule of another name gets
``You <its command, with "the" before names>.``. Entity descriptions may
carry Inform 7 markup (``[if open]...[end if]``): :func:`strip_markup`
removes it; a room's description contributes its first paragraph only.
"""
from __future__ import annotations

import dataclasses
import re
from typing import Dict, List, Optional, Sequence, Tuple

from jaxlab.levels.text.compiled_game import GameInfo
from jaxlab.levels.text.compiled_game import FALLBACK, FIRST, HEADER, INVENTORY_VIEW, LIST, MAX_SCORE_LINE, PLAIN
from jaxlab.levels.text.food_states import food_names, holds_at_start, kitchen_text
from jaxlab.levels.text.grounding import Fact, fact_text
from jaxlab.levels.text.logic_text import Logic

UNKNOWN_TEXT = "That's not a verb I recognise."
NO_SUCH_TEXT = "You can't see any such thing."
#: the lines TextWorld's games print when the story ends (won, lost)
WON_TEXT = "\n*** The End ***"
LOST_TEXT = "\n*** You lost! ***"
_NUMBERS = ("one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")
#: the score line after a command that adds n points (compiled_game.SCORE_UP + n - 1), as TextWorld prints it
SCORE_TEXTS = tuple(f"\nYour score has just gone up by {w} point{'s' * (n > 0)}."
                    for n, w in enumerate(_NUMBERS[:MAX_SCORE_LINE]))
_SUCCESS = {  # verb -> (sentence with one name, sentence with two names)
    "take": ("You pick up the {0} from the ground.", "You take the {0} from the {1}."),
    "put": (None, "You put the {0} on the {1}."),
    "insert": (None, "You put the {0} into the {1}."),
    "drop": ("You drop the {0} on the ground.", None),
    "open": ("You open the {0}.", None),
    "close": ("You close the {0}.", None),
    "lock": (None, "You lock the {0} with the {1}."),
    "unlock": (None, "You unlock the {0} with the {1}."),
    "eat": ("You eat the {0}. Not bad.", None),
}
_CANT_SEE = "You can't see any such thing."
_CANT_DO = "You can't do that right now."
_CANT_GO = "You can't go that way."


@dataclasses.dataclass(frozen=True)
class Seg:
    """A sentence said when every ``pos`` fact holds and no ``neg`` fact does.

    kind: PLAIN, LIST, HEADER, FALLBACK or FIRST (``narration``); group: the
    id of the group whose list items, headers and fallbacks go together.
    """

    text: str
    pos: Tuple[Fact, ...] = ()
    neg: Tuple[Fact, ...] = ()
    kind: int = PLAIN
    group: int = -1


@dataclasses.dataclass
class Script:
    """Everything a game can say (host side; ``tables`` compiles it into arrays).

    views: lists of segments shown as a whole (0: inventory; rooms; contents
      and examine views). rooms: ``(at(P, room) fact, view)`` per room.
    act_head / act_view: per grounded action, its success sentences and the
      view shown after them (-1: none). cmd_refusal: per command, its refusal.
    fixed: the objective, unknown-command, won, lost and no-such-thing texts
      (rows ``compiled_game.INTRO``, ``UNKNOWN``, ``WON``, ``LOST``, ``NO_SUCH_THING``), then the score
      lines (rows ``compiled_game.SCORE_UP`` + n - 1 for n points).
    """

    views: List[List[Seg]]
    rooms: List[Tuple[Fact, int]]
    act_head: List[List[Seg]]
    act_view: List[int]
    cmd_refusal: List[List[Seg]]
    fixed: List[List[Seg]]


def strip_markup(text: str) -> str:
    """``text`` without Inform 7 markup: ``[if ...]...[end if]`` blocks and other ``[...]`` removed.

    Whitespace runs collapse to one space (newlines too).
    """
    out, depth = [], 0
    for piece in re.split(r"(\[[^\]]*\])", text or ""):
        tag = piece[1:-1].strip().lower() if piece.startswith("[") and piece.endswith("]") else None
        if tag is None:
            if depth == 0:
                out.append(piece)
        elif tag.startswith("if ") or tag == "if":
            depth += 1
        elif tag.startswith("end if"):
            depth = max(depth - 1, 0)
    return " ".join("".join(out).split())


def _a(name: str) -> str:
    return ("an " if name[:1].lower() in "aeiou" else "a ") + name


class World:
    """The host-side view of one compiled game that the grammar reads.

    spec: the GameSpec; logic: its parsed logic; info: the GameInfo of
    ``ground_world`` (its fact list says which facts can change); act_cmd:
    the command id of each grounded action (``TextGame.act_cmd``).
    """

    def __init__(self, spec, logic: Logic, info: GameInfo, act_cmd: Sequence[int]):
        self.spec, self.logic, self.info, self.act_cmd = spec, logic, info, act_cmd
        self.types = dict(spec.entity_types)
        self.init = frozenset(spec.facts)
        self._dynamic = frozenset(info.facts)
        self._sub = {t: frozenset(logic.subtypes(t)) for t in logic.types}
        self._shapes: Dict[str, tuple] = {}
        self._things = sorted((e for e, t in self.types.items() if not Logic.is_constant(t) and not self.is_a(e, "r")),
                              key=lambda e: (self.name(e), e))

    def possible(self, fact: Fact) -> bool:
        """The fact can change or is true at the start."""
        return fact in self.init or fact_text(fact) in self._dynamic

    def is_a(self, entity: str, type_name: str) -> bool:
        """The entity's type is ``type_name`` or below it."""
        return self.types.get(entity) in self._sub.get(type_name, ())

    def name(self, entity: str) -> str:
        """The entity's display name (its id if it has none)."""
        return self.spec.entity_names.get(entity) or entity

    def things(self) -> List[str]:
        """Entities other than rooms and the constants (player, inventory), by name then id."""
        return self._things

    def action(self, g: int) -> "Action":
        """Grounded action ``g`` (an index into ``info.actions``) as the grammar sees it."""
        rule_name, args = self.info.actions[g]
        shape = self._shapes.get(rule_name)
        if shape is None:
            shape = self._shapes[rule_name] = self._rule_shape(rule_name)
        named, before, after, parts = shape
        rooms_before = [args[j] for i, j in before if args[i] == "P"]
        rooms_after = [args[j] for i, j in after if args[i] == "P"]
        plain = "".join(part if isinstance(part, str) else "the " + self.name(args[part]) for part in parts)
        return Action(rule_name, tuple(args[i] for i in named), rooms_before[0] if rooms_before else None,
                      rooms_after[0] if rooms_after else None, plain)

    def _rule_shape(self, rule_name: str):
        """What ``action`` reads of a rule, by placeholder position: the positions its command names,
        the (player, room) positions of its ``at`` preconditions and additions, and its command
        template cut into literal text and positions."""
        rule = self.logic.rules[rule_name]
        position = {ph.name: i for i, ph in enumerate(rule.placeholders)}
        template = self.logic.commands.get(rule_name, rule_name)
        named = tuple(position[k] for k in re.findall(r"\{([^{}]*)\}", template) if k in position)

        def at_positions(preds):
            return tuple((position[p.params[0].name], position[p.params[1].name]) for p in preds
                         if p.name == "at" and len(p.params) == 2)

        parts = []
        for i, piece in enumerate(re.split(r"\{([^{}]*)\}", template)):
            if i % 2 == 0:
                parts.append(piece)
            else:
                parts.append(position[piece] if piece in position else "the " + self.name(piece))
        return named, at_positions(rule.pre), at_positions(sorted(rule.added, key=rule.post.index)), tuple(parts)


@dataclasses.dataclass(frozen=True)
class Action:
    """A grounded action as the grammar sees it: its rule, the entities its command names, rooms."""

    rule: str  # its rule's name
    args: Tuple[str, ...]
    room: Optional[str]  # where the player must be
    dest: Optional[str]  # where the player goes
    plain: str  # its command with "the" before names

    @property
    def verb(self) -> str:
        """The rule's name up to its first ``/`` (``go`` for ``go/east``)."""
        return self.rule.split("/")[0]


class _Writer:
    def __init__(self, world: World):
        self.w = world
        self.groups = 0
        self._names: Dict[str, List[tuple]] = {}
        self.views: List[List[Seg]] = [self.inventory()]
        self.view_of: Dict[tuple, int] = {}
        self._doors = {(f[1][0], f[1][2]): f[1][1] for f in world.init if f[0] == "link" and len(f[1]) == 3}

    def group(self) -> int:
        self.groups += 1
        return self.groups

    def view(self, key: tuple, make) -> int:
        if key not in self.view_of:
            segs = make()
            self.view_of[key] = len(self.views) if segs else -1
            if segs:
                self.views.append(segs)
        return self.view_of[key]

    # -- states and contents -------------------------------------------------
    def state(self, x: str, here: Tuple[Fact, ...], texts: Sequence[str], fallback: Optional[str]) -> List[Seg]:
        """FIRST-of sentences for x open / closed / locked (``texts``), else ``fallback``."""
        g = self.group()
        segs = [Seg(t, here + ((p, (x,)),), (), FIRST, g) for p, t in zip(("open", "closed", "locked"), texts)
                if self.w.possible((p, (x,)))]
        if fallback:
            segs.append(Seg(fallback, here, (), FALLBACK, g))
        return segs

    def names_of(self, x: str) -> List[tuple]:
        """The ways to name ``x`` in a list: by its state for a food (``food_states``), else its name."""
        if x not in self._names:
            self._names[x] = (food_names(x, self.w.possible, self.w.init.__contains__) if self.w.is_a(x, "f")
                              else [("", (), ())])
        return self._names[x]

    def starts_prepared(self, x: str, where: Fact) -> bool:
        """``x`` is a food that starts at ``where`` (a fact) with a state its name says."""
        return where in self.w.init and any(naming[0] and holds_at_start(naming, self.w.init.__contains__)
                                            for naming in self.names_of(x))

    def listing(self, head: str, tail: str, items: Sequence[Tuple[str, Fact]], cond: Tuple[Fact, ...],
                empty: Optional[str] = None, by_state: bool = False) -> List[Seg]:
        """``head`` a, b and c ``tail`` over the items whose fact holds (``empty`` when none does).

        Foods are named by their state (``names_of``) in the inventory (``by_state``: where they
        are cut and cooked) and, when they start prepared ("a raw pork chop"), in the list where they
        start; elsewhere plainly (a food's every state in every list would multiply the rooms'
        text tables)."""
        items = [(x, f) for x, f in items if self.w.possible(f)]
        if not items and not empty:
            return []
        g = self.group()
        segs = [Seg(head, cond, (), HEADER, g)]
        segs += [Seg(_a(prefix + self.w.name(x)), cond + (f,) + pos, neg, LIST, g)
                 for x, f in items for prefix, pos, neg in (self.names_of(x) if by_state or self.starts_prepared(x, f)
                                                            else [("", (), ())])]
        segs.append(Seg(tail, cond, (), HEADER, g))
        if empty:
            segs.append(Seg(empty, cond, (), FALLBACK, g))
        return segs

    def contents(self, h: str, here: Tuple[Fact, ...]) -> List[Seg]:
        name, things = self.w.name(h), self.w.things()
        if self.w.is_a(h, "c"):
            return self.listing(f"The {name} contains", ".", [(x, ("in", (x, h))) for x in things],
                                here + (("open", (h,)),), f"The {name} is empty.")
        if self.w.is_a(h, "s"):
            return self.listing(f"On the {name} you see", ".", [(x, ("on", (x, h))) for x in things], here)
        return []

    # -- views ---------------------------------------------------------------
    def inventory(self) -> List[Seg]:
        items = [(x, ("in", (x, "I"))) for x in self.w.things()]
        return self.listing("You are carrying:", ".", items, (), "You are carrying nothing.", by_state=True)

    def room(self, r: str, exits: Sequence[Tuple[str, str]]) -> List[Seg]:
        here = (("at", ("P", r)),)
        name, desc = self.w.name(r), self.w.spec.entity_desc.get(r, "")
        paragraphs = [strip_markup(p) for p in re.split(r"\n\s*\n", desc or "")]
        intro = next((p for p in paragraphs if p), f"You are in the {name}.")
        segs = [Seg(f"-= {name} =-\n", here), Seg(intro, here)]
        holders = [h for h in self.w.things() if self.w.possible(("at", (h, r)))
                   and (self.w.is_a(h, "c") or self.w.is_a(h, "s"))]
        for h in holders:
            h_here = here + (("at", (h, r)),)
            name_h = self.w.name(h)
            if self.w.is_a(h, "c"):
                # one no fact opens, closes or locks (tw-cooking's BBQ) is closed, as in TextWorld's Inform 7
                said = [f"There is {state} {name_h} here." for state in ("an open", "a closed", "a locked")]
                segs += self.state(h, h_here, said, said[1])
            else:
                segs.append(Seg(f"There is {_a(name_h)} here.", h_here))
            segs += self.contents(h, h_here)
        loose = [(x, ("at", (x, r))) for x in self.w.things() if x not in holders and not self.w.is_a(x, "d")]
        segs += self.listing("On the floor you see", ".", loose, here)
        for direction, dest in exits:
            door = self._doors.get((r, dest))
            if door is None:
                segs.append(Seg(f"\nThere is an exit to the {direction}.", here))
            else:
                d = self.w.name(door)
                segs += self.state(door, here, [f"\nThere is an open {d} leading {direction}."]
                                   + [f"\nThere is a closed {d} leading {direction}."] * 2,
                                   f"\nThere is {_a(d)} leading {direction}.")
        return segs

    def examine(self, x: str) -> List[Seg]:
        return self.state(x, (), ["It is open.", "It is closed.", "It is locked."], None) + self.contents(x, ())

    # -- actions and commands ------------------------------------------------
    def success(self, act: Action, rooms: Dict[str, int]) -> Tuple[List[Seg], int]:
        names = [self.w.name(x) for x in act.args]
        view = -1
        if act.verb == "go" and act.dest in rooms:
            return [], rooms[act.dest]
        if act.verb == "look" and act.room in rooms:
            return [], rooms[act.room]
        if act.verb == "inventory":
            return [], INVENTORY_VIEW
        if act.verb == "examine" and act.args:
            x = act.args[0]
            text = strip_markup(self.w.spec.entity_desc.get(x, "")) or f"You see nothing special about the {names[0]}."
            return [Seg(text)], self.view(("examine", x), lambda: self.examine(x))
        if act.verb == "open" and act.args:
            view = self.view(("contents", act.args[0]), lambda: self.contents(act.args[0], ()))
        templates = _SUCCESS.get(act.verb, (None, None))
        template = templates[len(names) - 1] if 1 <= len(names) <= 2 else None
        text = kitchen_text(act.rule, names[0] if names else "") or (
            template.format(*names) if template else f"You {act.plain}.")
        return [Seg(text)], view

    def reasons(self, act: Action) -> List[Tuple[Tuple[Fact, ...], Tuple[Fact, ...], str]]:
        """(pos, neg, text) reasons why the action might not apply, most telling first."""
        v, a, n = act.verb, act.args, [self.w.name(x) for x in act.args]
        here = (("at", ("P", act.room)),) if act.room else ()

        def closed(x, name, cond):
            return [(cond + ((p, (x,)),), (), f"The {name} is closed.") for p in ("closed", "locked")]

        if v == "go" and act.room and (act.room, act.dest) in self._doors:
            door = self._doors[(act.room, act.dest)]
            return closed(door, self.w.name(door), here)
        if v == "take" and a:
            out = [((("in", (a[0], "I")),), (), "You already have that.")]
            if len(a) == 2:
                out += closed(a[1], n[1], here + (("in", (a[0], a[1])),))
            return out
        if v in ("put", "insert", "drop", "eat") and a:
            eaten = [((("eaten", (a[0],)),), (), f"There is nothing left of the {n[0]}.")] if v == "eat" else []
            out = eaten + [((), (("in", (a[0], "I")),), f"You aren't carrying the {n[0]}.")]
            return out + (closed(a[1], n[1], here) if v == "insert" and len(a) == 2 else [])
        if v == "open" and a:
            return [(here + (("open", (a[0],)),), (), f"The {n[0]} is already open."),
                    (here + (("locked", (a[0],)),), (), f"The {n[0]} is locked.")]
        if v == "close" and a:
            return [(here + ((p, (a[0],)),), (), f"The {n[0]} is already closed.") for p in ("closed", "locked")]
        if v in ("lock", "unlock") and len(a) == 2:
            if v == "lock":
                out = [(here + (("locked", (a[0],)),), (), f"The {n[0]} is already locked."),
                       (here + (("open", (a[0],)),), (), f"You have to close the {n[0]} first.")]
            else:
                out = [(here + ((p, (a[0],)),), (), f"The {n[0]} isn't locked.") for p in ("open", "closed")]
            return out + [(here, (("in", (a[1], "I")),), f"You aren't carrying the {n[1]}.")]
        return []

    def refusal(self, acts: Sequence[Action]) -> List[Seg]:
        g = self.group()
        segs = list(dict.fromkeys(Seg(t, p, q, FIRST, g) for act in acts for p, q, t in self.reasons(act)))
        verb, named = (acts[0].verb, bool(acts[0].args)) if acts else ("", False)
        return segs + [Seg(_CANT_GO if verb == "go" else _CANT_SEE if named else _CANT_DO, (), (), FALLBACK, g)]


def narrate(world: World) -> Script:
    """Everything ``world``'s game can say, as a :class:`Script` (see the module docstring)."""
    w = _Writer(world)
    acts = [world.action(g) for g in range(len(world.info.actions))]
    rooms = sorted(e for e in world.types if world.is_a(e, "r") and world.possible(("at", ("P", e))))
    exits: Dict[str, Dict[Tuple[str, str], None]] = {r: {} for r in rooms}
    for act, (rule_name, _) in zip(acts, world.info.actions):
        if act.verb == "go" and act.room in exits and act.dest:
            exits[act.room][(rule_name.split("/", 1)[-1], act.dest)] = None
    room_view = {r: w.view(("room", r), lambda r=r: w.room(r, list(exits[r]))) for r in rooms}
    heads, views = zip(*(w.success(act, room_view) for act in acts)) if acts else ((), ())
    by_command: Dict[int, List[Action]] = {}
    for act, k in zip(acts, world.act_cmd):
        by_command.setdefault(int(k), []).append(act)
    refusals = [w.refusal(by_command.get(k, [])) for k in range(len(world.info.commands))]
    objective = world.spec.objective.strip()
    fixed = [[Seg(objective + "\n")] if objective else [], [Seg(UNKNOWN_TEXT)], [Seg(WON_TEXT)], [Seg(LOST_TEXT)],
             [Seg(NO_SUCH_TEXT)]] + [[Seg(text)] for text in SCORE_TEXTS]
    return Script(w.views, [(("at", ("P", r)), room_view[r]) for r in rooms], list(heads), list(views), refusals,
                  fixed)
