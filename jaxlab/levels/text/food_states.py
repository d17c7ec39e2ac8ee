"""How a cooking game names a food by its state: "a diced fried purple potato".

TextWorld's cooking games print a food's state before its name while
looking, examining, listing contents or taking inventory: how it was cut
(sliced, diced, chopped; nothing when uncut), then how it was cooked:
"raw" while it still needs cooking, "burned" once burned, else "fried",
"roasted" or "grilled" (nothing for a raw food that can be eaten as it
is). A recipe can be followed from the text only if the text says this.

:func:`food_names` gives the grammar one name per state a food can reach,
each with the facts that must hold (and must not) for it to be the one
said; exactly one holds in every state the game's rules reach. The
predicates are read by the names TextWorld's cooking logic uses (jaxlab's
``data/cooking.twl`` uses the same): ``uncut``, ``sliced``, ``diced``,
``chopped``; ``raw``, ``needs_cooking``, ``cooked``, ``burned``,
``fried``, ``roasted``, ``grilled``.
"""
from __future__ import annotations

import itertools
from typing import Callable, List, Optional, Tuple

from jaxlab.levels.text.grounding import Fact

CUTS = ("sliced", "diced", "chopped")
COOKINGS = ("fried", "roasted", "grilled")
#: how each kitchen cooks: jaxlab's rule names (fry, roast, grill) and TextWorld's appliances (cook/stove/...)
_COOKED_BY = {"fry": "fried", "roast": "roasted", "grill": "grilled", "stove": "fried", "oven": "roasted",
              "toaster": "grilled", "bbq": "grilled"}

#: (prefix, facts that must hold, facts that must not) of one way to name a food
Naming = Tuple[str, Tuple[Fact, ...], Tuple[Fact, ...]]


def _cut_names(x: str, possible: Callable[[Fact], bool]) -> List[Naming]:
    cuts = [(c + " ", (((c, (x,)),)), ()) for c in CUTS if possible((c, (x,)))]
    if not cuts:
        return [("", (), ())]
    uncut = ("uncut", (x,))
    if possible(uncut):
        return [("", (uncut,), ())] + cuts
    return [("", (), tuple(f for _, (f,), _ in cuts))] + cuts


def _cook_names(x: str, possible: Callable[[Fact], bool]) -> List[Naming]:
    raw, needs, cooked, burned = (("raw", (x,)), ("needs_cooking", (x,)), ("cooked", (x,)), ("burned", (x,)))
    if not (possible(raw) or possible(needs)):
        return [("", (), ())]
    out: List[Naming] = []
    if possible(needs):
        out.append(("raw ", (needs,), (cooked,)))
    if possible(raw):
        out.append(("", (raw,), (needs,)))
    if possible(burned):
        out.append(("burned ", (burned,), ()))
    out += [(c + " ", ((c, (x,)),), (burned,)) for c in COOKINGS if possible((c, (x,)))]
    return out


def food_names(x: str, possible: Callable[[Fact], bool], initial: Callable[[Fact], bool]) -> List[Naming]:
    """The ways to name food ``x`` by its state: ``(prefix, pos, neg)`` each, the prefix said before
    its name when every ``pos`` fact holds and no ``neg`` fact does.

    ``possible(fact)``: the fact can hold (it is true at the start or some
    rule changes it); ``initial(fact)``: it is true at the start. A food
    whose starting state matches no naming, or more than one, keeps its
    plain name (one naming, no condition), so it is never left out of a
    list.
    """
    names = [(a + b, p + q, m + n) for (a, p, m), (b, q, n) in
             itertools.product(_cut_names(x, possible), _cook_names(x, possible))]
    if len(names) == 1:
        return [("", (), ())]
    matching = [n for n in names if holds_at_start(n, initial)]
    return names if len(matching) == 1 else [("", (), ())]


def holds_at_start(naming: Naming, initial: Callable[[Fact], bool]) -> bool:
    """``naming``'s condition holds at the start (``initial(fact)``: the fact is true then)."""
    _, pos, neg = naming
    return all(initial(f) for f in pos) and not any(initial(f) for f in neg)


def kitchen_text(rule_name: str, food: str) -> Optional[str]:
    """What a cooking game says after a kitchen rule ``rule_name`` acted on the food named ``food``
    ("You fried the carrot.", "You burned the carrot!", "You slice the carrot.", "Adding the meal to
    your inventory."); None for any other rule."""
    parts = rule_name.split("/")
    if parts[0] == "prepare":
        return "Adding the meal to your inventory."
    if parts[0] == "burn" or (parts[0] == "cook" and "burned" in parts):
        return f"You burned the {food}!"
    cooked = _COOKED_BY.get(parts[1] if parts[0] == "cook" and len(parts) > 1 else parts[0])
    if cooked and parts[0] in ("cook", "fry", "roast", "grill"):
        return f"You {cooked} the {food}."
    if parts[0] in ("slice", "dice", "chop"):
        return f"You {parts[0]} the {food}."
    return None
