"""What every speed benchmark shares: the device line, batch sizes, timing a
jitted rollout, the per-batch table (markdown rows or plain lines) and the
section written at the end.

Used by ``jaxlab-bench`` (``jaxlab.bench.cli``) and the scripts under
``benchmarks/``.
"""
from __future__ import annotations

import datetime
import statistics
import sys
import time

import jax
from tqdm import tqdm

from jaxlab.demo.rollout import device_name


def log(message: str) -> None:
    """Progress on stderr (stdout stays the table or the markdown section), above any progress bar."""
    tqdm.write(message, file=sys.stderr)


def device_slug() -> str:
    """The first JAX device's kind as a file-name part, e.g. ``'cpu'``, ``'nvidia-h100-80gb-hbm3'``."""
    kind = jax.devices()[0].device_kind.lower()
    return "-".join("".join(c if c.isalnum() else " " for c in kind).split())


def device_and_date() -> str:
    """``device_name()`` and today's date, as a section heading ends."""
    return f"{device_name()}, {datetime.date.today().isoformat()}"


def add_output_arguments(ap) -> None:
    """Add ``--markdown`` and ``--append FILE`` (what ``measure_rows`` and ``finish`` read) to ``ap``."""
    ap.add_argument("--markdown", action="store_true", help="print only the markdown section")
    ap.add_argument("--append", metavar="FILE", help="append the markdown section to FILE")


def batch_sizes(spec, cpu, accelerator):
    """The batch sizes of ``--batches`` (comma-separated), else ``cpu`` or ``accelerator`` by backend."""
    if spec:
        return [int(b) for b in spec.split(",") if b.strip()]
    return list(cpu if jax.default_backend() == "cpu" else accelerator)


def initial_carry(env, batch: int, seed: int = 0):
    """The scan carry ``(states, observations, key)`` of ``batch`` fresh episodes of ``env``."""
    key, k_reset = jax.random.split(jax.random.PRNGKey(seed))
    states, ts = jax.jit(jax.vmap(env.reset))(jax.random.split(k_reset, batch))
    return jax.block_until_ready((states, ts.observation, key))


def make_rollout(env, steps: int, policy, batched_step=None):
    """A jitted ``carry -> carry`` of ``steps`` batched steps of ``env`` (carry as ``initial_carry``'s);
    ``policy(key, observations)`` gives each step's batch of actions from the last observations.
    ``batched_step(states, actions)`` replaces ``jax.vmap(env.step)`` (e.g. ``VmapAutoReset``'s)."""
    step = batched_step or jax.vmap(env.step)

    def body(carry, _):
        states, observations, key = carry
        key, k_act = jax.random.split(key)
        states, ts = step(states, policy(k_act, observations))
        return (states, ts.observation, key), None

    return jax.jit(lambda carry: jax.lax.scan(body, carry, None, length=steps)[0])


def timed(run, carry, repeats: int):
    """(first call seconds, [timed call seconds]) of ``carry -> carry``, ``block_until_ready``."""
    t0 = time.perf_counter()
    carry = jax.block_until_ready(run(carry))
    first = time.perf_counter() - t0
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        carry = jax.block_until_ready(run(carry))
        times.append(time.perf_counter() - t0)
    return first, times


def measure(run, carry, batch: int, steps: int, repeats: int) -> dict:
    """Time ``run`` (``carry -> carry``: ``steps`` batched steps of ``batch`` envs): the first call
    (compile + one run) and the median and best rates of ``repeats`` calls.

    Returns ``{"batch", "compile_s"`` (seconds of the first call), ``"step_ms"`` (median milliseconds of
    one batched step), ``"median", "best"`` (env-steps/s: batch × steps / seconds of a call)``}``."""
    first, times = timed(run, carry, repeats)
    median, best = statistics.median(times), min(times)
    return {"batch": batch, "compile_s": first, "step_ms": 1e3 * median / steps,
            "median": batch * steps / median, "best": batch * steps / best}


def paired_speed(run_a, carry_a, run_b, carry_b, repeats: int) -> float:
    """How many times faster ``run_b`` is than ``run_a`` (both ``carry -> carry``, compiled): the median over
    ``repeats`` back-to-back pairs of (seconds of a call of ``run_a``) / (seconds of the next call of
    ``run_b``). Pairs keep the ratio meaningful on a machine whose speed drifts between calls."""
    ratios = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        carry_a = jax.block_until_ready(run_a(carry_a))
        t1 = time.perf_counter()
        carry_b = jax.block_until_ready(run_b(carry_b))
        ratios.append((t1 - t0) / (time.perf_counter() - t1))
    return statistics.median(ratios)


def versus(peer: dict | None, name: str, digits: int):
    """The ``last`` of ``measure_rows`` for a speed-up column: jaxlab's median over ``peer['rate']``
    with ``digits`` decimals (the cell; ``, N× name`` on the plain line), '—' when ``peer`` is None."""
    def last(r: dict):
        if not peer:
            return "—", ""
        ratio = f"{r['median'] / peer['rate']:,.{digits}f}×"
        return ratio, f", {ratio} {name}"
    return last


def measure_rows(args, head: str, header: str, batches, measure_batch, last, step_digits: int = 3,
                 median_width: int = 13):
    """Yield ``(result, markdown row)`` per batch size, ``result = measure_batch(batch)`` (a
    ``measure`` dict), printing as it goes: with ``--markdown`` ``head`` and ``header`` first, then each
    row; else a plain line per batch size. ``last(result)`` gives the row's last cell and the plain
    line's tail; ``step_digits`` the decimals of the step time, ``median_width`` the width of the
    plain line's median rate."""
    if args.markdown:
        print(head + "\n\n" + header, flush=True)
    for batch in batches:
        r = measure_batch(batch)
        cell, tail = last(r)
        row = (f"| {r['batch']} | {r['compile_s']:.1f} | {r['step_ms']:.{step_digits}f} | {r['median']:,.0f} "
               f"| {r['best']:,.0f} | {cell} |")
        if args.markdown:
            print(row, flush=True)
        else:
            print(f"batch {batch:>6}: compile+first {r['compile_s']:6.1f} s, step {r['step_ms']:9.{step_digits}f} ms, "
                  f"{r['median']:>{median_width},.0f} env-steps/s median ({r['best']:,.0f} best){tail}", flush=True)
        yield r, row


def append_section(args, section: str) -> None:
    """Append the markdown ``section`` to the file ``--append`` names, if any, and say so."""
    if args.append:
        with open(args.append, "a", encoding="utf-8") as f:
            f.write("\n" + section + "\n")
        print(f"appended to {args.append}")


def finish(args, head: str, header: str, rows) -> None:
    """Print the whole section (unless ``--markdown`` printed it row by row) and append it to ``--append``."""
    section = head + "\n\n" + header + "\n" + "\n".join(rows)
    if not args.markdown:
        print("\n" + section)
    append_section(args, section)
