"""The grid kernel: a fresh world from a key, and one frame of play.

A frame runs, in order: respawns due this frame; every player's turn and move
(random order, contacts as pieces leave and enter cells); beams; per-cell
transitions; the step cost, the end condition and the frame count.
"""
from __future__ import annotations

from typing import NamedTuple, Optional, Tuple

import jax
import jax.numpy as jnp

from jaxlab.bank import Bank
from jaxlab.env import select_tree
from jaxlab.kernels.grid.beams import fire_beams
from jaxlab.kernels.grid.movement import move_players, spawn_players
from jaxlab.kernels.grid.state import GridState
from jaxlab.kernels.grid.transitions import apply_transitions
from jaxlab.levels.lab2d.compiled import CompiledGrid
from jaxlab.levels.lab2d.layout import GridLayout


class GridActions(NamedTuple):
    """Every player's actions for one frame.

    move int32[P] 0 none, 1..4 (N/E/S/W, or forward/right/backward/left when
    movement is relative); turn int32[P] -1 left, 0, 1 right; fire int32[P, B]
    0/1 per beam.
    """

    move: jnp.ndarray
    turn: jnp.ndarray
    fire: jnp.ndarray


def map_grid(world: CompiledGrid, chars: jnp.ndarray) -> jnp.ndarray:
    """int32[L, H, W] state ids of a map given as uint8[H, W] characters."""
    return jnp.moveaxis(jnp.asarray(world.map_states)[chars.astype(jnp.int32)], -1, 0)


def generate_layouts(world: CompiledGrid, size: int, seed: int = 0) -> Bank:
    """A ``Bank`` of ``size`` GridLayouts (chars uint8[size, H, W]) made by the
    level's generator on device (keys split from ``seed``); the same
    arguments give the same bank."""
    keys = jax.random.split(jax.random.PRNGKey(seed), size)
    return Bank(GridLayout(chars=jax.jit(jax.vmap(world.spec.generator))(keys)))


def initial_state(world: CompiledGrid, key: jax.Array, layouts: Optional[Bank] = None,
                  layout_index=None) -> GridState:
    """A fresh episode: the map — layout ``layout_index`` (int32[], may be
    traced) of ``layouts`` (a ``Bank`` of GridLayouts) or one drawn by the
    key, else a fresh one from the level's generator, else the spec's map —
    with every player spawned on a random free cell of its spawn state."""
    key, map_key, spawn_key = jax.random.split(key, 3)
    if layouts is not None:
        chars = layouts.get(layouts.sample_index(map_key) if layout_index is None else layout_index).chars
    elif world.spec.generator:
        chars = world.spec.generator(map_key)
    else:
        chars = jnp.asarray(world.initial_map)
    P, B, K = world.num_players, len(world.beam_actions), len(world.spec.items)
    grid = map_grid(world, chars)
    pos = jnp.zeros((P, 2), jnp.int32)
    orient = jnp.zeros(P, jnp.int32)
    grid, pos, orient, placed = spawn_players(world, grid, pos, orient, jnp.ones(P, bool), spawn_key)
    inventory = jnp.broadcast_to(jnp.asarray(world.spec.initial_inventory or (0,) * K, jnp.int32), (P, K))
    return GridState(grid=grid, pos=pos, orientation=orient, frozen=jnp.zeros(P, jnp.int32),
                     respawn=jnp.where(placed, 0, 1).astype(jnp.int32), cooldown=jnp.zeros((P, B), jnp.int32),
                     inventory=inventory, reward=jnp.zeros(P, jnp.float32), frame=jnp.int32(0),
                     done=jnp.bool_(False), key=key)


def _ended(world: CompiledGrid, state: GridState) -> Tuple[jnp.ndarray, jnp.ndarray]:
    """(terminated, truncated) bool[]: the end state is gone / the frames ran out."""
    if world.end_state:
        gone = ~(state.grid[int(world.state_layer[world.end_state])] == world.end_state).any()
    else:
        gone = jnp.bool_(False)
    return gone, (state.frame >= world.spec.episode_frames) & ~gone


def step_frame(world: CompiledGrid, state: GridState, actions: GridActions):
    """Play one frame. Returns (state, reward float32[P], terminated bool[],
    truncated bool[]). A state that is ``done`` stays as it is, with zero
    reward."""
    key, spawn_key, order_key, grow_key = jax.random.split(state.key, 4)
    # clear last frame's beam overlays
    grid = state.grid
    for overlay in {int(o) for o in world.beam_overlay if o}:
        ol = int(world.state_layer[overlay])
        grid = grid.at[ol].set(jnp.where(grid[ol] == overlay, 0, grid[ol]))
    # respawns due this frame
    respawn = jnp.maximum(state.respawn - 1, 0)
    due = (state.respawn == 1)
    grid, pos, orient, placed = spawn_players(world, grid, state.pos, state.orientation, due, spawn_key)
    respawn = jnp.where(due & ~placed, 1, respawn)
    active = (state.frozen == 0) & (respawn == 0)
    frozen = jnp.maximum(state.frozen - 1, 0)
    cooldown = jnp.maximum(state.cooldown - 1, 0)

    grid, pos, orient, respawn, inventory, reward = move_players(
        world, grid, pos, orient, respawn, state.inventory, actions.move, actions.turn, active, order_key)
    if world.beam_actions:
        beams = fire_beams(world, grid, pos, orient, actions.fire, active & (respawn == 0), frozen, respawn,
                           cooldown, inventory)
        grid, frozen, respawn, cooldown, inventory = beams.grid, beams.frozen, beams.respawn, beams.cooldown, \
            beams.inventory
        reward = reward + beams.reward
    grid = apply_transitions(world, grid, grow_key)
    reward = reward - world.spec.step_cost
    new = GridState(grid=grid, pos=pos, orientation=orient, frozen=frozen, respawn=respawn, cooldown=cooldown,
                    inventory=inventory, reward=reward, frame=state.frame + 1, done=state.done, key=key)
    terminated, truncated = _ended(world, new)
    new = new.replace(reward=reward + jnp.where(terminated, world.spec.completion_reward, 0.0),
                      done=terminated | truncated)
    # a finished episode stays finished
    kept = state.replace(reward=jnp.zeros_like(state.reward))
    new = select_tree(state.done, kept, new)
    terminated, truncated = _ended(world, new)
    return new, new.reward, terminated, truncated
