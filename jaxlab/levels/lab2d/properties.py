"""Lab2D's properties API over a nested settings dict.

A Lab2D level exposes its settings as properties under the key ``settings``:
``settings.episodeLengthFrames``, ``settings.gridShape.width``, list entries
by 1-based index (``settings.regrowth.2``). These functions give dmlab2d's
Python behaviour (``Lab2d.read_property`` / ``write_property`` /
``list_property``) over a plain nested dict, so that a host environment can
serve them from a ``GridSpec.settings``:

    >>> s = {"numBoxes": 4, "gridShape": {"width": 10, "height": 10}}
    >>> read_property(s, "settings.numBoxes")
    '4'
    >>> write_property(s, "settings.gridShape.width", "12"); s["gridShape"]["width"]
    12
    >>> list_property(s, "settings.gridShape")
    [('settings.gridShape.width', <PropertyAttribute.READABLE_WRITABLE: 3>), ...]

Results follow Lab2D's ``PROPERTY_RESULT`` codes. A failure raises the
exception dmlab2d raises, subclassed so that ``err.result`` tells which:
NOT_FOUND -> :class:`PropertyNotFoundError` (a ``KeyError``, with close-match
suggestions), PERMISSION_DENIED -> :class:`PropertyPermissionError` (a
``ValueError``: reading or writing a table of properties, or below a value),
INVALID_ARGUMENT -> :class:`PropertyInvalidArgumentError` (a ``ValueError``:
a value that does not convert to the property's type).

Values are read as Lua writes them (``true``/``false``, integers as
digits, other numbers with ``%.14g``) and written converted to the existing
value's type by :func:`jaxlab.settings.convert_setting` (strings as given,
booleans from ``true``/``false``, numbers as Lua's ``tonumber`` reads them);
its SettingError is an INVALID_ARGUMENT. One deliberate difference: Lua has
a single number type, so dmlab2d stores ``5.5`` into an integer setting;
here an integer setting stays an integer and ``5.5`` is an INVALID_ARGUMENT.
``None`` values count as absent (Lua's nil).
"""
from __future__ import annotations

import copy
import enum
import numbers
import re
from typing import Any, Dict, List, Mapping, MutableMapping, Optional, Sequence, Tuple

from jaxlab.errors import UnknownNameError, unknown_name_error
from jaxlab.settings import SettingError, convert_setting, lua_tonumber, refusal

#: The key the settings are exposed under, as in Lab2D levels.
ROOT = "settings"


class PropertyAttribute(enum.IntFlag):
    """What can be done with a listed property (dmlab2d's values)."""

    NONE = 0
    READABLE = 1
    WRITABLE = 2
    READABLE_WRITABLE = 3
    LISTABLE = 4
    READABLE_LISTABLE = 5
    WRITABLE_LISTABLE = 6
    READABLE_WRITABLE_LISTABLE = 7


class PropertyResult(enum.IntEnum):
    """Lab2D's ``PROPERTY_RESULT`` (``system.properties`` in Lua)."""

    SUCCESS = 0
    NOT_FOUND = 1
    PERMISSION_DENIED = 2
    INVALID_ARGUMENT = 3


class PropertyError(Exception):
    """A property call that did not succeed; ``result`` is its PropertyResult
    and ``key`` the key asked for."""

    result = PropertyResult.SUCCESS

    def __init__(self, message: str, key: str = ""):
        super().__init__(message)
        self.key = key


class PropertyNotFoundError(UnknownNameError, PropertyError):
    """NOT_FOUND: no such property (a KeyError, as in dmlab2d)."""

    result = PropertyResult.NOT_FOUND


class PropertyPermissionError(PropertyError, ValueError):
    """PERMISSION_DENIED: the key names a table of properties, or lies below a value."""

    result = PropertyResult.PERMISSION_DENIED


class PropertyInvalidArgumentError(PropertyError, ValueError):
    """INVALID_ARGUMENT: the value does not convert to the property's type."""

    result = PropertyResult.INVALID_ARGUMENT


