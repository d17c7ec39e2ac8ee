"""Quake III ``.map`` sources (DeepMind Lab's ``assets/maps/src``) read as level data: entities and brushes.

A ``.map`` file is a list of entities, each ``{`` ``"key" "value"`` pairs and
brushes ``}``. A brush is ``{`` one face per line ``}``; a face is three points
``( x y z ) ( x y z ) ( x y z )`` on its plane, a texture name and up to eight
numbers (texture shift, rotation, scale, flags). The outward normal of a face
is ``(p3 - p1) x (p2 - p1)``: the brush is the intersection of the half-spaces
behind its faces. A brush may instead hold a curved patch (``patchDef2``, a
decal on a wall in DeepMind Lab's mazes, a screen): patches are no world geometry, and each is kept as the
box of its control points (:class:`Patch`), for a trigger volume made of them or a surface that shows a
texture.

:func:`parse_quake_map` reads the text into :class:`QuakeMap` (every brush as
its bounding box in game units, z up); :mod:`jaxlab.levels.dmlab.quake_layout`
turns one into a jaxlab map. The text is untrusted: it is capped
(:data:`MAX_MAP_BYTES`, :data:`MAX_BRUSHES`, :data:`MAX_ENTITIES`,
:data:`MAX_FACES`, :data:`MAX_SLOPED_CORNERS`) and every malformed part is a
:class:`~jaxlab.levels.dmlab.map_parser.MapError` at its ``file:line:column``.

Two things are tolerated as DeepMind Lab's map compiler (q3map2) tolerates
them, each with a note in :attr:`QuakeMap.notes`: text where an entity's
``{`` belongs ends the map there (q3map2 warns and stops reading, so the built
map lacks the rest; two of DeepMind Lab's mazes lose trailing lights this
way), and a face whose three points lie on one line is dropped (a brush left
empty or unbounded by that is dropped too).
"""
from __future__ import annotations

import dataclasses
import itertools
import math
import re
from typing import Dict, Iterator, List, Optional, Tuple, Union

import numpy as np

from jaxlab.levels.dmlab.map_parser import MapError

MAX_MAP_BYTES = 8 * 2**20        # the largest .map file read (DeepMind Lab's largest is 0.7 MB)
MAX_ENTITIES = 16384
MAX_BRUSHES = 16384
MAX_FACES = 64                   # faces of one brush
MAX_SLOPED_CORNERS = 2_000_000   # face triples tried for the corners of all sloped brushes together
MAX_NOTES = 12                   # notes kept; the rest are counted in the last one
PATCH_WORDS = ("patchDef2", "patchDef3", "patchDefWS")
#: the classes Quake III spawns players at (its info_player_start is an info_player_deathmatch)
SPAWN_CLASSES = ("info_player_start", "info_player_deathmatch")
_TOKEN = re.compile(r'\s*(?:(//.*)|"([^"\n]*)"|(")|([^\s"]+))')


class UnconvertibleMap(ValueError):
    """A well-formed ``.map`` that jaxlab's levels cannot hold; the message names the file and the reason."""

    def __init__(self, source: str, reason: str):
        super().__init__(f"{source}: cannot be converted to a jaxlab level: {reason}")


@dataclasses.dataclass(frozen=True)
class Brush:
    """One brush of a ``.map`` file.

    line: the line of its ``{``. textures: the texture of each face. lo, hi: float64[3] corners of its
    bounding box (x, y, z game units, z up). aligned: every face is perpendicular to an axis, so the brush
    is exactly that box (else it has a sloped face and the box bounds its corners). planes: float64[F, 4]
    the unit outward normal (x, y, z) and offset d of each face (the brush is where normal . p <= d).
    """

    line: int
    textures: Tuple[str, ...]
    lo: np.ndarray
    hi: np.ndarray
    aligned: bool
    planes: np.ndarray

    @property
    def size(self) -> np.ndarray:
        """float64[3]: the box's extent along x, y and z in units."""
        return self.hi - self.lo


@dataclasses.dataclass(frozen=True)
class Patch:
    """One curved patch (``patchDef2``) of a ``.map`` file.

    line: the line of its brush's ``{``. texture: its texture name. lo, hi: float64[3] corners of the box of
    its control points (x, y, z game units; a flat patch has lo == hi along one axis). st_lo, st_hi:
    float64[2] the texture coordinates (s, t) of the control points nearest ``lo`` and ``hi``.
    """

    line: int
    texture: str
    lo: np.ndarray
    hi: np.ndarray
    st_lo: np.ndarray
    st_hi: np.ndarray


