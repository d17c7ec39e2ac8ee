"""Every benchmark script imports and builds its command line (``--help``) against the current tree,
so a renamed module or name is caught here rather than on the next benchmark run; the scripts take
their shared code from the installed package (``jaxlab.bench``), and one runs end to end."""
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BENCHMARKS = ROOT / "benchmarks"
SCRIPTS = sorted(p.name for p in BENCHMARKS.glob("*.py"))
ENV = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]),
       "JAX_PLATFORMS": "cpu"}


def _run(*args, timeout=120):
    return subprocess.run([sys.executable, *args], capture_output=True, text=True, env=ENV, timeout=timeout, cwd=ROOT)


def test_every_benchmark_script_is_listed():
    assert {"first_person.py", "grid.py", "text.py", "lua_compile.py", "render_only.py", "dmlab30.py", "memorytasks.py"} <= set(SCRIPTS)


def test_scripts_share_code_through_the_package():
    """No script imports a sibling module: what they share lives in ``jaxlab.bench``, which
    ``jaxlab-bench`` runs after ``pip install``."""
    siblings = {Path(s).stem for s in SCRIPTS}
    for script in SCRIPTS:
        source = (BENCHMARKS / script).read_text(encoding="utf-8")
        imported = {line.split()[1].split(".")[0] for line in source.splitlines()
                    if line.startswith(("import ", "from "))}
        assert not imported & siblings, script


@pytest.mark.parametrize("script", SCRIPTS)
def test_benchmark_script_help(script):
    run = _run(str(BENCHMARKS / script), "--help")
    assert run.returncode == 0, run.stderr[-2000:]
    assert run.stdout.startswith(f"usage: {script}")


def test_jaxlab_bench_help():
    run = _run("-m", "jaxlab.bench.cli", "--help")
    assert run.returncode == 0, run.stderr[-2000:]
    assert run.stdout.startswith("usage: jaxlab-bench") and "--families" in run.stdout and "--quick" in run.stdout


def test_grid_script_runs_with_dmlab2d():
    """The thin grid script still measures end to end, dmlab2d side by side (tiny sizes)."""
    pytest.importorskip("dmlab2d")
    run = _run(str(BENCHMARKS / "grid.py"), "--batches", "2", "--steps", "2", "--repeats", "1", "--layouts", "4",
               "--dm-steps", "20", "--markdown", timeout=300)
    assert run.returncode == 0, run.stderr[-2000:]
    row = [line for line in run.stdout.splitlines() if line.startswith("| 2 |")]
    assert len(row) == 1 and float(row[0].split("|")[4].replace(",", "")) > 0
    assert "steps/s**" in run.stdout and row[0].rstrip().endswith("× |")   # dmlab2d's rate and the ratio
