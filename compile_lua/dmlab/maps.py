"""The map a script's ``nextMap`` names: one made with ``common.make_map``, or a text map file.

A name that is not a made map is looked up as ``<name>.txt`` (and its
optional ``<name>.variations.txt``) in the script's folder, the levels
folder, then the built-in maps (``jaxlab/levels/dmlab/maps``), through
:meth:`compile_lua.sandbox.Sandbox.read_data_file`: only plain names, only
inside those folders after symlinks, every file read recorded. Any other
name gets one message, whether or not a file of that name exists elsewhere.
"""
from __future__ import annotations

import difflib
from typing import Any, Iterable, Mapping, Optional

from compile_lua.sandbox import Sandbox
from jaxlab.levels.dmlab.catalogue import EXTRA_PICKUP_CHARS, MAP_DIR
from jaxlab.levels.dmlab.map_parser import ParsedMap, parse_text_map


def builtin_map_names() -> list:
    """Names of the maps in ``jaxlab/levels/maps`` (without variations files)."""
    return sorted(p.stem for p in MAP_DIR.glob("*.txt") if not p.stem.endswith(".variations"))


def _decoded(display: str, data: bytes) -> str:
    """``data`` as UTF-8 text; ValueError naming the map file and the byte offset when it is not."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as err:
        raise ValueError(f"map file {display} is not UTF-8 text (byte {err.start}: "
                         f"{data[err.start:err.start + 1]!r})") from None


def parse_map(name: str, script: str, made: Optional[Mapping[str, Any]], sandbox: Sandbox,
              made_names: Iterable[str] = ()) -> ParsedMap:
    """Parse the map ``name`` returned by ``nextMap`` of ``script``.

    ``made`` is the ``make_map`` record of that name ({entityLayer,
    variationsLayer, pickups}) or None, in which case ``name`` must name a
    map file, read through the script's ``sandbox`` (see the module
    docstring). Raises ValueError (with
    close names) for an unknown map and MapError (line:column within the
    map) for a malformed one.
    """
    if made is not None:
        text, variations = made["entityLayer"], made.get("variationsLayer")
        legend = dict(made.get("pickups") or {})
        return parse_text_map(text, variations, pickups=legend, source=f"{script} (map {name!r})",
                              require_spawn=False, check_pickup_names=False)
    found = sandbox.read_data_file(f"{name}.txt", [MAP_DIR])
    if found is None:
        known = sorted(set(made_names) | set(builtin_map_names()))
        close = difflib.get_close_matches(name, known, n=3)
        hint = f"; did you mean {', '.join(map(repr, close))}?" if close else ""
        raise ValueError(f"nextMap returned {name!r}, which is neither a map made with make_map.makeMap "
                         f"nor a map file <name>.txt in the script's folder, the levels folder or the "
                         f"built-in maps{hint}")
    display, data = found
    variations = sandbox.read_data_file(f"{name}.variations.txt", [MAP_DIR])
    return parse_text_map(_decoded(display, data),
                          _decoded(*variations) if variations is not None else None,
                          pickups=dict(EXTRA_PICKUP_CHARS), source=display, require_spawn=False,
                          check_pickup_names=False)
