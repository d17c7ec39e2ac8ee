"""``tw-coin_collector``: walk a chain of rooms and take the coin at its far end.

Level 1-300. The quest length is ``(level - 1) % 100 + 1``: the chain has
that many rooms, the player starts in the first and the coin lies on the
floor of the last, so the walkthrough is ``length - 1`` moves and
``take coin``. Rooms have no doors and nothing else in them. Dead-end
distractor rooms (TextWorld's 2x and 3x room counts):

- levels 1-100: none;
- levels 101-200: one per chain room, each joined to a chain room (every
  chain room that has an empty neighbouring cell gets one; the rest go to
  random chain rooms, or, when none has room left, to any room);
- levels 201-300: two per chain room, joined at random to any room placed
  before them, chain or distractor, so dead-end branches grow several rooms
  deep. (TextWorld 1.7 stops at 100 rooms; jaxlab builds all 300.)

The map is a tree, so the walkthrough is the only shortest way.
"""
from __future__ import annotations

from jaxlab.levels.text.game_spec import GameSpec
from jaxlab.levels.text.generators import objective, options
from jaxlab.levels.text.generators.builder import WorldBuilder
from jaxlab.levels.text.generators.layout import attach, chain
from jaxlab.levels.text.generators.quests import win_quest
from jaxlab.levels.text.generators.theme import Namer

FAMILY = "tw-coin_collector"
DEFAULTS = {"level": 1}
LEVELS = (1, 300)


def quest_length(level: int) -> int:
    """The number of walkthrough commands at ``level`` (= rooms on the chain)."""
    return (level - 1) % 100 + 1


def make(seed: int = 0, **given) -> GameSpec:
    """A coin-collector game: ``make(seed, level=...)`` returns its GameSpec (see the module docstring)."""
    level = options.integer("level", options.resolve(FAMILY, given, DEFAULTS)["level"], *LEVELS)
    rng_map, rng_names, rng_text = options.rngs(seed, 3)
    length = quest_length(level)
    layout = chain(rng_map, length)
    spine = list(range(length))
    if level > 200:
        attach(layout, rng_map, 2 * length, grow=True)
    elif level > 100:
        for room in spine:
            if layout.free_cells(room):
                attach(layout, rng_map, 1, anchors=[room])
        attach(layout, rng_map, 2 * length - layout.size, anchors=spine)
    namer = Namer(rng_names)
    coin_name = namer.take("coin")
    world = WorldBuilder()
    rooms = world.rooms(layout, [namer.room() for _ in range(layout.size)])
    world.fact("at", "P", rooms[0])
    coin = world.new("o", coin_name)
    world.place(coin, rooms[length - 1])

    walker = world.walker()
    for room in rooms[1:length]:
        walker.go(room)
    walker.take(coin)
    quest = win_quest([("in", (coin, "I"))], walker.plan())
    text = objective.detailed(walker.acts, world.names, rng_text)
    return world.spec([quest], walker.commands, text, f"{FAMILY}-level{level}-seed{seed}")
