"""A ``GridSpec`` as arrays (``CompiledGrid``): the tables a grid kernel reads and a grid renderer
draws from, made once on the host by ``jaxlab.kernels.grid.compile.compile_grid``; and ``locate``,
a world's cells under its topology."""
from __future__ import annotations

import dataclasses
from typing import Optional, Tuple

import jax.numpy as jnp
import numpy as np

from jaxlab.errors import unknown_name_error
from jaxlab.levels.lab2d.spec import GridSpec

KEEP = -1  # "becomes" table entry: the state stays as it is


@dataclasses.dataclass(frozen=True)
class Appearance:
    """Pre-composited looks of a cell: one entry per combination of visible
    states across the visible layers (C combinations).

    layers: the visible layers' indices; local int32[len(layers), S]: each
    state's number on its layer (1.., 0 when empty or invisible); stride
    int32[len(layers)]: a cell's look is sum(local[i][state] * stride[i]);
    rows uint8[4·C, s, 3·s]: look c seen at orientation o is rows[o·C + c]
    (pixel rows of the sprite, each 3·s bytes).
    """

    layers: Tuple[int, ...]
    local: np.ndarray
    stride: np.ndarray
    rows: np.ndarray


@dataclasses.dataclass(frozen=True)
class CompiledTransition:
    """One ``Transition`` as ids and tables (see spec.Transition)."""

    layer: int
    source: int
    target: int
    probability: np.ndarray          # float32[K], indexed by min(neighbour count, K-1)
    neighbour: int                   # state id counted, 0 when probability is constant
    offsets: Tuple[Tuple[int, int], ...]  # (d_row, d_col) within the radius, centre excluded
    depletion: Optional[Tuple[int, Tuple[int, ...], float]]  # (state, among, zero_at)
    under_avatars: bool


@dataclasses.dataclass(frozen=True)
class CompiledGrid:
    """A GridSpec as arrays. S states (id 0 = empty), L layers, P players, B beams.

    Host tables (numpy):
      spec: the GridSpec (its sprite_size, topology and movement); height, width: ints.
      state_layer int32[S]; state_char: str per id; visible bool[S].
      map_states int32[256, L]: state id per layer for each map character.
      initial_map uint8[H, W]: the map's characters.
      player_state int32[P]; player_spawn int32[P]; avatar_layer: the avatars' layer.
      is_avatar bool[S]; pushable bool[S]; blocks_beams bool[S].
      enter_becomes/leave_becomes int32[S, S] (KEEP, 0 removes, else an id),
      enter_reward/leave_reward float32[S, S], enter_collect int32[S, S]
      (item or -1), catch_reward float32[S, S], catch_respawn int32[S, S]:
      indexed [mover, other].
      beam_* per beam: length, radius, overlay id, cooldown, cost (arrays [B]);
      hit_becomes int32[B, S], hit_reward/hit_target_reward float32[B, S],
      hit_freeze int32[B, S].
      beam_offsets int32[B, 4, lanes, length, 2]: cells a beam covers per
      orientation, lanes ordered left to right, distance 1.. ahead.
      sprites uint8[4, S, s, s, 3] and alpha bool[4, S, s, s]: each state's
      sprite rotated for a viewer facing each orientation.
      view_offsets int32[4, V_h, V_w, 2]: the egocentric window's cells.
      appearance: every combination of visible states in a cell composited
      once (None when that table would pass APPEARANCE_BYTES).
    """

    spec: GridSpec
    height: int
    width: int
    layers: Tuple[str, ...]
    state_names: Tuple[str, ...]
    state_layer: np.ndarray
    state_char: Tuple[str, ...]
    visible: np.ndarray
    map_states: np.ndarray
    initial_map: np.ndarray
    player_state: np.ndarray
    player_spawn: np.ndarray
    avatar_layer: int
    is_avatar: np.ndarray
    pushable: np.ndarray
    blocks_beams: np.ndarray
    enter_becomes: np.ndarray
    enter_reward: np.ndarray
    enter_collect: np.ndarray
    leave_becomes: np.ndarray
    leave_reward: np.ndarray
    catch_reward: np.ndarray
    catch_respawn: np.ndarray
    beam_actions: Tuple[str, ...]
    beam_cooldown: np.ndarray
    beam_cost: np.ndarray
    beam_overlay: np.ndarray
    beam_offsets: Tuple[np.ndarray, ...]
    hit_becomes: np.ndarray
    hit_reward: np.ndarray
    hit_target_reward: np.ndarray
    hit_freeze: np.ndarray
    matrix_beam: int
    payoff: np.ndarray
    matrix_respawn: int
    matrix_min_items: int
    transitions: Tuple[CompiledTransition, ...]
    sprites: np.ndarray
    alpha: np.ndarray
    view_offsets: np.ndarray
    end_state: int
    appearance: Optional[Appearance]

    @property
    def num_players(self) -> int:
        """P, the number of players."""
        return len(self.player_state)

    def state_id(self, name: str) -> int:
        """The id of state ``name`` (raises UnknownNameError with suggestions)."""
        if name not in self.state_names[1:]:
            raise unknown_name_error("state", name, self.state_names[1:])
        return self.state_names.index(name)


def locate(world: CompiledGrid, rc: jnp.ndarray) -> Tuple[jnp.ndarray, jnp.ndarray]:
    """Cells ``rc`` (int32[..., 2] row, column) in the grid: torus worlds wrap;
    bounded worlds clip and flag the cells outside. Returns (int32[..., 2],
    bool[...] inside)."""
    shape = jnp.asarray((world.height, world.width), jnp.int32)
    if world.spec.topology == "torus":
        return rc % shape, jnp.ones(rc.shape[:-1], bool)
    inside = jnp.all((rc >= 0) & (rc < shape), axis=-1)
    return jnp.clip(rc, 0, shape - 1), inside
