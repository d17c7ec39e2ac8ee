"""The map a script's ``nextMap`` names: one made with ``common.make_map``, or a built-in map."""
from __future__ import annotations

import difflib
from typing import Any, Iterable, Mapping, Optional

from jaxlab.levels.dmlab.catalogue import EXTRA_PICKUP_CHARS, MAP_DIR
from jaxlab.levels.dmlab.map_parser import ParsedMap, parse_text_map


def builtin_map_names() -> list:
    """Names of the maps in ``jaxlab/levels/maps`` (without variations files)."""
    return sorted(p.stem for p in MAP_DIR.glob("*.txt") if not p.stem.endswith(".variations"))


def parse_map(name: str, script: str, made: Optional[Mapping[str, Any]], made_names: Iterable[str] = ()) -> ParsedMap:
    """Parse the map ``name`` returned by ``nextMap`` of ``script``.

    ``made`` is the ``make_map`` record of that name ({entityLayer,
    variationsLayer, pickups}) or None, in which case ``name`` must be a
    built-in map. Raises ValueError (with close names) for an unknown map and
    MapError (line:column within the map) for a malformed one.
    """
    if made is not None:
        text, variations = made["entityLayer"], made.get("variationsLayer")
        legend = dict(made.get("pickups") or {})
        source = f"{script} (map {name!r})"
    elif (MAP_DIR / f"{name}.txt").is_file():
        text = (MAP_DIR / f"{name}.txt").read_text()
        vpath = MAP_DIR / f"{name}.variations.txt"
        variations = vpath.read_text() if vpath.is_file() else None
        legend, source = dict(EXTRA_PICKUP_CHARS), f"built-in map {name}"
    else:
        known = sorted(set(made_names) | set(builtin_map_names()))
        close = difflib.get_close_matches(name, known, n=3)
        hint = f"; did you mean {', '.join(map(repr, close))}?" if close else ""
        raise ValueError(f"nextMap returned {name!r}, which is neither a map made with "
                         f"make_map.makeMap nor a built-in map{hint}")
    return parse_text_map(text, variations, pickups=legend, source=source, require_spawn=False,
                          check_pickup_names=False)