def raise_for(result: int, key: str, doing: str) -> None:
    """Raise what dmlab2d raises when a level's own property callback answers ``result`` (a
    :class:`PropertyResult` code) for ``key``, ``doing`` it (``reading``, ``writing`` or ``listing``):
    nothing for SUCCESS, PropertyNotFoundError (a KeyError) for NOT_FOUND, PropertyPermissionError and
    PropertyInvalidArgumentError (ValueErrors) for PERMISSION_DENIED and INVALID_ARGUMENT."""
    result = PropertyResult(int(result))
    if result == PropertyResult.NOT_FOUND:
        raise PropertyNotFoundError(f"unknown property {key!r} (the level's script does not know it)", key)
    if result == PropertyResult.PERMISSION_DENIED:
        raise PropertyPermissionError(f"permission denied {doing} {key!r} (the level's script refuses it)", key)
    if result == PropertyResult.INVALID_ARGUMENT:
        raise PropertyInvalidArgumentError(f"invalid argument {doing} {key!r} (the level's script refuses it)", key)


def mode_attribute(mode: str) -> PropertyAttribute:
    """The PropertyAttribute of a Lab2D listing mode: any of ``r`` (READABLE), ``w`` (WRITABLE) and ``l``
    (LISTABLE), e.g. ``'rw'`` -> READABLE_WRITABLE."""
    bits = {"r": PropertyAttribute.READABLE, "w": PropertyAttribute.WRITABLE, "l": PropertyAttribute.LISTABLE}
    attribute = PropertyAttribute.NONE
    for letter in mode:
        attribute |= bits[letter]
    return PropertyAttribute(attribute)


_MISSING = object()


def _is_table(value: Any) -> bool:
    return isinstance(value, (Mapping, list, tuple))


def _split(key: str) -> List[str]:
    return key.split(".") if key else []


def _child(container: Any, part: str) -> Any:
    """``container[part]`` with Lab2D's key rules (1-based list indices; a
    numeric part also finds an int dict key); _MISSING when absent or None."""
    if isinstance(container, Mapping):
        value = container.get(part, _MISSING)
        if value is _MISSING and re.fullmatch(r"-?[0-9]+", part):
            value = container.get(int(part), _MISSING)
    elif isinstance(container, (list, tuple)):
        if not re.fullmatch(r"[0-9]+", part) or not 1 <= int(part) <= len(container):
            return _MISSING
        value = container[int(part) - 1]
    else:
        return _MISSING
    return _MISSING if value is None else value


def _children(container: Any) -> List[Tuple[str, Any]]:
    """(key part, value) of a table, in order; None values left out."""
    if isinstance(container, Mapping):
        items = [(str(k), v) for k, v in container.items()]
    else:
        items = [(str(i), v) for i, v in enumerate(container, 1)]
    return [(k, v) for k, v in items if v is not None]


def _not_found(key: str, parent: Any, prefix: str) -> PropertyNotFoundError:
    known = [prefix + k for k, _ in _children(parent)] if _is_table(parent) else []
    message = str(unknown_name_error("property", key, known)) if known else \
        f"unknown property {key!r} (no properties under {prefix[:-1]!r})" if prefix else \
        f"unknown property {key!r}"
    return PropertyNotFoundError(message, key)


def _walk(settings: Mapping[str, Any], key: str) -> Tuple[Any, Any, str, List[str]]:
    """Follows ``key`` from the root. Returns (value, parent, parent prefix,
    parts) where value is _MISSING when the key is absent; raises
    PropertyPermissionError when the key goes below a value."""
    if not isinstance(settings, Mapping):
        raise TypeError(f"settings must be a dict, got {type(settings).__name__}")
    node: Any = {ROOT: settings}
    parent, prefix = node, ""
    parts = _split(key)
    for depth, part in enumerate(parts):
        if not _is_table(node):
            raise PropertyPermissionError(
                f"permission denied: {'.'.join(parts[:depth])!r} is a value, not a table of "
                f"properties, so {key!r} does not exist below it", key)
        parent, prefix = node, "".join(p + "." for p in parts[:depth])
        node = _child(node, part)
        if node is _MISSING:
            return _MISSING, parent, prefix, parts
    return node, parent, prefix, parts


def _check_key(call: str, key: Any) -> str:
    """``key`` when it is a str; TypeError naming ``call`` otherwise (dmlab2d's keys are strings)."""
    if not isinstance(key, str):
        raise TypeError(refusal(call, "key", "a property key (a str such as 'settings.numBoxes')", key))
    return key


def _value(settings: Mapping[str, Any], key: str, doing: str, hint: str) -> Tuple[Any, List[str]]:
    """(value, key parts) of the property ``key``; raises NOT_FOUND when it is
    absent and PERMISSION_DENIED (``doing`` it, with ``hint``) when it is a table."""
    value, parent, prefix, parts = _walk(settings, key)
    if value is _MISSING:
        raise _not_found(key, parent, prefix)
    if _is_table(value):
        raise PropertyPermissionError(
            f"permission denied {doing} {key!r}: it is a table of properties; {hint}", key)
    return value, parts


