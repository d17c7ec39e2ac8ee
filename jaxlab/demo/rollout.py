"""What both ``jaxlab-demo`` rollouts do around their scan: name the device, cut the steps into
chunks, time the chunks with a progress bar, report the rate and write GIFs."""
from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any, Callable, List, Tuple

import imageio.v3 as iio
import jax
import numpy as np
from tqdm import tqdm


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


def chunk_size(steps: int, chunks: int = 10) -> int:
    """The largest divisor of ``steps`` not above steps/chunks (rounded up)."""
    limit = max(1, -(-steps // chunks))
    return max(d for d in range(1, limit + 1) if steps % d == 0)


def compile_timed(start: Callable[[], Any], chunk: int) -> Any:
    """``start()`` (the reset and the first compile of a ``chunk``-step scan),
    its seconds printed; returns what it returns."""
    t0 = time.perf_counter()
    out = start()
    print(f"compile: {time.perf_counter() - t0:.1f} s (reset + a {chunk}-step scan chunk)")
    return out


def timed_chunks(rollout: Callable[[Any], Tuple[Any, Any]], carry: Any, steps: int, chunk: int,
                 batch: int) -> Tuple[Any, List[Any], float]:
    """Runs ``rollout`` (``carry -> (carry, trace)``, ``chunk`` steps of
    ``batch`` envs) ``steps // chunk`` times under a progress bar, waiting
    for each; prints the env-steps/s. Returns (last carry, traces in order,
    env-steps/s)."""
    traces = []
    t0 = time.perf_counter()
    with tqdm(total=steps, unit="step", desc="rollout") as bar:
        for _ in range(steps // chunk):
            carry, trace = rollout(carry)
            jax.block_until_ready(carry)
            traces.append(trace)
            bar.update(chunk)
    seconds = time.perf_counter() - t0
    rate = steps * batch / seconds
    print(f"rollout: {steps} steps x {batch} envs in {seconds:.2f} s -> {rate:,.0f} env-steps/s "
          f"on {jax.devices()[0].device_kind}")
    return carry, traces, rate


def upscale(frames: np.ndarray, scale: int) -> np.ndarray:
    """``frames`` uint8[T, H, W, C] scaled ``scale``× (nearest): uint8[T, H·scale, W·scale, C]."""
    return np.repeat(np.repeat(frames, scale, axis=1), scale, axis=2)


def write_gif(path: Path, frames: np.ndarray, frame_ms: int, note: str) -> None:
    """Writes ``frames`` uint8[T, H, W, 3] as a looping GIF of ``frame_ms``
    milliseconds a frame, creating the folder, and says so (``note``)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    iio.imwrite(path, frames, duration=frame_ms, loop=0)
    print(f"wrote {path} ({len(frames)} frames, {note})")
