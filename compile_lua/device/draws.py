"""Random draws in translated Lua: the engines' random modules on the state's key.

``random`` is DMLab's ``dmlab.system.random`` (or ``common.random``) or Lab2D's ``system.random``.
Every draw splits the translation's key once (``env.key``, carried in the state), only where the path
still runs, so the same key gives the same draws jitted or not and at any batch size. The draws are
JAX's, not the engines' own Mersenne twister: the same seed gives the same draws in jaxlab, other
draws than in DMLab or dmlab2d.

- ``random:seed(s)``: the key becomes one made from ``s`` (``jax.random.PRNGKey``): a script that seeds
  from ``start``'s seed replays its episode from that seed.
- ``random:uniformInt(a, b)``: an integer in [a, b]; ``random:uniformReal(a, b)``: a float in [a, b);
  ``math.random()``, ``math.random(m)``, ``math.random(m, n)`` as Lua's.
- ``random:normalDistribution(mean, stddev)``; ``random:poissonDistribution(mean)``;
  ``random:discreteDistribution(weights)``: a 1-based index drawn in proportion to a fixed table of
  weights; ``random:choice(t)``: an item of a fixed table of numbers or booleans;
  ``random:shuffle(t)``: a shuffled copy of it; ``random:shuffleInPlace(t)``: ``t`` itself shuffled
  (written back to the name that holds it), returning nothing.
"""
from __future__ import annotations

from typing import Any, List, Optional

import jax
import jax.numpy as jnp

from compile_lua.device.host_values import HostTable, length
from compile_lua.device.values import Arr, Num, Str, as_num, lua_type

#: the random methods that translate
METHODS = ("seed", "uniformInt", "uniformReal", "normalDistribution", "poissonDistribution", "discreteDistribution",
           "choice", "shuffle", "shuffleInPlace")


def invoke(it: Any, name: str, args: List[Any], node: Any) -> List[Any]:
    """``random:name(args)``: its results (a list)."""
    if name == "seed":
        if len(args) != 1 or lua_type(args[0]) != "number":
            it.fail("random:seed without a number", "give the seed: random:seed(seed)", node)
        seed = as_num(args[0]).x
        key = jax.random.PRNGKey(jnp.trunc(seed).astype(jnp.int32) if not as_num(args[0]).is_int else seed)
        it.env.key = _live(it, key)
        return []
    if name in ("uniformInt", "uniformReal"):
        return [draw(it, args, name == "uniformInt", node)]
    if name == "normalDistribution":
        mean, stddev = _numbers(it, args, 2, "random:normalDistribution(mean, stddev)", node)
        return [Num(mean.x.astype(jnp.float32) + stddev.x.astype(jnp.float32) * jax.random.normal(split_key(it)))]
    if name == "poissonDistribution":
        mean, = _numbers(it, args, 1, "random:poissonDistribution(mean)", node)
        return [Num(jax.random.poisson(split_key(it), mean.x.astype(jnp.float32), (), jnp.int32), 0)]
    if name == "discreteDistribution":
        weights = _table(it, args, "random:discreteDistribution(weights)", node)
        logits = jnp.log(jnp.maximum(weights.astype(jnp.float32), 0.0))
        return [Num(jax.random.categorical(split_key(it), logits).astype(jnp.int32) + 1, 1, weights.shape[0])]
    if name == "choice":
        items = _table(it, args, "random:choice(t)", node)
        x = items[jax.random.randint(split_key(it), (), 0, items.shape[0])]
        return [x if x.dtype == jnp.bool_ else Num(x)]
    if name == "shuffle" and len(args) == 1 and _strings(args[0]) is not None:
        texts = _strings(args[0])   # a list of strings known now: each place one of them, in a random order
        order = jax.random.permutation(split_key(it), len(texts))
        gids = jnp.asarray([it.env.intern(t) for t in texts], jnp.int32)
        return [[Str(gids[order[i]], frozenset(texts)) for i in range(len(texts))]]
    if name in ("shuffle", "shuffleInPlace"):
        shuffled = Arr(jax.random.permutation(split_key(it), _table(it, args, f"random:{name}(t)", node)))
        if name == "shuffle":
            return [shuffled]
        _write_back(it, args[0], shuffled, node)
        return []
    it.fail(f"random:{name}", f"the random methods that compile are {', '.join(METHODS)}", node)


def draw(it: Any, args: List[Any], integer: bool, node: Any) -> Num:
    """One draw: an integer in [a, b] (``integer``; device integers are int32, so a bound known now beyond their
    range is clamped to it: Lab2D levels draw generator seeds in [1, 2^32 - 1]) or a float in [a, b)."""
    if integer:
        args = [min(max(a, -2**31), 2**31 - 2) if isinstance(a, (int, float)) and not isinstance(a, bool) else a
                for a in args]
    lo, hi = _numbers(it, args, 2, "a random draw (a, b)", node)
    sub = split_key(it)
    if integer:
        x = jax.random.randint(sub, (), lo.x.astype(jnp.int32), hi.x.astype(jnp.int32) + 1, jnp.int32)
        return Num(x, lo.lo, hi.hi)
    return Num(jax.random.uniform(sub, (), jnp.float32, lo.x.astype(jnp.float32), hi.x.astype(jnp.float32)),
               lo.lo, hi.hi)


def uniform(it: Any) -> Num:
    """``math.random()``: a float in [0, 1)."""
    return Num(jax.random.uniform(split_key(it), (), jnp.float32), 0.0, 1.0)


def split_key(it: Any) -> Any:
    """A fresh subkey; the state's key moves on where the path still runs."""
    key, sub = jax.random.split(it.env.key)
    it.env.key = _live(it, key)
    return sub


def _live(it: Any, key: Any) -> Any:
    live = it.live()
    return key if live is True else jnp.where(live, key, it.env.key)


def _write_back(it: Any, table: Arr, value: Arr, node: Any) -> None:
    """Bind ``value`` to the one name that holds ``table`` (a local, a top-level local or an api field)."""
    owner = table.owner or ""
    if owner.startswith("local ") and not owner.startswith("local."):
        it.assign_name(owner[len("local "):], value, node)
    elif owner in it.env.state:
        it.env.write(it, owner, value)
    else:
        it.fail("random:shuffleInPlace of a table with no name", "shuffle a table held by a local or an api "
                "field, or use random:shuffle(t), which returns a shuffled copy", node)


def _strings(table: Any) -> Optional[List[str]]:
    """The items of a non-empty list of strings known at translation time (a host table's or a constructor's),
    else None."""
    if isinstance(table, HostTable) and table.kind is None:
        table = [table.graph.raw_field(table.ref, i) for i in range(1, length(table) + 1)]
    if isinstance(table, list) and table and all(isinstance(t, str) for t in table):
        return list(table)
    return None


def _numbers(it: Any, args: List[Any], count: int, what: str, node: Any) -> List[Num]:
    if len(args) != count or any(lua_type(a) != "number" for a in args):
        it.fail(f"{what} without {count} numbers", f"give it {count} numbers", node)
    return [as_num(a) for a in args]


def _table(it: Any, args: List[Any], what: str, node: Any) -> Any:
    if len(args) != 1 or not isinstance(args[0], Arr) or args[0].x.shape[0] == 0:
        it.fail(f"{what} of a {lua_type(args[0]) if args else 'nothing'}", "it takes a fixed, non-empty table of "
                "numbers (or booleans)", node)
    return args[0].x
