"""Actor-critic networks (flax linen) for the three observation kinds.

Every network maps one batch of task inputs (``tasks.AgentTask.inputs``
flattened to a leading axis N: ``mask`` bool[N, K] plus the family's arrays)
to ``(logits float32[N, K], value float32[N])``. Logits of masked actions are
set to ``MASKED_LOGIT``, so they are never sampled and add nothing to the
entropy. The encoder and both heads share one trunk.

Convolutions are written as 3×3 patches and a dense layer (``Conv3x3``):
XLA's CPU backend runs the gradient of ``lax.conv`` inside a loop (the
training scan) 15–40× slower than outside one (measured here; the known
jax-ml/jax#12868), while patches and matrix products run at full speed in
both places (and on accelerators).

- ``PixelNetwork``: uint8[N, H, W, 3] frames scaled to [0, 1], three strided
  3×3 convolutions (16, 32, 32 channels, stride 2), a dense layer. With an
  instruction vocabulary (``vocab_size`` > 0), the ``instruction`` tokens
  int32[N, L] are embedded word by word, in place (``word_slots``: word order
  kept, so "the red object in the blue room" differs from "the blue object in
  the red room"), through a dense layer, and joined to the frame's features
  before the trunk's dense layer.
- ``GridNetwork``: the grid seen from the player (``egocentric``: a window
  centred on its cell, ``view_radius`` cells each way, 5 by default: the
  whole of a 6×6 room from anywhere, an 11×11 neighbourhood of a larger
  world), each cell's state ids embedded and summed over layers, flattened,
  two dense layers with an embedding of the player's orientation added
  between them.
- ``TextNetwork``: the mean embedding of the text's words (a token bag) and of
  each command's words; a command's logit is the dot product of the two after
  a dense layer each, so a command is scored by its words, whichever game of
  a bank (whose command tables differ) is played.
"""
from __future__ import annotations

from typing import Tuple

import flax.linen as nn
import jax
import jax.numpy as jnp
import numpy as np

from jaxlab.agents.tasks import AgentTask, Inputs

#: the logit of an action the mask forbids
MASKED_LOGIT = -1e9


def dense(features: int, scale: float = np.sqrt(2)) -> nn.Dense:
    """A Dense layer with orthogonal weights of gain ``scale`` and zero bias (PPO's usual initialisation)."""
    return nn.Dense(features, kernel_init=nn.initializers.orthogonal(scale), bias_init=nn.initializers.zeros)


