"""Lab2D's grid engine (``system.grid_world``'s grids) as pure JAX: pieces on layers, groups, contacts,
connected pieces that move together, queued actions carried out by ``update``, beams and queries.

The world it runs is ``jaxlab.levels.lab2d.grid_world.GridWorld``; the level's callbacks are JAX
functions (``GridCallbacks``), made from its Lua by ``compile_lua`` or written in Python.

- ``state``: ``GridState``, ``GridRules``, ``empty_grid``; action kinds and orientation modes;
- ``pieces``: creation, release, contacts, connections (immediate operations);
- ``moves``: what each queued action does;
- ``update``: the queue (``enqueue``, ``remove``), ``set_updater`` and ``update``;
- ``queries``: groups, positions, ray casts, areas, and the grid's text and sprites.
"""
from jaxlab.kernels.lab2d_grid.state import GridCallbacks, GridRules, GridState, empty_grid

__all__ = ["GridCallbacks", "GridRules", "GridState", "empty_grid"]
