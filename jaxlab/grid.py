"""``jaxlab.grid``: the grid-world family's public face (Lab2D-style worlds as pure JAX kernels; docs/grid.md).

``GridSpec`` (a level as data, ``jaxlab.levels.lab2d.spec``), ``GridEnv`` (its kernel,
``jaxlab.kernels.grid.env``), ``Lab2d`` (Lab2D's host API, ``jaxlab.hosts.lab2d``; ``RawLab2d`` is what it
makes for a raw-API script, ``jaxlab.hosts.lab2d_raw``) and Lab2D's
``WORLD.TEXT`` interop (``pushbox_from_lab2d_text``, ``world_text``; ``jaxlab.hosts.lab2d_text``).
"""
from jaxlab.hosts.lab2d import Lab2d
from jaxlab.hosts.lab2d_raw import RawLab2d
from jaxlab.hosts.lab2d_text import pushbox_from_lab2d_text, world_text
from jaxlab.kernels.grid.env import GridEnv
from jaxlab.levels.lab2d.spec import GridSpec

__all__ = ["GridEnv", "GridSpec", "Lab2d", "RawLab2d", "pushbox_from_lab2d_text", "world_text"]
