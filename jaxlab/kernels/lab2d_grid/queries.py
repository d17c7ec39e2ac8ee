"""What callbacks and observations read from the grid, as Lab2D answers it.

Lists (a group's pieces, the pieces in an area) have a fixed length on the device: each query
returns its pieces (int32[K], -1 past the end), their positions where Lab2D gives them (int32[K, 2])
and how many there are (int32[]), in Lab2D's order (areas: the order Lab2D visits their cells;
random orders: uniformly random).
"""
from __future__ import annotations

from typing import Tuple

import jax
import jax.numpy as jnp
import numpy as np

from jaxlab.kernels.lab2d_grid.state import GridRules, GridState, cell_index, cell_ok, in_bounds, take_key


def group_members(rules: GridRules, g: GridState, group) -> jnp.ndarray:
    """bool[P]: the pieces in ``group`` (int32[], -1: none)."""
    return (g.piece_state >= 0) & rules.in_group(g.piece_state, group)


def group_count(rules: GridRules, g: GridState, group) -> jnp.ndarray:
    """int32[]: ``grid:groupCount(group)``."""
    return jnp.sum(group_members(rules, g, group)).astype(jnp.int32)


def group_random(rules: GridRules, g: GridState, group):
    """``grid:groupRandom(random, group)``: (g, a uniformly random member, -1 if none)."""
    members = group_members(rules, g, group)
    g, key = take_key(g)
    pick = jnp.argmax(jnp.where(members, jax.random.uniform(key, members.shape) + 1.0, 0.0)).astype(jnp.int32)
    return g, jnp.where(jnp.any(members), pick, -1)


def group_shuffled(rules: GridRules, g: GridState, group, count=None):
    """``grid:groupShuffled(random, group)`` (``count``: ``groupShuffledWithCount``, at most that many):
    (g, int32[P] members in a random order then -1, int32[] how many)."""
    members = group_members(rules, g, group)
    g, key = take_key(g)
    order = jnp.argsort(jnp.where(members, jax.random.uniform(key, members.shape), 2.0)).astype(jnp.int32)
    n = jnp.sum(members).astype(jnp.int32)
    if count is not None:
        n = jnp.clip(jnp.asarray(count, jnp.int32), 0, n)
    return g, jnp.where(jnp.arange(order.shape[0]) < n, order, -1), n


def ray_cast_direction(rules: GridRules, g: GridState, layer, start, direction, max_steps: int):
    """``grid:rayCastDirection(layer, start, direction)``: (hit bool[]: a piece was found, the line left
    the grid, or ``start`` is no cell; piece int32[] found (-1 none); offset int32[2] from ``start`` to
    the piece, or to the last cell on the grid; ``direction`` when nothing was hit). Cells run along
    Lab2D's line (``RayCastLine``) from ``start`` (not included) to ``start + direction``, at most
    ``max_steps`` (static) of them."""
    start, direction = jnp.asarray(start, jnp.int32), jnp.asarray(direction, jnp.int32)
    end = start + direction
    adx, ady = jnp.abs(direction[0]), jnp.abs(direction[1])
    sx, sy = jnp.where(direction[0] > 0, 1, -1), jnp.where(direction[1] > 0, 1, -1)
    start_ok = cell_ok(rules, start, layer)

    def step(c):
        k, p, err, prev, done, piece, found = c
        take_y = err < 0
        p2 = jnp.where(take_y, p + jnp.stack([0, sy]), p + jnp.stack([sx, 0]))
        err2 = jnp.where(take_y, err + 2 * adx, err - 2 * ady)
        outside = ~in_bounds(rules, p2)
        there = jnp.where(outside, -1, g.cells[cell_index(rules, p2, layer)])
        stop = outside | (there >= 0)
        return (k + 1, p2, err2, jnp.where(outside, prev, p2), stop, jnp.where(stop & ~outside, there, piece),
                jnp.where(stop, jnp.where(outside, prev, p2), found))

    c = (jnp.int32(0), start, adx - ady, start, ~start_ok, jnp.int32(-1), start)
    c = jax.lax.while_loop(lambda c: (c[0] < max_steps) & ~c[4] & jnp.any(c[1] != end), step, c)
    _, _, _, _, done, piece, found = c
    return done, piece, jnp.where(done, found - start, direction)


def _diamond_offsets(radius: int) -> np.ndarray:
    out = []
    for y in range(-radius, radius + 1):
        x = radius - abs(y)
        out += [(dx, y) for dx in range(-x, x + 1)]
    return np.asarray(out, np.int32).reshape(-1, 2)


