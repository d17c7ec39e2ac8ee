"""Lab2D's layer views (``world:createView{...}`` and ``view:observation{...}``): the sprite ids a
window of the grid shows, seen from a place and a facing.

A view holds ``left`` + ``right`` + 1 columns and ``forward`` + ``backward`` + 1 rows around the
selected cell (a ``centered`` view is square, as wide as its largest side, and its cells beyond the
declared sides show the world's ``outOfViewSprite``). Each cell holds one sprite id per render layer:
0 for nothing, else ``4 * sprite + 1 + facing``, the facing relative to the viewer's (Lab2D's
``world:spriteNames()`` order: '', then ``name.N``, ``name.E``, ``name.S``, ``name.W`` per sprite). On a
bounded grid a window that reaches past the edge shows the ``outOfBoundsSprite`` there (and, as in
Lab2D, in the whole window first); a torus wraps.
"""
from __future__ import annotations

import dataclasses
from typing import Mapping, Optional

import jax.numpy as jnp
import numpy as np

from jaxlab.kernels.lab2d_grid.queries import visible_sprites
from jaxlab.kernels.lab2d_grid.state import GridRules, GridState


@dataclasses.dataclass(frozen=True)
class LayerView:
    """A view's window (cells to each side of the selected cell, as ``world:createView`` takes them) and
    its sprite remapping (``sprite_map``: sprite id -> sprite id shown instead)."""

    left: int
    right: int
    forward: int
    backward: int
    centered: bool = False
    sprite_map: Optional[Mapping[int, int]] = None

    @property
    def sides(self):
        """(left, right, forward, backward) as drawn (a centered view's are all the largest)."""
        if self.centered:
            m = max(self.left, self.right, self.forward, self.backward)
            return m, m, m, m
        return self.left, self.right, self.forward, self.backward

    @property
    def size(self):
        """(height, width) in cells: ``view:gridSize()``."""
        left, right, forward, backward = self.sides
        return forward + backward + 1, left + right + 1


def _sprite_id(rules: GridRules, view: LayerView, sprite, facing) -> jnp.ndarray:
    table = np.arange(len(rules.world.sprite_names) + 1, dtype=np.int32)
    table[-1] = -1
    for a, b in (view.sprite_map or {}).items():
        table[a] = b
    mapped = jnp.asarray(table)[sprite]
    return jnp.where(mapped >= 0, mapped * 4 + 1 + jnp.mod(facing, 4), 0)


def observe(rules: GridRules, view: LayerView, g: GridState, pos, facing, player_facing=None,
            shown=True) -> jnp.ndarray:
    """``view:observation{...}``: int32[Hv, Wv, R] sprite ids of the window around ``pos`` (int32[2] x, y)
    seen facing ``facing`` (int32[]). ``player_facing`` (default ``facing``): the piece's own facing,
    which orients the out-of-view cells (an ``orientation`` given to ``observation`` turns the view but
    not them). ``shown`` false: the piece is off the grid or has no layer, and the whole window shows
    the out-of-bounds sprite."""
    left, right, forward, backward = view.sides
    height, width = view.size
    player_facing = facing if player_facing is None else player_facing
    vy, vx = np.meshgrid(np.arange(height), np.arange(width), indexing="ij")
    rx, by = vx - left, vy - forward        # right of and behind the viewer, in its own frame
    turns = jnp.mod(facing, 4)
    ox = jnp.select([turns == 0, turns == 1, turns == 2], [rx, -by, -rx], by)
    oy = jnp.select([turns == 0, turns == 1, turns == 2], [by, rx, -by], -rx)
    x, y = pos[0] + ox, pos[1] + oy
    sprites, orient = visible_sprites(rules, g)
    if rules.torus:
        inside = jnp.ones(x.shape, bool)
        x, y = jnp.mod(x, rules.width), jnp.mod(y, rules.height)
    else:
        inside = (x >= 0) & (x < rules.width) & (y >= 0) & (y < rules.height)
        x, y = jnp.clip(x, 0, rules.width - 1), jnp.clip(y, 0, rules.height - 1)
    ids = _sprite_id(rules, view, sprites[:, y, x], orient[:, y, x] - facing)      # [R, Hv, Wv]
    out_of_bounds = jnp.int32(rules.world.out_of_bounds_sprite)
    ids = jnp.where(inside[None], ids, _sprite_id(rules, view, out_of_bounds, facing))
    ids = jnp.where(jnp.asarray(shown), ids, _sprite_id(rules, view, out_of_bounds, player_facing))
    if view.centered:
        ids = _clear_out_of_view(rules, view, ids, jnp.mod(player_facing - facing, 4))
    return jnp.moveaxis(ids, 0, -1)


def _clear_out_of_view(rules: GridRules, view: LayerView, ids, facing) -> jnp.ndarray:
    """Lab2D's ``ClearOutOfViewSprites``: a centered view's cells beyond the declared sides."""
    m = view.sides[0]
    extra = {"left": m - view.left, "right": m - view.right, "forward": m - view.forward,
             "backward": m - view.backward}
    order = [("forward", "backward", "left", "right"), ("left", "right", "backward", "forward"),
             ("backward", "forward", "right", "left"), ("right", "left", "forward", "backward")]
    height, width = view.size
    rows, cols = np.arange(height)[:, None], np.arange(width)[None, :]
    masks = []
    for top, bottom, lft, rgt in order:
        masks.append((rows < extra[top]) | (rows >= height - extra[bottom]) | (cols < extra[lft])
                     | (cols >= width - extra[rgt]))
    mask = jnp.asarray(np.stack(masks))[facing]
    oov = _sprite_id(rules, view, jnp.int32(rules.world.out_of_view_sprite), facing)
    return jnp.where(mask[None], oov, ids)
