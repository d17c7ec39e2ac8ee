"""``jaxlab.make``: the one place where a level name or a level file becomes an environment.

One explicit table per family, each in its own module of this package (level name -> a constructor
taking the level's settings as keywords):

- ``dmlab``: first-person levels (``registry.first_person``) -> ``FirstPersonEnv``;
- ``lab2d``: grid worlds (``registry.grid``) -> ``GridEnv``;
- ``text``: text-quest families (``registry.text``) -> ``TextEnv``;
- ``memory``: the memory-task suite (``registry.memory``) -> ``MemoryTaskEnv`` or ``PsychlabEnv``,
  also as ``memory/<name>``.

Level files dispatch on their suffix (``registry.files``); ``level_directory`` looks a name up as
Lab2D does (``registry.lab2d_lookup``). The level names themselves are level
data (``jaxlab.levels.names``); each table is imported on first use, so ``import jaxlab`` builds none.
"""
from __future__ import annotations

import dataclasses
import os
from types import ModuleType
from typing import Any, Callable, Dict, Optional, Tuple

from jaxlab import levels
from jaxlab.errors import UnknownNameError, unknown_name_error
from jaxlab.levels.lab2d.spec import GridSpec
from jaxlab.registry import dmlab2d_package, dmlab_checkout, files
from jaxlab.settings import check_settings

FAMILIES = levels.FAMILIES


def family_module(family: str) -> ModuleType:
    """The registry module of ``family`` (``dmlab``, ``lab2d``, ``text`` or ``memory``), with its
    ``LEVELS`` table; imported on first use."""
    if family == "dmlab":
        from jaxlab.registry import first_person
        return first_person
    if family == "lab2d":
        from jaxlab.registry import grid
        return grid
    if family == "text":
        from jaxlab.registry import text
        return text
    if family == "memory":
        from jaxlab.registry import memory
        return memory
    raise unknown_name_error("level family", family, FAMILIES)


def family_table(family: str) -> Dict[str, Callable]:
    """The level table (name -> constructor) of ``family`` (``dmlab``, ``lab2d``, ``text`` or ``memory``)."""
    return family_module(family).LEVELS


def names(family: Optional[str] = None) -> Tuple[str, ...]:
    """Every registered level name, sorted; with ``family`` (``dmlab``, ``lab2d``, ``text``, ``memory``) only that family's."""
    return levels.names(family)


def canonical_name(name: str) -> str:
    """``name`` without a family's level-path prefix (``contributed/dmlab30/x`` -> ``x``)."""
    for family in FAMILIES:
        for prefix in levels.path_prefixes(family):
            if name.startswith(prefix) and name[len(prefix):] in levels.family_names(family):
                return name[len(prefix):]
    return name


def family_of(name: str) -> str:
    """The family of registered level ``name`` (UnknownNameError with suggestions if there is none)."""
    for family in FAMILIES:
        if name in levels.family_names(family):
            return family
    raise unknown_name_error("level", name, names())


def make(name: str, **settings):
    """Make the environment for a level name or a level file.

    Args:
      name: a registered level (``jaxlab.levels.names()``): a first-person
        level, also by its DMLab path (``contributed/dmlab30/<name>``) (settings: width, height (pixels), observations (names),
        action_repeat (frames per step), fps, episode_length_seconds); a grid
        world such as ``pushbox`` or ``jaxlab_commons_harvest`` (settings:
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
        Lab2D-style script, whose api declares ``world``, or a Lab2D raw-API
        script (``advance``, ``observation``, ``discreteActions``, no ``world``;
        a ``RawEnv``) (docs/grid_lua.md), takes level_settings, levels_dir, seed
        and observations; all
        compile in a child process limited by compile_timeout_s (default 120)
        and compile_memory_mb (default 4096), see compile_lua.isolation); a compiled
        ``*.jaxlab`` bank; a TextWorld game ``*.json`` or its compiled
        ``*.z8``/``*.ulx`` (the ``.json`` beside it is read) (max_steps,
        observations, text_length).
      dmlab_root (a setting): a DeepMind Lab checkout (its root or ``game_scripts``): a ``.lua``
        script resolves DMLab's modules and maps in it, and a classic level name with a script in
        its ``game_scripts/levels`` (``nav_maze_static_01``, ...) is made from that script, on
        DMLab's own map (``jaxlab.registry.dmlab_checkout``).
      level_directory (a setting): Lab2D's ``levelDirectory``; ``name`` is then its
        ``levelName``, looked up in dmlab2d's order (``<dir>/<name>.lua``, then
        ``<dir>/<name>/init.lua``; see ``jaxlab.registry.lab2d_lookup``) and made as that
        script. A ``:<argument>`` suffix (``factory:double``) is what a script that returns a
        function (a level factory) is called with; other scripts ignore it, as dmlab2d does.

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
    name, argument = str(name), ""
    if "dmlab_root" in settings:
        name, settings = dmlab_checkout.with_checkout(name, settings)
    if name.startswith(dmlab2d_package.PREFIX) and "level_directory" not in settings:
        name, settings = dmlab2d_package.with_package(name, settings)
    if "level_directory" in settings:
        name, argument = _lab2d_level_file(name, settings.pop("level_directory"))
    if name.endswith(files.SUFFIXES):
        return files.make_from_file(name, settings, argument)
    name = canonical_name(name)
    if name in levels.lab2d.RENAMED:
        raise UnknownNameError(levels.lab2d.RENAMED[name])
    return family_table(family_of(name))[name](**settings)


def _lab2d_level_file(level_name: str, level_directory) -> Tuple[str, str]:
    """``(script, argument)``: the script Lab2D runs for ``levelName`` ``level_name`` in ``levelDirectory``
    ``level_directory`` and the name's ``:<argument>`` (raises as ``find_lab2d_level``)."""
    from jaxlab.registry.lab2d_lookup import find_lab2d_level

    if not isinstance(level_directory, (str, os.PathLike)) or not str(level_directory):
        raise TypeError(f"jaxlab.make: level_directory: expected a folder (str or os.PathLike), "
                        f"got {level_directory!r}")
    found = find_lab2d_level(level_name, str(level_directory))
    return str(found.path), found.argument


