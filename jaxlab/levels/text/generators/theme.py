"""The house theme: words for rooms, doors, furniture, objects, keys and food.

All lists are jaxlab's own. :class:`Namer` hands out names that are unique
within one game (so no two entities share a command text), falling back to
adjective + noun pairs when a list runs out.
"""
from __future__ import annotations

from typing import Sequence, Set

import numpy as np

ROOMS = (
    "kitchen", "pantry", "scullery", "dining room", "living room", "parlour", "study", "library",
    "bedroom", "guest room", "nursery", "bathroom", "washroom", "laundry room", "attic", "cellar",
    "basement", "garage", "workshop", "hallway", "corridor", "foyer", "porch", "sunroom",
    "conservatory", "music room", "games room", "office", "den", "loft", "boiler room", "storeroom",
    "wine cellar", "greenhouse", "mudroom", "playroom", "gallery", "studio", "sewing room", "tool shed",
)

ROOM_ADJECTIVES = (
    "dusty", "quiet", "sunny", "narrow", "draughty", "cosy", "cluttered", "chilly", "tidy", "dim",
    "bright", "musty", "spacious", "cramped", "old", "airy", "gloomy", "freshly painted", "echoing",
    "warm", "damp", "panelled", "tiled", "carpeted", "forgotten", "hidden", "long", "square", "small",
    "grand",
)

DOOR_MATERIALS = (
    "oak", "pine", "iron", "glass", "screen", "sliding", "painted", "steel", "barn", "frosted",
    "maple", "red", "green", "blue", "arched", "walnut", "cedar", "copper", "white", "yellow",
)
DOOR_KINDS = ("door", "gate", "hatch", "portal")

CONTAINERS = (
    "cupboard", "chest", "crate", "trunk", "cabinet", "wardrobe", "chest of drawers", "toolbox",
    "footlocker", "hamper", "bread bin", "cooler", "safe", "coffer", "locker", "laundry basket",
    "jewellery box", "biscuit tin", "filing cabinet", "sea chest", "strongbox", "icebox", "hatbox",
    "suitcase", "cash box", "tea chest", "wicker basket", "sewing box", "shoebox", "medicine cabinet",
)

SUPPORTERS = (
    "table", "shelf", "bench", "desk", "counter", "workbench", "mantelpiece", "stool", "nightstand",
    "bookcase", "dresser", "ottoman", "windowsill", "pedestal", "trestle", "coffee table", "side table",
    "bar cart", "armchair", "sofa", "piano", "ironing board", "card table", "console table",
    "step ladder", "sideboard", "plant stand", "hall table", "writing desk", "footstool",
)

OBJECTS = (
    "candle", "lantern", "teapot", "umbrella", "notebook", "pencil", "compass", "telescope",
    "hourglass", "scarf", "glove", "hat", "book", "map", "letter", "photograph", "clock", "mirror",
    "vase", "spoon", "fork", "ladle", "hammer", "wrench", "screwdriver", "flashlight", "pillow",
    "blanket", "rope", "bucket", "kettle", "thimble", "marble", "whistle", "postcard", "paintbrush",
    "snow globe", "music box", "magnifying glass", "pocket watch",
)

KEY_MATERIALS = (
    "brass", "iron", "silver", "copper", "bronze", "golden", "steel", "rusty", "tiny", "ornate",
    "heavy", "crooked", "notched", "tarnished", "polished",
)
KEY_KINDS = ("key", "latchkey", "passkey", "keycard")

#: foods of the training games
FOODS = (
    "apple", "pear", "carrot", "banana", "loaf of bread", "wedge of cheese", "tomato", "cucumber",
    "onion", "potato", "lemon", "orange", "plum", "peach", "cherry pie", "muffin", "pretzel",
    "jar of honey", "bottle of milk", "egg", "sausage", "slice of ham", "bag of rice", "can of beans",
    "chocolate bar", "cookie", "croissant", "avocado", "mushroom", "radish",
)

#: foods only the held-out (``test``) games use
TEST_FOODS = (
    "mango", "fig", "bagel", "papaya", "turnip", "walnut", "pumpkin", "grapefruit", "dumpling",
    "waffle", "tangerine", "beetroot", "apricot", "pomegranate", "parsnip",
)

THING_ADJECTIVES = (
    "small", "large", "red", "blue", "green", "wooden", "metal", "old", "new", "shiny", "plain",
    "striped", "dusty", "polished", "chipped", "painted", "yellow", "battered",
)


class Namer:
    """Draws names for one game; a name is never handed out twice.

    Args:
      rng: the numpy Generator that makes the draws (same draws, same names).
    """

    def __init__(self, rng: np.random.Generator):
        self.rng = rng
        self.used: Set[str] = set()

    def take(self, name: str) -> str:
        """Reserve the fixed ``name`` (e.g. ``"coin"``); returns it."""
        if name in self.used:
            raise ValueError(f"name {name!r} is already used in this game")
        self.used.add(name)
        return name

    def pick(self, words: Sequence[str], adjectives: Sequence[str] = THING_ADJECTIVES) -> str:
        """An unused name: one of ``words`` if any is left, else an unused ``adjective word`` pair."""
        free = [w for w in words if w not in self.used]
        if free:
            return self.take(free[int(self.rng.integers(len(free)))])
        for _ in range(32):  # random pairs first: cheap while most are still free
            name = f"{adjectives[int(self.rng.integers(len(adjectives)))]} {words[int(self.rng.integers(len(words)))]}"
            if name not in self.used:
                return self.take(name)
        free = [f"{a} {w}" for a in adjectives for w in words if f"{a} {w}" not in self.used]
        if not free:
            raise ValueError(f"the theme has run out of names like {words[0]!r}")
        return self.take(free[int(self.rng.integers(len(free)))])

    def pair(self, firsts: Sequence[str], seconds: Sequence[str]) -> str:
        """An unused ``first second`` name (e.g. ``"oak door"``, ``"brass key"``)."""
        return self.pick([f"{a} {b}" for a in firsts for b in seconds], adjectives=THING_ADJECTIVES)

    def room(self) -> str:
        """An unused room name: a plain one while they last, then with an adjective."""
        return self.pick(ROOMS, adjectives=ROOM_ADJECTIVES)

    def door(self) -> str:
        """An unused door name such as ``"oak door"``."""
        return self.pair(DOOR_MATERIALS, DOOR_KINDS)

    def key(self) -> str:
        """An unused key name such as ``"brass latchkey"``."""
        return self.pair(KEY_MATERIALS, KEY_KINDS)
