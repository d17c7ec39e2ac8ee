"""Objective texts: a welcome, then one instruction per walkthrough step, or one sentence.

The wording is jaxlab's own; the shape follows TextWorld (``goal=detailed``
lists every step, ``brief`` names the goal only, ``none`` says nothing).
Choices of wording come from the given numpy Generator, so they are
seeded like the rest of the game.
"""
from __future__ import annotations

from typing import Mapping, Optional, Sequence

import numpy as np

from jaxlab.levels.text.generators.plays import Act

WELCOMES = (
    "Welcome to the house!",
    "Here is a little job for you around the house.",
    "A new day, a new errand.",
    "Time for a small adventure indoors.",
    "You have been given a task, and the house is waiting.",
)
FIRST = ("First, ", "To begin, ", "Start off: ")
THEN = ("Then, ", "Next, ", "After that, ", "Once that is done, ", "Now ")
LAST = ("Finally, ", "To finish, ", "Last of all, ")
ENDINGS = ("Do all that and you win!", "That is all there is to it.", "Then the job is done!",
           "Manage that and the day is yours.")

#: rule name (``go`` for every direction) -> ways to say it; fields are the rule's placeholders
PHRASES = {
    "go": ("go {dir}", "head {dir}", "walk {dir}", "make your way {dir}"),
    "take": ("pick up the {o}", "take the {o} from the floor", "grab the {o}"),
    "take/c": ("take the {o} out of the {c}", "fetch the {o} from the {c}"),
    "take/s": ("take the {o} from the {s}", "lift the {o} off the {s}"),
    "put": ("put the {o} on the {s}", "set the {o} down on the {s}"),
    "insert": ("put the {o} into the {c}", "place the {o} inside the {c}"),
    "drop": ("drop the {o}", "leave the {o} on the floor"),
    "open/c": ("open the {c}", "lift the lid of the {c}"),
    "open/d": ("open the {d}", "pull the {d} open"),
    "close/c": ("close the {c}",),
    "close/d": ("close the {d}",),
    "unlock/c": ("unlock the {c} with the {k}", "use the {k} on the {c}"),
    "unlock/d": ("unlock the {d} with the {k}", "use the {k} to unlock the {d}"),
    "lock/c": ("lock the {c} with the {k}",),
    "lock/d": ("lock the {d} with the {k}",),
    "eat": ("eat the {f}",),
}


def choose(rng: np.random.Generator, options: Sequence[str]) -> str:
    """One of ``options``, drawn with ``rng``."""
    return options[int(rng.integers(len(options)))]


def instruction(act: Act, names: Mapping[str, Optional[str]], rng: np.random.Generator) -> str:
    """An imperative phrase for ``act`` (e.g. ``"open the oak door"``), lower case, no full stop."""
    if act.rule.startswith("go/"):
        return choose(rng, PHRASES["go"]).format(dir=act.rule[3:])
    fields = {ph: names.get(ent) or ent for ph, ent in act.binding}
    if act.rule not in PHRASES:
        raise ValueError(f"no instruction for rule {act.rule!r}")
    return choose(rng, PHRASES[act.rule]).format(**fields)


def detailed(acts: Sequence[Act], names: Mapping[str, Optional[str]], rng: np.random.Generator) -> str:
    """A welcome, one sentence per act in order, and a closing line."""
    sentences = [choose(rng, WELCOMES)]
    for i, act in enumerate(acts):
        lead = FIRST if i == 0 else LAST if i == len(acts) - 1 and len(acts) > 2 else THEN
        sentences.append(choose(rng, lead) + instruction(act, names, rng) + ".")
    sentences.append(choose(rng, ENDINGS))
    return " ".join(sentences)


def brief(sentence: str, rng: np.random.Generator) -> str:
    """A welcome followed by the one-sentence goal ``sentence``."""
    return f"{choose(rng, WELCOMES)} {sentence}"
