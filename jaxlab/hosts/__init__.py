"""The originals' host APIs over jaxlab kernels: DeepMind Lab's ``Lab`` (``hosts.dmlab``) and Lab2D's
``Lab2d`` (``hosts.lab2d``, also ``jaxlab.grid.Lab2d``); each is imported on first use."""
import importlib

_HOMES = {"Lab": "jaxlab.hosts.dmlab", "Lab2d": "jaxlab.hosts.lab2d"}


def __getattr__(name: str):
    if name in _HOMES:
        return getattr(importlib.import_module(_HOMES[name]), name)
    raise AttributeError(f"module 'jaxlab.hosts' has no attribute {name!r}")


__all__ = ["Lab", "Lab2d"]
