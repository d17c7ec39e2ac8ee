"""Many procedural levels behind one generator: a batch that mixes levels (multi-task training).

``MixedGenerator(generators)`` pads every generator's Level to the
elementwise-largest shapes (with ``Level.PAD_VALUES``: walls, no doors, no
pickups; a flat level mixed with levels of heights gets a floor at 0 under
its whole map), so one jitted step serves them all; the state's ``level_index``
says which level an episode runs. Under ``vmap`` a ``lax.switch`` on a
batched index evaluates every branch, so drawing a mixed episode costs the
sum of the generators' draws (once per reset, not per step).
"""
from __future__ import annotations

from typing import Sequence, Tuple

import jax
import jax.numpy as jnp

from jaxlab.bank import _field_of
from jaxlab.levels.dmlab.generator import LevelGenerator
from jaxlab.levels.dmlab.heights import HEIGHT_CELLS_PER_CELL
from jaxlab.levels.dmlab.level import Level


def _unbatched_shapes(generator: LevelGenerator) -> Level:
    return jax.tree_util.tree_map(lambda s: jax.ShapeDtypeStruct(s.shape[1:], s.dtype), generator.level_shapes())


def pad_level(level: Level, shapes: Level) -> Level:
    """``level`` padded to ``shapes`` (a Level of ShapeDtypeStructs, each at least as large) with
    each field's ``Level.PAD_VALUES`` fill (jit-safe; padding goes at the end of every axis)."""
    def pad(path, a, s):
        fill = Level.PAD_VALUES.get(_field_of(path), 0)
        if _field_of(path) == "floor_z" and a.size == 0:   # a flat level among levels of heights
            return jnp.zeros(s.shape, a.dtype)
        widths = [(0, n - m) for m, n in zip(a.shape, s.shape)]
        if not any(w for _, w in widths):
            return a
        return jnp.pad(a, widths, constant_values=jnp.asarray(fill, a.dtype))

    return jax.tree_util.tree_map_with_path(pad, level, shapes)


def crop_level(level: Level, shapes: Level) -> Level:
    """``level`` cut back to ``shapes`` (the inverse of ``pad_level``)."""
    return jax.tree_util.tree_map(lambda a, s: a[tuple(slice(0, n) for n in s.shape)], level, shapes)


class MixedGenerator(LevelGenerator):
    """Levels of several generators, one per episode (``level_index`` selects the generator).

    Args:
      generators: the levels to mix (each a ``LevelGenerator`` of one level kind).
      name: the mixture's name.
    """

    def __init__(self, generators: Sequence[LevelGenerator], name: str = "mixed"):
        if not generators:
            raise ValueError("a mixed generator needs at least one level generator")
        self.generators: Tuple[LevelGenerator, ...] = tuple(generators)
        self.names = tuple(g.name for g in self.generators)
        self.name = name
        self.num_levels = len(self.generators)
        self.redraws_on_restart = any(g.redraws_on_restart for g in self.generators)
        self.language_objects = any(g.language_objects for g in self.generators)
        self._shapes = [_unbatched_shapes(g) for g in self.generators]
        for g, s in zip(self.generators, self._shapes):
            if s.custom_obs:
                raise ValueError(f"{g.name}: levels with custom observations cannot be mixed")
        self._padded = jax.tree_util.tree_map(
            lambda *xs: jax.ShapeDtypeStruct(tuple(max(d) for d in zip(*(x.shape for x in xs))), xs[0].dtype),
            *self._shapes)
        with_heights = [s.floor_z.shape != (0, 0) for s in self._shapes]
        self.flat_and_heights = any(with_heights) and not all(with_heights)
        grounds = {g.ground for g in self.generators}
        self.ground = grounds.pop() if len(grounds) == 1 else None
        cells, floor = self._padded.cells.shape, self._padded.floor_z.shape
        if floor != (0, 0):   # height cells cover the padded map
            self._padded = self._padded.replace(floor_z=jax.ShapeDtypeStruct(
                tuple(HEIGHT_CELLS_PER_CELL * n for n in cells), self._padded.floor_z.dtype))

    def level_shapes(self) -> Level:
        """The padded Levels' shapes and dtypes with a leading axis of 1 (what ``episode`` returns,
        known without tracing every generator's episode again)."""
        return jax.tree_util.tree_map(lambda s: jax.ShapeDtypeStruct((1, *s.shape), s.dtype), self._padded)

    def episode(self, key: jax.Array, level_index) -> Level:
        """The padded Level of a new episode of generator ``level_index`` (int32[])."""
        branches = [lambda k, g=g: pad_level(g.episode(k, jnp.int32(0)), self._padded) for g in self.generators]
        return jax.lax.switch(jnp.clip(level_index, 0, self.num_levels - 1), branches, key)

    def restart(self, level: Level, key: jax.Array, level_index) -> Level:
        """The padded Level after a map restart, by the episode's own generator."""
        def branch(g, shapes):
            if not g.redraws_on_restart:
                return lambda lv, k: lv
            return lambda lv, k: pad_level(g.restart(crop_level(lv, shapes), k, jnp.int32(0)), self._padded)

        branches = [branch(g, s) for g, s in zip(self.generators, self._shapes)]
        return jax.lax.switch(jnp.clip(level_index, 0, self.num_levels - 1), branches, level, key)
