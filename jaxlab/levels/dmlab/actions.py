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


def action_spec(players: int = 0) -> BoundedArraySpec:
    """int32[7] DMLab action spec with per-element bounds; ``players`` N > 0: int32[N, 7], a row per player."""
    if players:
        return BoundedArraySpec(shape=(players, 7), dtype=np.int32, name="action",
                                minimum=np.tile(ACTION_MIN, (players, 1)), maximum=np.tile(ACTION_MAX, (players, 1)),
                                element_names=ACTION_NAMES)
    return BoundedArraySpec(shape=(7,), dtype=np.int32, name="action", minimum=ACTION_MIN,
                            maximum=ACTION_MAX, element_names=ACTION_NAMES)
