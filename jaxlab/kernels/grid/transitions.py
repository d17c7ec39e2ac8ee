"""Per-cell stochastic transitions (regrowth, pollution), applied each frame."""
from __future__ import annotations

import jax
import jax.numpy as jnp

from jaxlab.levels.lab2d.compiled import CompiledGrid, CompiledTransition


def _shifted(world: CompiledGrid, mask: jnp.ndarray, dr: int, dc: int) -> jnp.ndarray:
    """``mask`` (int32[H, W]) moved so cell (r, c) reads (r + dr, c + dc);
    zero beyond a bounded grid's edge, wrapped on a torus."""
    if world.spec.topology == "torus":
        return jnp.roll(mask, (-dr, -dc), axis=(0, 1))
    H, W = mask.shape
    padded = jnp.pad(mask, ((abs(dr), abs(dr)), (abs(dc), abs(dc))))
    return jax.lax.dynamic_slice(padded, (abs(dr) + dr, abs(dc) + dc), (H, W))


def neighbour_count(world: CompiledGrid, grid: jnp.ndarray, t: CompiledTransition) -> jnp.ndarray:
    """int32[H, W]: cells in state ``t.neighbour`` within ``t``'s radius of each cell."""
    mask = (grid[int(world.state_layer[t.neighbour])] == t.neighbour).astype(jnp.int32)
    return sum(_shifted(world, mask, dr, dc) for dr, dc in t.offsets)


def transition_probability(world: CompiledGrid, grid: jnp.ndarray, t: CompiledTransition) -> jnp.ndarray:
    """float32[H, W] (or []): the chance this frame that a ``t.source`` cell
    becomes ``t.target``."""
    table = jnp.asarray(t.probability)
    if t.neighbour:
        prob = table[jnp.minimum(neighbour_count(world, grid, t), len(t.probability) - 1)]
    else:
        prob = table[0]
    if t.depletion is not None:
        state, among, zero_at = t.depletion
        layer = grid[int(world.state_layer[state])]
        total = sum((grid[int(world.state_layer[a])] == a).sum() for a in among)
        fraction = (layer == state).sum() / jnp.maximum(total, 1)
        prob = prob * jnp.clip(1.0 - fraction / zero_at, 0.0, 1.0)
    return prob


def apply_transitions(world: CompiledGrid, grid: jnp.ndarray, key: jax.Array) -> jnp.ndarray:
    """Apply every Transition in order (each sees the ones before); cells under
    avatars keep their state unless the transition says otherwise. Returns
    int32[L, H, W]."""
    if not world.transitions:
        return grid
    keys = jax.random.split(key, len(world.transitions))
    for t, k in zip(world.transitions, keys):
        layer = grid[t.layer]
        change = (layer == t.source) & (jax.random.uniform(k, layer.shape) < transition_probability(world, grid, t))
        if not t.under_avatars:
            change &= ~jnp.asarray(world.is_avatar)[grid[world.avatar_layer]]
        grid = grid.at[t.layer].set(jnp.where(change, t.target, layer))
    return grid
