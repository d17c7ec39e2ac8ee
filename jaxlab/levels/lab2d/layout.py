"""The map a grid episode starts from (``GridLayout``), as a level of a ``jaxlab.Bank`` and of a bank file."""
from __future__ import annotations

import jax.numpy as jnp
import numpy as np
from flax import struct

from jaxlab.bank_checks import BankRules, Rule

#: GridSpec.char_map keys are single ASCII characters
GRID_CHAR_LIMIT = 127
#: a bank file of GridLayouts: an H×W map of ASCII characters (0 is padding: an empty cell)
GRID_LAYOUT_BANK_RULES = BankRules(fields={"chars": Rule(("H", "W"), low=0, high=GRID_CHAR_LIMIT)},
                                   min_sizes={"H": 1, "W": 1})


@struct.dataclass
class GridLayout:
    """The map an episode starts from, as a level of a ``jaxlab.Bank``.

    chars: uint8[H, W] the map's characters (``GridSpec.char_map`` keys;
           row 0 is north), as ``GridSpec.generator`` makes them.
    """

    chars: jnp.ndarray

    @classmethod
    def bank_example(cls) -> "GridLayout":
        """A one-cell map: its array gives a bank file the dtype and rank of ``chars``."""
        return cls(chars=np.zeros((1, 1), np.uint8))

    @classmethod
    def bank_rules(cls) -> BankRules:
        """What a bank file of GridLayouts must hold."""
        return GRID_LAYOUT_BANK_RULES
