"""Free text to command ids: what a player types, matched to a game's command table.

A game's commands are fixed strings (``"take red apple from wooden chest"``).
:class:`CommandParser` normalises what a player types the way players type
it — any case, extra spaces, articles, the usual abbreviations (``n``,
``i``, ``x``, ``l``) and synonyms (``get``/``pick up`` for ``take``, ``put
X in Y`` for ``insert X into Y``) — and finds the command. Nothing a player
types raises: text that names no command of the game parses to
:data:`UNKNOWN_VERB` (the verb is not one the game knows) or
:data:`UNKNOWN_OBJECT` (a known verb with things the game does not have
or that do not go with it); both are ids the text kernel answers with a
refusal and no change of state.
"""
from __future__ import annotations

import re
from typing import Dict, Iterable, Sequence

from jaxlab.levels.text.compiled_game import UNKNOWN_OBJECT_ID

#: command id of text whose verb the game does not know
UNKNOWN_VERB = -1
#: command id of text with a known verb but no matching command
UNKNOWN_OBJECT = UNKNOWN_OBJECT_ID

ARTICLES = frozenset({"the", "a", "an", "some"})
DIRECTIONS = {"n": "north", "s": "south", "e": "east", "w": "west"}
#: whole-text abbreviations (after lower-casing)
SHORTHANDS = {"i": "inventory", "inv": "inventory", "l": "look", "look around": "look",
              "check inventory": "inventory", "z": "wait"}
#: leading words -> canonical verb words
VERB_SYNONYMS = (
    ("pick up", "take"), ("get", "take"), ("grab", "take"), ("collect", "take"), ("fetch", "take"),
    ("x", "examine"), ("inspect", "examine"), ("look at", "examine"), ("check", "examine"), ("read", "examine"),
    ("walk", "go"), ("run", "go"), ("head", "go"), ("move", "go"), ("travel", "go"),
    ("consume", "eat"), ("devour", "eat"),
    ("place", "put"), ("set", "put"),
    ("put down", "drop"), ("discard", "drop"),
    ("shut", "close"),
)


def _words(text: str) -> list:
    text = re.sub(r"[^\w'\- ]+", " ", text.lower())
    return [w for w in text.split() if w not in ARTICLES]


def normalise(text: str) -> str:
    """The canonical form of a command: lower case, single spaces, no articles or punctuation,
    abbreviations and synonyms replaced (``"Get the Apple!"`` -> ``"take apple"``)."""
    words = _words(text)
    joined = " ".join(words)
    if joined in SHORTHANDS:
        return SHORTHANDS[joined]
    if len(words) == 1 and (words[0] in DIRECTIONS or words[0] in DIRECTIONS.values()):
        return "go " + DIRECTIONS.get(words[0], words[0])
    for phrase, verb in VERB_SYNONYMS:
        head = phrase.split()
        if words[:len(head)] == head:
            words = verb.split() + words[len(head):]
            break
    if len(words) == 2 and words[0] == "go":
        words[1] = DIRECTIONS.get(words[1], words[1])
    if words[:1] == ["put"] and "in" in words[1:]:  # "put X in Y" is TextWorld's insert
        at = words.index("in", 1)
        words = ["insert"] + words[1:at] + ["into"] + words[at + 1:]
    elif words[:1] == ["insert"] and "in" in words[1:]:
        words[words.index("in", 1)] = "into"
    if words[:1] == ["put"] and "onto" in words[1:]:
        words[words.index("onto", 1)] = "on"
    return " ".join(words)


class CommandParser:
    """Maps typed text to ids in one game's command table.

    Args:
      commands: the game's command strings; ``commands[i]`` is command id i.
    """

    def __init__(self, commands: Sequence[str]):
        self.commands = tuple(commands)
        self._ids: Dict[str, int] = {}
        canonical = [normalise(c) for c in self.commands]
        for i, (command, form) in enumerate(zip(self.commands, canonical)):
            self._ids.setdefault(command.strip(), i)
            self._ids.setdefault(form, i)
        self.verbs = frozenset(form.split()[0] for form in canonical if form)

    def parse(self, text: str) -> int:
        """The command id of ``text`` (int in [0, K)), or UNKNOWN_VERB / UNKNOWN_OBJECT (negative)."""
        exact = self._ids.get(text.strip())
        if exact is not None:
            return exact
        canonical = normalise(text)
        if canonical in self._ids:
            return self._ids[canonical]
        verb = canonical.split()[0] if canonical else ""
        return UNKNOWN_OBJECT if verb in self.verbs else UNKNOWN_VERB

    def parse_many(self, texts: Iterable[str]) -> list:
        """``[parse(t) for t in texts]``."""
        return [self.parse(t) for t in texts]