@dataclasses.dataclass(frozen=True)
class Entity:
    """One entity: the line of its ``{``, its key-value pairs (a key given twice keeps its last value),
    its brushes and its patches."""

    line: int
    fields: Dict[str, str]
    brushes: Tuple[Brush, ...]
    patches: Tuple[Patch, ...] = ()

    @property
    def classname(self) -> str:
        """The entity's ``classname`` ('' when it has none)."""
        return self.fields.get("classname", "")


@dataclasses.dataclass(frozen=True)
class QuakeMap:
    """A parsed ``.map`` file: its ``source`` (for messages), entities in file order and ``notes`` on what
    was left out as DeepMind Lab's map compiler leaves it out."""

    source: str
    entities: Tuple[Entity, ...]
    notes: Tuple[str, ...]


@dataclasses.dataclass(frozen=True)
class _Token:
    text: str
    line: int
    column: int
    quoted: bool


class _Tokens:
    """The tokens of a ``.map`` text with one token of lookahead: quoted strings (without their quotes)
    and runs of non-blank characters; ``//`` comments run to the end of their line."""

    def __init__(self, text: str, source: str):
        self.source = source
        self.lines = text.split("\n")
        self.last_line = len(text.rstrip("\n").split("\n"))
        self._iter = self._scan()
        self._next: Optional[_Token] = next(self._iter, None)

    def _scan(self) -> Iterator[_Token]:
        for number, line in enumerate(self.lines, 1):
            at = 0
            while at < len(line):
                match = _TOKEN.match(line, at)
                if match is None or match.end() == at:
                    break
                at = match.end()
                comment, quoted, stray, word = match.groups()
                if comment is not None:
                    break
                if stray is not None:
                    raise MapError(self.source, number, match.start(3) + 1, "a '\"' that is never closed on its line")
                if quoted is not None:
                    yield _Token(quoted, number, match.start(2), True)
                elif word is not None:
                    yield _Token(word, number, match.start(4) + 1, False)

    def peek(self) -> Optional[_Token]:
        """The next token without taking it; None at the end of the text."""
        return self._next

    def take(self, what: str, opened: Optional[_Token] = None) -> _Token:
        """The next token; MapError at the end of the text, saying ``what`` was expected (and which ``{``,
        ``opened``, is still open)."""
        token = self._next
        if token is None:
            where = f" (the '{{' at line {opened.line} is never closed)" if opened is not None else ""
            raise MapError(self.source, self.last_line, 1, f"the file ends where {what} belongs{where}")
        self._next = next(self._iter, None)
        return token

    def error(self, token: _Token, message: str) -> MapError:
        """A MapError at ``token``."""
        return MapError(self.source, token.line, token.column, message)


def _is(token: Optional[_Token], text: str) -> bool:
    return token is not None and not token.quoted and token.text == text


def _number(tokens: _Tokens, token: _Token) -> float:
    try:
        value = float(token.text)
    except ValueError:
        value = math.nan
    if token.quoted or not math.isfinite(value):
        raise tokens.error(token, f"expected a number, found {token.text[:40]!r}")
    return value


def _face(tokens: _Tokens, opened: _Token) -> Tuple[List[List[float]], str]:
    """One face line: its three points ([x, y, z] each) and its texture name."""
    points = []
    for _ in range(3):
        token = tokens.take("a face's '('", opened)
        if not _is(token, "("):
            raise tokens.error(token, f"expected '(' of a face's point, found {token.text[:40]!r}")
        points.append([_number(tokens, tokens.take("a number", opened)) for _ in range(3)])
        token = tokens.take("')'", opened)
        if not _is(token, ")"):
            raise tokens.error(token, f"expected ')' after a point's three numbers, found {token.text[:40]!r}")
    texture = tokens.take("a texture name", opened)
    if not texture.quoted and texture.text in ("(", ")", "{", "}"):
        raise tokens.error(texture, f"expected a texture name after a face's three points, found {texture.text!r}")
    for _ in range(8):   # texture shift, rotation and scale, then content flags, surface flags and value
        token = tokens.peek()
        if token is None or token.quoted or token.text in ("(", "}") or token.line != texture.line:
            break
        _number(tokens, tokens.take("a number", opened))
    return points, texture.text


