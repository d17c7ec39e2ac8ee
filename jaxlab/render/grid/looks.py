"""What cells look like: sprite art as pixels, and pre-composited cell looks.

Sprites come from ASCII art and palettes, scaled to the world's sprite size
and rotated for each of the four viewer orientations. An ``Appearance``
composites every combination of visible states a cell can hold once, at
compile time, so rendering a frame is a single gather.
"""
from __future__ import annotations

from typing import Optional, Tuple

import numpy as np

from jaxlab.levels.lab2d.compiled import Appearance
from jaxlab.levels.lab2d.spec import GridSpecError, Sprite, GridSpec


def sprite_pixels(sprite: Sprite, size: int, where: str) -> Tuple[np.ndarray, np.ndarray]:
    """A sprite's art as (uint8[size, size, 3] RGB, bool[size, size] opaque),
    scaled by nearest neighbour from its own square size."""
    rows = sprite.rows
    n = len(rows)
    if n == 0 or any(len(r) != n for r in rows):
        raise GridSpecError(f"{where}: sprite art must be square (got {n} rows of lengths "
                            f"{sorted({len(r) for r in rows})})")
    rgba = np.zeros((n, n, 4), np.uint8)
    for i, row in enumerate(rows):
        for j, ch in enumerate(row):
            if ch not in sprite.palette:
                raise GridSpecError(f"{where}: sprite row {i + 1} uses {ch!r}, which is not in its palette "
                                    f"(palette: {''.join(sorted(sprite.palette))!r})")
            colour = tuple(sprite.palette[ch])
            rgba[i, j] = colour + (255,) if len(colour) == 3 else colour
    pick = (np.arange(size) * n) // size
    rgba = rgba[pick][:, pick]
    return rgba[..., :3], rgba[..., 3] > 0


def appearance_table(state_layer, visible, sprites, alpha, max_bytes: int) -> Optional[Appearance]:
    """The Appearance of states on layers ``state_layer`` (int32[S]) with
    ``visible``/``sprites``/``alpha`` as from sprite_tables, or None when its
    table would pass ``max_bytes``."""
    S, size = len(state_layer), sprites.shape[2]
    layers = tuple(sorted({int(state_layer[i]) for i in range(1, S) if visible[i]}))
    local = np.zeros((len(layers), S), np.int32)
    members = []
    for i, l in enumerate(layers):
        ids = [k for k in range(1, S) if visible[k] and state_layer[k] == l]
        local[i, ids] = np.arange(1, len(ids) + 1)
        members.append(np.array([0] + ids, np.int32))
    counts = [len(m) for m in members]
    C = int(np.prod(counts)) if counts else 1
    if 4 * C * size * size * 3 > max_bytes:
        return None
    stride = np.cumprod([1] + counts[:-1]).astype(np.int32)
    looks = np.zeros((4, C, size, size, 3), np.uint8)
    combo = np.arange(C)
    for i in range(len(layers)):
        sid = members[i][(combo // stride[i]) % counts[i]]                # [C]
        looks = np.where(alpha[:, sid][..., None], sprites[:, sid], looks)
    return Appearance(layers=layers, local=local, stride=stride, rows=looks.reshape(4 * C, size, size * 3))


def sprite_tables(spec: GridSpec, size: int) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every state's sprite at ``size`` px for the four orientations:
    (uint8[4, S, size, size, 3] RGB, bool[4, S, size, size] opaque, bool[S]
    visible), S = len(spec.states) + 1 (id 0, empty, draws nothing)."""
    S = len(spec.states) + 1
    sprites = np.zeros((4, S, size, size, 3), np.uint8)
    alpha = np.zeros((4, S, size, size), bool)
    visible = np.zeros(S, bool)
    for i, st in enumerate(spec.states, 1):
        if st.sprite is None:
            continue
        rgb, opaque = sprite_pixels(st.sprite, size, f"{spec.name}: state {st.name!r}")
        visible[i] = True
        for o in range(4):
            sprites[o, i] = np.rot90(rgb, k=o)
            alpha[o, i] = np.rot90(opaque, k=o)
    return sprites, alpha, visible
