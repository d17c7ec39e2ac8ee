"""The schema of a TextWorld game file, checked before anything else reads it.

Game files are untrusted input (DESIGN.md, "Untrusted input"). :func:`read_game_json` reads one within
``MAX_FILE_BYTES`` (a file nested too deeply for the parser is refused, not a RecursionError) and
:func:`check_game` checks the parsed object against what TextWorld 1.7's ``Game.serialize`` writes::

    {"version": 1, "world": [fact], "quests": [quest], "infos": [[id, info]], "KB": {"logic", ...},
     "grammar": {...}, "metadata": {"walkthrough": [str], ...}, "objective": str}
    fact:   {"name": predicate, "arguments": [{"name": entity id, "type": type}]}
    quest:  {"desc", "reward": number, "commands": [str], "win_events": [event], "fail_events": [event],
             "optional": bool, "repeatable": bool}
    event:  {"commands": [str], "actions": [action], "condition": action}
    action: {"name", "preconditions": [fact], "postconditions": [fact], "command_template", ...}
    info:   {"id", "type", "name", "noun", "adj", "desc", "room_type", "definite", "indefinite", "synonyms"}

Beyond the shapes: every fact's predicate is declared by the game's own logic (``KB.logic``: its
predicates, aliases and rule predicates) with that many arguments, every type is one of the logic's
types, an entity keeps one type throughout (infos included), rewards are finite numbers within
``MAX_ABS_REWARD``, no number anywhere is NaN or infinite (JSON's ``NaN``/``Infinity`` tokens, which
``json`` reads as floats, and overflowing literals such as ``1e999``), and nothing nests deeper than
``MAX_DEPTH`` levels. No string of the file, key or value, holds a control character other than newline
and tab (``TEXT_CONTROLS``: C0, DEL and C1 are refused, so no terminal escape, BEL or carriage return
reaches a terminal or an observation; TextWorld's own descriptions, logic and recipes hold newlines);
this is checked first, so no later message quotes one. Every failure raises one :class:`TextWorldFormatError`
``"<file>: <field path>: <problem>"``, e.g. ``game.json: quests[0].reward: not a finite number (NaN)``;
unknown keys, predicates and types come with close-match suggestions.
"""
from __future__ import annotations

import functools
import json
import math
import os
import re
from typing import Any, Dict, FrozenSet, List, Mapping, Tuple

from jaxlab.errors import unknown_name_error
from jaxlab.levels.text.logic_text import LogicSyntaxError, parse_logic

#: the largest game file read, in bytes (TextWorld's games are tens to hundreds of kilobytes)
MAX_FILE_BYTES = 8 << 20
#: the deepest nesting of JSON arrays and objects read (TextWorld's games nest 11 levels)
MAX_DEPTH = 32
#: the largest |reward| of a quest: scores are float32 sums of rewards and stay far from overflow
MAX_ABS_REWARD = 1e9
SUPPORTED_VERSIONS = (1,)
REQUIRED_KEYS = ("world", "quests", "infos", "KB")
OPTIONAL_KEYS = ("version", "grammar", "metadata", "objective")
#: the predicate TextWorld adds to an event's condition postconditions, with one argument per variable
EVENT_PREDICATE = "event"

#: the control characters game text may hold (TextWorld's descriptions, logic and recipes have newlines)
TEXT_CONTROLS = "\n\t"
#: the control characters refused in game text: C0, DEL and C1, less ``TEXT_CONTROLS``
_CONTROL = re.compile("[" + "".join(re.escape(chr(c)) for c in [*range(0x20), *range(0x7F, 0xA0)]
                                    if chr(c) not in TEXT_CONTROLS) + "]")
_FACT_KEYS = {"name", "arguments"}
_ARGUMENT_KEYS = {"name", "type"}


class TextWorldFormatError(ValueError):
    """A file that cannot be imported as a TextWorld game; ``path`` names it."""

    def __init__(self, path: str, message: str):
        super().__init__(f"{path}: {message}")
        self.path = path


