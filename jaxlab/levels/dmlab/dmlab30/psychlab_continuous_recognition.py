"""``psychlab_continuous_recognition``: one image a trial: seen before in this episode? Look at the
right button for yes ("old"), the left for no ("new").

DeepMind Lab's facts: a 512-pixel screen, white; the image fills the middle three quarters; the
first trial's image is new; later a trial shows a new image with probability 1/2, else one of the
images shown so far, drawn uniformly. New images come in a new random order every episode (here the
procedural images, ``jaxlab.levels.dmlab.psychlab.stimuli``, in an order drawn per episode).
60 trials at most, 300 s an episode; no staircase.
"""
from __future__ import annotations

from typing import Tuple

import jax
import jax.numpy as jnp

from jaxlab.levels.dmlab.dmlab30.psychlab_screen import (SIDE_BUTTONS, Memory, ScreenTask, Trial, blank_trial,
                                                         new_image)
from jaxlab.levels.dmlab.psychlab.stimuli import NUM_IMAGES

#: the buttons: 0 "new" (left), 1 "old" (right)
NEW, OLD = 0, 1


class ContinuousRecognition(ScreenTask):
    """The continuous-recognition level (``Memory.ids[:count]``: the images shown so far)."""

    name = "psychlab_continuous_recognition"
    buttons = SIDE_BUTTONS
    image_half = 0.75

    def new_trial(self, key: jax.Array, memory: Memory) -> Tuple[Trial, Memory]:
        """A new image (the episode's next) or an old one; the answer is ``NEW`` or ``OLD``."""
        k_new, k_old = jax.random.split(key)
        new = (memory.count == 0) | (jax.random.uniform(k_new) > 0.5)
        old_image = memory.ids[jax.random.randint(k_old, (), 0, jnp.maximum(memory.count, 1))]
        fresh = new_image(memory, memory.count, NUM_IMAGES)
        image = jnp.where(new, fresh, old_image)
        held = memory.ids.at[jnp.minimum(memory.count, memory.ids.shape[0] - 1)].set(fresh)
        memory = memory.replace(ids=jnp.where(new, held, memory.ids),
                                count=jnp.minimum(memory.count + new.astype(jnp.int32), memory.ids.shape[0]))
        return blank_trial().replace(image=image, answer=jnp.where(new, NEW, OLD).astype(jnp.int32)), memory
