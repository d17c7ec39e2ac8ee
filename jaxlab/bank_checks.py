"""What the arrays of a bank file must hold, for any level type that states its rules. numpy only, on
the host, before anything reaches a kernel. This module knows no family: a level type that can be
banked has ``bank_example()`` and ``bank_rules()`` (a ``BankRules``: its field table, minimum sizes
and cross-field checks; the first-person ``Level``'s are in ``jaxlab.levels.dmlab.bank_rules``).

A level type's arrays are checked in three passes, each ending at the first problem:

1. structure: every field has the dtype and rank of the type's ``bank_example()``, dict arrays
   have an allowed dtype (``BANK_DICT_DTYPES``), and all share one number of levels N >= 1;
2. the field table (``BankRules.fields``): per-level shapes whose named axes agree across fields
   (``S`` spawn points in ``spawn_pos`` [S, 2], ``spawn_yaw`` [S] and ``spawn_allowed`` [K, S]),
   with minimum sizes (``BankRules.min_sizes``); float arrays finite (NaN only where a rule allows
   it); values inside a set of codes or inclusive bounds, which may be one of the bank's sizes (an
   index into the doors is at most D - 1);
3. cross-field checks (``BankRules.cross_checks``), e.g. a first-person grid enclosed by walls.

Each problem is one line that names the array as it is stored in the file (``level/<field>`` or
``<field>/<key>``) and the level it was found in, e.g. ``level/pickup_reward: NaN at level 0,
index 2``; ``jaxlab.bank_file`` puts the file's path in front.
"""
from __future__ import annotations

import dataclasses
import functools
from typing import Callable, Dict, FrozenSet, Iterator, NamedTuple, Optional, Tuple, Union

import numpy as np

ARRAY_PREFIX = "level/"
#: the largest |reward| a level may pay per pickup or event, so that a frame's sum stays finite
REWARD_LIMIT = 1e9
#: the longest episode (and hidden-platform wait) in seconds: 1e6 s is 6e7 frames at 60 fps,
#: well inside the int32 frame counters
MAX_SECONDS = 1e6


class Size(NamedTuple):
    """A bound given by one of the bank's sizes: the length of axis ``dim`` plus ``offset``."""

    dim: str
    offset: int = 0


Bound = Union[None, float, Size]


@dataclasses.dataclass(frozen=True)
class Rule:
    """What one field's arrays must hold.

    dims: the per-level shape (without the bank axis), one entry per axis: a name (axes of one name
      have one length in the whole bank) or a fixed length; None: any shape (dict arrays).
    low, high: inclusive bounds on every value (a number, a ``Size``, or None: unbounded).
    positive: every value is > 0.
    values: the allowed values (codes), or None.
    nan: NaN is allowed (float arrays are otherwise finite; infinities never are).
    broadcast: each named axis may instead have length 1 (the kernel uses the field elementwise
      with its fellows, so it broadcasts; compiled Lua levels store the pickups' key, switch,
      teleport and count columns so when they have none).
    """

    dims: Optional[Tuple[Union[str, int], ...]]
    low: Bound = None
    high: Bound = None
    positive: bool = False
    values: Optional[FrozenSet[int]] = None
    nan: bool = False
    broadcast: bool = False


def reward_rule(dims: Tuple[str, ...] = ()) -> Rule:
    """A reward: finite and at most REWARD_LIMIT in size."""
    return Rule(dims, low=-REWARD_LIMIT, high=REWARD_LIMIT)


Fields = Dict[str, np.ndarray]
Dicts = Dict[str, Dict[str, np.ndarray]]


class BankRules(NamedTuple):
    """What a level type's bank arrays must hold, beyond the dtypes and ranks of its example.

    fields: field name -> its ``Rule`` (every field of the level type has one);
    min_sizes: axis name -> the smallest length it may have (others: 0); a kernel indexes into
      these arrays, so they may not be empty;
    cross_checks: checks across fields, in order; each takes every array field ([N, ...]) and
      yields problem lines.
    """

    fields: Dict[str, Rule]
    min_sizes: Dict[str, int] = {}
    cross_checks: Tuple[Callable[[Fields], Iterator[str]], ...] = ()


@functools.lru_cache(maxsize=None)
def layout(level_type: type) -> Tuple[Dict[str, Tuple[np.dtype, int]], Dict[str, Tuple[np.dtype, ...]]]:
    """(array field -> (dtype, rank with the bank axis), dict field -> allowed dtypes) of ``level_type``,
    from its ``bank_example()`` and ``BANK_DICT_DTYPES``; TypeError for a type that cannot be banked on
    disk (no ``bank_example()`` or no ``bank_rules()``)."""
    if not hasattr(level_type, "bank_example"):
        raise TypeError(f"{level_type.__name__} levels cannot be saved as a bank file (no bank_example(); "
                        "text games are saved as TextWorld JSON with Game.save)")
    if not hasattr(level_type, "bank_rules"):
        raise TypeError(f"{level_type.__name__} levels cannot be saved as a bank file (no bank_rules())")
    example = level_type.bank_example()
    dict_dtypes = getattr(level_type, "BANK_DICT_DTYPES", {})
    arrays = {}
    for name in level_type.__dataclass_fields__:
        if name not in dict_dtypes:
            value = np.asarray(getattr(example, name))
            arrays[name] = (value.dtype, value.ndim + 1)
    return arrays, {name: tuple(np.dtype(d) for d in dtypes) for name, dtypes in dict_dtypes.items()}


