"""``tw-treasure_hunter``: find the named object and pick it up; taking a wrong one loses.

Level 1-30, in TextWorld's three bands (rooms; distractor things; quest
lengths, rising with the level as ``round(linspace(shortest, longest, 10))``):

- easy 1-10: 5 rooms, no doors, nothing but the target and the wrong
  object, both on the floor; quest length 1-5;
- medium 11-20: 10 rooms, doors (those on the way closed or open), 10
  distractor containers, supporters and objects; the target may lie on a
  supporter or in a container, open or closed; quest length 2-10;
- hard 21-30: 20 rooms, 20 distractors, and locked doors and containers:
  each lock on the way has its key on the floor, on a supporter or in a
  closed container of a room already passed, or in a side room off the
  way; the first distractor is a locked container, and locks off the way
  have a key lying somewhere (the first always, the others half the time);
  quest length 3-20.

The walkthrough runs along a chain of rooms (the map is a tree, so it is
the only way); its length is exactly the quest length: moves, opening and
unlocking on the way, fetching keys, and the final ``take``. Winning is
TextWorld's goal for that last action (the player in the target's room
holding it); holding the wrong object (an object, key or food lying
somewhere) fails the quest.
"""
from __future__ import annotations

import dataclasses
from typing import Dict, List, Union

import numpy as np

from jaxlab.levels.text.game_spec import GameSpec
from jaxlab.levels.text.generators import objective, options, theme
from jaxlab.levels.text.generators.builder import WorldBuilder
from jaxlab.levels.text.generators.layout import Layout, attach, chain
from jaxlab.levels.text.generators.quests import goal_of, win_quest

FAMILY = "tw-treasure_hunter"
DEFAULTS = {"level": 1}
LEVELS = (1, 30)
#: band -> (first level, rooms, distractors, shortest quest, longest quest)
BANDS = {"easy": (1, 5, 0, 1, 5), "medium": (11, 10, 10, 2, 10), "hard": (21, 20, 20, 3, 20)}
ATTEMPTS = 200

Slot = Union[int, str]  # a way on the chain (its index) or "final" (the target's container)


def band(level: int) -> str:
    """``"easy"``, ``"medium"`` or ``"hard"``: the band of ``level``."""
    return "hard" if level >= 21 else "medium" if level >= 11 else "easy"


def quest_length(level: int) -> int:
    """The walkthrough length at ``level``."""
    first, _, _, shortest, longest = BANDS[band(level)]
    return int(np.round(np.linspace(shortest, longest, 10))[level - first])


@dataclasses.dataclass
class Plan:
    """What the walkthrough meets: per way of the chain ``free``/``closed``/``locked``, the
    target's spot (``open``, ``closed`` or ``locked``), and for each lock how its key is fetched
    (1: lying in a room passed; 2: in a closed container there; 3: in a side room)."""

    ways: List[str]
    final: str = "open"
    keys: Dict[Slot, int] = dataclasses.field(default_factory=dict)


