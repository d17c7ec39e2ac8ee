"""The first-person world state: one episode of one player, all arrays."""
from __future__ import annotations

from typing import Any, Optional

import jax.numpy as jnp
from flax import struct


@struct.dataclass
class WorldState:
    """State of one first-person episode (shapes: N pickups, D doors).

    key: PRNG key, split every frame for respawns.
    level_index: int32[] index of the episode's level in the env's bank.
    goal_choice: int32[] the episode's goal choice (random-goal levels).
    pos: float32[2] (x, y) units; z: float32[] height of the feet, units (0 on a flat level's floor);
    vel: float32[2] horizontal velocity, units/s; vz: float32[] vertical, units/s.
    yaw, pitch: float32[] degrees (yaw counter-clockwise from +x; pitch up positive).
    look_rate: float32[2] (pitch, yaw) rates of the last frame, degrees/s.
    crouch: bool[] crouching in the last frame.
    door_open: float32[D] 0 closed .. 1 open; a door is passable only at 1.
    pickup_wait: int32[N] 0 present; >0 frames until it reappears; -1 gone
      until the map restarts.
    frames: int32[] frames elapsed in the episode.
    episode_return: float32[] rewards summed over the episode.
    done: bool[] the episode has ended.
    held_key: int32[] colour of the key held (0: none).
    door_lock: int32[D] the doors' locks now (``Level.door_lock``; 0 once unlocked).
    platform_frames: int32[] consecutive frames on the hidden platform.
    switched: bool[] the level's switch has been thrown (``Level.pickup_switch``).
    pickups_taken: int32[] ``Level.pickup_counts`` pickups taken this episode.
    finished: bool[] the level ended the episode (a termination, not a time limit).
    episode_level: the episode's Level when the env generates one per episode
      (``FirstPersonEnv(generator=...)``), else None (the level is read from
      the bank at ``level_index``).
    script: the level script's play-time variables (a pytree, ``ScriptHooks.start``), or None for a
      level without compiled callbacks.
    """

    key: jnp.ndarray
    level_index: jnp.ndarray
    goal_choice: jnp.ndarray
    pos: jnp.ndarray
    z: jnp.ndarray
    vel: jnp.ndarray
    vz: jnp.ndarray
    yaw: jnp.ndarray
    pitch: jnp.ndarray
    look_rate: jnp.ndarray
    crouch: jnp.ndarray
    door_open: jnp.ndarray
    pickup_wait: jnp.ndarray
    frames: jnp.ndarray
    episode_return: jnp.ndarray
    done: jnp.ndarray
    held_key: jnp.ndarray
    door_lock: jnp.ndarray
    platform_frames: jnp.ndarray
    switched: jnp.ndarray
    pickups_taken: jnp.ndarray
    finished: jnp.ndarray
    episode_level: Optional[Any] = None
    script: Optional[Any] = None
