"""The layout a level of ``lab2d_grid_levels/`` declares (``local LAYOUT = [[...]]``), read from the Lua
itself, so that the Python twin of a level places the same pieces."""
from __future__ import annotations

import re
from pathlib import Path

LEVELS = Path(__file__).parent / "lab2d_grid_levels"


def layout_of(script: str) -> str:
    """The text between ``local LAYOUT = [[`` and ``]]`` in ``lab2d_grid_levels/<script>``."""
    found = re.search(r"local LAYOUT = \[\[\n(.*?)\]\]", (LEVELS / script).read_text(), re.S)
    if found is None:
        raise ValueError(f"{script} declares no LAYOUT")
    return found.group(1)