def format_value(value: Any) -> str:
    """A setting's value as Lua's ``tostring`` writes it: ``true``/``false``,
    integers (and integral floats) as digits, other numbers with ``%.14g``."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, numbers.Integral):
        return str(int(value))
    if isinstance(value, numbers.Real):
        return format(float(value), ".14g")
    return str(value)


def convert_from(text: str) -> Any:
    """Lab2D's ``strings.convertFrom``: a number when ``text`` is one, True /
    False for ``true``/``false``, else the text unchanged."""
    number = lua_tonumber(text)
    if number is not None:
        return number
    return {"true": True, "false": False}.get(text, text)


def _convert(key: str, old: Any, value: str) -> Any:
    """``value`` (a string) as the type of ``old`` (:func:`jaxlab.settings.convert_setting`),
    its failures as the property errors dmlab2d raises."""
    if not isinstance(value, str):
        raise TypeError(refusal("write_property", f"property {key!r}", "a string (Lab2D's property values are "
                                "strings, e.g. '3')", value))
    try:
        return convert_setting(key, old, value)
    except SettingError as err:
        raise PropertyInvalidArgumentError(f"invalid argument: {err}", key) from None
    except TypeError:
        raise PropertyPermissionError(
            f"permission denied: {key!r} holds a {type(old).__name__}, which is not a writable value",
            key) from None


def read_property(settings: Mapping[str, Any], key: str) -> str:
    """The value of property ``key`` (e.g. ``'settings.episodeLengthFrames'``)
    as a string, like dmlab2d's ``Lab2d.read_property``.

    Raises PropertyNotFoundError (KeyError, with suggestions) for an unknown
    key and PropertyPermissionError (ValueError) for a key that names a table
    of properties (including ``''`` and ``'settings'``) or lies below a value;
    TypeError for a key that is not a str.
    """
    value, _ = _value(settings, _check_key("read_property", key), "reading", "list it with list_property")
    return format_value(value)


def write_property(settings: MutableMapping[str, Any], key: str, value: str) -> None:
    """Sets property ``key`` to ``value`` (a string) converted to the existing
    value's type, in place, like dmlab2d's ``Lab2d.write_property`` (a tuple
    on the way is replaced by an updated tuple).

    Raises PropertyNotFoundError (KeyError, with suggestions) for an unknown
    key, PropertyPermissionError (ValueError) for a table of properties or a
    key below a value, PropertyInvalidArgumentError (ValueError) for a value
    that does not convert (e.g. ``'abc'`` for a number); TypeError for a key or
    a value that is not a str.
    """
    if not _check_key("write_property", key):
        raise PropertyNotFoundError("unknown property '': name a setting, e.g. 'settings.<name>'", key)
    old, parts = _value(settings, key, "writing", "write its entries (list them with list_property)")
    new = _convert(key, old, value)
    if not parts or parts[0] != ROOT:   # unreachable: only ROOT holds values
        raise _not_found(key, {ROOT: settings}, "")
    _assign(settings, parts[1:], new)


def _assign(container: Any, parts: Sequence[str], value: Any) -> Any:
    """Stores ``value`` at ``parts`` below ``container``; returns the container
    (a new tuple when it was a tuple)."""
    part = parts[0]
    new_child = value if len(parts) == 1 else _assign(_child(container, part), parts[1:], value)
    if isinstance(container, Mapping):
        slot = part if part in container or not re.fullmatch(r"-?[0-9]+", part) else int(part)
        container[slot] = new_child
        return container
    index = int(part) - 1
    if isinstance(container, tuple):
        return container[:index] + (new_child,) + container[index + 1:]
    container[index] = new_child
    return container


def list_property(settings: Mapping[str, Any], key: str) -> List[Tuple[str, PropertyAttribute]]:
    """The properties directly under ``key`` (``''`` is the root, which holds
    ``settings``) as (full key, PropertyAttribute): LISTABLE for tables,
    READABLE_WRITABLE for values, like dmlab2d's ``Lab2d.list_property``.

    Raises PropertyNotFoundError (KeyError, with suggestions) when ``key`` is
    unknown or names a value rather than a table, PropertyPermissionError
    when it lies below a value and TypeError when it is not a str.
    """
    node, parent, prefix, _ = _walk(settings, _check_key("list_property", key))
    if node is _MISSING:
        raise _not_found(key, parent, prefix)
    if not _is_table(node):
        raise PropertyNotFoundError(
            f"property {key!r} is a value, not a table of properties: read it with read_property",
            key)
    base = key + "." if key else ""
    return [(base + k, PropertyAttribute.LISTABLE if _is_table(v) else PropertyAttribute.READABLE_WRITABLE)
            for k, v in _children(node)]


def flatten_settings(settings: Mapping[str, Any], prefix: str = "") -> Dict[str, str]:
    """Nested settings as Lab2D's flat ``init(settings)`` table (dmlab2d's
    ``settings_helper.flatten_args``): dotted keys, 1-based list indices,
    string values (``true``/``false``, ``none`` for None). Keys must be
    strings; raises ValueError otherwise or for unsupported values."""
    out: Dict[str, str] = {}

    def walk(items, pre, seen):
        for k, v in items:
            if not isinstance(k, str):
                raise ValueError(f"setting keys must be strings, got {k!r}")
            flat = f"{pre}.{k}" if pre else k
            if v is None:
                out[flat] = "none"
            elif isinstance(v, str):
                out[flat] = v
            elif isinstance(v, (bool, numbers.Number)):
                out[flat] = format_value(v)
            elif isinstance(v, Mapping) or isinstance(v, (list, tuple)):
                if any(v is s for s in seen):
                    continue
                pairs = v.items() if isinstance(v, Mapping) else ((str(i), x) for i, x in enumerate(v, 1))
                walk(pairs, flat, seen + [v])
            else:
                raise ValueError(f"setting {flat!r} cannot be a {type(v).__name__}")

    walk(settings.items(), prefix, [settings])
    return out


def nest_settings(flat: Mapping[str, Any]) -> Dict[str, Any]:
    """Flat dotted settings as a nested dict (the inverse of
    :func:`flatten_settings`): string values go through :func:`convert_from`;
    tables whose keys are exactly ``1..n`` become lists. Raises ValueError
    when a key is both a value and a table (``a=1`` and ``a.b=2``)."""
    root: Dict[str, Any] = {}
    for key, value in flat.items():
        parts = str(key).split(".")
        node = root
        for depth, part in enumerate(parts[:-1]):
            nxt = node.setdefault(part, {})
            if not isinstance(nxt, dict):
                raise ValueError(f"setting {'.'.join(parts[:depth + 1])!r} is both a value and a table")
            node = nxt
        if isinstance(node.get(parts[-1]), dict):
            raise ValueError(f"setting {key!r} is both a value and a table")
        node[parts[-1]] = convert_from(value) if isinstance(value, str) else value

    def listify(node):
        if not isinstance(node, dict):
            return node
        node = {k: listify(v) for k, v in node.items()}
        if node and sorted(node) == sorted(str(i) for i in range(1, len(node) + 1)):
            return [node[str(i)] for i in range(1, len(node) + 1)]
        return node

    return listify(root)


def apply_settings(defaults: Mapping[str, Any], overrides: Optional[Mapping[str, Any]]) -> Dict[str, Any]:
    """A deep copy of ``defaults`` with ``overrides`` (nested or flat dotted
    keys; values strings or Python values) written over it with
    :func:`write_property`'s conversions, like Lab2D's
    ``read_settings.apply``. Raises PropertyNotFoundError (UnknownNameError,
    with suggestions) for a setting that has no default, and
    PropertyInvalidArgumentError / PropertyPermissionError for values that do
    not fit."""
    out = copy.deepcopy(dict(defaults))
    for key, value in flatten_settings(dict(overrides or {})).items():
        try:
            write_property(out, f"{ROOT}.{key}", value)
        except PropertyNotFoundError:
            known = [k[len(ROOT) + 1:] for k in flatten_settings(out, ROOT)]
            raise PropertyNotFoundError(str(unknown_name_error("setting", key, known)), key) from None
    return out


__all__ = ["ROOT", "PropertyAttribute", "PropertyResult", "PropertyError", "PropertyNotFoundError",
           "PropertyPermissionError", "PropertyInvalidArgumentError", "read_property", "write_property",
           "list_property", "flatten_settings", "nest_settings", "apply_settings", "convert_from",
           "format_value", "mode_attribute", "raise_for"]