def read_game_json(path: str) -> Dict[str, Any]:
    """The JSON object in file ``path`` (a str) of at most ``MAX_FILE_BYTES`` bytes.

    Raises TextWorldFormatError for a missing file, a directory, an unreadable or larger file, bytes that are not
    UTF-8 text, invalid JSON (with its line and column), JSON nested too deeply for the parser, or
    JSON that is not an object. Numbers and depth within the parser's reach are :func:`check_game`'s.
    """
    if not os.path.exists(path):
        raise TextWorldFormatError(path, "no such file")
    if os.path.isdir(path):
        raise TextWorldFormatError(path, "is a directory, not a game file")
    try:
        with open(path, "rb") as f:
            raw = f.read(MAX_FILE_BYTES + 1)
    except OSError as err:
        raise TextWorldFormatError(path, f"cannot be read ({err.strerror or err})") from None
    if len(raw) > MAX_FILE_BYTES:
        raise TextWorldFormatError(path, f"larger than the {MAX_FILE_BYTES} bytes a game file may have")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise TextWorldFormatError(path, "not a text file (expected a TextWorld game .json; "
                                         "compiled .z8/.ulx games cannot be imported)") from None
    try:
        data = json.loads(text)
    except RecursionError:
        raise TextWorldFormatError(path, f"nested too deeply to parse (more than the {MAX_DEPTH} levels a game "
                                         "file may have)") from None
    except json.JSONDecodeError as err:
        raise TextWorldFormatError(path, f"invalid JSON at line {err.lineno}, column {err.colno}: {err.msg}") from None
    except ValueError as err:  # e.g. an integer literal beyond Python's digit limit
        raise TextWorldFormatError(path, f"invalid JSON: {err}") from None
    if not isinstance(data, dict):
        raise TextWorldFormatError(path, f"not a TextWorld game: the JSON is a {type(data).__name__}, not an object")
    return data


@functools.lru_cache(maxsize=32)
def logic_names(logic_text: str) -> Tuple[Dict[str, FrozenSet[int]], FrozenSet[str]]:
    """``(predicate name -> its arities, type names)`` of a logic text that parses: the declared
    predicates, the aliases and the predicates its rules use. Cached per text."""
    logic = parse_logic(logic_text)
    signatures = list(logic.predicates) + list(logic.aliases)
    signatures += [p.signature for rule in logic.rules.values() for p in rule.pre + rule.post]
    arities: Dict[str, set] = {}
    for name, types in signatures:
        arities.setdefault(name, set()).add(len(types))
    return {name: frozenset(n) for name, n in arities.items()}, frozenset(logic.types)


def _kind(value: Any) -> str:
    """A JSON value's kind and value for messages: ``string 'x'``, ``number 3``, ``null``."""
    if value is None:
        return "null"
    kinds = {bool: "boolean", int: "number", float: "number", str: "string", list: "list", dict: "object"}
    return f"{kinds.get(type(value), type(value).__name__)} {value!r:.60}"


_TEXT_RULE = "game text may hold no control characters but newline and tab"


def _field_path(item: Tuple[Any, Any, Any]) -> str:
    """The field path (``quests[0].desc``; "" for the top level) of a ``_Checker.text`` stack item."""
    parts = []
    while item[2] is not None:
        parts.append(f"[{item[1]}]" if isinstance(item[1], int) else f".{item[1]}")
        item = item[2]
    return "".join(reversed(parts)).lstrip(".")


def check_game(data: Mapping[str, Any], path: str) -> None:
    """Check a game file's parsed JSON object ``data`` against the schema (module docstring).

    ``path`` names the file in messages. Returns None; raises TextWorldFormatError
    ``"<path>: <field path>: <problem>"`` at the first field that does not fit.
    """
    _Checker(path).game(data)


