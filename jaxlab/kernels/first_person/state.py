"""The first-person world state: one episode of one player (and, in laser tag, the other players), all arrays."""
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
    arena: laser tag's other players and everyone's shields, gadgets and scores (``ArenaState``) in a
      level with bots (``Level.bot_valid`` of length B > 0), else None.
    next_level: for a generator that re-draws its map at every map restart, the Level the next restart
      switches to, drawn ahead (after each restart the next one is drawn for the envs that restarted
      only); else None.
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
    arena: Optional[Any] = None
    next_level: Optional[Any] = None


@struct.dataclass
class BotBrain:
    """What the bots keep between agent steps (B bots, P players, N pickups, an Hm×Wm map).

    steps_to: float32[P, (Hm + 2) * (Wm + 2)] cell steps from each cell to each player's cell, laid out flat
      with a border (``bots.field_index``; relaxed a few sweeps per agent step, so they follow the players);
      steps_to_pickup: float32[N, (Hm + 2) * (Wm + 2)] the same to each pickup (they do not move: worked out
      at the episode's start); per player played by a bot: quarry: int32[P] the
      player it hunts; seen: int32[P] agent steps the quarry has been in sight without a break; aim: float32[P]
      its aiming error, degrees; strafe: float32[P] -1 or 1, the side it dodges to.
    """

    steps_to: jnp.ndarray
    steps_to_pickup: jnp.ndarray
    quarry: jnp.ndarray
    seen: jnp.ndarray
    aim: jnp.ndarray
    strafe: jnp.ndarray


@struct.dataclass
class ArenaState:
    """Laser tag (``levels.dmlab.gadgets``): P = 1 + B players, row 0 the agent (whose body is the
    ``WorldState``'s pos, vel, z, yaw and pitch), rows 1.. the others (bots or other learners), G gadgets.

    pos: float32[B, 2] units, vel: float32[B, 2] units/s, yaw, pitch: float32[B] degrees: the others' bodies.
    playing: bool[P] the player takes part (False: a padding row of a batch that mixes levels with fewer bots).
    up: bool[P] in play (False: tagged, waiting to come back); down_frames: int32[P] frames since tagged.
    shield, armour: float32[P] points; gadget: int32[P] the gadget held; charges: int32[P, G]
      (``gadgets.UNLIMITED`` for unlimited); cooldown: int32[P] frames until the next shot.
    score: int32[P] tags made minus self-tags; step_score: int32[P] the scores when the agent step began;
      look: int32[P] each player's colour
      (``gadgets.PLAYER_COLOURS`` index). bot: float32[P] the skill of the bot playing each player (0: a learner).
    shot_from, shot_to: float32[P, 2] the last frame's shots (from the shooter to where the shot stopped);
      fired: bool[P] who shot in the last frame, shot_gadget: int32[P] with which gadget; tagged_by: int32[P]
      who tagged each player in the last frame (-1: nobody).
    brain: the bots' ``BotBrain``.
    """

    pos: jnp.ndarray
    vel: jnp.ndarray
    yaw: jnp.ndarray
    pitch: jnp.ndarray
    playing: jnp.ndarray
    up: jnp.ndarray
    down_frames: jnp.ndarray
    shield: jnp.ndarray
    armour: jnp.ndarray
    gadget: jnp.ndarray
    charges: jnp.ndarray
    cooldown: jnp.ndarray
    score: jnp.ndarray
    step_score: jnp.ndarray
    look: jnp.ndarray
    bot: jnp.ndarray
    shot_from: jnp.ndarray
    shot_to: jnp.ndarray
    fired: jnp.ndarray
    shot_gadget: jnp.ndarray
    tagged_by: jnp.ndarray
    brain: BotBrain