def plan_quest(rng: np.random.Generator, length: int, mode: str, rooms: int) -> Plan:
    """A random Plan whose walkthrough has exactly ``length`` commands in a map of ``rooms`` rooms."""
    budget = length - 1  # everything before the final take
    if mode == "easy":
        return Plan(["free"] * budget)
    low = max(-(-(budget - 1) // 2) if mode == "medium" else -(-(budget - 5) // 6), 0)
    high = min(budget, rooms - 1)
    if mode == "hard":  # fewer moves leave more of the budget to locks and keys
        high = low + (high - low) * 2 // 3
    for _ in range(ATTEMPTS):
        moves = int(rng.integers(low, high + 1))
        plan, left, spare = Plan(["free"] * moves), budget - moves, rooms - 1 - moves
        while left > 0:
            choices = []  # (slot, cost, key fetch)
            for slot in [*range(moves), "final"]:
                state = plan.final if slot == "final" else plan.ways[slot]
                if state in ("free", "open"):
                    choices.append((slot, 1, 0))
                elif state == "closed" and mode == "hard":
                    choices += [(slot, 1 + fetch, fetch) for fetch in (1, 2, 3) if fetch < 3 or spare > 0]
            choices = [c for c in choices if c[1] <= left]
            if not choices:
                break
            weights = np.array([1.0 + 3.0 * bool(c[2]) for c in choices])  # hard games favour locks
            slot, cost, fetch = choices[int(rng.choice(len(choices), p=weights / weights.sum()))]
            state = "locked" if fetch else "closed"
            if slot == "final":
                plan.final = state
            else:
                plan.ways[slot] = state
            if fetch:
                plan.keys[slot] = fetch
                spare -= fetch == 3
            left -= cost
        if left == 0:
            return plan
    raise RuntimeError(f"no treasure-hunter plan of length {length} found")  # not reached for levels 1-30


def _side_rooms(layout: Layout, rng: np.random.Generator, plan: Plan) -> Dict[Slot, tuple]:
    """For each key fetched from a side room: (chain room it hangs off, the side room)."""
    out = {}
    for slot, fetch in sorted(plan.keys.items(), key=str):
        if fetch == 3:
            last = len(plan.ways) if slot == "final" else slot
            bases = [j for j in range(last + 1) if layout.free_cells(j)]
            if not bases:
                return {}
            base = bases[int(rng.integers(len(bases)))]
            cells = layout.free_cells(base)
            out[slot] = (base, layout.add_room(cells[int(rng.integers(len(cells)))], joined_to=base))
    return out


def make(seed: int = 0, **given) -> GameSpec:
    """A treasure-hunter game: ``make(seed, level=...)`` returns its GameSpec (see the module docstring)."""
    level = options.integer("level", options.resolve(FAMILY, given, DEFAULTS)["level"], *LEVELS)
    mode = band(level)
    _, num_rooms, num_distractors, _, _ = BANDS[mode]
    length = quest_length(level)
    rng_map, rng_things, rng_quest, rng_text = options.rngs(seed, 4)
    for _ in range(ATTEMPTS):
        plan = plan_quest(rng_quest, length, mode, num_rooms)
        layout = chain(rng_map, len(plan.ways) + 1)
        sides = _side_rooms(layout, rng_map, plan)
        if len(sides) == sum(f == 3 for f in plan.keys.values()):
            break
    else:
        raise RuntimeError("no room for the side rooms of the keys")  # not reached for levels 1-30
    attach(layout, rng_map, num_rooms - layout.size, grow=True)
    world, namer = WorldBuilder(), theme.Namer(rng_things)
    rooms = world.rooms(layout, [namer.room() for _ in range(layout.size)])
    world.fact("at", "P", rooms[0])
    _doors(world, layout, rooms, plan, sides, mode, namer, rng_map)

    # The target's spot and the keys (where the walkthrough will fetch them).
    spine = rooms[:len(plan.ways) + 1]
    pick = lambda seq: seq[int(rng_things.integers(len(seq)))]  # noqa: E731
    home = spine[-1]
    if plan.final != "open" or (mode != "easy" and rng_things.random() < 0.5):
        kind = "c" if plan.final != "open" or rng_things.random() < 0.5 else "s"
        words = theme.CONTAINERS if kind == "c" else theme.SUPPORTERS
        home = world.thing(kind, namer.pick(words), spine[-1], plan.final if kind == "c" else None)
    target_kind = pick("ok")
    target = world.thing(target_kind, namer.key() if target_kind == "k" else namer.pick(theme.OBJECTS), home)
    fetch_at: Dict[str, List[tuple]] = {room: [] for room in rooms}  # chain room -> [(key, side room or None)]
    for slot, fetch in sorted(plan.keys.items(), key=str):
        lock = home if slot == "final" else world.door_between(spine[slot], spine[slot + 1])
        key = world.new("k", namer.key())
        world.lock(lock, key)
        if fetch == 3:
            base, side = sides[slot]
            world.place(key, rooms[side])
            fetch_at[rooms[base]].append((key, rooms[side]))
            continue
        room = pick(spine[:len(spine) if slot == "final" else slot + 1])
        spot = room
        if fetch == 2:
            spot = world.thing("c", namer.pick(theme.CONTAINERS), room, "closed")
        elif rng_things.random() < 0.5:
            spot = world.thing("s", namer.pick(theme.SUPPORTERS), room)
        world.place(key, spot)
        fetch_at[room].append((key, None))

    # Distractors (in hard games the first is a locked container); locks off the way may get a key.
    states = ("open", "closed", "locked") if mode == "hard" else ("open", "closed")
    for i in range(num_distractors):
        first_lock = mode == "hard" and i == 0
        kind = "c" if first_lock else pick("csoof")
        if kind == "c":
            world.thing("c", namer.pick(theme.CONTAINERS), pick(rooms), "locked" if first_lock else pick(states))
        elif kind == "s":
            world.thing("s", namer.pick(theme.SUPPORTERS), pick(rooms))
        else:
            world.thing(kind, namer.pick(theme.FOODS if kind == "f" else theme.OBJECTS), pick(_spots(world, rooms)))
    keyed = {args[1] for name, args in world.facts if name == "match"}
    loose = [args[0] for name, args in world.facts if name == "locked" and args[0] not in keyed]
    for i, lock in enumerate(loose):
        if i == 0 or rng_things.random() < 0.5:
            key = world.thing("k", namer.key(), pick(_spots(world, rooms)))
            world.lock(lock, key)
    wrong_kind = pick("okf")
    wrong_name = namer.key() if wrong_kind == "k" else namer.pick(theme.FOODS if wrong_kind == "f" else theme.OBJECTS)
    wrong = world.thing(wrong_kind, wrong_name, pick(rooms if mode == "easy" else _spots(world, rooms)))

    walker = world.walker()
    for j, room in enumerate(spine):
        for key, side in fetch_at[room]:
            if side is not None:
                walker.go(side)
                walker.take(key)
                walker.go(room)
            else:
                walker.take(key)
        if j + 1 < len(spine):
            walker.through(spine[j + 1])
    walker.take(target)
    if len(walker.acts) != length:
        raise RuntimeError(f"walkthrough has {len(walker.acts)} commands, expected {length}")
    quest = win_quest(goal_of(walker.logic, walker.acts[-1]), walker.plan(), fails=[[("in", (wrong, "I"))]])
    text = objective.detailed(walker.acts, world.names, rng_text)
    return world.spec([quest], walker.commands, text, f"{FAMILY}-level{level}-seed{seed}")


def _spots(world: WorldBuilder, rooms: List[str]) -> List[str]:
    """Where a loose thing may go: any room, supporter or container."""
    return rooms + world.of_kind("s") + world.of_kind("c")


def _doors(world: WorldBuilder, layout: Layout, rooms: List[str], plan: Plan, sides: Dict[Slot, tuple],
           mode: str, namer: theme.Namer, rng: np.random.Generator) -> None:
    """Doors: the chain's ways as planned, side-room ways free, the others at random (none in easy)."""
    if mode == "easy":
        return
    planned = {(i, i + 1): state for i, state in enumerate(plan.ways)}
    planned.update({(b, s): "free" for b, s in sides.values()})
    others = ("open", "closed", "locked") if mode == "hard" else ("open", "closed")
    for a, b in layout.edges:
        state = planned.get((a, b), planned.get((b, a)))
        if state is None:
            state = others[int(rng.integers(len(others)))] if rng.random() < 0.6 else "free"
        elif state == "free" and rng.random() < 0.3:
            state = "open"
        if state != "free":
            world.door(rooms[a], rooms[b], namer.door(), state)
