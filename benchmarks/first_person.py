"""Env-steps/s of a first-person level, observations on, per batch size.

Each batch size runs ``AutoReset(DiscreteActions(env))`` with a sticky random
agent as a jitted ``lax.scan`` of ``--steps`` steps of ``jax.vmap(env.step)``
(the same loop as ``jaxlab-demo``, recording nothing); every env's
RGB_INTERLEAVED frame rides in the scan carry, so all frames are rendered.
It reports the first call (compile + one run) and then the median and best
of ``--repeats`` timed runs (``block_until_ready``).

Usage::

    PYTHONPATH=. python benchmarks/first_person.py [--level nav_maze_static_01]
        [--batches 1,16,64] [--steps 20] [--repeats 5] [--action-repeat 4]
        [--width 96] [--height 72] [--markdown] [--append BENCHMARKS.md]
"""
from __future__ import annotations

import argparse
import datetime
import os
import statistics
import time

import jax

from jaxlab.demo import FRAME, init_carry, make_env, make_rollout

CPU_BATCHES = (1, 16, 64, 256, 1024, 4096)
ACCELERATOR_BATCHES = CPU_BATCHES + (16384, 65536)
HEADER = ("| batch | compile + first call (s) | step (ms) | env-steps/s (median) | env-steps/s (best) "
          "| frames/s (median) |\n|---:|---:|---:|---:|---:|---:|")


def measure(env, batch: int, steps: int, repeats: int, seed: int = 0) -> dict:
    """Time ``steps`` batched steps of ``batch`` envs: compile, median and best rates."""
    carry = jax.block_until_ready(init_carry(env, batch, seed))
    rollout = make_rollout(env, steps, record=False)
    t0 = time.perf_counter()
    carry, _ = rollout(carry)
    jax.block_until_ready(carry)
    first = time.perf_counter() - t0
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        carry, _ = rollout(carry)
        jax.block_until_ready(carry)
        times.append(time.perf_counter() - t0)
    median, best = statistics.median(times), min(times)
    return {"batch": batch, "compile_s": first, "step_ms": 1e3 * median / steps,
            "median": batch * steps / median, "best": batch * steps / best}


def row(r: dict, action_repeat: int) -> str:
    """One markdown table row of a ``measure`` result."""
    return (f"| {r['batch']} | {r['compile_s']:.1f} | {r['step_ms']:.2f} | {r['median']:,.0f} "
            f"| {r['best']:,.0f} | {r['median'] * action_repeat:,.0f} |")


def device_name() -> str:
    """``jax.devices()[0].device_kind``; on the CPU with the host's CPU model and core count."""
    dev = jax.devices()[0]
    if dev.platform != "cpu":
        return f"{dev.device_kind} ({dev.platform})"
    model = ""
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            model = next((line.split(":", 1)[1].strip() for line in f if line.startswith("model name")), "")
    except OSError:
        pass
    return f"cpu ({model + ', ' if model else ''}{os.cpu_count()} cores)"


def batch_sizes(spec, cpu, accelerator):
    """The batch sizes of ``--batches`` (comma-separated), else ``cpu`` or ``accelerator`` by backend."""
    if spec:
        return [int(b) for b in spec.split(",") if b.strip()]
    return list(cpu if jax.default_backend() == "cpu" else accelerator)


def finish(args, head: str, header: str, rows) -> None:
    """Print the whole section (unless ``--markdown`` printed it row by row) and append it to ``--append``."""
    section = head + "\n\n" + header + "\n" + "\n".join(rows)
    if not args.markdown:
        print("\n" + section)
    if args.append:
        with open(args.append, "a", encoding="utf-8") as f:
            f.write("\n" + section + "\n")
        print(f"appended to {args.append}")


def describe(args) -> str:
    """The section heading and setup lines of a run."""
    return (f"### {args.level} {args.width}x{args.height} RGB_INTERLEAVED, action_repeat {args.action_repeat} "
            f"— {device_name()}, {datetime.date.today().isoformat()}\n\n"
            f"jax {jax.__version__}; {args.steps} steps per timed scan, median/best of {args.repeats}; "
            f"random sticky agent over the 9 discrete actions with auto-reset; "
            f"frames/s = env-steps/s × action_repeat (physics frames; one render per env-step).")


def main(argv=None) -> None:
    """Run the benchmark (see the module docstring)."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--level", default="nav_maze_static_01")
    ap.add_argument("--batches", default=None,
                    help="comma-separated batch sizes (default 1,16,64,256,1024,4096; +16384,65536 on a GPU)")
    ap.add_argument("--steps", type=int, default=20, help="env steps per timed scan (default 20)")
    ap.add_argument("--repeats", type=int, default=5, help="timed scans per batch size (default 5)")
    ap.add_argument("--action-repeat", type=int, default=4)
    ap.add_argument("--width", type=int, default=96)
    ap.add_argument("--height", type=int, default=72)
    ap.add_argument("--markdown", action="store_true", help="print only the markdown section")
    ap.add_argument("--append", metavar="FILE", help="append the markdown section to FILE")
    args = ap.parse_args(argv)
    batches = batch_sizes(args.batches, CPU_BATCHES, ACCELERATOR_BATCHES)

    env = make_env(args.level, args.width, args.height, args.action_repeat, observations=(FRAME,))
    head = describe(args)
    if args.markdown:
        print(head + "\n\n" + HEADER, flush=True)
    rows = []
    for batch in batches:
        r = measure(env, batch, args.steps, args.repeats)
        rows.append(row(r, args.action_repeat))
        if args.markdown:
            print(rows[-1], flush=True)
        else:
            print(f"batch {batch:>6}: compile+first {r['compile_s']:6.1f} s, step {r['step_ms']:9.2f} ms, "
                  f"{r['median']:>12,.0f} env-steps/s median ({r['best']:,.0f} best), "
                  f"{r['median'] * args.action_repeat:,.0f} frames/s", flush=True)
    finish(args, head, HEADER, rows)


if __name__ == "__main__":
    main()
