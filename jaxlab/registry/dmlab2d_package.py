"""``lab2d/<name>``: a level that ships inside the installed ``dmlab2d`` package, compiled from its own scripts.

dmlab2d's shipped levels (``pushbox``, ``chase_eat``, ``commons_harvest``, ``clean_up``,
``running_with_scissors`` and ``examples/...``) are read where pip put them, ``<dmlab2d>/lib/game_scripts``:
its ``levels/`` folder is the lookup folder (Lab2D's ``levelDirectory``; a ``:<argument>`` suffix works as
there) and the whole of ``game_scripts`` the folder the scripts' ``require``s resolve in (``levels_dir``,
unless the caller gives one). Nothing is copied: each ``jaxlab.make`` compiles the package's files as they
are, in compile_lua's isolated child process, and a level whose Lua does not compile yet is refused with
compile_lua's file:line message. jaxlab's hand-written grid games have names of their own
(``jaxlab_commons_harvest``, ...): they are not dmlab2d's levels.
"""
from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any, Dict, Optional, Tuple

from jaxlab.errors import unknown_name_error
from jaxlab.registry.lab2d_lookup import split_argument

PREFIX = "lab2d/"


def game_scripts() -> Path:
    """The installed dmlab2d package's ``lib/game_scripts`` folder (found without importing dmlab2d).

    Raises ModuleNotFoundError when dmlab2d is not installed and FileNotFoundError when the package has no
    such folder."""
    spec = importlib.util.find_spec("dmlab2d")
    if spec is None or not spec.origin:
        raise ModuleNotFoundError("lab2d/<name> compiles a level shipped inside the dmlab2d package, which is "
                                  "not installed here: pip install dmlab2d (or jaxlab[originals])")
    root = Path(spec.origin).parent / "lib" / "game_scripts"
    if not (root / "levels").is_dir():
        raise FileNotFoundError(f"the installed dmlab2d package has no level scripts at {root / 'levels'}")
    return root


def shipped_levels(root: Path) -> Tuple[str, ...]:
    """The level names under ``root/levels`` as Lab2D looks them up, sorted: a folder with an ``init.lua``
    (``pushbox``), a ``.lua`` file (``examples/level_api``)."""
    levels = root / "levels"
    names = {str(path.parent.relative_to(levels).as_posix()) for path in levels.rglob("init.lua")}
    names |= {str(path.relative_to(levels).with_suffix("").as_posix()) for path in levels.rglob("*.lua")
              if path.name != "init.lua" and not (path.parent / "init.lua").is_file()}
    return tuple(sorted(names))


def with_package(name: str, settings: Dict[str, Any]) -> Tuple[str, Dict[str, Any]]:
    """``(levelName, settings)`` that make ``lab2d/<levelName>`` as dmlab2d's own level: ``level_directory``
    set to the package's ``levels`` folder and ``levels_dir`` (unless given) to its ``game_scripts``.

    Raises as :func:`game_scripts` does, and UnknownNameError (with close matches) for a name the package
    does not ship."""
    level = name[len(PREFIX):]
    root = game_scripts()
    known = shipped_levels(root)
    base, _ = split_argument(level)
    if base not in known:
        raise unknown_name_error("dmlab2d level (lab2d/<name>, from the installed dmlab2d package)", base, known)
    settings = dict(settings, level_directory=str(root / "levels"))
    if settings.get("levels_dir") is None:
        settings["levels_dir"] = str(root)
    return level, settings


def shipped(name: str) -> Optional[Tuple[Path, Path]]:
    """``(levels folder, game_scripts)`` of the installed dmlab2d package when it ships level ``name``
    (a ``levelName`` without its ``:<argument>``), else None (also when dmlab2d is not installed): where
    Lab2D's lookup goes for a name with no ``levelDirectory`` that is not one of jaxlab's grid levels."""
    try:
        root = game_scripts()
    except (ModuleNotFoundError, FileNotFoundError):
        return None
    return (root / "levels", root) if name in shipped_levels(root) else None
