"""A DeepMind Lab checkout given to ``jaxlab.make(..., dmlab_root=PATH)`` (and ``compile_lua --dmlab-root``).

PATH is the checkout's root or its ``game_scripts`` folder. A level script (``*.lua``) is then compiled
with ``game_scripts`` as its levels folder, so that ``require 'common.*'``, ``'factories.*'``,
``'decorators.*'`` and ``'datasets.*'`` resolve as DeepMind Lab resolves them, and the maps it names
come from the checkout. A registered name with a script of that name under ``game_scripts/levels``
(``nav_maze_static_01``, ``seekavoid_arena_01``, ...) is made from that script, with DeepMind Lab's own
map; ``contributed/dmlab30/<name>`` keeps meaning jaxlab's native level (its script is reached by path).
"""
from __future__ import annotations

from pathlib import Path
from typing import Any, Dict, Tuple

from jaxlab.levels.dmlab.checkout import game_scripts

NATIVE_PREFIX = "contributed/"


def with_checkout(name: str, settings: Dict[str, Any]) -> Tuple[str, Dict[str, Any]]:
    """``(name, settings)`` for ``jaxlab.make`` once ``settings["dmlab_root"]`` is taken out: a ``.lua``
    path gets the checkout's ``game_scripts`` as ``levels_dir`` (unless one is given); a name with a
    script ``game_scripts/levels/<name>.lua`` becomes that script's path; any other name, and
    ``contributed/...`` names, are left as they are."""
    settings = dict(settings)
    scripts = game_scripts(settings.pop("dmlab_root"), "jaxlab.make: dmlab_root")
    if name.endswith(".lua"):
        settings.setdefault("levels_dir", str(scripts))
        return name, settings
    script = scripts / "levels" / f"{name}.lua"
    if name.startswith(NATIVE_PREFIX) or ".." in Path(name).parts or not script.is_file():
        return name, settings
    settings.setdefault("levels_dir", str(scripts))
    return str(script), settings
