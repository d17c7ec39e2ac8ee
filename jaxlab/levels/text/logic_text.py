"""Parser for the TextWorld game-logic language (the ``KB.logic`` text of a saved game).

The language declares, per type, its parents, predicates (and predicate
aliases), rules with their reverse rules, constraints and Inform 7 bindings::

    type c : t {
        predicates { open(c); in(o, c); south_of(r, r') = north_of(r', r); }
        rules { open/c :: $at(P, r) & $at(c, r) & closed(c) -> open(c); }
        reverse_rules { open/c :: close/c; }
        constraints { c1 :: open(c) & closed(c) -> fail(); }
        inform7 { commands { open/c :: "open {c}" :: "opening the {c}"; } }
    }

``parse_logic(text)`` returns a :class:`Logic`: rules come out normalised
(aliases expanded, ``$`` preconditions repeated in the postconditions) and
constraints are parsed but kept aside (they only matter when generating
worlds). A placeholder's type is its name without trailing apostrophes unless
written ``name: type``; ``!pred`` is the predicate ``not_pred``. Syntax errors
raise :class:`LogicSyntaxError` with the line and column.
"""
from __future__ import annotations

import dataclasses
import functools
import re
from typing import Dict, List, Optional, Sequence, Tuple


class LogicSyntaxError(ValueError):
    """The logic text does not parse; the message gives ``line:column``."""


@dataclasses.dataclass(frozen=True)
class Placeholder:
    """A typed rule parameter, e.g. ``r'`` (type ``r``)."""

    name: str
    type: str


@dataclasses.dataclass(frozen=True)
class Predicate:
    """``name(p1, ..., pn)`` over placeholders; ``signature`` is (name, types)."""

    name: str
    params: Tuple[Placeholder, ...]

    @property
    def signature(self) -> Tuple[str, Tuple[str, ...]]:
        return self.name, tuple(p.type for p in self.params)

    def substitute(self, mapping: Dict[Placeholder, Placeholder]) -> "Predicate":
        return Predicate(self.name, tuple(mapping.get(p, p) for p in self.params))


@dataclasses.dataclass(frozen=True)
class Rule:
    """A rule: every precondition must hold; applying it deletes ``removed`` and adds ``added``."""

    name: str
    pre: Tuple[Predicate, ...]
    post: Tuple[Predicate, ...]

    @functools.cached_property
    def added(self) -> frozenset:
        return frozenset(self.post) - frozenset(self.pre)

    @functools.cached_property
    def removed(self) -> frozenset:
        return frozenset(self.pre) - frozenset(self.post)

    @functools.cached_property
    def placeholders(self) -> Tuple[Placeholder, ...]:
        seen: Dict[Placeholder, None] = {}
        for pred in self.pre + self.post:
            for p in pred.params:
                seen.setdefault(p, None)
        return tuple(seen)


@dataclasses.dataclass
class Logic:
    """A parsed game logic.

    types: type name -> parent names (declaration order).
    predicates: declared signatures (name, argument types).
    aliases: signature -> (pattern, replacement predicates), fully expanded.
    rules: rule name -> Rule, normalised (aliases expanded).
    reverse_rules: rule name -> its reverse rule's name (both directions).
    commands: rule name -> Inform 7 command template, e.g. ``"take {o} from {c}"``.
    constraints: constraint name -> Rule (unused by play).
    inform7_text: the Inform 7 strings of the logic (type kinds and definitions, command templates and
      their events, code blocks; quotes stripped), whose words TextWorld's vocabulary holds.
    """

    types: Dict[str, Tuple[str, ...]] = dataclasses.field(default_factory=dict)
    predicates: List[Tuple[str, Tuple[str, ...]]] = dataclasses.field(default_factory=list)
    aliases: Dict[tuple, Tuple[Predicate, Tuple[Predicate, ...]]] = dataclasses.field(default_factory=dict)
    rules: Dict[str, Rule] = dataclasses.field(default_factory=dict)
    reverse_rules: Dict[str, str] = dataclasses.field(default_factory=dict)
    commands: Dict[str, str] = dataclasses.field(default_factory=dict)
    constraints: Dict[str, Rule] = dataclasses.field(default_factory=dict)
    inform7_text: List[str] = dataclasses.field(default_factory=list)

    def subtypes(self, name: str) -> Tuple[str, ...]:
        """``name`` and every type below it (empty if ``name`` is not declared)."""
        if name not in self.types:
            return ()
        out, todo = [name], [name]
        while todo:
            cur = todo.pop()
            for child, parents in self.types.items():
                if cur in parents and child not in out:
                    out.append(child)
                    todo.append(child)
        return tuple(out)

    @staticmethod
    def is_constant(type_name: str) -> bool:
        """Types whose name starts with an upper-case letter (``P``, ``I``) have one entity, named as the type."""
        return type_name[:1].isupper()


