"""Settings for the whole suite: JAX's persistent compilation cache, shared by every process of a run,
and XLA's CPU backend at a lower optimisation level.

Many tests build the same env in their own way and jit the same step, reset or rollout: the same
XLA program, compiled again by each test and by each xdist worker. With the persistent compilation
cache the first compile of a program writes it to one folder and every later one, in any worker or
notebook kernel of the run, reads it back. The folder is made by the run's first process (xdist's
controller), handed to the workers and the kernels they start through the environment, and removed
when the run ends. The cache changes how fast a program is ready, never what it computes.

The slowest modules are collected first (``SLOW_FIRST``), so that pytest-xdist, which hands modules
out in collection order, starts them at once and the short ones fill the cores at the end.
"""
import os
import shutil
import subprocess
import sys
import tempfile

import jax

#: where the run's cache lives (set by the first process, inherited by the others)
CACHE_ENV = "JAXLAB_TEST_COMPILATION_CACHE"
#: cache every program (seconds of compile below which a program is not written): the op-by-op
#: runs compile many small ones, and every worker, kernel and command the suite starts reads them
MIN_COMPILE_SECONDS = 0.0
#: XLA's CPU backend at LLVM optimisation level 1 (2 by default), with its older elemental emitters
#: instead of the fusion emitters, its whole-program runtime instead of the thunk runtime and each
#: program's machine code made in one piece, for the suite and every process it starts: most of the
#: suite's time is compiling small programs that then run for a few steps, and these compile them
#: about a third faster (level 0 makes the longer runs too slow), the last two with a tenth less CPU
#: time (CI's two cores are both busy compiling, so code made in parallel pieces gains no time).
#: Set before JAX starts its backend, and only when a fresh process of the installed JAX starts with
#: them (an XLA that dropped a flag aborts on it); the benchmarks keep XLA's defaults.
XLA_TEST_FLAGS = ("--xla_backend_optimization_level=1 --xla_cpu_use_fusion_emitters=false "
                  "--xla_cpu_use_thunk_runtime=false --xla_cpu_parallel_codegen_split_count=1")
#: the flags the run's first process found this JAX takes (XLA_TEST_FLAGS or none), for the others
FLAGS_ENV = "JAXLAB_TEST_XLA_FLAGS"
#: the modules that take longest on CI's 2 cores (``make test`` prints the slowest tests), slowest first
SLOW_FIRST = ("first_person/test_dmlab30_language.py", "core/test_notebook.py", "first_person/test_dmlab30_suite.py",
              "first_person/test_lasertag.py", "memory/test_memory_suite.py", "grid/test_lab2d_grid_compiled.py",
              "core/test_agents.py", "text/test_text_import.py", "grid/test_lab2d_grid_engine.py",
              "text/test_text_cooking_textworld.py", "authoring/test_hostile_scripts.py",
              "memory/test_task_properties.py", "grid/test_lab2d_package_names.py", "authoring/test_compile_lua.py",
              "first_person/test_dmlab30_explore.py", "core/test_sharding.py", "text/test_text_gym.py",
              "text/test_text_cooking.py", "text/test_text_kernel_paths.py", "authoring/test_dmlab_playtime.py",
              "grid/test_lab2d_package_fidelity.py", "core/test_benchmark_scripts.py")


def _flags_this_jax_takes() -> str:
    """XLA_TEST_FLAGS when a fresh process starts the installed JAX's CPU backend with them, else ''."""
    flags = f"{os.environ.get('XLA_FLAGS', '')} {XLA_TEST_FLAGS}".strip()
    probe = subprocess.run([sys.executable, "-c", "import jax.numpy as jnp; jnp.zeros(2).block_until_ready()"],
                           env=dict(os.environ, XLA_FLAGS=flags), capture_output=True, timeout=300)
    return XLA_TEST_FLAGS if probe.returncode == 0 else ""


def pytest_configure(config):
    if CACHE_ENV not in os.environ:
        os.environ[CACHE_ENV] = tempfile.mkdtemp(prefix="jaxlab-test-jax-cache-")
        config._jaxlab_cache_owner = True
    folder = os.environ[CACHE_ENV]
    if FLAGS_ENV not in os.environ:
        os.environ[FLAGS_ENV] = _flags_this_jax_takes()
    flags = os.environ[FLAGS_ENV]
    if flags not in os.environ.get("XLA_FLAGS", ""):
        os.environ["XLA_FLAGS"] = f"{os.environ.get('XLA_FLAGS', '')} {flags}".strip()
    # for processes the tests start (notebook kernels, CLI runs): JAX reads these when it starts
    os.environ["JAX_COMPILATION_CACHE_DIR"] = folder
    os.environ["JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS"] = str(MIN_COMPILE_SECONDS)
    jax.config.update("jax_compilation_cache_dir", folder)
    jax.config.update("jax_persistent_cache_min_compile_time_secs", MIN_COMPILE_SECONDS)
    jax.config.update("jax_persistent_cache_min_entry_size_bytes", 0)


def pytest_unconfigure(config):
    if getattr(config, "_jaxlab_cache_owner", False):
        shutil.rmtree(os.environ.pop(CACHE_ENV), ignore_errors=True)


def pytest_collection_modifyitems(session, config, items):
    """The modules of ``SLOW_FIRST`` first, in its order; the rest as collected (a stable sort)."""
    rank = {module: i for i, module in enumerate(SLOW_FIRST)}
    items.sort(key=lambda item: rank.get(item.nodeid.split("::")[0].removeprefix("tests/"), len(rank)))