def _patch(tokens: _Tokens, opened: _Token) -> Patch:
    """A patch's ``{ texture ( w h 0 0 0 ) ( ( ( x y z s t ) ... ) ... ) }`` after its ``patchDef`` word, and
    the ``}`` that closes its brush: its texture and the box of its control points (five numbers in
    parentheses three deep)."""
    first = tokens.take("a patch's '{'", opened)
    if not _is(first, "{"):
        raise tokens.error(first, f"expected the '{{' of a patch after its name, found {first.text[:40]!r}")
    texture = tokens.take("a patch's texture name", first)
    depth, points, point = 0, [], []
    while True:
        token = tokens.take("the '}' of a patch", first)
        if _is(token, "}") and depth == 0:
            break
        if _is(token, "(") or _is(token, ")"):
            if _is(token, ")") and depth == 3:
                if len(point) != 5:
                    raise tokens.error(token, f"a patch's control point needs 5 numbers (x y z s t), found {len(point)}")
                points.append(point)
            depth += 1 if _is(token, "(") else -1
            point = []
            if depth < 0:
                raise tokens.error(token, "a ')' closes no '(' in a patch")
        elif depth == 3:
            point.append(_number(tokens, token))
        elif depth == 0 or token.text in ("{", "}"):
            raise tokens.error(token, f"expected '(' or the '}}' closing the patch, found {token.text[:40]!r}")
    if not points:
        raise tokens.error(first, "a patch without control points")
    closing = tokens.take("the '}' of a brush", opened)
    if not _is(closing, "}"):
        raise tokens.error(closing, f"expected '}}' after a patch, found {closing.text[:40]!r}")
    grid = np.asarray(points)
    lo, hi = grid[:, :3].min(axis=0), grid[:, :3].max(axis=0)
    nearest = [grid[int(np.argmin(np.abs(grid[:, :3] - corner).sum(axis=1))), 3:] for corner in (lo, hi)]
    return Patch(opened.line, texture.text, lo + 0.0, hi + 0.0, *nearest)


def _box(faces: List[Tuple[List[List[float]], str]], opened: _Token, budget: List[int],
         tokens: _Tokens) -> Tuple[Optional[Tuple[np.ndarray, np.ndarray, bool, np.ndarray]], str, int]:
    """((lo, hi, aligned, planes) or None when the brush is dropped, why it is dropped, how many faces were dropped
    for having three points on one line) of a brush's faces."""
    points = np.asarray([face for face, _ in faces])                       # [F, 3 points, xyz]
    normals = np.cross(points[:, 2] - points[:, 0], points[:, 1] - points[:, 0])
    lengths = np.linalg.norm(normals, axis=1)
    spans = lengths > 1e-9
    dropped = int((~spans).sum())
    if spans.sum() < 4:
        return None, "too few of its faces have points that span a plane", dropped
    normals_a = normals[spans] / lengths[spans, None]
    offsets_a = np.einsum("fi,fi->f", normals_a, points[spans, 0])
    planes = np.concatenate([normals_a, offsets_a[:, None]], axis=1)
    axis = np.abs(normals_a) > 1.0 - 1e-9
    if axis.any(axis=1).all():
        lo, hi = np.full(3, -np.inf), np.full(3, np.inf)
        for normal, offset, row in zip(normals_a.tolist(), offsets_a.tolist(), axis):
            a = int(np.argmax(row))
            if normal[a] > 0:
                hi[a] = min(hi[a], offset)
            else:
                lo[a] = max(lo[a], -offset)
        if not (np.isfinite(lo).all() and np.isfinite(hi).all()):
            return None, "it is open on one side (no face bounds it along an axis)", dropped
        if (hi - lo <= 0).any():
            return None, "its faces enclose nothing", dropped
        return (lo + 0.0, hi + 0.0, True, planes), "", dropped   # + 0.0: no -0 from a negated 0
    triples = np.asarray(list(itertools.combinations(range(len(normals_a)), 3)))
    budget[0] -= len(triples)
    if budget[0] < 0:
        raise tokens.error(opened, f"too many sloped brush faces: the file's sloped brushes need more than "
                                   f"{MAX_SLOPED_CORNERS} face triples to find their corners")
    matrices, rhs = normals_a[triples], offsets_a[triples]
    solvable = np.abs(np.linalg.det(matrices)) > 1e-9
    corners = np.linalg.solve(matrices[solvable], rhs[solvable][..., None])[..., 0]
    inside = (corners @ normals_a.T <= offsets_a + 1e-6).all(axis=1)
    corners = corners[inside]
    if len(corners) < 4:
        return None, "its faces enclose nothing", dropped
    return (corners.min(axis=0), corners.max(axis=0), False, planes), "", dropped