_TOKEN = re.compile(r'''
    (?P<ws>\s+) | (?P<comment>\#[^\n]*) |
    (?P<block>"""(?:.|\n)*?""") | (?P<str>"[^"]*") |
    (?P<punct>::|->|[{}(),;&$:=]) |
    (?P<ident>!?(?:[\w/']|-(?!>))+)
''', re.VERBOSE)


def _tokenize(text: str) -> List[Tuple[str, str, int, int]]:
    tokens, pos, line, line_start = [], 0, 1, 0
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if m is None:
            raise LogicSyntaxError(f"{line}:{pos - line_start + 1}: unexpected character {text[pos]!r}")
        kind, value = m.lastgroup, m.group()
        if kind not in ("ws", "comment"):
            tokens.append((kind if kind != "punct" else value, value, line, pos - line_start + 1))
        newlines = value.count("\n")
        if newlines:
            line += newlines
            line_start = pos + value.rindex("\n") + 1
        pos = m.end()
    tokens.append(("eof", "", line, pos - line_start + 1))
    return tokens


class _Parser:
    def __init__(self, text: str):
        self.tokens = _tokenize(text)
        self.i = 0
        self.logic = Logic()
        self._phs: Dict[str, Placeholder] = {}

    # -- token helpers -------------------------------------------------
    def peek(self, offset: int = 0) -> Tuple[str, str, int, int]:
        return self.tokens[min(self.i + offset, len(self.tokens) - 1)]

    def error(self, message: str, token=None) -> LogicSyntaxError:
        _, value, line, col = token or self.peek()
        found = repr(value) if value else "end of text"
        return LogicSyntaxError(f"{line}:{col}: {message}, found {found}")

    def take(self, kind: str, value: Optional[str] = None) -> str:
        tok = self.peek()
        if tok[0] != kind or (value is not None and tok[1] != value):
            raise self.error(f"expected {value or kind!r}")
        self.i += 1
        return tok[1]

    def accept(self, kind: str, value: Optional[str] = None) -> bool:
        tok = self.peek()
        if tok[0] == kind and (value is None or tok[1] == value):
            self.i += 1
            return True
        return False

    def name(self, what: str, pattern: str = r"[\w/'-]+") -> str:
        tok = self.peek()
        if tok[0] != "ident" or not re.fullmatch(pattern, tok[1]):
            raise self.error(f"expected {what}")
        self.i += 1
        return tok[1]

    def block(self, keyword: str, item) -> None:
        self.take("ident", keyword)
        self.take("{")
        while not self.accept("}"):
            item()

    # -- grammar -------------------------------------------------------
    def document(self) -> Logic:
        while not self.accept("eof"):
            self.type_decl()
        return self.logic

    def type_decl(self) -> None:
        self.take("ident", "type")
        name = self.name("a type name", r"[\w/-]+")
        parents: List[str] = []
        if self.accept(":"):
            parents.append(self.name("a parent type", r"[\w/-]+"))
            while self.accept(","):
                parents.append(self.name("a parent type", r"[\w/-]+"))
        if name in self.logic.types:
            raise self.error(f"type {name!r} declared twice")
        self.logic.types[name] = tuple(parents)
        self.take("{")
        parts = {"predicates": self.predicate_decl, "rules": lambda: self.rule_decl(self.logic.rules),
                 "reverse_rules": self.reverse_decl,
                 "constraints": lambda: self.rule_decl(self.logic.constraints), "inform7": self.inform7_part}
        while not self.accept("}"):
            tok = self.peek()
            if tok[0] != "ident" or tok[1] not in parts:
                raise self.error("expected predicates, rules, reverse_rules, constraints or inform7")
            self.block(tok[1], parts[tok[1]])

    def placeholder(self) -> Placeholder:
        tok = self.peek()
        name = self.name("a placeholder", r"[\w']+")
        explicit = self.name("a type", r"[\w/-]+") if self.accept(":") else None
        ph = Placeholder(name, explicit or name.rstrip("'"))
        known = self._phs.setdefault(name, ph)
        if known.type != ph.type:
            raise self.error(f"conflicting types for {name!r}: {known.type!r} and {ph.type!r}", tok)
        return known

    def predicate(self) -> Predicate:
        name = self.name("a predicate name", r"!?[\w/]+")
        self.take("(")
        params: List[Placeholder] = []
        if not self.accept(")"):
            params.append(self.placeholder())
            while self.accept(","):
                params.append(self.placeholder())
            self.take(")")
        if name.startswith("!"):
            name = "not_" + name[1:]
        return Predicate(name, tuple(params))

    def conjunction(self) -> List[Predicate]:
        preds = [self.predicate()]
        while self.accept("&"):
            preds.append(self.predicate())
        return preds

    def predicate_decl(self) -> None:
        self._phs = {}
        lhs = self.predicate()
        if self.accept("="):
            rhs = self.conjunction()
            if lhs.signature in self.logic.aliases:
                raise self.error(f"duplicate alias {lhs.name}")
            self.logic.aliases[lhs.signature] = (lhs, tuple(rhs))
        else:
            self.logic.predicates.append(lhs.signature)
        self.take(";")

    def rule_decl(self, into: Dict[str, Rule]) -> None:
        self._phs = {}
        tok = self.peek()
        name = self.name("a rule name", r"[\w/]+")
        self.take("::")
        pre, post = [], []
        while True:
            keep = self.accept("$")
            pred = self.predicate()
            pre.append(pred)
            if keep:
                post.append(pred)
            if not self.accept("&"):
                break
        self.take("->")
        post.extend(self.conjunction())
        self.take(";")
        if name in into:
            raise self.error(f"duplicate rule {name!r}", tok)
        into[name] = Rule(name, tuple(pre), tuple(post))

    def reverse_decl(self) -> None:
        a = self.name("a rule name", r"[\w/]+")
        self.take("::")
        b = self.name("a rule name", r"[\w/]+")
        self.take(";")
        self.logic.reverse_rules[a] = b
        self.logic.reverse_rules[b] = a

    def inform7_part(self) -> None:
        tok = self.peek()
        if tok[1] == "type" and tok[0] == "ident":
            self.block("type", self.inform7_type_item)
        elif tok[1] == "predicates":
            self.block("predicates", self.inform7_predicate)
        elif tok[1] == "commands":
            self.block("commands", self.inform7_command)
        elif tok[1] == "code":
            self.take("ident", "code")
            self.take("::")
            self.logic.inform7_text.append(self.take("block")[3:-3])
            self.take(";")
        else:
            raise self.error("expected type, predicates, commands or code in inform7")

    def inform7_type_item(self) -> None:
        self.name("kind or definition", r"kind|definition")
        self.take("::")
        self.logic.inform7_text.append(self.take("str")[1:-1])
        self.take(";")

    def inform7_predicate(self) -> None:
        self._phs = {}
        self.predicate()
        self.take("::")
        self.take("str")
        self.take(";")

    def inform7_command(self) -> None:
        rule = self.name("a rule name", r"[\w/]+")
        self.take("::")
        command = self.take("str")[1:-1]
        self.take("::")
        event = self.take("str")[1:-1]
        self.take(";")
        self.logic.commands[rule] = command
        self.logic.inform7_text += [command, event]


