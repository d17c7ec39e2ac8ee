"""Assemble a first-person ``Level`` from arrays drawn on device (pure jnp, jit/vmap-safe).

Generators draw a map (cells, doors), spawn points and sets of pickups, then
call ``assemble_level``; every shape is fixed by the arrays passed in, so a
generator has one size class.
"""
from __future__ import annotations

import jax.numpy as jnp
from flax import struct

from jaxlab.levels.dmlab.level import Level
from jaxlab.levels.dmlab.map_parser import CELL_DOOR_H, CELL_DOOR_I


@struct.dataclass
class PickupSet:
    """N pickups as ``Level`` stores them (all arrays [N]; see ``Level`` for each field).

    pos: float32[N, 2] (x, y) units; kind: int32[N] look (``PICKUP_TYPES`` index);
    reward: float32[N]; is_goal, valid, takeable, switch, counts: bool[N];
    respawn_frames: int32[N] (-1 never); key: int32[N] (0 none); teleport: int32[N] (-1 none);
    scale: float32[N] drawn size as a factor of the type's.
    """

    pos: jnp.ndarray
    kind: jnp.ndarray
    reward: jnp.ndarray
    is_goal: jnp.ndarray
    valid: jnp.ndarray
    respawn_frames: jnp.ndarray
    takeable: jnp.ndarray
    key: jnp.ndarray
    switch: jnp.ndarray
    teleport: jnp.ndarray
    counts: jnp.ndarray
    scale: jnp.ndarray


def pickup_set(pos, kind, reward, valid=True, *, is_goal=False, respawn_frames=-1, takeable=True,
               key=0, switch=False, teleport=-1, counts=False, scale=1.0) -> PickupSet:
    """A PickupSet of N = ``pos.shape[0]`` pickups; every other argument is an [N] array or a
    scalar broadcast to [N]."""
    pos = jnp.asarray(pos, jnp.float32).reshape(-1, 2)
    n = pos.shape[0]

    def full(value, dtype):
        return jnp.broadcast_to(jnp.asarray(value, dtype), (n,))

    return PickupSet(pos=pos, kind=full(kind, jnp.int32), reward=full(reward, jnp.float32),
                     is_goal=full(is_goal, bool), valid=full(valid, bool),
                     respawn_frames=full(respawn_frames, jnp.int32), takeable=full(takeable, bool),
                     key=full(key, jnp.int32), switch=full(switch, bool), teleport=full(teleport, jnp.int32),
                     counts=full(counts, bool), scale=full(scale, jnp.float32))


def concat_pickups(*sets: PickupSet) -> PickupSet:
    """The pickups of ``sets`` one after the other (N = the sum of their sizes)."""
    return PickupSet(*(jnp.concatenate([getattr(s, f) for s in sets]) for f in PickupSet.__dataclass_fields__))


def door_cells_to_index(cells: jnp.ndarray, door_cell: jnp.ndarray, door_valid: jnp.ndarray) -> jnp.ndarray:
    """int32[H, W] index of the door at each cell (-1: none); door_cell int32[D, 2] (row, col)."""
    index = jnp.full(cells.shape, -1, jnp.int32)
    rows = jnp.where(door_valid, door_cell[:, 0], cells.shape[0])   # invalid doors scatter out of range
    return index.at[rows, door_cell[:, 1]].set(jnp.arange(door_cell.shape[0], dtype=jnp.int32), mode="drop")


