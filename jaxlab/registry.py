"""``jaxlab.make``: the one place where a level name or a level file becomes an environment.

Each family's level package hands up its own table, ``LEVELS`` (name -> a
constructor taking the level's settings as keywords):

- ``dmlab``: first-person levels (``jaxlab.levels.dmlab``) -> ``FirstPersonEnv``;
- ``lab2d``: grid worlds (``jaxlab.levels.lab2d``) -> ``GridEnv``;
- ``text``: text-quest families (``jaxlab.text.levels``) -> ``TextEnv``;
- ``memory``: the memory-task suite (``jaxlab.levels.dmlab.memory``) -> ``MemoryTaskEnv`` or
  ``PsychlabEnv``, also as ``memory/<name>``.

Files dispatch on their suffix: ``.txt`` (a DMLab text map), ``.lua`` (a
level script, compiled by ``compile_lua``: one sandboxed run decides whether
it is a DMLab or a Lab2D script and compiles it), ``.jaxlab`` (a compiled
first-person bank) and ``.json`` (a TextWorld game; a compiled game's ``.z8``/``.ulx``
path reads the ``.json`` beside it). compile_lua is imported
here lazily, only to compile a script.
"""
from __future__ import annotations

import importlib
from pathlib import Path
from typing import Callable, Dict, Optional, Tuple

from jaxlab.errors import unknown_name_error
from jaxlab.settings import check_settings

#: family -> module whose ``LEVELS`` maps each level name to its constructor
FAMILY_TABLES = {"dmlab": "jaxlab.levels.dmlab", "lab2d": "jaxlab.levels.lab2d", "text": "jaxlab.text.levels",
                 "memory": "jaxlab.levels.dmlab.memory"}
#: settings of a first-person level (``FirstPersonEnv``)
FIRST_PERSON_SETTINGS = ("width", "height", "observations", "action_repeat", "fps", "episode_length_seconds")
#: settings of a DMLab Lua script, on top of FIRST_PERSON_SETTINGS
LUA_SETTINGS = ("episodes", "seed", "level_settings", "levels_dir", "compile_timeout_s", "compile_memory_mb")
#: settings of a Lab2D-style grid script (``api:world``), made into a ``GridEnv``
GRID_LUA_SETTINGS = ("level_settings", "levels_dir", "seed", "observations", "compile_timeout_s",
                     "compile_memory_mb")
#: settings of a TextWorld ``.json`` game, made into a ``TextEnv``
TEXT_FILE_SETTINGS = ("max_steps", "observations", "text_length")
TEXT_MAP_DEFAULT_SECONDS = 60.0
#: TextWorld's compiled games: jaxlab plays the ``.json`` saved beside them
COMPILED_GAME_SUFFIXES = (".z1", ".z2", ".z3", ".z4", ".z5", ".z6", ".z7", ".z8", ".ulx")
TEXT_GAME_SUFFIXES = (".json",) + COMPILED_GAME_SUFFIXES
SUFFIXES = (".txt", ".lua", ".jaxlab") + TEXT_GAME_SUFFIXES


def family_table(family: str) -> Dict[str, Callable]:
    """The level table (name -> constructor) of ``family`` (``dmlab``, ``lab2d``, ``text`` or ``memory``)."""
    if family not in FAMILY_TABLES:
        raise unknown_name_error("level family", family, FAMILY_TABLES)
    return importlib.import_module(FAMILY_TABLES[family]).LEVELS


def names(family: Optional[str] = None) -> Tuple[str, ...]:
    """Every registered level name, sorted; with ``family`` (``dmlab``, ``lab2d``, ``text``, ``memory``) only that family's."""
    families = FAMILY_TABLES if family is None else (family,)
    return tuple(sorted(name for f in families for name in family_table(f)))


def canonical_name(name: str) -> str:
    """``name`` without a family's level-path prefix (``contributed/dmlab30/x`` -> ``x``)."""
    for family in FAMILY_TABLES:
        for prefix in getattr(importlib.import_module(FAMILY_TABLES[family]), "PATH_PREFIXES", ()):
            if name.startswith(prefix) and name[len(prefix):] in family_table(family):
                return name[len(prefix):]
    return name


def family_of(name: str) -> str:
    """The family of registered level ``name`` (UnknownNameError with suggestions if there is none)."""
    for family in FAMILY_TABLES:
        if name in family_table(family):
            return family
    raise unknown_name_error("level", name, names())


