"""Lab2D-style grid worlds as pure JAX kernels (``WorldSpec`` -> ``GridEnv``); see docs/grid.md."""
from jaxlab.grid.env import GridEnv
from jaxlab.grid.host import Lab2d
from jaxlab.grid.lab2d_text import pushbox_from_lab2d_text, world_text
from jaxlab.grid.spec import WorldSpec

__all__ = ["GridEnv", "Lab2d", "WorldSpec", "pushbox_from_lab2d_text", "world_text"]
