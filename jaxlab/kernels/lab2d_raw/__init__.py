"""Lab2D raw-API levels as kernels: ``RawEnv`` steps a script's translated ``discreteActions``,
``advance`` and ``observation`` (made by ``compile_lua.lab2d.raw``) under ``jit``/``vmap``."""
from jaxlab.kernels.lab2d_raw.env import RawEnv, RawState

__all__ = ["RawEnv", "RawState"]
