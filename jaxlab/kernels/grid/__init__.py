"""The grid-world kernel: a ``GridSpec`` compiled into tables (``compile``), movement, beams,
transitions, one frame (``kernel``) and ``GridEnv`` (``env``)."""
from jaxlab.kernels.grid.env import GridEnv

__all__ = ["GridEnv"]
