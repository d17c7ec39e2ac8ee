"""Level files -> environments, by suffix: ``.txt`` (a DMLab text map), ``.lua`` (a level script,
compiled by ``compile_lua``: one sandboxed run decides whether it is a DMLab or a Lab2D script and
compiles it), ``.jaxlab`` (a compiled first-person bank) and TextWorld's game files (``.json``; a
compiled game's ``.z8``/``.ulx`` path reads the ``.json`` beside it).

compile_lua sits above all of jaxlab; this module imports it lazily, only to compile a script (the
one import that points up the layers).
"""
from __future__ import annotations

from pathlib import Path
from typing import Any, Dict, Mapping, Optional

from jaxlab.bank import Bank
from jaxlab.errors import unknown_name_error
from jaxlab.kernels.first_person.env import FirstPersonEnv
from jaxlab.levels.lab2d.spec import GridSpec
from jaxlab.levels.text.textworld_import import GAME_SUFFIXES
from jaxlab.settings import check_names

#: settings of a DMLab Lua script, on top of the first-person settings
LUA_SETTINGS = ("episodes", "seed", "level_settings", "levels_dir", "compile_timeout_s", "compile_memory_mb")
#: settings of a Lab2D-style grid script (``api:world``), made into a ``GridEnv``
GRID_LUA_SETTINGS = ("level_settings", "levels_dir", "seed", "observations", "compile_timeout_s",
                     "compile_memory_mb")
#: episode length of a text map, which has no script to say it
TEXT_MAP_DEFAULT_SECONDS = 60.0
SUFFIXES = (".txt", ".lua", ".jaxlab") + GAME_SUFFIXES


def make_from_file(path: str, settings: Dict[str, Any], argument: str = ""):
    """The environment of level file ``path``, by suffix (see ``jaxlab.make``); ``settings`` already
    passed ``check_settings``; ``argument``: a Lab2D level name's ``:<argument>``, for a ``.lua`` script
    that returns a function (a level factory). FileNotFoundError for a missing file."""
    from jaxlab.registry import first_person, text   # each family's table, built on first use

    if not Path(path).is_file():
        raise FileNotFoundError(f"no such level file: {path}")
    if argument and not path.endswith(".lua"):
        raise ValueError(f"{path}: the level name's argument {argument!r} is for a Lab2D .lua script")
    if path.endswith(GAME_SUFFIXES):
        return text.make_game_file(path, **settings)
    if path.endswith(".txt"):
        from jaxlab.levels.dmlab.catalogue import read_map_file
        from jaxlab.levels.dmlab.level import build_level

        first_person.check(settings)
        seconds = settings.get("episode_length_seconds") or TEXT_MAP_DEFAULT_SECONDS
        bank, meta, script = Bank.stack([build_level(read_map_file(path), seconds)]), {}, None
    elif path.endswith(".jaxlab"):
        from jaxlab.bank_file import load_bank
        from jaxlab.levels.dmlab.level import Level

        first_person.check(settings)
        (bank, meta), script = load_bank(path, Level), None
        if "device" in meta:   # its callbacks are translated from the script, which only the .lua compile does
            raise ValueError(f"{path}: this bank's level script has callbacks that run on the device "
                             f"({', '.join(map(str, meta['device'].get('callbacks', [])))}); make the "
                             f"environment from the .lua script ({meta.get('source', 'its source')})")
    else:
        compiled = _compile_script(path, settings, argument)
        if compiled.kind == "lab2d":
            from jaxlab.kernels.grid.env import GridEnv

            observations = settings.get("observations")
            return GridEnv(compiled.spec, observations=compiled.env_observations() if observations is None
                           else observations)
        if compiled.kind == "lab2d_raw":
            from jaxlab.kernels.lab2d_raw import RawEnv

            return RawEnv(*compiled.raw.env_parts(), observations=settings.get("observations"))
        bank, meta, script = compiled.bank, compiled.meta, compiled.device_callbacks()
    return FirstPersonEnv(bank, name=path, script=script, episode_events=meta.get("events", ()),
                          instruction_words=meta.get("instruction_words", ()), **settings)


def _compile_script(path: str, settings: dict, argument: str = ""):
    """Compile a ``.lua`` script once (DMLab banks are cached by content); pops the Lua-only settings.
    ``argument``: what a Lab2D level factory is called with.

    Returns compile_lua's ``CompiledScript``: ``kind`` is ``"dmlab"`` (``bank``),
    ``"lab2d"`` (``spec``, ``env_observations()``) or ``"lab2d_raw"`` (``raw.env_parts()``).
    """
    from compile_lua.authoring import CompileLimits, compile_authored
    from jaxlab.registry import first_person

    check_names(settings, tuple(dict.fromkeys(first_person.SETTINGS + LUA_SETTINGS + GRID_LUA_SETTINGS)))
    lua = {key: settings.pop(key) for key in LUA_SETTINGS if key in settings}
    limits = CompileLimits(**{key[len("compile_"):]: lua[key] for key in ("compile_timeout_s", "compile_memory_mb")
                              if key in lua})
    compiled = compile_authored(path, settings=lua.get("level_settings"), episodes=lua.get("episodes", 1),
                                seed=lua.get("seed", 0), levels_dir=lua.get("levels_dir"), limits=limits,
                                argument=argument)
    if compiled.kind in ("lab2d", "lab2d_raw"):
        if "episodes" in lua:
            raise unknown_name_error("setting of a Lab2D-style script", "episodes", GRID_LUA_SETTINGS)
        check_names(settings, GRID_LUA_SETTINGS)
    else:
        first_person.check(settings)
    return compiled


def lab2d_script(path: str, settings: Optional[Mapping[str, Any]] = None, seed: int = 0, argument: str = "",
                 levels_dir: Optional[str] = None):
    """Lab2D script ``path`` compiled once: the ``GridSpec`` of a grid script (one with a world table,
    ``settings`` applied), or the ``RawEnv`` of a raw-API script (``settings`` given to ``init``; its
    ``start`` runs on the device at every reset, traced at compile time with ``seed``); ``argument``: what
    a level factory is called with; ``levels_dir``: a folder its ``require``s resolve in too. ValueError for
    a DMLab first-person script."""
    from compile_lua.authoring import compile_authored

    compiled = compile_authored(path, settings=dict(settings or {}), seed=seed, argument=argument,
                                levels_dir=levels_dir)
    if compiled.kind == "lab2d_raw":
        from jaxlab.kernels.lab2d_raw import RawEnv

        return RawEnv(*compiled.raw.env_parts())
    if compiled.kind != "lab2d":
        raise ValueError(f"{path} is a DMLab first-person script, not a Lab2D-style grid script "
                         "(its api declares no world); run it with jaxlab.make or jaxlab.Lab")
    return compiled.spec


def grid_script_spec(path: str, settings: Optional[Mapping[str, Any]] = None):
    """The ``GridSpec`` of Lab2D-style script ``path`` compiled with ``settings`` (ValueError for a DMLab
    first-person script or a Lab2D raw-API script, which have none)."""
    found = lab2d_script(path, settings)
    if not isinstance(found, GridSpec):
        raise ValueError(f"{path} is a Lab2D raw-API script (advance, observation), not a grid script with a "
                         "world table: it has no GridSpec; run it with jaxlab.make or jaxlab.grid.Lab2d")
    return found
