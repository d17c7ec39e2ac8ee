"""Every built-in level, one sub-package per family (``dmlab``: first-person maps and catalogue;
``lab2d``: grid worlds), and ``names()``, every registered level name of every family."""
from jaxlab.registry import names

__all__ = ["names"]
