"""Where a batched step's device time goes: the kernels of one level's jitted rollout, by time.

Runs ``VmapAutoReset(DiscreteActions(env))`` of each level with uniform random actions as a jitted
``lax.scan`` of ``--steps`` steps (every env's RGB_INTERLEAVED frame in the carry), times it (median of
``--repeats`` calls, and again with a plain ``jax.vmap(env.step)``, without resets), then traces
``--traced`` calls with ``jax.profiler`` and sums the device's kernel events of the trace by kernel name:
microseconds per env step of the batch, launches per step, and the launch shape and the op name XLA gave
the kernel. On a GPU this names the fusion a step spends its time in (the largest one's HLO is found by
its name in ``--hlo DIR``'s dump); on a CPU the trace has no device kernels and only the timings print.

Usage::

    PYTHONPATH=. python benchmarks/kernel_profile.py natlab_fixed_large_map,nav_maze_static_01
        [--batch 1024] [--steps 10] [--repeats 5] [--traced 3] [--top 20] [--hlo DIR]
"""
from __future__ import annotations

import argparse
import collections
import glob
import gzip
import json
import statistics
import tempfile
from pathlib import Path

import jax
import jax.numpy as jnp

import jaxlab
from jaxlab.bench.timing import initial_carry, log, make_rollout, timed
from jaxlab.wrappers import DiscreteActions, VmapAutoReset


def device_kernels(trace_dir: str) -> dict:
    """``{kernel name: [total µs, events, first event's args]}`` of the device events in the
    ``*.trace.json.gz`` that ``jax.profiler.trace(trace_dir)`` wrote."""
    files = glob.glob(f"{trace_dir}/**/*.trace.json.gz", recursive=True)
    if not files:
        return {}
    events = json.load(gzip.open(files[0]))["traceEvents"]
    process = {e["pid"]: e["args"]["name"] for e in events if e.get("ph") == "M" and e.get("name") == "process_name"}
    kernels = collections.defaultdict(lambda: [0.0, 0, None])
    for e in events:
        if e.get("ph") == "X" and "/device:" in process.get(e["pid"], ""):
            k = kernels[e["name"]]
            k[0] += e.get("dur", 0)
            k[1] += 1
            k[2] = k[2] if k[2] is not None else e.get("args", {})
    return dict(kernels)


def profile(level: str, args) -> None:
    """Print one level's timings and its ``args.top`` kernels."""
    env = DiscreteActions(jaxlab.make(level, width=96, height=72, observations=("RGB_INTERLEAVED",),
                                      action_repeat=4))
    carry = initial_carry(env, args.batch, 0)

    def policy(key, _):
        return jax.random.randint(key, (args.batch,), 0, env.num_actions, dtype=jnp.int32)
    run = make_rollout(env, args.steps, policy, batched_step=VmapAutoReset(env).step)
    first, times = timed(run, carry, args.repeats)
    step_ms = 1e3 * statistics.median(times) / args.steps
    _, plain = timed(make_rollout(env, args.steps, policy), carry, args.repeats)
    print(f"## {level}: batch {args.batch}, compile + first call {first:.1f} s, step {step_ms:.3f} ms "
          f"({args.batch / step_ms * 1e3:,.0f} env-steps/s); without resets {1e3 * statistics.median(plain) / args.steps:.3f} ms",
          flush=True)
    if args.hlo:
        Path(args.hlo).mkdir(parents=True, exist_ok=True)
        (Path(args.hlo) / f"{level}.hlo.txt").write_text(run.lower(carry).compile().as_text())
    with tempfile.TemporaryDirectory() as folder:
        with jax.profiler.trace(folder):
            for _ in range(args.traced):
                carry = jax.block_until_ready(run(carry))
        kernels = device_kernels(folder)
    steps = args.traced * args.steps
    if not kernels:
        print("   (no device kernels in the trace: a CPU run)")
        return
    total = sum(k[0] for k in kernels.values())
    print(f"   device kernels: {total / steps:,.0f} µs per step, {sum(k[1] for k in kernels.values()) / steps:.0f} "
          f"launches per step")
    for name, (us, count, info) in sorted(kernels.items(), key=lambda kv: -kv[1][0])[:args.top]:
        info = info or {}
        print(f"   {us / steps:9.1f} µs {count / steps:6.1f}x  {name[:48]:48s} {info.get('kernel_details', '')[:60]}  "
              f"{info.get('name', '')[-70:]}")


def main(argv=None) -> None:
    """Profile each level named (see the module docstring)."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("levels", help="comma-separated first-person level names")
    ap.add_argument("--batch", type=int, default=1024)
    ap.add_argument("--steps", type=int, default=10)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--traced", type=int, default=3)
    ap.add_argument("--top", type=int, default=20)
    ap.add_argument("--hlo", default=None, help="a folder to write each level's optimised HLO text into")
    args = ap.parse_args(argv)
    log(f"{jax.devices()[0].device_kind}, jax {jax.__version__}")
    for level in args.levels.split(","):
        profile(level.strip(), args)


if __name__ == "__main__":
    main()