def assemble_level(cells, variation, door_cell, door_valid, pickups: PickupSet, spawn_pos, spawn_valid,
                   episode_seconds: float, *, door_lock=None, spawn_yaw=None, theme=0, switch_theme=0,
                   unlock_reward=0.0, end_after_pickups=0, teleport_pos=None, teleport_yaw=None,
                   platform_pos=(0.0, 0.0), platform_radius=0.0, platform_seconds=0.0,
                   platform_reward=0.0, floor_z=None, sky=0, jump_crouch=True, obstacle_pos=None,
                   obstacle_radius=None, spawn_yaw_range=None, instr=None, floor_rect=None, floor_rect_rgb=None,
                   counted_restarts=False, counted_bonus=0.0) -> Level:
    """A Level from generated arrays (no goal choices: goals sit where ``pickups`` put them).

    cells: int8[H, W] CELL_* codes (door cells CELL_DOOR_I/H); variation:
    int8[H, W] wall looks 0..26; door_cell: int32[D, 2] with door_valid
    bool[D] (D >= 1); door_lock: int32[D] (default 0); pickups: N >= 1;
    spawn_pos: float32[S, 2] units with spawn_valid bool[S]; spawn_yaw:
    float32[S] degrees (default NaN: random); teleport_pos float32[T, 2] /
    teleport_yaw float32[T] (default one unused slot); the scalars are the
    Level fields of the same names (seconds, units, rewards). Heights:
    floor_z float32[2 H, 2 W] units (default None: a flat level), sky
    int32[] (``heights.SKY_NAMES``), jump_crouch bool[], obstacle_pos
    float32[O, 2] and obstacle_radius float32[O] units (default O = 0); spawn_yaw_range float32[S]
    degrees (default 0). Language: instr
    int32[INSTRUCTION_LENGTH] (default none), floor_rect float32[F, 4] units with floor_rect_rgb
    uint8[F, 3] (default: the theme's floor), counted_restarts bool[] and counted_bonus float32[]. No hurt
    zones or jump pads.
    """
    cells = jnp.asarray(cells, jnp.int8)
    door_cell = jnp.asarray(door_cell, jnp.int32)
    door_valid = jnp.asarray(door_valid, bool)
    d = door_cell.shape[0]
    s = spawn_pos.shape[0]
    is_door_cell = (cells == CELL_DOOR_I) | (cells == CELL_DOOR_H)
    door_index = jnp.where(is_door_cell, door_cells_to_index(cells, door_cell, door_valid), -1)
    f32 = jnp.float32
    return Level(
        cells=cells, variation=jnp.asarray(variation, jnp.int8), door_index=door_index,
        door_cell=door_cell, door_valid=door_valid, rows=jnp.int32(cells.shape[0]),
        pickup_pos=pickups.pos, pickup_kind=pickups.kind, pickup_reward=pickups.reward,
        pickup_is_goal=pickups.is_goal, pickup_valid=pickups.valid,
        pickup_follows_goal=jnp.zeros_like(pickups.valid), pickup_respawn_frames=pickups.respawn_frames,
        goal_choice_pos=jnp.zeros((1, 2), f32), goal_choice_valid=jnp.ones((1,), bool),
        spawn_pos=jnp.asarray(spawn_pos, f32), spawn_allowed=jnp.asarray(spawn_valid, bool)[None, :],
        episode_seconds=f32(episode_seconds), pickup_takeable=pickups.takeable, custom_obs={},
        text_chars=jnp.zeros((0, 1), jnp.int32), text_pos=jnp.zeros((0, 2), f32),
        text_align=jnp.zeros((0,), jnp.int32), text_valid=jnp.zeros((0,), bool),
        bot_skill=jnp.zeros((0,), f32), bot_valid=jnp.zeros((0,), bool),
        door_lock=jnp.zeros((d,), jnp.int32) if door_lock is None else jnp.asarray(door_lock, jnp.int32),
        unlock_reward=f32(unlock_reward), pickup_key=pickups.key, pickup_switch=pickups.switch,
        switch_theme=jnp.asarray(switch_theme, jnp.int32), pickup_teleport=pickups.teleport,
        teleport_pos=jnp.zeros((1, 2), f32) if teleport_pos is None else jnp.asarray(teleport_pos, f32),
        teleport_yaw=jnp.zeros((1,), f32) if teleport_yaw is None else jnp.asarray(teleport_yaw, f32),
        pickup_counts=pickups.counts, end_after_pickups=jnp.asarray(end_after_pickups, jnp.int32),
        platform_pos=jnp.asarray(platform_pos, f32), platform_radius=jnp.asarray(platform_radius, f32),
        platform_seconds=jnp.asarray(platform_seconds, f32), platform_reward=jnp.asarray(platform_reward, f32),
        spawn_yaw=jnp.full((s,), jnp.nan, f32) if spawn_yaw is None else jnp.asarray(spawn_yaw, f32),
        theme=jnp.asarray(theme, jnp.int32),
        floor_z=jnp.zeros((0, 0), f32) if floor_z is None else jnp.asarray(floor_z, f32),
        sky=jnp.asarray(sky, jnp.int32), jump_crouch=jnp.asarray(jump_crouch, bool),
        obstacle_pos=jnp.zeros((0, 2), f32) if obstacle_pos is None else jnp.asarray(obstacle_pos, f32),
        obstacle_radius=jnp.zeros((0,), f32) if obstacle_radius is None else jnp.asarray(obstacle_radius, f32),
        pickup_scale=pickups.scale,
        spawn_yaw_range=jnp.zeros((s,), f32) if spawn_yaw_range is None else jnp.asarray(spawn_yaw_range, f32),
        pickup_spawned_by=jnp.full(pickups.valid.shape, -1, jnp.int32),
        instr=jnp.zeros((0,), jnp.int32) if instr is None else jnp.asarray(instr, jnp.int32),
        floor_rect=jnp.zeros((0, 4), f32) if floor_rect is None else jnp.asarray(floor_rect, f32),
        floor_rect_rgb=(jnp.zeros((0, 3), jnp.uint8) if floor_rect_rgb is None
                        else jnp.asarray(floor_rect_rgb, jnp.uint8)),
        counted_restarts=jnp.asarray(counted_restarts, bool), counted_bonus=jnp.asarray(counted_bonus, f32),
        hurt_box=jnp.zeros((0, 6), f32), hurt_damage=jnp.zeros((0,), f32), pad_box=jnp.zeros((0, 6), f32),
        pad_velocity=jnp.zeros((0, 3), f32), cleared_restarts=jnp.bool_(True),
        screen_box=jnp.zeros((0, 6), f32), screen_st=jnp.zeros((0, 4), f32), screen_texture=jnp.zeros((0,), jnp.int32),
    )
