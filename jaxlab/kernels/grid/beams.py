"""Beams: fire actions that reach ahead of an avatar and change what they hit.

A beam covers ``length`` cells ahead in ``2·radius + 1`` parallel lanes; each
lane stops before the first cell holding a ``blocks_beams`` state. All players
fire at once (after everyone has moved). Hit cells change by the BeamHit
table, hit players are frozen and rewarded, and the matrix-game beam resolves
the firer's and the hit player's inventories.
"""
from __future__ import annotations

from typing import NamedTuple

import jax.numpy as jnp

from jaxlab.levels.lab2d.compiled import CompiledGrid, KEEP, locate


class BeamResult(NamedTuple):
    """Everything beams change in one frame (shapes as in GridState)."""

    grid: jnp.ndarray
    frozen: jnp.ndarray
    respawn: jnp.ndarray
    cooldown: jnp.ndarray
    inventory: jnp.ndarray
    reward: jnp.ndarray


def beam_cells(world: CompiledGrid, b: int, grid, pos, orient, fires):
    """bool[P, H, W]: the cells beam ``b`` covers for each firing player
    (``fires`` bool[P]); lanes stop before beam-blocking states."""
    P = world.num_players
    offsets = jnp.asarray(world.beam_offsets[b])[orient]          # [P, lanes, len, 2]
    cells, inside = locate(world, pos[:, None, None, :] + offsets)
    blocked = jnp.asarray(world.blocks_beams)[grid[:, cells[..., 0], cells[..., 1]]].any(0)
    reach = jnp.cumprod(inside & ~blocked, axis=-1).astype(bool) & fires[:, None, None]
    who = jnp.broadcast_to(jnp.arange(P)[:, None, None], reach.shape)
    mask = jnp.zeros((P, world.height, world.width), bool)
    return mask.at[who, cells[..., 0], cells[..., 1]].max(reach)


def _matrix_game(world: CompiledGrid, hit, inventory):
    """Resolve the matrix game for hits ``hit[p, q]`` (p's beam hit q).
    Returns (reward float32[P], involved bool[P], removed bool[P])."""
    held = inventory.sum(-1)
    eligible = held >= world.matrix_min_items
    pair = hit & eligible[:, None] & eligible[None, :]
    x = inventory / jnp.maximum(held, 1)[:, None]
    value = x @ jnp.asarray(world.payoff) @ x.T                   # [P, P]: p's payoff against q
    reward = (pair * value).sum(1) + (pair * value.T).sum(0)
    return reward, pair.any(1) | pair.any(0), pair.any(0)


def fire_beams(world: CompiledGrid, grid, pos, orient, fire, active, frozen, respawn, cooldown,
               inventory) -> BeamResult:
    """Fire every beam of every active player whose fire action is 1.

    fire int32[P, B]; active bool[P] (present and not frozen); frozen,
    respawn, cooldown, inventory: this frame's values (see GridState).
    Returns the frame's BeamResult; the overlay layer shows this frame's beams.
    """
    P, la = world.num_players, world.avatar_layer
    reward = jnp.zeros(P, jnp.float32)
    player_state = jnp.asarray(world.player_state)
    initial = jnp.asarray(world.spec.initial_inventory or (0,) * len(world.spec.items), jnp.int32)
    for b in range(len(world.beam_actions)):
        fires = active & (fire[:, b] > 0) & (cooldown[:, b] == 0)
        mask = beam_cells(world, b, grid, pos, orient, fires)
        anywhere = mask.any(0)
        reward = reward + (mask * jnp.asarray(world.hit_reward)[b][grid].sum(0)[None]).sum((1, 2))
        reward = reward - fires * world.beam_cost[b]
        present = respawn == 0
        hit = mask[:, pos[:, 0], pos[:, 1]] & present[None, :] & ~jnp.eye(P, dtype=bool)   # [p, q]
        hit_any = hit.any(0)
        reward = reward + hit.sum(0) * jnp.asarray(world.hit_target_reward)[b][player_state]
        frozen = jnp.maximum(frozen, jnp.where(hit_any, jnp.asarray(world.hit_freeze)[b][player_state], 0))
        new = jnp.asarray(world.hit_becomes)[b][grid]
        grid = jnp.where(anywhere[None] & (new != KEEP), new, grid)
        if b == world.matrix_beam:
            gain, involved, removed = _matrix_game(world, hit, inventory)
            reward = reward + gain
            inventory = jnp.where(involved[:, None], initial[None, :], inventory)
            if world.matrix_respawn > 0:
                gone = removed & present
                respawn = jnp.where(gone, world.matrix_respawn, respawn)
                cell = grid[la, pos[:, 0], pos[:, 1]]
                grid = grid.at[la, pos[:, 0], pos[:, 1]].set(jnp.where(gone, 0, cell))
        overlay = int(world.beam_overlay[b])
        if overlay:
            ol = int(world.state_layer[overlay])
            grid = grid.at[ol].set(jnp.where(anywhere & (grid[ol] == 0), overlay, grid[ol]))
        cooldown = cooldown.at[:, b].set(jnp.where(fires, world.beam_cooldown[b], cooldown[:, b]))
    return BeamResult(grid, frozen, respawn, cooldown, inventory, reward)
