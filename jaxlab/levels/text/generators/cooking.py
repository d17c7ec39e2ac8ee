"""``tw-cooking``: find the ingredients of a recipe, prepare them as it says, make the meal and eat it.

The logic is the house's (``data/house.twl``) with jaxlab's kitchen rules (``data/cooking.twl``): foods
are fried on the stove, roasted in the oven or grilled on the barbecue, sliced, diced or chopped with
the knife; cooking a cooked food burns it. The cookbook on the kitchen counter holds the recipe. The
options are TextWorld's cooking challenge's:

- ``recipe`` (1-5): ingredients in the recipe;
- ``take`` (0-``recipe``): how many of them must be found (the others are carried from the start);
- ``go`` (1, 6, 9 or 12): rooms; the player starts in one of them, the kitchen is another;
- ``open``: doors and containers start closed (else there are no doors and containers start open);
- ``cook``: ingredients must be cooked (the stove and oven in the kitchen, the barbecue in the
  backyard when there is one); ``cut``: they must be cut (the knife on the counter);
- ``drop``: TextWorld's limited inventory: the player carries at most as many things as the recipe has
  ingredients (one more for a single ingredient that must be cut, to hold the knife too); taking
  needs room, and the walkthrough drops an ingredient to hold the knife, then takes it back;
- ``recipe_seed``: draws the recipe (ingredients and what to do to each) apart from the world;
- ``split``: ``train``, ``valid`` or ``test`` (None: any): every way to prepare a food (the food,
  its cooking, its cut) belongs to exactly one split, and a recipe uses only its split's (disjoint
  recipes between splits).

Quests (+1 each, TextWorld's shape): take each ingredient to find, each cooking and cut the recipe
asks for, prepare the meal, eat it. The game is lost when a recipe step can no longer be done (the
wrong cooking or cut, eating an ingredient, preparing the meal too early), when an ingredient burns,
or when a food that needs cooking is eaten raw.
"""
from __future__ import annotations

import dataclasses
import functools
import re
import zlib
from importlib import resources
from typing import Dict, List, Optional, Sequence, Tuple

from jaxlab.levels.text.game_spec import GameSpec
from jaxlab.levels.text.generators import options
from jaxlab.levels.text.generators.builder import WorldBuilder, house_logic
from jaxlab.levels.text.generators.layout import spine_tree
from jaxlab.levels.text.generators.quests import fail_quest, step_quests

FAMILY = "tw-cooking"
DEFAULTS = {"recipe": 1, "take": 0, "go": 1, "open": False, "cook": False, "cut": False, "drop": False,
            "recipe_seed": 0, "split": None}
GO = (1, 6, 9, 12)
SPLITS = ("train", "valid", "test")
MAX_RECIPE = 5
#: room names; the kitchen is room 0, the backyard (with the barbecue) room 1 when there are 6 or more
ROOMS = ("kitchen", "backyard", "livingroom", "corridor", "bedroom", "bathroom", "pantry", "garden", "shed",
         "driveway", "street", "supermarket")
#: furniture per room: (name, type, open-able)
FURNITURE = {
    "kitchen": (("counter", "s"), ("table", "s"), ("fridge", "c")),
    "backyard": (("patio table", "s"),), "livingroom": (("sofa", "s"),), "corridor": (("shoe cabinet", "c"),),
    "bedroom": (("bed", "s"),), "bathroom": (("toilet", "s"),), "pantry": (("shelf", "s"),),
    "garden": (("garden bench", "s"),), "shed": (("workbench", "s"), ("toolbox", "c")),
    "driveway": (("car", "c"),), "street": (("bench", "s"),), "supermarket": (("showcase", "c"),),
}
#: door names, one per door (a game has at most 11 ways between rooms)
DOORS = ("wooden door", "screen door", "glass door", "barn door", "sliding door", "oak door", "steel door",
         "red door", "blue door", "green door", "arched door", "iron gate")
