"""A DeepMind Lab checkout on disk: where its level scripts and their modules live."""
from __future__ import annotations

import os
from pathlib import Path
from typing import Any


def game_scripts(root: Any, what: str = "dmlab_root") -> Path:
    """The ``game_scripts`` folder of the DeepMind Lab checkout at ``root`` (the checkout's root, or that
    folder itself: the one holding ``levels`` and ``common``). TypeError for a value that is not a path;
    FileNotFoundError naming ``what`` (the setting or option that gave it) when it is neither."""
    if not isinstance(root, (str, os.PathLike)) or not str(root):
        raise TypeError(f"{what}: expected a folder (str or os.PathLike), got {root!r}")
    root = Path(root)
    for candidate in (root / "game_scripts", root):
        if (candidate / "levels").is_dir() and (candidate / "common").is_dir():
            return candidate
    raise FileNotFoundError(f"{what} {str(root)!r} is neither a DeepMind Lab checkout nor its game_scripts "
                            "folder (no game_scripts/levels and game_scripts/common)")