class _Checker:
    """Walks a game's JSON, failing at the first field that does not fit the schema."""

    def __init__(self, path: str):
        self.path = path
        self.arities: Dict[str, FrozenSet[int]] = {}
        self.types: FrozenSet[str] = frozenset()
        self.entities: Dict[str, str] = {}  # entity id -> its type, as the facts give it

    def fail(self, where: str, message: str) -> TextWorldFormatError:
        """The error at field path ``where`` ("" for the top level)."""
        return TextWorldFormatError(self.path, f"{where}: {message}" if where else message)

    def keys(self, data: Any, where: str, required: Tuple[str, ...], optional: Tuple[str, ...] = ()) -> None:
        """``data`` is an object with every ``required`` key and no key beyond ``required + optional``."""
        if not isinstance(data, dict):
            raise self.fail(where, f"expected an object with keys {', '.join(required + optional)}, "
                                   f"got {_kind(data)}")
        for key in data:
            if key not in required and key not in optional:
                raise self.fail(where, str(unknown_name_error("key", key, required + optional)))
        missing = [k for k in required if k not in data]
        if missing:
            raise self.fail(where, f"missing key(s) {', '.join(missing)} (expected {', '.join(required)})")

    def string(self, value: Any, where: str, nullable: bool = True) -> None:
        if not (isinstance(value, str) or (nullable and value is None)):
            raise self.fail(where, f"expected a string{' or null' if nullable else ''}, got {_kind(value)}")

    def strings(self, value: Any, where: str) -> None:
        if not isinstance(value, list):
            raise self.fail(where, f"expected a list of strings, got {_kind(value)}")
        for i, item in enumerate(value):
            self.string(item, f"{where}[{i}]", nullable=False)

    def flag(self, value: Any, where: str) -> None:
        if not isinstance(value, bool):
            raise self.fail(where, f"expected true or false, got {_kind(value)}")

    def items(self, value: Any, where: str) -> List[Any]:
        if not isinstance(value, list):
            raise self.fail(where, f"expected a list, got {_kind(value)}")
        return value

    def finite(self, value: Any, where: str) -> None:
        if isinstance(value, float) and not math.isfinite(value):
            token = "NaN" if math.isnan(value) else "Infinity" if value > 0 else "-Infinity"
            raise self.fail(where, f"not a finite number ({token})")

    def text(self, data: Any) -> None:
        """No string in ``data``, key or value, holds a control character beyond ``TEXT_CONTROLS``. The
        walk keeps a stack (any nesting the parser read) and each item's parent, not its path (bounded
        memory); the first string in file order is reported, with its field path."""
        stack: List[Tuple[Any, Any, Any]] = [(data, None, None)]  # (value, its key or index, parent item)
        while stack:
            item = stack.pop()
            value = item[0]
            if isinstance(value, str):
                found = _CONTROL.search(value)
                if found:
                    raise self.fail(_field_path(item), f"control character U+{ord(found.group()):04X} at "
                                                       f"character {found.start()}; {_TEXT_RULE}")
            elif isinstance(value, dict):
                for key in value:
                    found = _CONTROL.search(key)
                    if found:
                        raise self.fail(_field_path(item), f"key {key!r} holds control character "
                                                           f"U+{ord(found.group()):04X}; {_TEXT_RULE}")
                stack.extend((child, key, item) for key, child in reversed(value.items()))
            elif isinstance(value, list):
                stack.extend((value[i], i, item) for i in reversed(range(len(value))))

    def plain(self, value: Any, where: str, depth: int = 1) -> None:
        """Free-form JSON (metadata, grammar options) at nesting level ``depth``: its numbers must be
        finite and it may nest at most ``MAX_DEPTH`` levels (the schema's own fields nest 11)."""
        self.finite(value, where)
        if isinstance(value, (dict, list)) and depth > MAX_DEPTH:
            raise self.fail(where, f"nested more than the {MAX_DEPTH} levels a game file may have")
        if isinstance(value, dict):
            for key, item in value.items():
                self.plain(item, f"{where}.{key}", depth + 1)
        elif isinstance(value, list):
            for i, item in enumerate(value):
                self.plain(item, f"{where}[{i}]", depth + 1)

    def plain_object(self, value: Any, where: str) -> None:
        if not isinstance(value, dict):
            raise self.fail(where, f"expected an object, got {_kind(value)}")
        self.plain(value, where, depth=2)

    # -- the game's parts ----------------------------------------------------------------------
    def game(self, data: Mapping[str, Any]) -> None:
        self.text(data)
        self.keys(data, "", REQUIRED_KEYS, OPTIONAL_KEYS)
        version = data.get("version", 1)
        if isinstance(version, bool) or version not in SUPPORTED_VERSIONS:
            raise self.fail("", f"unsupported TextWorld game version {version!r} "
                                f"(supported: {', '.join(map(str, SUPPORTED_VERSIONS))})")
        self.knowledge_base(data["KB"])
        for i, fact in enumerate(self.items(data["world"], "world")):
            self.fact(fact, f"world[{i}]")
        for i, quest in enumerate(self.items(data["quests"], "quests")):
            self.quest(quest, f"quests[{i}]")
        self.infos(data["infos"])
        metadata = data.get("metadata", {})
        self.plain_object(metadata, "metadata")
        if "walkthrough" in metadata:
            self.strings(metadata["walkthrough"], "metadata.walkthrough")
        self.string(data.get("objective"), "objective")
        self.plain_object(data.get("grammar", {}), "grammar")

    def knowledge_base(self, kb: Any) -> None:
        self.keys(kb, "KB", ("logic",), ("text_grammars_path",))
        if not isinstance(kb["logic"], str):
            raise self.fail("KB.logic", f"expected the game logic as a string, got {_kind(kb['logic'])}")
        self.string(kb.get("text_grammars_path"), "KB.text_grammars_path")
        try:
            self.arities, self.types = logic_names(kb["logic"])
        except LogicSyntaxError as err:
            raise self.fail("", f"cannot parse KB.logic: {err}") from None
        except RecursionError:
            raise self.fail("KB.logic", "its predicate aliases chain too deeply to expand") from None

    def fact(self, data: Any, where: str, trigger: bool = False) -> None:
        """A fact of the logic; ``trigger``: a condition's postcondition, where TextWorld adds ``event``."""
        if not (isinstance(data, dict) and data.keys() == _FACT_KEYS and isinstance(data["name"], str)
                and isinstance(data["arguments"], list)):
            raise self.not_fact(data, where)
        name, args = data["name"], data["arguments"]
        for i, arg in enumerate(args):
            if not (isinstance(arg, dict) and arg.keys() == _ARGUMENT_KEYS and isinstance(arg["name"], str)
                    and isinstance(arg["type"], str)):
                raise self.not_fact(data, where)
            if self.entities.get(arg["name"]) != arg["type"]:  # a new entity, or a wrong type
                self.entity(arg["name"], arg["type"], f"{where}.arguments[{i}].type")
        if trigger and name == EVENT_PREDICATE:
            return
        if name not in self.arities:
            raise self.fail(f"{where}.name", str(unknown_name_error("predicate", name, self.arities)))
        if len(args) not in self.arities[name]:
            takes = " or ".join(map(str, sorted(self.arities[name])))
            raise self.fail(where, f"predicate {name!r} takes {takes} argument(s) in KB.logic, got {len(args)}")

    def not_fact(self, data: Any, where: str) -> TextWorldFormatError:
        return self.fail(where, f"expected a fact {{name, arguments: [{{name, type}}]}}, got {_kind(data)}")

    def entity(self, ident: str, kind: str, where: str) -> None:
        """Entity ``ident`` has type ``kind``: a type of the logic, and the type it has elsewhere."""
        if kind not in self.types:
            raise self.fail(where, str(unknown_name_error("type", kind, self.types)))
        known = self.entities.setdefault(ident, kind)
        if known != kind:
            raise self.fail(where, f"entity {ident!r} has type {kind!r} here and {known!r} elsewhere")

    def facts(self, value: Any, where: str, trigger: bool = False) -> None:
        for i, fact in enumerate(self.items(value, where)):
            self.fact(fact, f"{where}[{i}]", trigger)

    def action(self, data: Any, where: str, condition: bool = False) -> None:
        self.keys(data, where, ("name", "preconditions", "postconditions"),
                  ("command_template", "reverse_name", "reverse_command_template"))
        self.string(data["name"], f"{where}.name", nullable=False)
        for key in ("command_template", "reverse_name", "reverse_command_template"):
            self.string(data.get(key), f"{where}.{key}")
        self.facts(data["preconditions"], f"{where}.preconditions")
        self.facts(data["postconditions"], f"{where}.postconditions", trigger=condition)

    def event(self, data: Any, where: str) -> None:
        self.keys(data, where, ("condition",), ("commands", "actions"))
        self.strings(data.get("commands", []), f"{where}.commands")
        self.action(data["condition"], f"{where}.condition", condition=True)
        for i, action in enumerate(self.items(data.get("actions", []), f"{where}.actions")):
            self.action(action, f"{where}.actions[{i}]")

    def quest(self, data: Any, where: str) -> None:
        self.keys(data, where, (), ("desc", "reward", "commands", "win_events", "fail_events", "optional",
                                    "repeatable"))
        self.string(data.get("desc"), f"{where}.desc")
        self.strings(data.get("commands", []), f"{where}.commands")
        reward = data.get("reward")
        if reward is not None:
            if not isinstance(reward, (int, float)) or isinstance(reward, bool):
                raise self.fail(f"{where}.reward", f"expected a number, got {_kind(reward)}")
            self.finite(reward, f"{where}.reward")
            if abs(reward) > MAX_ABS_REWARD:
                raise self.fail(f"{where}.reward", f"{reward:.6g} is out of range (at most {MAX_ABS_REWARD:g} "
                                                   "either side of 0)")
        optional, repeatable = data.get("optional", False), data.get("repeatable", False)
        self.flag(optional, f"{where}.optional")
        self.flag(repeatable, f"{where}.repeatable")
        if repeatable and not optional:
            raise self.fail(where, "a repeatable quest must be optional")
        wins = self.items(data.get("win_events", []), f"{where}.win_events")
        fails = self.items(data.get("fail_events", []), f"{where}.fail_events")
        if not wins and not fails:
            raise self.fail(where, "a quest needs at least one winning or failing event")
        for i, event in enumerate(wins):
            self.event(event, f"{where}.win_events[{i}]")
        for i, event in enumerate(fails):
            self.event(event, f"{where}.fail_events[{i}]")

    def infos(self, value: Any) -> None:
        for i, pair in enumerate(self.items(value, "infos")):
            if not (isinstance(pair, list) and len(pair) == 2 and isinstance(pair[0], str)):
                raise self.fail(f"infos[{i}]", f"expected [entity id, {{id, type, name, ...}}], got {_kind(pair)}")
            where, info = f"infos[{i}][1]", pair[1]
            self.keys(info, where, ("id", "type"), ("name", "noun", "adj", "desc", "room_type", "definite",
                                                   "indefinite", "synonyms"))
            for key in ("id", "type", "name", "noun", "adj", "desc", "room_type", "definite", "indefinite"):
                self.string(info.get(key), f"{where}.{key}", nullable=key not in ("id", "type"))
            if info.get("synonyms") is not None:
                self.strings(info["synonyms"], f"{where}.synonyms")
            self.entity(pair[0], info["type"], f"{where}.type")