#: foods: (name, cookable, cuttable, needs cooking (inedible raw))
FOODS = (
    ("red potato", True, True, True), ("yellow potato", True, True, True), ("purple potato", True, True, True),
    ("carrot", True, True, False), ("white onion", True, True, False), ("red onion", True, True, False),
    ("yellow onion", True, True, False), ("red bell pepper", True, True, False),
    ("yellow bell pepper", True, True, False), ("green bell pepper", True, True, False),
    ("orange bell pepper", True, True, False), ("red apple", True, True, False), ("green apple", True, True, False),
    ("yellow apple", True, True, False), ("banana", True, True, False), ("tomato", True, True, False),
    ("lettuce", True, True, False), ("block of cheese", True, True, False), ("pork chop", True, True, True),
    ("chicken leg", True, True, True), ("chicken wing", True, True, True), ("chicken breast", True, True, True),
    ("red hot pepper", True, True, False), ("green hot pepper", True, True, False), ("cilantro", False, True, False),
    ("parsley", False, True, False), ("black pepper", False, False, False), ("salt", False, False, False),
    ("sugar", False, False, False), ("olive oil", False, False, False), ("flour", False, False, False),
    ("eggplant", True, True, True), ("zucchini", True, True, False), ("pineapple", True, True, False),
)
FOOD_INDEX = {food[0]: i for i, food in enumerate(FOODS)}
COOKINGS = ("fried", "roasted", "grilled")
CUTS = ("sliced", "diced", "chopped")
APPLIANCE_RULE = {"fried": ("fry", "stove"), "roasted": ("roast", "oven"), "grilled": ("grill", "bbq")}
CUT_RULE = {"sliced": "slice", "diced": "dice", "chopped": "chop"}
VERB = {"fried": "fry", "roasted": "roast", "grilled": "grill", "sliced": "slice", "diced": "dice", "chopped": "chop"}
DISTRACTORS = 4


@functools.lru_cache(maxsize=1)
def cooking_rules() -> str:
    """The text of ``jaxlab/levels/text/data/cooking.twl``."""
    return resources.files("jaxlab.levels.text").joinpath("data/cooking.twl").read_text(encoding="utf-8")


#: with a limited inventory (``drop``): the house's rules that put a thing into the inventory, each of
#: which then fills an empty slot, and those that take one out, each of which then empties a slot
FILLS_A_SLOT = ("take", "take/c", "take/s")
EMPTIES_A_SLOT = ("drop", "insert", "put", "eat")
SLOT_TYPE = ("# -- a limited inventory: one slot per thing the player can carry --\n\n"
             "type slot {\n    predicates {\n        empty(slot);\n        filled(slot);\n    }\n}\n")


def limited_inventory(house: str) -> str:
    """The house's logic ``house`` with TextWorld's limited inventory: the rules of ``FILLS_A_SLOT``
    need an ``empty(slot)`` and fill it, those of ``EMPTIES_A_SLOT`` need a ``filled(slot)`` and
    empty it; the ``slot`` type is added."""
    def rewrite(match):
        indent, name, needs, gives = match.groups()
        need, give = ("empty", "filled") if name in FILLS_A_SLOT else ("filled", "empty")
        return f"{indent}{name} :: {needs} & {need}(slot) -> {gives} & {give}(slot);"

    rules = "|".join(re.escape(name) for name in FILLS_A_SLOT + EMPTIES_A_SLOT)
    text, count = re.subn(rf"^(\s*)({rules}) :: (.*) -> (.*);$", rewrite, house, flags=re.MULTILINE)
    wanted = len(FILLS_A_SLOT + EMPTIES_A_SLOT)
    if count != wanted:
        raise AssertionError(f"the house logic has {count} of the {wanted} carrying rules")
    return text + "\n" + SLOT_TYPE


def logic_text(ingredients: int, drop: bool = False) -> str:
    """The logic of a cooking game whose recipe has ``ingredients`` ingredients: the house's (with a
    limited inventory when ``drop``), the kitchen's, and the rule that prepares the meal from that many
    carried ingredients (which, with a limited inventory, leaves one slot filled: the meal's)."""
    names = ["f" + "'" * i for i in range(ingredients)]
    needs = " & ".join(f"in({f}, I) & $ingredient({f})" for f in names)
    gives = " & ".join(f"used({f})" for f in names)
    if drop:
        slots = ["slot" + "'" * i for i in range(ingredients)]
        needs += " & $filled(slot)" + "".join(f" & filled({slot})" for slot in slots[1:])
        gives += "".join(f" & empty({slot})" for slot in slots[1:])
    house = limited_inventory(house_logic()) if drop else house_logic()
    return (house + "\n" + cooking_rules() + "\n"
            f"# -- preparing a meal of {ingredients} ingredient(s) --\n\n"
            "type recipe {\n    rules {\n"
            f"        prepare :: $at(P, r) & $cooking_place(r) & {needs} & unmade(meal) -> in(meal, I) & {gives};\n"
            "    }\n\n    inform7 {\n        commands {\n"
            "            prepare :: \"prepare meal\" :: \"preparing the meal\";\n        }\n    }\n}\n")


