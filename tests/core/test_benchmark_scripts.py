"""Every benchmark script imports and builds its command line (``--help``) against the current tree,
so a renamed module or name is caught here rather than on the next benchmark run."""
import os
import subprocess
import sys
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"
SCRIPTS = sorted(p.name for p in BENCHMARKS.glob("*.py") if p.name != "common.py")


def test_every_benchmark_script_is_listed():
    assert {"first_person.py", "grid.py", "text.py", "lua_compile.py", "render_only.py", "dmlab30.py", "memorytasks.py"} <= set(SCRIPTS)


@pytest.mark.parametrize("script", SCRIPTS)
def test_benchmark_script_help(script):
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(BENCHMARKS.parent), os.environ.get("PYTHONPATH", "")]),
           "JAX_PLATFORMS": "cpu"}
    run = subprocess.run([sys.executable, str(BENCHMARKS / script), "--help"], capture_output=True, text=True,
                         env=env, timeout=120, cwd=BENCHMARKS.parent)
    assert run.returncode == 0, run.stderr[-2000:]
    assert run.stdout.startswith(f"usage: {script}")
