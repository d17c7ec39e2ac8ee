"""The values of a Level's optional fields for a level without the mechanic (numpy), and the fields of
screen messages and custom observations: what :func:`jaxlab.levels.dmlab.level.build_level`, a bank file
without them and the compilers fill in."""
from __future__ import annotations

from typing import Optional, Sequence, Tuple

import numpy as np


# Text alignment codes of ``Level.text_align`` (DMLab's screen_message ALIGN_*).
ALIGN_LEFT, ALIGN_RIGHT, ALIGN_CENTER = 0, 1, 2


def no_screen_text() -> dict:
    """The screen-message fields of a level without messages (M = 0), as numpy arrays."""
    return dict(text_chars=np.zeros((0, 1), np.int32), text_pos=np.zeros((0, 2), np.float32),
                text_align=np.zeros((0,), np.int32), text_valid=np.zeros((0,), bool))


def custom_obs_array(name: str, value) -> np.ndarray:
    """A custom observation as a Level stores it (``Level.custom_obs[name]``, any shape): uint8
    ("bytes") stays uint8, any float becomes float32 ("doubles"); other dtypes raise ValueError
    naming the observation."""
    a = np.asarray(value)
    if a.dtype == np.uint8:
        return a
    if np.issubdtype(a.dtype, np.floating):
        return a.astype(np.float32)
    raise ValueError(f"custom observation {name!r}: dtype {a.dtype} is neither uint8 (bytes) nor float (doubles)")


def no_bots() -> dict:
    """The bot fields of a level without bots (B = 0), as numpy arrays."""
    return dict(bot_skill=np.zeros((0,), np.float32), bot_valid=np.zeros((0,), bool))


def screen_text(messages: Sequence[Tuple[str, float, float, int]], length: Optional[int] = None) -> dict:
    """Screen-message fields from (text, x, y, alignment) tuples (virtual 640×480 pixels).

    ``length`` (L) defaults to the longest message (at least 1); longer
    messages are cut. Characters are stored as their code points.
    """
    if not messages:
        return no_screen_text()
    length = length or max(1, max(len(m[0]) for m in messages))
    chars = np.zeros((len(messages), length), np.int32)
    for i, (text, _, _, _) in enumerate(messages):
        codes = [ord(c) for c in text[:length]]
        chars[i, :len(codes)] = codes
    return dict(text_chars=chars,
                text_pos=np.array([[m[1], m[2]] for m in messages], np.float32),
                text_align=np.array([m[3] for m in messages], np.int32),
                text_valid=np.ones(len(messages), bool))


def no_mechanics(doors: int, pickups: int, spawns: int) -> dict:
    """The key, lock, switch, teleport, episode-end, platform, spawn-yaw (and its range), theme, height and
    language fields of a level without them (numpy): ``doors`` (D) ordinary doors, ``pickups`` (N) plain pickups
    of their type's size, ``spawns`` (S) spawn points facing a random way, one unused teleport
    slot, a flat floor (``floor_z`` of shape (0, 0)), jump and crouch, no obstacles, hurt zones, jump pads or
    screens, no instruction and the theme's floor everywhere."""
    return dict(door_lock=np.zeros((doors,), np.int32), unlock_reward=np.float32(0.0),
                pickup_key=np.zeros((pickups,), np.int32), pickup_switch=np.zeros((pickups,), bool),
                switch_theme=np.int32(0), pickup_teleport=np.full((pickups,), -1, np.int32),
                teleport_pos=np.zeros((1, 2), np.float32), teleport_yaw=np.zeros((1,), np.float32),
                pickup_counts=np.zeros((pickups,), bool), end_after_pickups=np.int32(0),
                platform_pos=np.zeros((2,), np.float32), platform_radius=np.float32(0.0),
                platform_seconds=np.float32(0.0), platform_reward=np.float32(0.0),
                spawn_yaw=np.full((spawns,), np.nan, np.float32), theme=np.int32(0),
                floor_z=np.zeros((0, 0), np.float32), sky=np.int32(0), jump_crouch=np.bool_(True),
                obstacle_pos=np.zeros((0, 2), np.float32), obstacle_radius=np.zeros((0,), np.float32),
                pickup_scale=np.ones((pickups,), np.float32), spawn_yaw_range=np.zeros((spawns,), np.float32),
                pickup_spawned_by=np.full((pickups,), -1, np.int32), hurt_box=np.zeros((0, 6), np.float32),
                hurt_damage=np.zeros((0,), np.float32), pad_box=np.zeros((0, 6), np.float32),
                pad_velocity=np.zeros((0, 3), np.float32), cleared_restarts=np.bool_(True),
                screen_box=np.zeros((0, 6), np.float32), screen_st=np.zeros((0, 4), np.float32),
                screen_texture=np.zeros((0,), np.int32), **no_language())


def no_language() -> dict:
    """The language fields of a level without an instruction, floor colours or counted restarts (numpy)."""
    return dict(instr=np.zeros((0,), np.int32), floor_rect=np.zeros((0, 4), np.float32),
                floor_rect_rgb=np.zeros((0, 3), np.uint8), counted_restarts=np.bool_(False),
                counted_bonus=np.float32(0.0))