def _expand(logic: Logic, preds: Sequence[Predicate], seen: Tuple[tuple, ...] = ()) -> Tuple[Predicate, ...]:
    out: List[Predicate] = []
    for pred in preds:
        alias = logic.aliases.get(pred.signature)
        if alias is None:
            out.append(pred)
            continue
        if pred.signature in seen:
            raise LogicSyntaxError(f"cycle of aliases involving {pred.name}")
        pattern, replacement = alias
        mapping = dict(zip(pattern.params, pred.params))
        out.extend(_expand(logic, [r.substitute(mapping) for r in replacement], seen + (pred.signature,)))
    return tuple(out)


@functools.lru_cache(maxsize=32)
def parse_logic(text: str) -> Logic:
    """Parse a logic document (``KB.logic`` of a TextWorld game) into a :class:`Logic`.

    Aliases are expanded inside rules (``south_of(r', r)`` becomes
    ``north_of(r, r')``). Raises LogicSyntaxError (with ``line:column``) on
    bad syntax, duplicate declarations or conflicting placeholder types; a
    reverse rule or command naming an unknown rule is ignored, as TextWorld does.
    The result is cached per text; treat it as read-only.
    """
    logic = _Parser(text).document()
    for rule in logic.rules.values():
        for pred in rule.pre + rule.post:
            for ph in pred.params:
                if ph.type not in logic.types:
                    raise LogicSyntaxError(f"rule {rule.name!r}: unknown type {ph.type!r} of placeholder {ph.name!r}")
    logic.rules = {n: Rule(n, _expand(logic, r.pre), _expand(logic, r.post)) for n, r in logic.rules.items()}
    return logic
