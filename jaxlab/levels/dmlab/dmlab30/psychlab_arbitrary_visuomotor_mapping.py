"""``psychlab_arbitrary_visuomotor_mapping``: each image has a right button among four (top, bottom,
left, right), drawn anew every episode; remember which.

DeepMind Lab's facts: a 512-pixel screen, white; the image fills the middle three quarters, a button
a tenth of the screen at the middle of each edge. An episode starts with one image-response pair;
trials go through the pairs in blocks, each block a new random order of all of them. A block with
every answer right adds a new pair (a new image, its button drawn uniformly); one with a wrong
answer repeats (the staircase never demotes). The first time an image is shown its buttons show the
answer (dull green on the right one, dull red on the others); the first frame the gaze is on a
button all of them reveal it (green, red); the reward comes when the gaze leaves the button.
60 trials at most, 300 s an episode. Images: the procedural images in an order drawn per episode.
"""
from __future__ import annotations

from typing import Tuple

import jax
import jax.numpy as jnp
import numpy as np

from jaxlab.levels.dmlab.dmlab30.psychlab_screen import (BUTTON_HALF, MAX_HELD, Memory, ScreenTask, Trial,
                                                         blank_trial, new_image, new_memory, staircase_step)
from jaxlab.levels.dmlab.psychlab.stimuli import NUM_IMAGES

#: the buttons: top, bottom, left, right (DMLab's north, south, "east" and "west")
BUTTONS = np.array([[0.0, 1.0 - BUTTON_HALF], [0.0, BUTTON_HALF - 1.0], [BUTTON_HALF - 1.0, 0.0],
                    [1.0 - BUTTON_HALF, 0.0]], np.float32)


def shuffled(key: jax.Array, count) -> jnp.ndarray:
    """int32[MAX_HELD]: a uniformly random order of the pairs 0..count-1 (``count`` int32[]) first."""
    keys = jnp.where(jnp.arange(MAX_HELD) < count, jax.random.uniform(key, (MAX_HELD,)), 2.0)
    return jnp.argsort(keys).astype(jnp.int32)


def add_pair(key: jax.Array, memory: Memory) -> Memory:
    """``memory`` with one more image-response pair (the episode's next new image, a random button)."""
    at = jnp.minimum(memory.count, MAX_HELD - 1)
    return memory.replace(ids=memory.ids.at[at].set(new_image(memory, memory.count, NUM_IMAGES)),
                          responses=memory.responses.at[at].set(jax.random.randint(key, (), 0, len(BUTTONS))),
                          count=jnp.minimum(memory.count + 1, MAX_HELD))


class ArbitraryVisuomotorMapping(ScreenTask):
    """The arbitrary-visuomotor-mapping level (``Memory``: the pairs, their order and the staircase
    whose rung is the number of pairs)."""

    name = "psychlab_arbitrary_visuomotor_mapping"
    buttons = BUTTONS
    image_half = 0.75
    reveals_all = True

    def init_memory(self, key: jax.Array) -> Memory:
        """One pair to start with, in a block of one."""
        k_memory, k_pair, k_order = jax.random.split(key, 3)
        memory = add_pair(k_pair, new_memory(k_memory, 1))
        return memory.replace(order=shuffled(k_order, memory.count))

    def new_trial(self, key: jax.Array, memory: Memory) -> Tuple[Trial, Memory]:
        """The block's next pair: its image, its button as the answer, the hint on its first showing."""
        pair = memory.order[memory.cursor]
        trial = blank_trial().replace(image=memory.ids[pair], answer=memory.responses[pair],
                                      hint=memory.shown[pair] == 0)
        cursor = memory.cursor + 1
        memory = memory.replace(shown=memory.shown.at[pair].add(1), cursor=jnp.where(cursor >= memory.count, 0, cursor))
        return trial, memory

    def finish(self, key: jax.Array, memory: Memory, trial: Trial, correct) -> Memory:
        """The staircase steps; at a block's end a new pair is added if it was all right, and the pairs
        are put in a new order (drawn from ``key``)."""
        stair, ended = staircase_step(memory.stair, correct, MAX_HELD, demotes=False)
        k_pair, k_order = jax.random.split(key)
        grow = stair.rung > memory.count
        memory = jax.tree_util.tree_map(lambda a, b: jnp.where(grow, a, b), add_pair(k_pair, memory), memory)
        order = jnp.where(ended, shuffled(k_order, memory.count), memory.order)
        return memory.replace(stair=stair, order=order, cursor=jnp.where(ended, 0, memory.cursor))
