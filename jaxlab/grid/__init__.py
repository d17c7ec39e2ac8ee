"""Lab2D-style grid worlds as pure JAX kernels (``WorldSpec`` -> ``GridEnv``)."""
from jaxlab.grid.env import GridEnv
from jaxlab.grid.lab2d_text import pushbox_from_lab2d_text, world_text

__all__ = ["GridEnv", "pushbox_from_lab2d_text", "world_text"]
