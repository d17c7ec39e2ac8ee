"""``jaxlab.make``: level names and map files to environments."""
from __future__ import annotations

from pathlib import Path
from typing import Tuple

from jaxlab.errors import unknown_name_error
from jaxlab.levels.bank import stack_levels
from jaxlab.levels.catalogue import BUILTIN, builtin_level, read_map_file
from jaxlab.levels.level import build_level
from jaxlab.world.env import FirstPersonEnv

FIRST_PERSON_SETTINGS = ("width", "height", "observations", "action_repeat", "fps", "episode_length_seconds")
LUA_SETTINGS = ("episodes", "seed", "level_settings", "levels_dir")
#: settings of a Lab2D-style grid script (``api:world``), made into a ``jaxlab.grid.GridEnv``
GRID_LUA_SETTINGS = ("level_settings", "levels_dir", "seed", "observations")
TEXT_MAP_DEFAULT_SECONDS = 60.0


#: text-quest families (``jaxlab.text``), made by ``jaxlab.text.games.make_env``
TEXT_FAMILIES = ("tw-coin_collector", "tw-custom", "tw-simple", "tw-treasure_hunter")
#: built-in grid worlds (``jaxlab.grid.levels``), made into a ``jaxlab.grid.GridEnv``
GRID_LEVELS = ("chase_eat", "clean_up", "commons_harvest", "pushbox", "running_with_scissors")


def level_names() -> Tuple[str, ...]:
    """Every registered level name, sorted (first-person levels, grid worlds and text-quest families)."""
    return tuple(sorted(tuple(BUILTIN) + GRID_LEVELS + TEXT_FAMILIES))


def make(name: str, **settings):
    """Make the environment for a level name or a text-map file.

    Args:
      name: a registered level (``jaxlab.levels.names()``), or a path to a
        DMLab text map ``*.txt`` (an optional ``*.variations.txt`` beside it is
        read too; ``L``/``S``/``F``/``W``/``M`` place lemons, strawberries,
        fungi, watermelon and mango goals), a Lua level script ``*.lua`` (compiled with ``compile_lua``
        and cached by content) or a compiled ``*.jaxlab`` file. A Lab2D-style grid script (its api
        declares ``world``; see docs/grid_lua.md) gives a ``jaxlab.grid.GridEnv``; its settings are
        level_settings, levels_dir, seed (of ``api:start``) and observations (default: the
        script's observationSpec).
        A grid world (``pushbox``, ``chase_eat``, ``commons_harvest``, ``clean_up``,
        ``running_with_scissors``) gives a ``jaxlab.grid.GridEnv``; its settings are
        ``observations``, ``layouts`` (see GridEnv) and the level's Lab2D-style settings (e.g. ``numPlayers``,
        ``episodeLengthFrames``; see each level's ``DEFAULT_SETTINGS``).
        A text-quest family (``tw-coin_collector``, ``tw-treasure_hunter``,
        ``tw-simple``, ``tw-custom``) gives a ``jaxlab.text.TextEnv``; its
        settings are ``seed``, ``num_games`` and the family's options (see
        ``jaxlab.text.games.make_env``).
      settings: width, height (pixels), observations (names), action_repeat
        (frames per step), fps, episode_length_seconds; for ``.lua`` scripts
        also episodes (default 1), seed (default 0), level_settings (a dict
        passed to ``api:init``) and levels_dir (an extra ``require`` folder).

    Raises UnknownNameError (with suggestions) for unknown names or settings,
    MapError (file:line:column) for malformed maps, LuaScriptError
    (file:line) for bad Lua scripts, BankFileError for bad ``.jaxlab`` files.
    """
    name = str(name)
    if name in TEXT_FAMILIES:
        from jaxlab.text.games import make_env

        return make_env(name, **settings)
    if name in GRID_LEVELS:
        from jaxlab.grid.env import GridEnv
        from jaxlab.grid.levels import build

        options = {key: settings.pop(key) for key in ("observations", "layouts") if key in settings}
        return GridEnv(build(name, settings), **options)
    if name.endswith(".lua") and Path(name).is_file():
        from compile_lua.lab2d import is_grid_script

        if is_grid_script(name, settings.get("levels_dir")):
            return _grid_env(name, settings)
    allowed = FIRST_PERSON_SETTINGS + (LUA_SETTINGS if name.endswith(".lua") else ())
    for key in settings:
        if key not in allowed:
            raise unknown_name_error("setting", key, allowed)
    if name.endswith((".lua", ".jaxlab")):
        settings = dict(settings)
        bank = _authored_bank(name, settings)
        return FirstPersonEnv(bank, name=name, **settings)
    if name in BUILTIN:
        level = builtin_level(name)
    elif name.endswith(".txt") and Path(name).is_file():
        seconds = settings.get("episode_length_seconds") or TEXT_MAP_DEFAULT_SECONDS
        level = build_level(read_map_file(name), seconds)
    elif name.endswith(".txt"):
        raise FileNotFoundError(f"no such map file: {name}")
    else:
        raise unknown_name_error("level", name, level_names())
    return FirstPersonEnv(stack_levels([level]), name=name, **settings)


def _authored_bank(name: str, settings: dict):
    """The bank of a ``.jaxlab`` file, or of a ``.lua`` script compiled (cached);
    pops the Lua-only keys from ``settings``."""
    if name.endswith(".jaxlab"):
        from jaxlab.levels.bank_file import load_bank

        return load_bank(name)[0]
    from compile_lua.cache import compile_cached

    options = {key: settings.pop(key) for key in LUA_SETTINGS if key in settings}
    return compile_cached(name, settings=options.get("level_settings"), episodes=options.get("episodes", 1),
                          seed=options.get("seed", 0), levels_dir=options.get("levels_dir"))[0]


def _grid_env(name: str, settings: dict):
    """A ``GridEnv`` for the Lab2D-style grid script ``name`` (compiled each time: it is quick)."""
    for key in settings:
        if key not in GRID_LUA_SETTINGS:
            raise unknown_name_error("setting", key, GRID_LUA_SETTINGS)
    from compile_lua.lab2d import compile_grid_script
    from jaxlab.grid.env import GridEnv

    compiled = compile_grid_script(name, settings=settings.get("level_settings"),
                                   levels_dir=settings.get("levels_dir"), seed=settings.get("seed", 0))
    observations = settings.get("observations")
    return GridEnv(compiled.spec, observations=compiled.env_observations() if observations is None else observations)