def first_problem(level_type: type, fields: Fields, dicts: Dicts) -> Optional[str]:
    """The first problem of a bank's arrays as one line (see the module docstring), or None.

    fields: array field -> [N, ...] array, every field of ``layout(level_type)`` present;
    dicts: dict field -> {key: [N, ...] array}.
    """
    passes = (_structure_problems(level_type, fields, dicts), _rule_problems(level_type, fields, dicts),
              *(check(fields) for check in level_type.bank_rules().cross_checks))
    for problems in passes:
        problem = next(problems, None)
        if problem is not None:
            return problem
    return None


def field_problem(level_type: type, name: str, a: np.ndarray) -> Optional[str]:
    """The problem of array field ``name``'s array ``a`` ([N, ...]) if it lacks the dtype or rank of
    ``level_type``'s example, else None."""
    dtype, rank = layout(level_type)[0][name]
    if a.dtype != dtype or a.ndim != rank:
        return (f"{ARRAY_PREFIX}{name}: field {name!r} is {a.dtype}[{a.ndim}-d], a {level_type.__name__} "
                f"bank needs {dtype}[{rank}-d]")
    return None


def _structure_problems(level_type: type, fields: Fields, dicts: Dicts) -> Iterator[str]:
    """Dtype and rank of every array, and one number of levels N >= 1."""
    for name, a in fields.items():
        problem = field_problem(level_type, name, a)
        if problem:
            yield problem
    dict_dtypes = layout(level_type)[1]
    for field, members in dicts.items():
        allowed = " or ".join(str(d) for d in dict_dtypes[field])
        for key, a in members.items():
            if a.dtype not in dict_dtypes[field] or a.ndim < 1:
                yield (f"{field}/{key}: {field} {key!r} is {a.dtype}[{a.ndim}-d], a {level_type.__name__} "
                       f"bank needs {allowed} with the bank axis")
    sizes = {a.shape[0] for a in list(fields.values()) + [a for d in dicts.values() for a in d.values()]}
    if len(sizes) != 1 or 0 in sizes:
        yield f"bank file arrays disagree on the number of levels ({sorted(sizes)})"


def _rule_problems(level_type: type, fields: Fields, dicts: Dicts) -> Iterator[str]:
    """Per-level shapes, minimum sizes, finiteness and value ranges of ``level_type.bank_rules()``."""
    rules, minimum, _ = level_type.bank_rules()
    sizes: Dict[str, Tuple[int, str]] = {}   # axis name -> (length, the member that set it)
    members = [(ARRAY_PREFIX + name, a, rules[name]) for name, a in fields.items()]
    members += [(f"{field}/{key}", a, rules[field]) for field, d in dicts.items() for key, a in sorted(d.items())]
    for member, a, rule in members:
        for axis, (dim, length) in enumerate(zip(rule.dims or (), a.shape[1:])):
            shape = f"per-level shape {list(a.shape[1:])}"
            if rule.broadcast and length == 1:
                continue
            if isinstance(dim, int) and length != dim:
                yield f"{member}: {shape}, axis {axis} must have length {dim}"
            elif isinstance(dim, str) and dim in sizes and sizes[dim][0] != length:
                yield f"{member}: {shape}: {dim} = {length} here but {sizes[dim][0]} in {sizes[dim][1]}"
            elif isinstance(dim, str) and length < minimum.get(dim, 0):
                yield f"{member}: {shape}: {dim} = {length}, a bank needs at least {minimum[dim]}"
            sizes.setdefault(dim, (length, member))
    lengths = {dim: length for dim, (length, _) in sizes.items()}
    for member, a, rule in members:
        problem = _value_problem(member, a, rule, lengths)
        if problem:
            yield problem


def _where(a: np.ndarray, bad: np.ndarray) -> str:
    """'level i' (and ', index (...)' inside a level) of the first True of ``bad`` (same shape as ``a``)."""
    first = tuple(int(i) for i in np.argwhere(bad)[0])
    inside = f", index {first[1:] if len(first) > 2 else first[1]}" if len(first) > 1 else ""
    return f"level {first[0]}{inside}"


def _first_value(a: np.ndarray, bad: np.ndarray) -> str:
    """The first value of ``a`` where ``bad``, as text (NaN, inf, -inf or the number)."""
    value = a[tuple(np.argwhere(bad)[0])].item()
    return "NaN" if value != value else repr(value)


def _bound(bound: Bound, sizes: Dict[str, int]) -> Optional[float]:
    """A rule's bound as a number (a ``Size`` resolved against the bank's axis lengths)."""
    return sizes[bound.dim] + bound.offset if isinstance(bound, Size) else bound


def _value_problem(member: str, a: np.ndarray, rule: Rule, sizes: Dict[str, int]) -> Optional[str]:
    """The first value of ``a`` (one field's [N, ...] array) that breaks ``rule``, as a line."""
    if a.dtype.kind == "f":
        bad = np.isinf(a) if rule.nan else ~np.isfinite(a)
        if bad.any():
            return f"{member}: {_first_value(a, bad)} at {_where(a, bad)}"
    if rule.values is not None:
        bad = ~np.isin(a, sorted(rule.values))
        if bad.any():
            return (f"{member}: {_first_value(a, bad)} at {_where(a, bad)} is not one of "
                    f"{sorted(rule.values)}")
    if rule.positive:
        bad = ~(a > 0)
        if bad.any():
            return f"{member}: {_first_value(a, bad)} at {_where(a, bad)} is not positive"
    low, high = _bound(rule.low, sizes), _bound(rule.high, sizes)
    bad = np.zeros(a.shape, bool)
    if low is not None:
        bad |= a < low
    if high is not None:
        bad |= a > high
    if bad.any():
        span = f"[{'-inf' if low is None else low}, {'inf' if high is None else high}]"
        return f"{member}: {_first_value(a, bad)} at {_where(a, bad)} is outside {span}"
    return None
