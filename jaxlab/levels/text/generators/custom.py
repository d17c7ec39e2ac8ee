"""``tw-custom``: a random house of a chosen size with a quest chained back from its goal.

Options (TextWorld's ``tw-make custom`` settings):

- ``world_size`` (1-30, default 5): rooms, on a random tree with a few
  extra ways that make loops; about a third of the ways have a door (open,
  closed or locked);
- ``nb_objects`` (1-60, default 10): things besides doors: a fifth
  containers (open, closed or locked) and a fifth supporters (at least one
  of each from 3 things on); the rest portable: a key per lock (as long as
  one other portable thing is left), then objects and food, on floors,
  supporters and in containers. Keys lie where the player can reach them
  without their own lock;
- ``quest_length`` (1-30, default 5): commands in the walkthrough;
- ``quest_breadth`` (1-5 and at most ``quest_length``, default 1): the
  quest joins this many sub-quests played one after the other; the goal
  holds when all their goals hold (only the last one says where the player
  must be). The walkthrough is the sub-quests' walkthroughs in turn,
  ``quest_length`` split evenly;
- ``theme``: ``"house"`` (the only theme).

The quest is found by chaining backwards from its goal (see ``chaining``),
so it settles the initial state: what the quest handles starts where the
chain puts it (carried things it does not handle are put down where the
player starts). A world where no quest of that length turns up (too small
for the length asked) raises ValueError; another seed, a bigger world or a
shorter quest will do. Long linear quests (``quest_length`` over ~15 with
``quest_breadth`` 1) take up to a few seconds to find.
"""
from __future__ import annotations

from collections import deque
from typing import List

import numpy as np

from jaxlab.levels.text.game_spec import GameSpec
from jaxlab.levels.text.generators import objective, options, theme
from jaxlab.levels.text.generators.builder import WorldBuilder, house
from jaxlab.levels.text.generators.chaining import sample_quest
from jaxlab.levels.text.generators.layout import Layout, add_loops, spine_tree
from jaxlab.levels.text.generators.plays import Walker
from jaxlab.levels.text.generators.quests import win_quest

FAMILY = "tw-custom"
DEFAULTS = {"world_size": 5, "nb_objects": 10, "quest_length": 5, "quest_breadth": 1, "theme": "house"}
THEMES = ("house",)
LIMITS = {"world_size": (1, 30), "nb_objects": (1, 60), "quest_length": (1, 30), "quest_breadth": (1, 5)}
ATTEMPTS = 20  # worlds tried per seed


def _reachable(layout: Layout, start: int, locked: set) -> List[int]:
    """Rooms reachable from ``start`` without crossing a way in ``locked`` (pairs of rooms)."""
    seen, todo = {start}, deque([start])
    while todo:
        room = todo.popleft()
        for nxt in layout.neighbours(room):
            if nxt not in seen and frozenset((room, nxt)) not in locked:
                seen.add(nxt)
                todo.append(nxt)
    return sorted(seen)


def build_world(rng: np.random.Generator, namer: theme.Namer, world_size: int, nb_objects: int) -> WorldBuilder:
    """A random house of ``world_size`` rooms and ``nb_objects`` things (see the module docstring)."""
    pick = lambda seq: seq[int(rng.integers(len(seq)))]  # noqa: E731
    layout = spine_tree(rng, world_size, int(rng.integers(1, world_size + 1)))
    add_loops(layout, rng, 0.2)
    world = WorldBuilder()
    rooms = world.rooms(layout, [namer.room() for _ in range(world_size)])
    start = int(rng.integers(world_size))
    world.fact("at", "P", rooms[start])

    num_c = num_s = max(nb_objects // 5, nb_objects >= 3)
    portable = nb_objects - num_c - num_s
    locks: List[str] = []  # doors and containers that need a key, in order
    locked_ways = set()
    for a, b in layout.edges:
        if rng.random() < 0.35:
            state = pick(("open", "closed", "closed", "locked"))
            if state == "locked" and len(locks) >= portable - 1:
                state = "closed"
            door = world.door(rooms[a], rooms[b], namer.door(), state)
            if state == "locked":
                locks.append(door)
                locked_ways.add(frozenset((a, b)))
    for _ in range(num_c):
        state = pick(("open", "closed", "closed", "locked"))
        if state == "locked" and len(locks) >= portable - 1:
            state = "closed"
        box = world.thing("c", namer.pick(theme.CONTAINERS), pick(rooms), state)
        if state == "locked":
            locks.append(box)
    for _ in range(num_s):
        world.thing("s", namer.pick(theme.SUPPORTERS), pick(rooms))

    near = [rooms[r] for r in _reachable(layout, start, locked_ways)]
    open_spots = near + [t for t in world.of_kind("s") + world.of_kind("c")
                         if world.room_of(t) in near and t not in locks]
    for lock in locks:
        key = world.thing("k", namer.key(), pick(open_spots))
        world.lock(lock, key)
    spots = rooms + world.of_kind("s") + world.of_kind("c")
    for _ in range(portable - len(locks)):
        kind = "f" if rng.random() < 0.3 else "o"
        world.thing(kind, namer.pick(theme.FOODS if kind == "f" else theme.OBJECTS), pick(spots))
    return world


def make(seed: int = 0, **given) -> GameSpec:
    """A custom game: ``make(seed, world_size=..., nb_objects=..., quest_length=..., quest_breadth=..., theme=...)``."""
    opts = options.resolve(FAMILY, given, DEFAULTS)
    options.choice("theme", opts["theme"], THEMES)
    size, count, length, breadth = (options.integer(n, opts[n], *LIMITS[n]) for n in
                                    ("world_size", "nb_objects", "quest_length", "quest_breadth"))
    if breadth > length:
        raise ValueError(f"quest_breadth must be in 1..quest_length ({length}), got {breadth}")
    rng_world, rng_names, rng_quest, rng_text = options.rngs(seed, 4)
    logic = house()
    parts = [length // breadth + (i < length % breadth) for i in range(breadth)]
    for _ in range(ATTEMPTS):
        world = build_world(rng_world, theme.Namer(rng_names), size, count)
        found = sample_quest(logic, world.facts, parts, rng_quest, world.types)
        if found is not None:
            break
    else:
        raise ValueError(f"{FAMILY}: no quest of length {length} (breadth {breadth}) found in {ATTEMPTS} worlds of "
                         f"{size} rooms and {count} objects for seed {seed}; try another seed, a larger "
                         f"world_size or nb_objects, or a shorter quest_length")
    acts, goal, initial = found
    facts = _put_down(initial, acts)
    walker = Walker(logic, facts, world.types, world.names)
    for act in acts:
        walker.play(act)
    text = objective.detailed(walker.acts, world.names, rng_text)
    name = f"{FAMILY}-size{size}-objects{count}-length{length}-breadth{breadth}-seed{seed}"
    return world.spec([win_quest(goal, walker.plan())], walker.commands, text, name, facts=facts)


def _put_down(state, acts) -> tuple:
    """``state`` (sorted) with the carried things that no act touches moved to the floor of the player's room."""
    used = {ent for act in acts for _, ent in act.binding}
    room = next(args[1] for name, args in state if name == "at" and args[0] == "P")
    facts = {("at", (args[0], room)) if name == "in" and args[1] == "I" and args[0] not in used else (name, args)
             for name, args in state}
    return tuple(sorted(facts))
