"""The text-quest kernel: the game state machine (``kernel``), the winning policy on device
(``policy``) and ``TextEnv`` (``env``), over compiled ``TextGame``s (``jaxlab.levels.text``)."""
from jaxlab.kernels.text.env import TextEnv
from jaxlab.kernels.text.kernel import TextState

__all__ = ["TextEnv", "TextState"]