@dataclasses.dataclass(frozen=True)
class Lab2dHostLevel:
    """What ``jaxlab.grid.Lab2d`` runs: ``level`` (a built-in grid level's name or a script's path: what a
    rebuild compiles), ``settings`` (the level's, without Lab2D's lookup settings) and exactly one of
    ``grid`` (a GridSpec) and ``raw`` (the RawEnv of a raw-API script)."""

    level: str
    settings: Dict[str, Any]
    grid: Any = None
    raw: Any = None


def lab2d_host_level(level: str, settings=None, start_seed: int = 0) -> Lab2dHostLevel:
    """The level the ``Lab2d`` host runs for Lab2D's ``levelName`` ``level`` and ``settings``, compiling a
    script once. A ``levelDirectory`` setting (taken out, with a ``levelName`` one, which must be
    ``level``) looks ``level`` up as dmlab2d does (``registry.lab2d_lookup``; a ``:<argument>`` goes to a
    level factory); without one, ``level`` is a built-in grid level, a ``.lua`` script, or a level shipped in
    the installed dmlab2d package (``chase_eat``, ..., compiled from its scripts, as dmlab2d runs them). A grid level
    gets ``settings`` applied; a raw-API script's ``init`` gets them (its ``start`` is traced with
    ``start_seed`` and runs on the device at every reset).
    Raises as :func:`grid_spec` and ``find_lab2d_level`` do, and ValueError for a DMLab script or a
    ``levelName`` setting that is not ``level``."""
    from jaxlab.registry.lab2d_lookup import find_lab2d_level, split_argument

    settings = dict(settings or {})
    if settings.pop("levelName", level) != level:
        raise ValueError(f"Lab2d: the levelName setting differs from the level {level!r}: give the level once")
    directory, requires = settings.pop("levelDirectory", None), None
    name = split_argument(str(level))[0]
    if not directory and not name.endswith(".lua") and name not in levels.family_names("lab2d"):
        package = dmlab2d_package.shipped(name)   # dmlab2d's own level of that name, as dmlab2d runs it
        if package is not None:
            directory, requires = package
    if not directory and not name.endswith(".lua"):
        return Lab2dHostLevel(str(level), settings, grid=grid_spec(level, settings))
    found = find_lab2d_level(str(level), str(directory) if directory else None)
    compiled = files.lab2d_script(str(found.path), settings, start_seed, found.argument,
                                  str(requires) if requires else None)
    if isinstance(compiled, GridSpec):
        return Lab2dHostLevel(str(found.path), settings, grid=compiled)
    return Lab2dHostLevel(str(found.path), settings, raw=compiled)


def grid_spec(level: str, settings=None):
    """The ``GridSpec`` of a built-in grid level name or a Lab2D-style ``.lua`` script, with ``settings``
    (Lab2D camelCase names) applied: what the ``Lab2d`` host runs and rebuilds on written settings."""
    level = str(level)
    if level.endswith(".lua"):
        return files.grid_script_spec(level, settings)
    from jaxlab.levels import lab2d

    if level not in lab2d.MODULES:
        raise unknown_name_error("grid level", level, lab2d.MODULES)
    return lab2d.build(level, settings)
