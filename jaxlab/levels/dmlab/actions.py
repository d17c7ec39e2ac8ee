"""DMLab's first-person action layout and the common discrete action set."""
from __future__ import annotations

import numpy as np

from jaxlab.types import BoundedArraySpec

ACTION_NAMES = (
    "LOOK_LEFT_RIGHT_PIXELS_PER_FRAME",
    "LOOK_DOWN_UP_PIXELS_PER_FRAME",
    "STRAFE_LEFT_RIGHT",
    "MOVE_BACK_FORWARD",
    "FIRE",
    "JUMP",
    "CROUCH",
)
ACTION_MIN = np.array([-512, -512, -1, -1, 0, 0, 0], np.int32)
ACTION_MAX = np.array([512, 512, 1, 1, 1, 1, 1], np.int32)
LOOK_LEFT_RIGHT, LOOK_DOWN_UP, STRAFE_LEFT_RIGHT, MOVE_BACK_FORWARD, FIRE, JUMP, CROUCH = range(7)

# The 9-action discrete set used by IMPALA-style agents on DMLab.
DISCRETE_ACTIONS = {
    "forward": (0, 0, 0, 1, 0, 0, 0),
    "backward": (0, 0, 0, -1, 0, 0, 0),
    "strafe_left": (0, 0, -1, 0, 0, 0, 0),
    "strafe_right": (0, 0, 1, 0, 0, 0, 0),
    "look_left": (-20, 0, 0, 0, 0, 0, 0),
    "look_right": (20, 0, 0, 0, 0, 0, 0),
    "look_left_forward": (-20, 0, 0, 1, 0, 0, 0),
    "look_right_forward": (20, 0, 0, 1, 0, 0, 0),
    "fire": (0, 0, 0, 0, 1, 0, 0),
}
DISCRETE_ACTION_TABLE = np.array(list(DISCRETE_ACTIONS.values()), np.int32)  # int32[9, 7]


def action_spec(players: int = 0, custom=()) -> BoundedArraySpec:
    """int32[7] DMLab action spec with per-element bounds; ``players`` N > 0: int32[N, 7], a row per player.
    ``custom``: a level script's custom discrete actions, ``(name, min, max)`` each, appended after the
    seven as DMLab appends them (int32[7 + K]; one player only)."""
    if players:
        return BoundedArraySpec(shape=(players, 7), dtype=np.int32, name="action",
                                minimum=np.tile(ACTION_MIN, (players, 1)), maximum=np.tile(ACTION_MAX, (players, 1)),
                                element_names=ACTION_NAMES)
    names = ACTION_NAMES + tuple(name for name, _, _ in custom)
    return BoundedArraySpec(shape=(len(names),), dtype=np.int32, name="action",
                            minimum=np.concatenate([ACTION_MIN, np.asarray([lo for _, lo, _ in custom], np.int32)]),
                            maximum=np.concatenate([ACTION_MAX, np.asarray([hi for _, _, hi in custom], np.int32)]),
                            element_names=names)


def custom_rest(custom) -> np.ndarray:
    """int32[K]: each custom action's resting value, ``(name, min, max)`` each: 0 clipped into ``[min, max]``."""
    return np.asarray([min(max(0, lo), hi) for _, lo, hi in custom], np.int32)


#: a custom action whose range holds at most this many values gets a discrete action for each
ENUMERATED_VALUES = 16


def discrete_actions(custom=()) -> dict:
    """The discrete action set, name -> int[7 + K] action row, of a level with the custom actions ``custom``
    (``(name, min, max)`` each): :data:`DISCRETE_ACTIONS` with each custom action at rest
    (:func:`custom_rest`), then, per custom action, a row for each other value of its range (``NAME=value``,
    the rest at rest; a range of more than :data:`ENUMERATED_VALUES` values: its min and max only)."""
    rest = custom_rest(custom)
    out = {name: tuple(row) + tuple(int(v) for v in rest) for name, row in DISCRETE_ACTIONS.items()}
    idle = (0,) * len(ACTION_NAMES)
    for k, (name, lo, hi) in enumerate(custom):
        values = range(lo, hi + 1) if hi - lo < ENUMERATED_VALUES else sorted({lo, hi})
        for value in values:
            if value != rest[k]:
                row = rest.copy()
                row[k] = value
                out[f"{name}={value}"] = idle + tuple(int(v) for v in row)
    return out
