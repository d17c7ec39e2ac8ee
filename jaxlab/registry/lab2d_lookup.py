"""Lab2D's level lookup: the ``levelName`` and ``levelDirectory`` settings -> the level to run.

The order is the one dmlab2d follows (checked against it in ``tests/grid/test_lab2d_raw_reference.py``):

1. A ``:<argument>`` suffix is split off at the last ``:`` (``factory:double`` -> ``factory``,
   argument ``double``); a script that returns a function is called with it (``''`` without one).
2. A name ending in ``.lua`` is the script's own path (relative to the working folder); nothing
   else is tried.
3. With a ``levelDirectory``: ``<levelDirectory>/<levelName>.lua``, then
   ``<levelDirectory>/<levelName>/init.lua``. Nothing else is tried: dmlab2d does not go on to its
   built-in levels when a directory is given (``lab2d_lua_api.md`` lists them next; dmlab2d, the
   oracle, stops).
4. Without one: the built-in level of that name (dmlab2d's ``game_scripts/levels/<name>.lua`` or
   ``<name>/init.lua``; jaxlab's built-in grid levels, ``jaxlab.levels.names("lab2d")``).

Both settings are the caller's own paths (docs/security.md, "Symlinks"): followed wherever their
symlinks point, and a relative ``levelDirectory`` is read from the working folder (dmlab2d reads
it from its own install folder, which jaxlab does not have). A ``levelName`` looked up in a
directory must stay in it as written: an absolute name or a ``..`` part is refused.
"""
from __future__ import annotations

import dataclasses
from pathlib import Path, PurePosixPath
from typing import Optional

from jaxlab import levels
from jaxlab.errors import unknown_name_error


@dataclasses.dataclass(frozen=True)
class Lab2dLevel:
    """Where a ``levelName`` leads: exactly one of ``path`` (a ``.lua`` level script, as the caller's
    path joined) or ``builtin`` (a built-in grid level's name), and ``argument`` (the name's
    ``:<argument>`` suffix, ``''`` without one)."""

    path: Optional[Path]
    builtin: Optional[str]
    argument: str


def split_argument(level_name: str) -> tuple:
    """``(name, argument)`` of ``level_name``, split at its last ``:`` (``'a:b:c'`` -> ``('a:b', 'c')``;
    no ``:`` -> ``(level_name, '')``)."""
    name, colon, argument = level_name.rpartition(":")
    return (name, argument) if colon else (level_name, "")


def find_lab2d_level(level_name: str, level_directory: Optional[str] = None) -> Lab2dLevel:
    """The level Lab2D runs for ``levelName`` ``level_name`` and ``levelDirectory``
    ``level_directory`` (None or ``''``: none), in dmlab2d's order (see the module's docstring).

    Raises ValueError for an empty name, or a name that leaves ``level_directory`` (absolute, or
    with a ``..`` part); FileNotFoundError naming the paths tried for a script that is not there
    (or a ``level_directory`` that is not a folder); UnknownNameError (with suggestions) for a
    name that is no built-in level when no directory is given.
    """
    name, argument = split_argument(str(level_name))
    if not name:
        raise ValueError("levelName is empty: name a level script or a built-in grid level")
    if name.endswith(".lua"):
        if not Path(name).is_file():
            raise FileNotFoundError(f"no such level script: {name} (levelName)")
        return Lab2dLevel(Path(name), None, argument)
    if level_directory:
        return Lab2dLevel(_in_directory(name, Path(level_directory)), None, argument)
    if name not in levels.family_names("lab2d"):
        raise unknown_name_error("grid level (levelName, with no levelDirectory)", name,
                                 levels.family_names("lab2d"))
    return Lab2dLevel(None, name, argument)


def _in_directory(name: str, directory: Path) -> Path:
    """``<directory>/<name>.lua`` or else ``<directory>/<name>/init.lua``, joined as dmlab2d joins them."""
    parts = PurePosixPath(name).parts
    if PurePosixPath(name).is_absolute() or ".." in parts:
        raise ValueError(f"levelName {name!r} must name a script inside levelDirectory "
                         "(no absolute path, no '..')")
    if not directory.is_dir():
        what = "is a file, not a folder" if directory.exists() else "does not exist"
        raise FileNotFoundError(f"the levels folder {directory} (levelDirectory) {what}")
    tried = [directory / f"{name}.lua", directory / name / "init.lua"]
    for path in tried:
        if path.is_file():
            return path
    raise FileNotFoundError(f"no level script {name!r} in {directory} (tried {', '.join(map(str, tried))})")
