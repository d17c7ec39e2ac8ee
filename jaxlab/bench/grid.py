"""Grid speed benchmark: ``AutoReset(GridEnv(level))`` with uniform random actions drawn on device,
stepped as a jitted ``lax.scan`` of ``jax.vmap(env.step)`` (observations in the scan carry, so every
env's images are rendered every step), and ``dmlab2d`` playing pushbox in the same process."""
from __future__ import annotations

import importlib.metadata
import random
import time

from jaxlab.bench.timing import initial_carry, make_rollout, measure
from jaxlab.demo.grid import random_actions
from jaxlab.grid import GridEnv
from jaxlab.levels import lab2d as levels
from jaxlab.wrappers import AutoReset, VmapAutoReset

try:
    import dmlab2d
    import dmlab2d.runfiles_helper
except ImportError:
    dmlab2d = None

CPU_BATCHES = (1, 16, 256, 1024, 4096)
ACCELERATOR_BATCHES = CPU_BATCHES + (16384, 65536, 262144)
#: env steps per timed scan by default
STEPS = 100
#: dmlab2d steps per timed run by default
DM_STEPS = 3000
#: levels dmlab2d plays with the same rules and default settings as jaxlab's
DMLAB2D_LEVELS = ("pushbox",)


def make_env(level: str, observations, layouts: int) -> AutoReset:
    """``AutoReset(GridEnv)`` of built-in grid level ``level`` computing ``observations`` (e.g. the
    uint8[H, W, 3] ``WORLD.RGB``), maps drawn from a bank of ``layouts`` (0: generated at every reset)."""
    return AutoReset(GridEnv(levels.build(level), observations=observations, layouts=layouts))


def measure_batch(env, batch: int, steps: int, repeats: int, seed: int = 0, batch_reset: bool = False) -> dict:
    """Time ``steps`` batched steps of ``batch`` envs with uniform random actions: a ``timing.measure`` dict
    (seconds, ms, env-steps/s). ``batch_reset``: step with ``VmapAutoReset`` (resets computed only when
    some env is done)."""
    batched = VmapAutoReset(env.env).step if batch_reset else None
    rollout = make_rollout(env, steps, lambda key, _: random_actions(env, key, batch), batched)
    return measure(rollout, initial_carry(env, batch, seed), batch, steps, repeats)


def dmlab2d_missing(level: str, skip: bool = False) -> str:
    """Why dmlab2d is not measured on ``level`` ('' when it is): skipped, not installed, or not the same level."""
    if skip:
        return "skipped"
    if dmlab2d is None:
        return "not installed: pip install jaxlab[originals]"
    if level not in DMLAB2D_LEVELS:
        return f"its {level} has other rules and default settings than jaxlab's; not comparable"
    return ""


def dmlab2d_rate(level: str, observations, steps: int, repeats: int, seed: int = 0) -> dict:
    """dmlab2d's steps/s on ``level``: one env, uniform random actions over its action spec, the
    same observations where it has them; ``repeats`` runs of ``steps`` steps each, resets on the way
    included. The rate reported is the best run's (the fairest to dmlab2d on a busy machine).

    Returns ``{"rate"`` (steps/s), ``"runs"`` (steps/s of each run), ``"steps"``, ``"resets"``,
    ``"observations"`` (the names asked for), ``"version"``}``."""
    lab = dmlab2d.Lab2d(dmlab2d.runfiles_helper.find(), {"levelName": level})
    asked = [o for o in observations if o in lab.observation_names()] or ["WORLD.RGB"]
    env = dmlab2d.Environment(lab, asked, seed=seed)
    specs = env.action_spec()
    rng = random.Random(seed)
    ts, resets, runs = env.reset(), 0, []
    for _ in range(repeats):
        t0 = time.perf_counter()
        for _ in range(steps):
            ts = env.step({name: rng.randint(int(s.minimum), int(s.maximum)) for name, s in specs.items()})
            if ts.last():
                ts, resets = env.reset(), resets + 1
        runs.append(steps / (time.perf_counter() - t0))
    return {"rate": max(runs), "runs": runs, "steps": steps * repeats, "resets": resets,
            "observations": asked, "version": importlib.metadata.version("dmlab2d")}
