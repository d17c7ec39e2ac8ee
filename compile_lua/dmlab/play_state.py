"""Play-time state as a DMLab compile's meta carries it, and each episode's start values checked against it.

- :func:`plain`, :func:`layout_json`, :func:`layout_tuple`: constants and layout entries as JSON data and back;
- :func:`fits`: whether an episode's start value fits the translation's layout entry;
- :func:`episode_start`: an episode's start values, its objects matched to their variants (:func:`completed`
  fills in the variants found after an episode was recorded).
"""
from __future__ import annotations

from typing import Any, Dict, List, Optional, Tuple

import numpy as np

from compile_lua.device import read_host_state
from compile_lua.device.conversions import SCRIPT_ERROR
from compile_lua.device.host_values import UPVALUE
from compile_lua.device.host_objects import data_key, difference, object_at, snapshot_objects
from compile_lua.device.object_variants import VARIANT
from compile_lua.device.keyed import joined, to_host
from compile_lua.device.layouts import layout_kind
from compile_lua.device.widening import list_slots, precise, widened
from compile_lua.device.source import reject
from compile_lua.device.translate import Translation
from compile_lua.device.values import Arr
from compile_lua.loading import LoadedScript


def plain(value: Any) -> Any:
    """A translation constant as JSON-able data (fixed tables as lists, within records and lists too)."""
    if isinstance(value, Arr):
        return np.asarray(value.x).tolist()
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [plain(v) for v in value]
    return value


def layout_json(kind: tuple) -> list:
    """A layout entry (``layouts.layout_kind``) as JSON data, records' and tuples' kinds within."""
    if kind[0] == "string":
        return [kind[0], sorted(kind[1])]
    if kind[0] == "maybe":
        return [kind[0], layout_json(kind[1])]
    if kind[0] == "record":
        return [kind[0], [[name, layout_json(k)] for name, k in kind[1]]]
    if kind[0] == "tuple":
        return [kind[0], [layout_json(k) for k in kind[1]]]
    return list(kind)


def layout_tuple(kind: list) -> tuple:
    """The layout entry of :func:`layout_json`'s data."""
    if kind[0] == "string":
        return ("string", frozenset(kind[1]))
    if kind[0] == "maybe":
        return ("maybe", layout_tuple(kind[1]))
    if kind[0] == "record":
        return (kind[0], tuple((name, layout_tuple(k)) for name, k in kind[1]))
    if kind[0] == "tuple":
        return (kind[0], tuple(layout_tuple(k) for k in kind[1]))
    if kind[0] == "fn":   # the functions' keys (``stored_functions``), nested tuples again
        return ("fn", _tuples(kind[1]))
    return (*kind[:2], tuple(kind[2])) if kind[0] == "tensor" else tuple(kind)


def _tuples(value: Any) -> Any:
    return tuple(_tuples(v) for v in value) if isinstance(value, list) else value


def fits(got: Optional[tuple], kind: tuple) -> bool:
    """Whether a start value of layout entry ``got`` fits the translation's ``kind``."""
    numbers = ("int", "float")
    if kind[0] == "maybe":   # nil (absent) or a value of the kind it holds
        return got is None or fits(got, kind[1])
    if got is None or (got[0] in numbers) != (kind[0] in numbers):
        return False
    if kind[0] == "array":
        return got[0] == "array" and got[2] == kind[2] and (got[1] == "bool") == (kind[1] == "bool")
    if kind[0] in ("keyed", "tensor"):
        return (joined(kind, got) if kind[0] == "keyed" else got) == kind
    if kind[0] == "list":   # a list built at play: the host's list in its first slots
        items = list_slots(got)
        return items is not None and len(items) <= len(kind[1]) and all(fits(g, k) for g, k in zip(items, kind[1]))
    if kind[0] == "tuple":   # a shorter list where the missing items may be nil
        return got[0] == "tuple" and (len(got[1]) == len(kind[1]) or (len(got[1]) < len(kind[1]) and all(
            k[0] == "maybe" for k in kind[1]))) and all(fits(g, k) for g, k in zip(got[1], kind[1]))
    if kind[0] == "record":   # the fields a record (or {}) lacks may be nil (``layouts.widened``)
        fields, given = dict(kind[1]), dict(got[1]) if got[0] == "record" else {} if got[1:] == ("none", 1, 0) else None
        return given is not None and all(f in fields and fits(g, fields[f]) for f, g in given.items()) and all(
            k[0] == "maybe" for f, k in kind[1] if f not in given)
    return got[0] in numbers or (got[0] == kind[0] and (kind[0] != "string" or got[1] <= kind[1]))