def preparation_split(food: str, cooking: Optional[str], cut: Optional[str]) -> str:
    """The split (``train``, ``valid`` or ``test``) a way to prepare a food belongs to: a food used as
    it is goes by its place in ``FOODS`` (2, 1 and 1 in 4, so every split has enough of them); a
    cooked or cut one by a fixed hash of the three words (6, 2 and 2 in 10)."""
    if cooking is None and cut is None:
        return ("train", "train", "valid", "test")[FOOD_INDEX[food] % 4]
    h = zlib.crc32(f"{food}|{cooking}|{cut}".encode()) % 10
    return "train" if h < 6 else ("valid" if h < 8 else "test")


def draw_recipe(rng, size: int, cook: bool, cut: bool, split: Optional[str],
                cookings: Sequence[str]) -> List[Tuple[str, Optional[str], Optional[str]]]:
    """``size`` ingredients ``(food, cooking or None, cut or None)``, distinct foods, each preparation of
    ``split`` (any when None); foods that need cooking only when ``cook``."""
    choices = []
    for name, cookable, cuttable, needs in FOODS:
        if needs and not cook:
            continue
        for how in (cookings if cook and cookable else ()) + (() if needs and cook else (None,)):
            for knife in (CUTS if cut and cuttable else ()) + (None,):
                if split is None or preparation_split(name, how, knife) == split:
                    choices.append((name, how, knife))
    recipe: List[Tuple[str, Optional[str], Optional[str]]] = []
    for i in rng.permutation(len(choices)):
        if all(choices[i][0] != r[0] for r in recipe):
            recipe.append(choices[i])
        if len(recipe) == size:
            return recipe
    raise ValueError(f"tw-cooking: split {split!r} has too few preparations for {size} ingredients")


def recipe_text(recipe) -> str:
    """The cookbook's page: the ingredients, then the directions."""
    lines = ["Recipe #1", "---------", "Collect these ingredients and follow the directions to make the meal.",
             "", "Ingredients:"] + [food for food, _, _ in recipe] + ["", "Directions:"]
    for food, how, knife in recipe:
        lines += [f"{VERB[step]} the {food}" for step in (knife, how) if step is not None]
    return "\n".join(lines + ["prepare meal"])


