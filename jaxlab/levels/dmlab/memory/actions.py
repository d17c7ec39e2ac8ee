"""dm_memorytasks' actions: four doubles in [-1, 1] that are sticky (a value holds until a new one is given).

On device an action is float32[4] in ``ACTION_NAMES`` order; NaN in a slot means "no new value" (the
held one stays), which is how a host's partial dict (``{'STRAFE_LEFT_RIGHT': -1.0}``) reaches the
kernel. ``sticky`` applies the rule; the env carries the held action in its state, and
``first_person_action`` turns it into DMLab's first-person action.
"""
from __future__ import annotations

import jax.numpy as jnp
import numpy as np

from jaxlab.levels.dmlab import actions as fp_actions
from jaxlab.types import BoundedArraySpec

ACTION_NAMES = ("STRAFE_LEFT_RIGHT", "MOVE_BACK_FORWARD", "LOOK_LEFT_RIGHT", "LOOK_DOWN_UP")
STRAFE_LEFT_RIGHT, MOVE_BACK_FORWARD, LOOK_LEFT_RIGHT, LOOK_DOWN_UP = range(4)
NUM_ACTIONS = len(ACTION_NAMES)
#: DMLab look pixels per frame at full deflection of LOOK_LEFT_RIGHT / LOOK_DOWN_UP
MAX_LOOK_PIXELS = 20.0
#: an action that changes nothing: every slot "no new value"
KEEP = np.full((NUM_ACTIONS,), np.nan, np.float32)


def sticky(held, action) -> jnp.ndarray:
    """The action in force after ``action``: float32[4], each slot ``action``'s value clipped to
    [-1, 1], or ``held``'s (float32[4]) where ``action`` is NaN (no new value given)."""
    action = jnp.asarray(action, jnp.float32)
    return jnp.where(jnp.isnan(action), jnp.asarray(held, jnp.float32), jnp.clip(action, -1.0, 1.0))


def action_spec() -> BoundedArraySpec:
    """float32[4] in [-1, 1] (``ACTION_NAMES`` order; NaN: keep the held value)."""
    return BoundedArraySpec(shape=(NUM_ACTIONS,), dtype=np.float32, name="action",
                            minimum=np.full((NUM_ACTIONS,), -1.0, np.float32),
                            maximum=np.full((NUM_ACTIONS,), 1.0, np.float32), element_names=ACTION_NAMES,
                            nan_allowed=True)


def first_person_action(held) -> jnp.ndarray:
    """float32[7] DMLab action (``jaxlab.levels.dmlab.actions`` layout) of a held memory action float32[4]."""
    held = jnp.asarray(held, jnp.float32)
    out = jnp.zeros((7,), jnp.float32)
    return (out.at[fp_actions.LOOK_LEFT_RIGHT].set(held[LOOK_LEFT_RIGHT] * MAX_LOOK_PIXELS)
            .at[fp_actions.LOOK_DOWN_UP].set(held[LOOK_DOWN_UP] * MAX_LOOK_PIXELS)
            .at[fp_actions.STRAFE_LEFT_RIGHT].set(held[STRAFE_LEFT_RIGHT])
            .at[fp_actions.MOVE_BACK_FORWARD].set(held[MOVE_BACK_FORWARD]))
