"""The interface of a procedural first-person level: a Level drawn on device per episode.

A ``LevelGenerator`` is what ``FirstPersonEnv(generator=...)`` runs instead
of a bank: ``episode(key, level_index)`` is a pure, jittable function that
returns a ``Level`` of fixed shapes (a size class per generator), called
inside ``reset`` under ``jit``/``vmap``. A generator whose levels re-draw
some of their contents at every map restart (objects, spawn points, shut
doors) sets ``redraws_on_restart`` and implements ``restart``.
"""
from __future__ import annotations

import jax
import jax.numpy as jnp

from jaxlab.levels.dmlab.level import Level


class LevelGenerator:
    """Base of procedural first-person levels (subclasses implement ``episode``).

    Attributes:
      name: the level's name.
      num_levels: how many level kinds ``level_index`` selects among (1 for
        one level; a suite's number of levels).
      redraws_on_restart: ``restart`` re-draws the map at each map restart.
      flat_and_heights: the generator's levels mix flat ones and ones with heights
        (``levels.dmlab.heights``), so a frame renders both looks.
      ground: ``heights.GROUND_SLABS`` or ``GROUND_TERRAIN`` when every level of the generator
        stands on that kind of ground (the renderer then draws only that kind), else None.
      language_objects: the levels may hold language objects (``language_objects``), whose
        silhouettes the renderer then draws.
    """

    name: str = ""
    num_levels: int = 1
    redraws_on_restart: bool = False
    flat_and_heights: bool = False
    ground = None
    language_objects: bool = False

    def episode(self, key: jax.Array, level_index) -> Level:
        """The Level of a new episode drawn with ``key`` (int32[] ``level_index``: the level kind)."""
        raise NotImplementedError

    def restart(self, level: Level, key: jax.Array, level_index) -> Level:
        """The Level after a map restart of ``level`` (only called when ``redraws_on_restart``)."""
        return level

    def sample_index(self, key: jax.Array) -> jnp.ndarray:
        """A uniformly random level kind in [0, num_levels), int32[]."""
        if self.num_levels == 1:
            return jnp.int32(0)
        return jax.random.randint(key, (), 0, self.num_levels, dtype=jnp.int32)

    def level_shapes(self) -> Level:
        """The shapes and dtypes (``jax.ShapeDtypeStruct``) of this generator's Levels with a
        leading axis of 1, as a bank of one level would have them."""
        return jax.eval_shape(lambda k: jax.tree_util.tree_map(lambda a: a[None], self.episode(k, jnp.int32(0))),
                              jax.random.PRNGKey(0))

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.name!r})"


class ConfigGenerator(LevelGenerator):
    """A level drawn, per episode, from one of a fixed set of configurations (train and test forms
    of a level differ in the configurations they draw from).

    Args:
      name: the level's name.
      configs: the configurations drawn from uniformly (rows of int32 parameters, one per config).
      config_level: ``(key, config int32[...]) -> Level``, one size class for every config.
    """

    def __init__(self, name: str, configs, config_level):
        self.name = name
        self.configs = tuple(configs)
        self.config_level = config_level

    def episode(self, key: jax.Array, level_index) -> Level:
        """A Level of one of ``configs`` (uniformly) drawn from ``key`` (``level_index`` is unused)."""
        k_config, k_level = jax.random.split(key)
        config = jnp.asarray(self.configs, jnp.int32)[jax.random.randint(k_config, (), 0, len(self.configs))]
        return self.config_level(k_level, config)
