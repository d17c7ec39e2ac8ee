"""``ShardedEnv``: one batch of envs split over every device with ``jax.sharding``.

``jaxlab.sharded(env)`` lays the devices out on a one-axis ``Mesh`` (axis
``"batch"``) and places every batched array with
``NamedSharding(mesh, PartitionSpec("batch"))``: of a batch of ``B`` rows,
device ``d`` of ``n`` holds rows ``d*B/n`` to ``(d+1)*B/n - 1``. ``reset`` and
``step`` are ``jax.jit``-ed with those in and out shardings. Inside, each
device runs ``jax.vmap(env.step)`` (or a ``VmapAutoReset``'s batch step) on
its own rows (``jax.shard_map``): rows never interact, so no device waits on
another. ``OptimisticAutoReset``, whose reset budget spans the batch, is left
to XLA's SPMD partitioner instead. Called inside a user's own ``jax.jit`` (a ``lax.scan``
rollout, a PPO update), ``step`` pins the batch's layout there, and the
partitioner carries it through the rest of the program. Nothing is
``pmap``-ed and nothing about the env changes: the same keys give bit for bit
the trajectory of ``jax.vmap(env.step)``.

Batches are plain global arrays ``[B, ...]``; ``B`` may be any multiple of
the device count (each size compiles once). In a multi-process run
(``jax.distributed.initialize``) the mesh spans every process's devices and
each process holds only its own rows (see docs/scaling.md).
"""
from __future__ import annotations

from typing import Any, Callable, Optional, Sequence, Tuple

import jax
import numpy as np
from jax.sharding import Mesh, NamedSharding, PartitionSpec

from jaxlab.env import Env
from jaxlab.types import TimeStep
from jaxlab.wrappers.core import VmapAutoReset
from jaxlab.wrappers.optimistic import OptimisticAutoReset

#: the mesh axis the batch is split along
BATCH_AXIS = "batch"


def checked_devices(devices: Optional[Sequence[jax.Device]]) -> Tuple[jax.Device, ...]:
    """``devices`` checked (a non-empty sequence of distinct ``jax.Device``s of one
    platform) as a tuple; None gives ``jax.devices()`` (every process's devices)."""
    if devices is None:
        return tuple(jax.devices())
    if isinstance(devices, (jax.Device, str, bytes, int)) or not isinstance(devices, Sequence):
        raise TypeError(f"devices must be a sequence of jax.Device (e.g. jax.devices()[:4]) or None, "
                        f"got {type(devices).__name__} {devices!r}")
    devices = tuple(devices)
    if not devices:
        raise ValueError("devices is empty: pass at least one jax.Device, or None for jax.devices()")
    for device in devices:
        if not isinstance(device, jax.Device):
            raise TypeError(f"devices must hold jax.Device objects (from jax.devices()), "
                            f"got {type(device).__name__} {device!r}")
    if len(set(devices)) != len(devices):
        raise ValueError(f"devices lists a device more than once: {list(devices)}")
    platforms = sorted({device.platform for device in devices})
    if len(platforms) > 1:
        raise ValueError(f"devices mixes platforms {platforms}: shard a batch over devices of one kind")
    return devices


