"""Lab2D-style grid worlds as pure JAX kernels (``GridSpec`` -> ``GridEnv``); see docs/grid.md.

The host API ``Lab2d`` (home: ``jaxlab.hosts.lab2d``) and the Lab2D
``WORLD.TEXT`` interop (``pushbox_from_lab2d_text``, ``world_text``; home:
``jaxlab.levels.lab2d.pushbox_interop``) are re-exported here; every name is imported on first use.
"""
import importlib

_HOMES = {"GridEnv": "jaxlab.grid.env", "GridSpec": "jaxlab.grid.spec", "Lab2d": "jaxlab.hosts.lab2d", "pushbox_from_lab2d_text": "jaxlab.levels.lab2d.pushbox_interop",
          "world_text": "jaxlab.levels.lab2d.pushbox_interop"}


def __getattr__(name: str):
    if name in _HOMES:
        return getattr(importlib.import_module(_HOMES[name]), name)
    raise AttributeError(f"module 'jaxlab.grid' has no attribute {name!r}")


__all__ = ["GridEnv", "Lab2d", "GridSpec", "pushbox_from_lab2d_text", "world_text"]