def make(seed: int = 0, **given) -> GameSpec:
    """A tw-cooking game: ``make(seed, recipe=..., take=..., go=..., open=..., cook=..., cut=...,
    recipe_seed=..., split=...)`` returns its GameSpec."""
    opts = options.resolve(FAMILY, given, DEFAULTS)
    size = options.integer("recipe", opts["recipe"], 1, MAX_RECIPE)
    take = options.integer("take", opts["take"], 0, size)
    go = options.integer("go", opts["go"], 1, max(GO))
    if go not in GO:
        raise ValueError(f"go must be one of {GO}, got {go!r}")
    closed, cook, cut, drop = (options.flag(k, opts[k]) for k in ("open", "cook", "cut", "drop"))
    split = None if opts["split"] is None else options.choice("split", opts["split"], SPLITS)
    rng_world, rng_start = options.rngs(seed, 2)
    (rng_recipe,) = options.rngs(options.integer("recipe_seed", opts["recipe_seed"], 0, 2**63 - 1), 1)

    names = list(ROOMS[:go])
    world = WorldBuilder(logic_text(size, drop))
    layout = spine_tree(rng_world, go, min(go, 3))
    room_ids = world.rooms(layout, names)
    rooms = dict(zip(names, room_ids))
    if closed:
        door_names = iter(rng_world.permutation(DOORS))
        for a, b in layout.edges:
            if rng_world.random() < 0.5:
                world.door(room_ids[a], room_ids[b], str(next(door_names)), "closed")
    start_room = names[int(rng_start.integers(1, go))] if go > 1 else "kitchen"
    world.fact("at", "P", rooms[start_room])
    world.fact("cooking_place", rooms["kitchen"])
    spots: Dict[str, str] = {}
    for room in names:
        for name, kind in FURNITURE[room]:
            spots[name] = world.thing(kind, name, rooms[room], ("closed" if closed else "open") if kind == "c" else None)
    cookings = ("fried", "roasted") + (("grilled",) if go > 1 else ())
    if cook:
        world.thing("stove", "stove", rooms["kitchen"])
        world.thing("oven", "oven", rooms["kitchen"], "closed" if closed else "open")
        if go > 1:
            world.thing("bbq", "barbecue", rooms["backyard"])
    recipe = draw_recipe(rng_recipe, size, cook, cut, split, cookings)
    cookbook = world.thing("o", "cookbook", spots["counter"])
    knife = world.thing("knife", "knife", spots["counter"]) if cut else None

    wanted = {food for food, _, _ in recipe}
    others = [f for f in FOODS if f[0] not in wanted and (cook or not f[3])]
    distractors = [others[i] for i in rng_world.permutation(len(others))[:DISTRACTORS]]
    places = list(spots.values())
    found = set(int(i) for i in rng_world.permutation(size)[:take])
    placed = [FOODS[FOOD_INDEX[food]] for food, _, _ in recipe] + distractors   # the recipe's foods first
    food_ids: Dict[str, str] = {}
    for i, (name, cookable, cuttable, needs) in enumerate(placed):
        where = places[int(rng_world.integers(len(places)))] if i >= size or i in found else "I"
        food_ids[name] = ident = world.thing("f", name, where)
        for fact, holds in (("raw", True), ("uncut", True), ("cookable", cookable), ("cuttable", cuttable),
                            ("needs_cooking", needs), ("ingredient", i < size)):
            if holds:
                world.fact(fact, ident)
    meal = world.new("meal", "meal")
    world.fact("unmade", meal)
    world.fact("edible", meal)
    if drop:   # TextWorld's capacity: the recipe's ingredients, one more for a lone one to cut
        for i in range(size + (size == 1 and cut)):
            world.fact("filled" if i < size - take else "empty", world.new("slot", None))

    walker = world.walker()
    rewarded: List[int] = []
    walker.travel(rooms["kitchen"])
    walker.do("examine/s", {"s": spots["counter"], "o": cookbook})
    for i, (name, _, _) in enumerate(recipe):
        if i in found:
            walker.travel(world.room_of(food_ids[name]))
            walker.take(food_ids[name])
            rewarded.append(len(walker.acts) - 1)
    for name, how, knife_cut in recipe:
        if how is not None:
            rule, appliance_kind = APPLIANCE_RULE[how]
            appliance = world.of_kind(appliance_kind)[0]
            walker.travel(world.room_of(appliance))
            walker.do(rule, {"f": food_ids[name], appliance_kind: appliance})
            rewarded.append(len(walker.acts) - 1)
    if knife is not None and any(c for _, _, c in recipe):
        walker.travel(rooms["kitchen"])
        if not drop:
            walker.take(knife)
        for i, (name, _, knife_cut) in enumerate(recipe):
            if knife_cut is None:
                continue
            # a full inventory: put the next ingredient down to hold the knife, as TextWorld does
            spare = food_ids[recipe[(i + 1) % size][0]] if drop and size > 1 else None
            if spare is not None:
                walker.do("drop", {"o": spare})
            if drop:
                walker.take(knife)
            walker.do(CUT_RULE[knife_cut], {"f": food_ids[name], "knife": knife})
            rewarded.append(len(walker.acts) - 1)
            if drop:
                walker.do("drop", {"o": knife})
            if spare is not None:
                walker.take(spare)
    walker.travel(rooms["kitchen"])
    ingredients = [food_ids[name] for name, _, _ in recipe]
    walker.do("prepare", {"meal": meal, **{"f" + "'" * i: f for i, f in enumerate(ingredients)}})
    walker.do("eat", {"f": meal})
    rewarded += [len(walker.acts) - 2, len(walker.acts) - 1]

    quests = step_quests(walker, rewarded)
    quests += [fail_quest([("burned", (f,))]) for f in ingredients]
    quests += [fail_quest([("eaten", (food_ids[name],)), ("raw", (food_ids[name],))])
               for name, _, _, needs in placed if needs]
    text = recipe_text(recipe)
    world.describe(cookbook, text)
    objective = ("You are hungry. Tonight's recipe is in the cookbook in the kitchen: cook the meal it describes, "
                 "then eat it.")
    flags = "".join(f"+{k}" for k in ("cook", "cut", "open", "drop") if opts[k])
    name = f"{FAMILY}-recipe{size}+take{take}{flags}+go{go}-{split or 'any'}-recipe{opts['recipe_seed']}-seed{seed}"
    spec = world.spec(quests, walker.commands, objective, name)
    return dataclasses.replace(spec, metadata={"recipe": text, "ingredients": [list(r) for r in recipe],
                                               "settings": {k: opts[k] for k in DEFAULTS}})