class ShardedEnv:
    """A batch of ``env`` split along its first axis over ``devices`` (see the module).

    Args:
      env: a jaxlab ``Env`` (any family or wrapper; its ``reset``/``step`` are
        vmapped) or a batch env taking whole batches (``VmapAutoReset``,
        ``OptimisticAutoReset``; the latter's reset budget then spans the
        whole sharded batch, as it does unsharded).
      devices: the devices to split over, in mesh order; None takes
        ``jax.devices()``.

    Attributes:
      env: the wrapped env.
      devices: tuple of the ``n`` devices, in mesh order.
      mesh: ``Mesh(devices, ("batch",))``.
      sharding: ``NamedSharding(mesh, PartitionSpec("batch"))``: the first axis split over the mesh.
      replicated: ``NamedSharding(mesh, PartitionSpec())``: a whole copy on every device.
    """

    def __init__(self, env: Any, devices: Optional[Sequence[jax.Device]] = None):
        self.env = env
        self.devices = checked_devices(devices)
        self.mesh = Mesh(np.array(self.devices), (BATCH_AXIS,))
        self.sharding = NamedSharding(self.mesh, PartitionSpec(BATCH_AXIS))
        self.replicated = NamedSharding(self.mesh, PartitionSpec())
        if isinstance(env, OptimisticAutoReset):
            # Its reset budget is shared by the whole batch, so it must see the whole batch:
            # XLA's partitioner splits it and adds the cross-device steps it needs.
            batch_reset, batch_step = env.reset, env.step
        elif isinstance(env, VmapAutoReset):
            # Its rows do not interact (any subset of the batch gives the same rows): each
            # device runs it on its own rows, and its "skip resets" test is then per device.
            batch_reset, batch_step = self.per_device(env.reset), self.per_device(env.step)
        elif isinstance(env, Env):
            # Each device vmaps its own rows, with no communication (under the partitioner, a
            # vmapped data-dependent while_loop would all-reduce its condition every iteration).
            batch_reset, batch_step = self.per_device(jax.vmap(env.reset)), self.per_device(jax.vmap(env.step))
        else:
            raise TypeError(f"sharded takes a jaxlab Env or a batch env (VmapAutoReset, OptimisticAutoReset), "
                            f"got {type(env).__name__}")
        self._reset = jax.jit(batch_reset, in_shardings=self.sharding, out_shardings=self.sharding)
        self._step = jax.jit(batch_step, in_shardings=(self.sharding, self.sharding), out_shardings=self.sharding)

    def per_device(self, batch_fn: Callable) -> Callable:
        """``batch_fn`` (batched pytrees ``[B, ...]`` in and out) run by each device on its own
        ``B / n`` rows (``jax.shard_map`` over the mesh): right only when rows do not interact.
        Env kernels are not written for shard_map's replication checks (their loops start
        from constants), so those are off; every output is split along the batch anyway."""
        spec = PartitionSpec(BATCH_AXIS)
        return jax.shard_map(batch_fn, mesh=self.mesh, in_specs=spec, out_specs=spec, check_vma=False)

    @property
    def num_devices(self) -> int:
        """n, the number of devices the batch is split over."""
        return len(self.devices)

    def check_batch(self, tree: Any, what: str = "tree") -> int:
        """The batch size ``B`` of ``tree`` (every leaf's first axis), checked: one ``B`` for all
        leaves and divisible by ``num_devices``; ``what`` names the tree in the ValueError."""
        leaves = jax.tree_util.tree_leaves_with_path(tree)
        if not leaves:
            raise ValueError(f"{what} has no arrays to shard")
        sizes = {}
        for path, leaf in leaves:
            shape = np.shape(leaf)
            if not shape:
                raise ValueError(f"{what}{jax.tree_util.keystr(path)} is a scalar: every leaf needs a batch axis first")
            sizes.setdefault(shape[0], jax.tree_util.keystr(path))
        if len(sizes) > 1:
            found = ", ".join(f"{size} at {what}{path}" for size, path in sizes.items())
            raise ValueError(f"{what} leaves disagree on the batch size: {found}")
        (batch,) = sizes
        if batch % self.num_devices:
            raise ValueError(f"{what} has batch size {batch}, not divisible by the {self.num_devices} devices it "
                             f"is split over: use a multiple of {self.num_devices}")
        return batch

    def shard(self, tree: Any, what: str = "tree") -> Any:
        """``tree`` (leaves ``[B, ...]``, B a multiple of ``num_devices``) placed with ``sharding``:
        each device holds ``B / n`` rows (leaves already placed so are passed through). Inside
        ``jax.jit`` it constrains the layout instead. ``what`` names the tree in errors.

        In a multi-process run every process passes the same whole ``tree``
        and keeps only its own rows; for rows that differ per process use
        ``jax.make_array_from_process_local_data(senv.sharding, local_rows)``.
        """
        self.check_batch(tree, what)
        if any(isinstance(leaf, jax.core.Tracer) for leaf in jax.tree_util.tree_leaves(tree)):
            return jax.lax.with_sharding_constraint(tree, self.sharding)
        return jax.device_put(tree, self.sharding)

    def replicate(self, tree: Any) -> Any:
        """``tree`` (any shapes: network parameters, optimizer state) copied whole onto every device."""
        return jax.device_put(tree, self.replicated)

    def reset(self, keys: jax.Array) -> Tuple[Any, TimeStep]:
        """Start ``B`` episodes from ``keys`` (PRNG keys ``[B]``: uint32[B, 2] or typed ``[B]``,
        B a multiple of ``num_devices``): (states, FIRST TimeSteps), every leaf ``[B, ...]``
        split with ``sharding``; the same as ``jax.vmap(env.reset)(keys)``."""
        return self._reset(self.shard(keys, "keys"))

    def step(self, states: Any, actions: Any) -> Tuple[Any, TimeStep]:
        """One step of every env: ``states`` and ``actions`` are batches ``[B, ...]`` (as
        ``reset``'s, B a multiple of ``num_devices``; placed with ``sharding`` if they are not);
        (states, TimeSteps) split with ``sharding``, the same as ``jax.vmap(env.step)(states,
        actions)`` (or the batch env's ``step``). Works eagerly and inside ``jax.jit`` / ``lax.scan``."""
        return self._step(*self.shard((states, actions), "(states, actions)"))

    def observation_spec(self):
        """dict name -> ArraySpec of one env's observations (a batch adds a first axis ``B``)."""
        return self.env.observation_spec()

    def action_spec(self):
        """One env's action spec (a batch of actions adds a first axis ``B``)."""
        return self.env.action_spec()

    def __repr__(self) -> str:
        return f"ShardedEnv({self.env!r}, {self.num_devices} devices)"


def sharded(env: Any, devices: Optional[Sequence[jax.Device]] = None) -> ShardedEnv:
    """``env``'s batches split along their first axis over ``devices`` (None: ``jax.devices()``)
    with ``jax.sharding``; see ``ShardedEnv``. ``senv.reset(keys[B])``, ``senv.step(states, actions)``."""
    return ShardedEnv(env, devices)
