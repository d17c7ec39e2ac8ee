"""Lab2D's ``system.tensor`` as a pure JAX library: what compiled Lab2D levels call inside a step.

It lives in the kernels layer because it is kernel-side runtime, like the grid kernel's physics: the
Lua -> JAX compiler (compile_lua, on top) emits calls to it, and the functions it emits run inside
``env.step`` under ``jit``/``vmap``. It knows no family and no level, so the grid kernel and compiled
callbacks can share it; it imports only JAX and flax.

- ``kinds``: element types (Byte, Int32, Int64, Double; narrower without ``jax_enable_x64``) and the
  rule by which a Lua number becomes an element.
- ``tensor``: the ``Tensor`` view type, its layout operations and the constructors
  (``zeros`` = ``tensor.<Kind>Tensor(d1, ...)``, ``from_table`` = ``{{...}}``, ``arange`` = ``{range=...}``).
- ``arith``: arithmetic, rounding, reductions and conversions, with dmlab2d's semantics.
"""
from jaxlab.kernels.lab2d_tensor.kinds import KINDS, dtype_of, from_number, number
from jaxlab.kernels.lab2d_tensor.tensor import Tensor, arange, from_table, zeros

__all__ = ["KINDS", "Tensor", "arange", "dtype_of", "from_number", "from_table", "number", "zeros"]