def _brush(tokens: _Tokens, opened: _Token, counts: Dict[str, int], notes: List[str],
           budget: List[int]) -> Union[Brush, Patch, None]:
    """The brush whose ``{`` is ``opened``: a Brush, a Patch, or None for a dropped brush."""
    first = tokens.peek()
    if first is not None and not first.quoted and first.text in PATCH_WORDS:
        tokens.take("a patch")
        counts["brushes"] += 1
        if counts["brushes"] > MAX_BRUSHES:
            raise tokens.error(opened, f"more than {MAX_BRUSHES} brushes and patches")
        return _patch(tokens, opened)
    if first is not None and not first.quoted and first.text.startswith("brushDef"):
        raise tokens.error(first, f"{first.text!r} brushes (brush primitives) are not read; save the map "
                                  "with plain faces '( x y z ) ( x y z ) ( x y z ) texture ...'")
    faces = []
    while _is(tokens.peek(), "("):
        faces.append(_face(tokens, opened))
        if len(faces) > MAX_FACES:
            raise tokens.error(opened, f"a brush with more than {MAX_FACES} faces")
    closing = tokens.take("the '}' of a brush", opened)
    if not _is(closing, "}"):
        raise tokens.error(closing, f"expected a face '( x y z ) ...' or the '}}' closing the brush opened at "
                                    f"line {opened.line}, found {closing.text[:40]!r}")
    if not faces:
        raise tokens.error(opened, "a brush without faces")
    counts["brushes"] += 1
    if counts["brushes"] > MAX_BRUSHES:
        raise tokens.error(opened, f"more than {MAX_BRUSHES} brushes")
    box, why, dropped = _box(faces, opened, budget, tokens)
    if dropped:
        notes.append(f"{tokens.source}:{opened.line}: {dropped} of the brush's {len(faces)} faces are dropped: "
                     "their three points lie on one line")
    if box is None:
        notes.append(f"{tokens.source}:{opened.line}: the brush is dropped: {why}")
        return None
    return Brush(opened.line, tuple(texture for _, texture in faces), *box)


def _entity(tokens: _Tokens, opened: _Token, counts: Dict[str, int], notes: List[str],
            budget: List[int]) -> Entity:
    """The entity whose ``{`` is ``opened``."""
    fields: Dict[str, str] = {}
    brushes: List[Brush] = []
    patches: List[Patch] = []
    while True:
        token = tokens.take("'}' or more of the entity", opened)
        if _is(token, "}"):
            return Entity(opened.line, fields, tuple(brushes), tuple(patches))
        if _is(token, "{"):
            brush = _brush(tokens, token, counts, notes, budget)
            if isinstance(brush, Patch):
                patches.append(brush)
            elif brush is not None:
                brushes.append(brush)
        elif token.quoted:
            value = tokens.take("the value of a key", opened)
            if not value.quoted:
                raise tokens.error(value, f"the key {token.text[:40]!r} needs a quoted value, found "
                                          f"{value.text[:40]!r}")
            fields[token.text] = value.text
        else:
            raise tokens.error(token, f"expected a \"key\" \"value\" pair, a brush '{{' or the '}}' closing the "
                                      f"entity opened at line {opened.line}, found {token.text[:40]!r}")


def parse_quake_map(text: str, source: str = "<map>") -> QuakeMap:
    """Parse the text of a Quake III ``.map`` file.

    Args:
      text: the file's text (at most :data:`MAX_MAP_BYTES` characters).
      source: a name for messages (the file's path).

    Returns: a QuakeMap (see the module docstring for what is skipped or tolerated, with notes).
    Raises MapError (``source:line:column: message``) for a malformed or oversized file.
    """
    if len(text) > MAX_MAP_BYTES:
        raise MapError(source, 1, 1, f"the map is larger than {MAX_MAP_BYTES // 2**20} MB")
    tokens = _Tokens(text, source)
    counts = {"brushes": 0}
    notes: List[str] = []
    budget = [MAX_SLOPED_CORNERS]
    entities: List[Entity] = []
    while tokens.peek() is not None:
        token = tokens.take("an entity")
        if not _is(token, "{"):
            notes.append(f"{source}:{token.line}: {token.text[:40]!r} stands where an entity's '{{' belongs; "
                         f"DeepMind Lab's map compiler stops reading there, so lines {token.line}-"
                         f"{tokens.last_line} are left out, as they are from its built map")
            break
        entities.append(_entity(tokens, token, counts, notes, budget))
        if len(entities) > MAX_ENTITIES:
            raise tokens.error(token, f"more than {MAX_ENTITIES} entities")
    if not entities:
        raise MapError(source, 1, 1, "the map has no entities")
    if len(notes) > MAX_NOTES:
        notes[MAX_NOTES - 1:] = [f"... and {len(notes) - MAX_NOTES + 1} more notes like these"]
    return QuakeMap(source, tuple(entities), tuple(notes))