def _disc_offsets(radius: int) -> np.ndarray:
    out = []

    def line(x0, x1, y):
        out.extend((x, y) for x in range(x0, x1 + 1))

    dey, dex, err, x, y = 1 - 2 * radius, 1, 0, 0, radius
    while x <= y:
        line(-y, y, x)
        if x > 0:
            line(-y, y, -x)
        err += dex
        dex += 2
        if err > 0:
            if x != y:
                line(-x, x, y)
                line(-x, x, -y)
            y -= 1
            err += dey
            dey += 2
        x += 1
    return np.asarray(out, np.int32).reshape(-1, 2)


def _collect(rules: GridRules, g: GridState, layer, cells, keep) -> Tuple[jnp.ndarray, jnp.ndarray, jnp.ndarray]:
    """(pieces int32[K], positions int32[K, 2], count) at ``cells`` (int32[K, 2]) where ``keep``."""
    ok = keep & jax.vmap(lambda p: in_bounds(rules, p))(cells) & (layer >= 0)
    idx = jax.vmap(lambda p: cell_index(rules, p, layer))(cells)
    found = jnp.where(ok, g.cells[idx], -1)
    present = found >= 0
    k = jnp.arange(found.shape[0])
    order = jnp.argsort(jnp.where(present, k, found.shape[0] + k))
    n = jnp.sum(present).astype(jnp.int32)
    live = jnp.arange(found.shape[0]) < n
    return jnp.where(live, found[order], -1), jnp.where(live[:, None], cells[order], 0), n


def query_diamond(rules: GridRules, g: GridState, layer, centre, radius, max_radius: int):
    """``grid:queryDiamond(layer, position, radius)``: pieces within L1 distance ``radius`` (at most the
    static ``max_radius``) of ``centre``; positions as Lab2D gives them (not wrapped on a torus)."""
    offsets = _diamond_offsets(max_radius)
    keep = jnp.abs(offsets[:, 0]) + jnp.abs(offsets[:, 1]) <= radius
    return _collect(rules, g, layer, jnp.asarray(centre, jnp.int32) + offsets, keep)


def query_disc(rules: GridRules, g: GridState, layer, centre, radius: int):
    """``grid:queryDisc(layer, position, radius)`` for a static ``radius`` (Lab2D's disc of cells)."""
    offsets = _disc_offsets(radius)
    return _collect(rules, g, layer, jnp.asarray(centre, jnp.int32) + offsets, jnp.ones(len(offsets), bool))


def query_rectangle(rules: GridRules, g: GridState, layer, corner0, corner1, max_cells: int):
    """``grid:queryRectangle(layer, corner0, corner1)``: pieces in the inclusive rectangle (clamped to a
    bounded grid), row by row; at most ``max_cells`` (static) cells are looked at."""
    c0, c1 = jnp.asarray(corner0, jnp.int32), jnp.asarray(corner1, jnp.int32)
    lo, hi = jnp.minimum(c0, c1), jnp.maximum(c0, c1)
    if not rules.torus:
        lo = jnp.maximum(lo, 0)
        hi = jnp.minimum(hi, jnp.asarray([rules.width - 1, rules.height - 1], jnp.int32))
    width = hi[0] - lo[0] + 1
    k = jnp.arange(max_cells, dtype=jnp.int32)
    cells = jnp.stack([lo[0] + k % jnp.maximum(width, 1), lo[1] + k // jnp.maximum(width, 1)], axis=-1)
    keep = (width > 0) & (cells[:, 1] <= hi[1])
    return _collect(rules, g, layer, cells, keep)


def visible_sprites(rules: GridRules, g: GridState):
    """(int32[R, H, W] the sprite drawn on each render layer, -1 none; int32[R, H, W] its facing): a
    beam drawn this frame, else the sprite of the state of the piece there, facing as the piece does.
    (Lab2D keeps the drawn sprites apart from the pieces; every operation here keeps them equal.)"""
    r = rules.world.num_render_layers
    cells = g.cells[:r]
    pieces = jnp.maximum(cells, 0)
    sprite = jnp.where(cells >= 0, rules.state_sprite(g.piece_state[pieces]), -1)
    facing = g.piece_orient[pieces]
    beam = g.beam[:r] >= 0
    return jnp.where(beam, g.beam[:r], sprite), jnp.where(beam, g.beam_orient[:r], facing)


def to_text(rules: GridRules, g: GridState) -> jnp.ndarray:
    """uint8[H, W + 1]: ``tostring(grid)``, Lab2D's text of the grid: per cell the first letter of the
    name of the sprite on its highest render layer (a space where none), each row ended by a newline."""
    first = np.asarray([ord(name[0]) for name in rules.world.sprite_names] + [32], np.uint8)
    shown, _ = visible_sprites(rules, g)
    top = jnp.full((rules.height, rules.width), -1, jnp.int32)
    for layer in range(shown.shape[0]):
        top = jnp.where(shown[layer] >= 0, shown[layer], top)
    text = jnp.asarray(first)[top]
    return jnp.concatenate([text, jnp.full((rules.height, 1), 10, jnp.uint8)], axis=1)
