"""``tw-simple``: fetch a food item somewhere in a small house and bring it to the kitchen.

The house is fixed (jaxlab's own design), six rooms on a grid::

                  bathroom
                     |
    bedroom =[D]= living room
                     |
                  kitchen =[P]= backyard
                                   |
                                 garden

The player wakes in the bedroom, whose door (D) is locked; its key lies in
or on the bedroom furniture. The patio door (P) is closed. The seed picks
the food to fetch, where it is hidden, where it must go (a kitchen
counter, table, fridge or oven), where the key and three other foods are.

Options:
- ``rewards``: ``dense`` (a quest, +1, for every step of the walkthrough
  that makes something new true), ``balanced`` (+1 for holding the key,
  +1 for holding the food, +1 at the end) or ``sparse`` (+1 at the end);
- ``goal``: ``detailed`` (every step in the objective), ``brief`` (one
  sentence) or ``none`` (no objective);
- ``test``: draw the food from the held-out list (``theme.TEST_FOODS``).

Eating the food loses (a failing quest, as in TextWorld).
"""
from __future__ import annotations

from jaxlab.levels.text.game_spec import GameSpec
from jaxlab.levels.text.generators import objective, options, theme
from jaxlab.levels.text.generators.builder import WorldBuilder
from jaxlab.levels.text.generators.layout import Layout
from jaxlab.levels.text.generators.quests import fail_quest, step_quests

FAMILY = "tw-simple"
DEFAULTS = {"rewards": "dense", "goal": "detailed", "test": False}
REWARDS = ("dense", "balanced", "sparse")
GOALS = ("detailed", "brief", "none")

ROOMS = ("bedroom", "living room", "bathroom", "kitchen", "backyard", "garden")
CELLS = ((0, 0), (1, 0), (1, 1), (1, -1), (2, -1), (2, -2))
WAYS = ((0, 1), (1, 2), (1, 3), (3, 4), (4, 5))
DOORS = {(0, 1): ("bedroom door", "locked"), (3, 4): ("patio door", "closed")}
#: (name, type, room, container state)
FURNITURE = (
    ("bed", "s", "bedroom", None), ("wardrobe", "c", "bedroom", "closed"), ("nightstand", "s", "bedroom", None),
    ("sofa", "s", "living room", None), ("bookcase", "s", "living room", None),
    ("toy chest", "c", "living room", "closed"),
    ("bathtub", "c", "bathroom", "open"), ("bathroom cabinet", "c", "bathroom", "closed"),
    ("fridge", "c", "kitchen", "closed"), ("oven", "c", "kitchen", "closed"),
    ("kitchen counter", "s", "kitchen", None), ("dining table", "s", "kitchen", None),
    ("picnic table", "s", "backyard", None), ("cooler", "c", "backyard", "closed"),
    ("barbecue", "c", "backyard", "closed"),
    ("vegetable patch", "s", "garden", None), ("garden bench", "s", "garden", None),
)
KEY_SPOTS = ("wardrobe", "nightstand", "bed")
FOOD_SPOTS = ("fridge", "oven", "kitchen counter", "sofa", "picnic table", "cooler", "barbecue",
              "vegetable patch", "garden bench", "bathroom cabinet")
DESTINATIONS = ("kitchen counter", "dining table", "fridge", "oven")
#: (name, where) of the things that are not food
OBJECTS = (("towel", "bathtub"), ("novel", "bookcase"), ("garden trowel", "garden bench"),
           ("teddy bear", "toy chest"), ("alarm clock", "nightstand"))
OTHER_FOODS = 3
BRIEF = (
    "Supper is nearly ready; all it lacks is the {food}, which belongs {prep} the {dest}.",
    "Somewhere in the house is the {food}. Bring it to the kitchen and put it {prep} the {dest}.",
    "The cook needs the {food} {prep} the {dest}, and quickly.",
)


def make(seed: int = 0, **given) -> GameSpec:
    """A tw-simple game: ``make(seed, rewards=..., goal=..., test=...)`` returns its GameSpec."""
    opts = options.resolve(FAMILY, given, DEFAULTS)
    rewards = options.choice("rewards", opts["rewards"], REWARDS)
    goal = options.choice("goal", opts["goal"], GOALS)
    test = options.flag("test", opts["test"])
    rng_things, rng_text = options.rngs(seed, 2)
    pick = lambda seq: seq[int(rng_things.integers(len(seq)))]  # noqa: E731

    layout = Layout(list(CELLS))
    for a, b in WAYS:
        layout.join(a, b)
    world = WorldBuilder()
    rooms = dict(zip(ROOMS, world.rooms(layout, ROOMS)))
    for (a, b), (name, state) in DOORS.items():
        world.door(rooms[ROOMS[a]], rooms[ROOMS[b]], name, state)
    world.fact("at", "P", rooms["bedroom"])
    spots = {name: world.thing(kind, name, rooms[room], state) for name, kind, room, state in FURNITURE}
    key = world.thing("k", "brass key", spots[pick(KEY_SPOTS)])
    world.lock(world.door_between(rooms["bedroom"], rooms["living room"]), key)

    destination = pick(DESTINATIONS)
    hiding = pick([s for s in FOOD_SPOTS if s != destination])
    foods = list(theme.TEST_FOODS if test else theme.FOODS)
    order = rng_things.permutation(len(foods))
    food = world.thing("f", foods[order[0]], spots[hiding])
    for i in order[1:1 + OTHER_FOODS]:
        world.thing("f", foods[i], spots[pick(FOOD_SPOTS)])
    for name, where in OBJECTS:
        world.thing("o", name, spots[where])

    walker = world.walker()
    walker.take(key)
    walker.travel(world.room_of(spots[hiding]))
    walker.take(food)
    walker.travel(world.room_of(spots[destination]))
    walker.put(food, spots[destination])
    last = len(walker.acts) - 1
    holding = [i for i, act in enumerate(walker.acts) if act.rule.startswith("take") and act["o"] in (key, food)]
    rewarded = {"dense": range(last + 1), "balanced": holding + [last], "sparse": [last]}[rewards]
    quests = step_quests(walker, rewarded) + [fail_quest([("eaten", (food,))])]

    if goal == "detailed":
        text = objective.detailed(walker.acts, world.names, rng_text)
    elif goal == "brief":
        prep = "on" if destination in DESTINATIONS[:2] else "in"
        sentence = objective.choose(rng_text, BRIEF).format(food=world.names[food], prep=prep, dest=destination)
        text = objective.brief(sentence, rng_text)
    else:
        text = ""
    split = "test" if test else "train"
    return world.spec(quests, walker.commands, text, f"{FAMILY}-{rewards}-{goal}-{split}-seed{seed}")