#: the most objects one state key may hold over the episodes (each is translated: ``object_variants``)
MAX_VARIANTS = 32


def episode_start(tr: Translation, loaded: LoadedScript, table: Any = None) -> Tuple[Dict[str, Any], bool]:
    """The start values of ``tr``'s play-time state in the script's sandbox now (after ``start`` and the
    episode's entities; ``table``: the host table the play source's api stands for), as a compile's meta
    carries them, and whether an object of this episode is a new variant (:func:`_object_variants`: the
    callbacks must then be traced again). ``tr``'s layout is widened where this episode needs it (its
    strings, keys, list lengths). Rejects a value of another kind."""
    objects: Dict[str, Any] = {}
    now = {SCRIPT_ERROR: False, **read_host_state(loaded, tr.outline, table, objects)}
    added = _object_variants(tr, loaded, objects, now)
    for k, kind in list(tr.layout.items()):
        wide = widened(kind, precise(kind, layout_kind(now.get(k)), now.get(k)))
        if wide != kind:
            tr.widen(k, wide)
        if k in now and not fits(layout_kind(now[k]), wide):
            reject(tr.outline.path, None, f"play-time state {k} that start sets to {now[k]!r}",
                   f"after init it holds {layout_json(wide)}; play-time state keeps one kind of value, "
                   "the same table length and (for strings) one of the values init and the callbacks give it")
    return {k: to_host(now.get(k)) for k in tr.layout if k in now or tr.layout[k][0] == "maybe"}, added


def _object_variants(tr: Translation, loaded: LoadedScript, objects: Dict[str, Any], now: Dict[str, Any]) -> bool:
    """Each object of this episode (``objects``: state key -> Lua table), and each api field whose data has
    another shape than its state holds, matched to its variants in ``tr`` (``compile_lua.device.object_variants``:
    the same functions and host values where play reads them, data of a shape the variant's state holds), a new
    variant kept where none matches (its graph, -1 for plain data; its data as state); ``now`` then holds each
    one's variant and every variant's data (this episode's for its own, the variant's first episode's for the
    others). Whether a variant was added. A top-level local's object or data may not change shape."""
    added, cells = False, {k for k in tr.layout if k.startswith(UPVALUE)}
    plain = [k for k in now if k.startswith("api.") and k in tr.layout and k not in objects and
             (k in tr.object_variants or not _holds(tr, k, now[k]))]
    for key in [k for k in objects if object_at(tr, k) is not None] + plain:
        graph = snapshot_objects(loaded.sandbox, {key: objects[key]}) if key in objects else None
        data = now.pop(key, None)
        graphs = tr.object_variants.setdefault(key, [0])
        found = next((v for v, g in enumerate(graphs) if _holds(tr, data_key(key, v), data) and
                      (graph is None or difference(tr.object_graphs[g], graph, key, set(data or ()), cells) is None)),
                     None)
        if found is None:
            if len(graphs) >= MAX_VARIANTS or not key.startswith("api."):
                reject(tr.outline.path, None, f"{key} holding another object, or data of another shape, in a later "
                       "episode", f"an api field may hold up to {MAX_VARIANTS} (each is translated), a top-level "
                       "local one: keep it in an api field, or make the episodes' values alike")
            if graph is not None:
                tr.object_graphs.append(graph)
            graphs.append(len(tr.object_graphs) - 1 if graph is not None else -1)
            found, added = len(graphs) - 1, True
            if VARIANT + key not in tr.layout:
                tr.define(VARIANT + key, ("int",), 0)
            if data:
                tr.define(data_key(key, found), layout_kind(data), data)
        for v in range(len(graphs)):
            if data_key(key, v) in tr.layout:
                now[data_key(key, v)] = data if v == found else tr.start[data_key(key, v)]
        if VARIANT + key in tr.layout:
            now[VARIANT + key] = found
    return added


def _holds(tr: Translation, key: str, data: Any) -> bool:
    """Whether state ``key`` (an object variant's data) can hold ``data``, its layout widened where state may grow
    (another variant is made for data of another shape: other fields, lists of other lengths)."""
    if key not in tr.layout:
        return not data
    return data is not None and fits(layout_kind(data), widened(tr.layout[key], layout_kind(data)))


def completed(tr: Translation, starts: List[Dict[str, Any]]) -> List[Dict[str, Any]]:
    """Each episode's start values (``starts``) with the variant state defined after it was recorded: variant 0
    (it matched none of the later ones), and the later variants' data at their first episode's values."""
    return [{**{k: 0 if k.startswith(VARIANT) else to_host(tr.start[k]) for k in tr.layout
                if k not in start and (k.startswith(VARIANT) or "#" in k)}, **start} for start in starts]
