"""First-person speed benchmark: ``AutoReset(DiscreteActions(env))`` with a sticky random agent
(``jaxlab-demo``'s loop, recording nothing), stepped as a jitted ``lax.scan`` of ``jax.vmap(env.step)``;
every env's RGB_INTERLEAVED frame rides in the scan carry, so all frames are rendered."""
from __future__ import annotations

import jax

from jaxlab.bench.timing import measure
from jaxlab.demo.first_person import FRAME, init_carry, make_env as make_demo_env, make_rollout

CPU_BATCHES = (1, 16, 64, 256, 1024, 4096)
ACCELERATOR_BATCHES = CPU_BATCHES + (16384, 65536)
#: env steps per timed scan by default
STEPS = 20
#: DeepMind Lab itself cannot be installed with pip, so it is never measured side by side
ORIGINAL_NOTE = "not pip-installable (it builds with Bazel); not measured"


def add_run_arguments(ap) -> None:
    """Add the run's shape to an ArgumentParser: ``--steps`` (env steps per timed scan), ``--repeats``
    (timed scans per batch size), ``--action-repeat`` (frames per agent step) and ``--width``/``--height``
    (the rendered frame, in pixels)."""
    ap.add_argument("--steps", type=int, default=STEPS, help=f"env steps per timed scan (default {STEPS})")
    ap.add_argument("--repeats", type=int, default=5, help="timed scans per batch size (default 5)")
    ap.add_argument("--action-repeat", type=int, default=4)
    ap.add_argument("--width", type=int, default=96)
    ap.add_argument("--height", type=int, default=72)


def make_env(level: str, width: int = 96, height: int = 72, action_repeat: int = 4):
    """``AutoReset(DiscreteActions)`` of ``level`` rendering only the uint8[height, width, 3] frame."""
    return make_demo_env(level, width, height, action_repeat, observations=(FRAME,))


def measure_batch(env, batch: int, steps: int, repeats: int, seed: int = 0) -> dict:
    """Time ``steps`` batched steps of ``batch`` envs: a ``timing.measure`` dict (seconds, ms, env-steps/s)."""
    carry = jax.block_until_ready(init_carry(env, batch, seed))
    rollout = make_rollout(env, steps, record=False)
    return measure(lambda c: rollout(c)[0], carry, batch, steps, repeats)