def patches3x3(x: jnp.ndarray, stride: int) -> jnp.ndarray:
    """float32[N, ⌈H/s⌉, ⌈W/s⌉, 9·C]: each output cell's zero-padded 3×3 neighbourhood of ``x``
    float32[N, H, W, C] (SAME padding, stride ``s``), neighbours row-major, channels last."""
    _, height, width, _ = x.shape
    rows, columns = -(-height // stride), -(-width // stride)
    padded = jnp.pad(x, ((0, 0), (1, 1), (1, 1), (0, 0)))
    return jnp.concatenate([padded[:, dy:dy + stride * (rows - 1) + 1:stride, dx:dx + stride * (columns - 1) + 1:stride]
                            for dy in range(3) for dx in range(3)], axis=-1)


class Conv3x3(nn.Module):
    """A 3×3 SAME convolution (``patches3x3`` then a dense layer): float32[N, H, W, C] ->
    float32[N, ⌈H/s⌉, ⌈W/s⌉, features]."""

    features: int
    stride: int

    @nn.compact
    def __call__(self, x: jnp.ndarray) -> jnp.ndarray:
        """The convolution of ``x`` (see the class docstring)."""
        return dense(self.features)(patches3x3(x, self.stride))


def token_bag(embedding: nn.Embed, tokens: jnp.ndarray) -> jnp.ndarray:
    """float32[..., E]: the mean embedding of the nonzero ids of ``tokens`` (int32[..., T]; 0 pads)."""
    present = (tokens > 0)[..., None]
    total = jnp.sum(embedding(tokens) * present, axis=-2)
    return total / jnp.maximum(jnp.sum(present, axis=-2), 1)


def word_slots(embedding: nn.Embed, tokens: jnp.ndarray) -> jnp.ndarray:
    """float32[N, L·E]: the embeddings of the L token ids of ``tokens`` (int32[N, L]) side by side,
    each word in its place (padding ids 0 have an embedding of their own)."""
    return embedding(tokens).reshape(tokens.shape[0], -1)


class PolicyAndValue(nn.Module):
    """Heads over a trunk's features: logits over ``num_actions`` (masked) and a scalar value."""

    num_actions: int

    @nn.compact
    def __call__(self, features: jnp.ndarray, mask: jnp.ndarray) -> Tuple[jnp.ndarray, jnp.ndarray]:
        """features float32[N, F], mask bool[N, K] -> (logits float32[N, K], value float32[N])."""
        logits = dense(self.num_actions, 0.01)(features)
        return jnp.where(mask, logits, MASKED_LOGIT), dense(1, 1.0)(features)[:, 0]


class PixelNetwork(nn.Module):
    """Frames ``pixels`` uint8[N, H, W, 3] (and, when ``vocab_size`` > 0, ``instruction`` int32[N, L]
    token ids below ``vocab_size``) -> (logits, value); see the module docstring."""

    num_actions: int
    hidden_size: int
    vocab_size: int = 0
    embedding_size: int = 16

    @nn.compact
    def __call__(self, inputs: Inputs) -> Tuple[jnp.ndarray, jnp.ndarray]:
        """(logits float32[N, K], value float32[N]) of ``inputs['pixels']`` (and ``inputs['instruction']``)
        and ``inputs['mask']``."""
        x = inputs["pixels"].astype(jnp.float32) / 255.0
        for channels in (16, 32, 32):
            x = nn.relu(Conv3x3(channels, 2)(x))
        x = x.reshape(x.shape[0], -1)
        if self.vocab_size:
            words = word_slots(nn.Embed(self.vocab_size, self.embedding_size), inputs["instruction"])
            x = jnp.concatenate([x, nn.relu(dense(self.hidden_size)(words))], axis=-1)
        x = nn.relu(dense(self.hidden_size)(x))
        return PolicyAndValue(self.num_actions)(x, inputs["mask"])


def egocentric(layer: jnp.ndarray, position: jnp.ndarray, outside_id: int, torus: bool,
               radius: int) -> jnp.ndarray:
    """int32[N, 2a+1, 2b+1, L]: each player's window of ``layer`` int32[N, H, W, L] centred on its cell
    ``position`` int32[N, 2] (column, row), ``a = min(radius, H-1)`` rows and ``b = min(radius, W-1)``
    columns each way (so the player sits at (a, b); with radius ≥ H-1, W-1 every cell is in view
    from anywhere). Beyond the edge of a bounded grid the window holds ``outside_id``; a torus wraps around."""
    _, height, width, _ = layer.shape
    rows, columns = min(radius, height - 1), min(radius, width - 1)
    edges = ((0, 0), (rows, rows), (columns, columns), (0, 0))
    padded = jnp.pad(layer, edges, mode="wrap") if torus else jnp.pad(layer, edges, constant_values=outside_id)

    def window(grid, column, row):
        return jax.lax.dynamic_slice(grid, (row, column, 0), (2 * rows + 1, 2 * columns + 1, grid.shape[-1]))

    return jax.vmap(window)(padded, position[:, 0], position[:, 1])


class GridNetwork(nn.Module):
    """Grid state ids ``layer`` int32[N, H, W, L], ``position`` int32[N, 2] (column, row) and
    ``orientation`` int32[N] -> (logits, value); see the module docstring."""

    num_actions: int
    num_state_ids: int
    torus: bool
    hidden_size: int
    embedding_size: int = 8
    view_radius: int = 5

    @nn.compact
    def __call__(self, inputs: Inputs) -> Tuple[jnp.ndarray, jnp.ndarray]:
        """(logits float32[N, K], value float32[N]) of the grid inputs and ``inputs['mask']``."""
        window = egocentric(inputs["layer"], inputs["position"], self.num_state_ids, self.torus, self.view_radius)
        x = nn.Embed(self.num_state_ids + 1, self.embedding_size)(window).sum(axis=-2)   # [N, 2a+1, 2b+1, E]
        x = nn.relu(dense(self.hidden_size)(x.reshape(x.shape[0], -1)))
        x = x + nn.Embed(4, self.hidden_size)(inputs["orientation"])
        x = nn.relu(dense(self.hidden_size)(x))
        return PolicyAndValue(self.num_actions)(x, inputs["mask"])


class TextNetwork(nn.Module):
    """Word ids ``tokens`` int32[N, M] and each command's words ``commands`` int32[N, K, C] ->
    (logits, value); see the module docstring."""

    vocab_size: int
    hidden_size: int
    embedding_size: int = 32

    @nn.compact
    def __call__(self, inputs: Inputs) -> Tuple[jnp.ndarray, jnp.ndarray]:
        """(logits float32[N, K], value float32[N]) of the text inputs and ``inputs['mask']``."""
        words = nn.Embed(self.vocab_size, self.embedding_size)
        text = nn.relu(dense(self.hidden_size)(token_bag(words, inputs["tokens"])))
        text = nn.relu(dense(self.hidden_size)(text))
        commands = nn.relu(dense(self.hidden_size)(token_bag(words, inputs["commands"])))   # [N, K, D]
        query = dense(self.hidden_size, 0.01)(text)
        logits = jnp.einsum("nd,nkd->nk", query, commands)
        return jnp.where(inputs["mask"], logits, MASKED_LOGIT), dense(1, 1.0)(text)[:, 0]


def network_for(task: AgentTask, hidden_size: int) -> nn.Module:
    """The actor-critic network of ``task``'s kind, with trunk width ``hidden_size``."""
    if task.kind == "pixels":
        return PixelNetwork(task.num_actions, hidden_size, task.vocab_size)
    if task.kind == "grid":
        return GridNetwork(task.num_actions, task.num_state_ids, task.torus, hidden_size)
    if task.kind == "text":
        return TextNetwork(task.vocab_size, hidden_size)
    raise ValueError(f"no network for task kind {task.kind!r}")