def make(name: str, **settings):
    """Make the environment for a level name or a level file.

    Args:
      name: a registered level (``jaxlab.levels.names()``): a first-person
        level, also by its DMLab path (``contributed/dmlab30/<name>``) (settings: width, height (pixels), observations (names),
        action_repeat (frames per step), fps, episode_length_seconds); a grid
        world such as ``pushbox`` or ``commons_harvest`` (settings:
        ``observations``, ``layouts`` and the level's Lab2D-style settings,
        e.g. ``numPlayers``; see each level's ``DEFAULT_SETTINGS``); a
        text-quest family such as ``tw-coin_collector`` (settings: ``seed``,
        ``num_games``, the family's options and the TextEnv's); a memory task
        such as ``memory/spot_diff_train`` (settings: width, height, observations,
        action_repeat, episode_length_seconds). Or a path:
        a DMLab text map ``*.txt`` (an optional ``*.variations.txt`` beside it
        is read too; ``L``/``S``/``F``/``W``/``M`` place lemons, strawberries,
        fungi, watermelon and mango goals); a Lua level script ``*.lua``
        (DMLab scripts take the first-person settings plus episodes, seed,
        level_settings (a dict passed to ``api:init``) and levels_dir; a
        Lab2D-style script, whose api declares ``world`` (docs/grid_lua.md),
        takes level_settings, levels_dir, seed and observations; both
        compile in a child process limited by compile_timeout_s (default 120)
        and compile_memory_mb (default 4096), see compile_lua.isolation); a compiled
        ``*.jaxlab`` bank; a TextWorld game ``*.json`` or its compiled
        ``*.z8``/``*.ulx`` (the ``.json`` beside it is read) (max_steps,
        observations, text_length).

    jaxlab's own settings are typed Python values, checked first by
    :func:`jaxlab.settings.check_settings`: width and height are ints in
    pixels (1..4096), action_repeat and fps ints, episode_length_seconds a
    finite number of seconds, observations a list of names, seeds and counts
    ints (numpy integers too; not bools, floats or strings such as ``'96'``);
    None for an optional one (episode_length_seconds, observations,
    max_steps, level_settings, levels_dir) means its default. A grid level's
    Lab2D-style settings follow Lab2D's rules (strings such as ``'3'`` are
    converted, see :func:`jaxlab.settings.convert_setting`).

    Raises UnknownNameError (with suggestions) for unknown names or settings,
    TypeError / ValueError naming the setting and its range for a bad
    value, MapError (file:line:column) for malformed maps, LuaScriptError
    (file:line) for bad Lua scripts, BankFileError for bad ``.jaxlab`` files,
    TextWorldFormatError for bad game files, FileNotFoundError for missing files.
    """
    settings = check_settings("jaxlab.make", settings)
    name = str(name)
    if name.endswith(SUFFIXES):
        return _make_from_file(name, settings)
    name = canonical_name(name)
    return family_table(family_of(name))[name](**settings)


def _check_settings(settings: dict, allowed: Tuple[str, ...]) -> None:
    for key in settings:
        if key not in allowed:
            raise unknown_name_error("setting", key, allowed)


def _make_from_file(path: str, settings: dict):
    """The environment of a level file, by suffix (see ``make``)."""
    if not Path(path).is_file():
        raise FileNotFoundError(f"no such level file: {path}")
    if path.endswith(TEXT_GAME_SUFFIXES):
        from jaxlab.text.game_api import load
        from jaxlab.text.env import TextEnv
        from jaxlab.bank import Bank

        _check_settings(settings, TEXT_FILE_SETTINGS)
        game = load(path)
        return TextEnv(Bank.stack([game.game]), [game.info], name=path, **settings)
    from jaxlab.bank import Bank
    from jaxlab.first_person.env import FirstPersonEnv

    if path.endswith(".txt"):
        from jaxlab.levels.dmlab.catalogue import read_map_file
        from jaxlab.levels.dmlab.level import build_level

        _check_settings(settings, FIRST_PERSON_SETTINGS)
        seconds = settings.get("episode_length_seconds") or TEXT_MAP_DEFAULT_SECONDS
        bank = Bank.stack([build_level(read_map_file(path), seconds)])
    elif path.endswith(".jaxlab"):
        from jaxlab.bank_file import load_bank

        _check_settings(settings, FIRST_PERSON_SETTINGS)
        bank = load_bank(path)[0]
    else:
        compiled = _compile_script(path, settings)
        if compiled.kind == "lab2d":
            from jaxlab.grid.env import GridEnv

            observations = settings.get("observations")
            return GridEnv(compiled.spec, observations=compiled.env_observations() if observations is None
                           else observations)
        bank = compiled.bank
    return FirstPersonEnv(bank, name=path, **settings)


def _compile_script(path: str, settings: dict):
    """Compile a ``.lua`` script once (DMLab banks are cached by content); pops the Lua-only settings.

    Returns compile_lua's ``CompiledScript``: ``kind`` is ``"dmlab"`` (``bank``)
    or ``"lab2d"`` (``spec``, ``env_observations()``).
    """
    from compile_lua.authoring import compile_authored
    from compile_lua.isolation import CompileLimits

    _check_settings(settings, tuple(dict.fromkeys(FIRST_PERSON_SETTINGS + LUA_SETTINGS + GRID_LUA_SETTINGS)))
    lua = {key: settings.pop(key) for key in LUA_SETTINGS if key in settings}
    limits = CompileLimits(**{key[len("compile_"):]: lua[key] for key in ("compile_timeout_s", "compile_memory_mb")
                              if key in lua})
    compiled = compile_authored(path, settings=lua.get("level_settings"), episodes=lua.get("episodes", 1),
                                seed=lua.get("seed", 0), levels_dir=lua.get("levels_dir"), limits=limits)
    if compiled.kind == "lab2d":
        if "episodes" in lua:
            raise unknown_name_error("setting of a Lab2D-style script", "episodes", GRID_LUA_SETTINGS)
        _check_settings(settings, GRID_LUA_SETTINGS)
    else:
        _check_settings(settings, FIRST_PERSON_SETTINGS)
    return compiled


def grid_spec(level: str, settings=None):
    """The ``GridSpec`` of a built-in grid level name or a Lab2D-style ``.lua`` script, with ``settings``
    (Lab2D camelCase names) applied: what the ``Lab2d`` host runs and rebuilds on written settings."""
    level = str(level)
    if level.endswith(".lua"):
        from compile_lua.authoring import compile_authored

        compiled = compile_authored(level, settings=dict(settings or {}))
        if compiled.kind != "lab2d":
            raise ValueError(f"{level} is a DMLab first-person script, not a Lab2D-style grid script "
                             "(its api declares no world); run it with jaxlab.make or jaxlab.Lab")
        return compiled.spec
    from jaxlab.levels import lab2d

    if level not in lab2d.LEVELS:
        raise unknown_name_error("grid level", level, lab2d.LEVELS)
    return lab2d.build(level, settings)
