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


def test_dmlab30_agent_reports_every_level_and_both_policies(tmp_path):
    """The DMLab-30 agent's section and plot from a made-up run (training it takes minutes of compiling):
    a row per level, the cap stated where episodes are longer, both policies' suite scores."""
    import importlib.util

    import numpy as np

    spec = importlib.util.spec_from_file_location("dmlab30_agent", BENCHMARKS / "dmlab30_agent.py")
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    args = script.parse_args(["--steps", "4096", "--eval-steps", "300", "--episodes-per-level", "2"])
    levels = ("rooms_select_nonmatching_object", "language_select_described_object")
    updates = 2
    metrics = {"env_steps": np.array([2048.0, 4096.0]), "episodes": np.array([0, 3]),
               "episode_return": np.array([[np.nan], [1.5]]), "wall_time_s": np.array([1.0, 2.0])}
    result = {"levels": levels, "missing": ("psychlab_visual_search",), "eval_steps": 300,
              "config": args.config, "metrics": metrics, "wall_s": 2.0, "compile_s": 60.0, "total_s": 70.0,
              "device": "cpu (test)", "env_steps": updates * 2048, "eval_s": 1.0, "episodes": np.array([2, 2]),
              "lengths": np.array([180, 900]), "random": np.array([0.5, 0.0]), "trained": np.array([1.0, 20.0]),
              "random_ended": np.array([1.0, 0.0]), "trained_ended": np.array([0.5, 0.0])}
    for name in ("random", "trained"):
        result[name + "_score"] = script.scores_of(levels, result[name])
    script.plot(result, args, tmp_path / "agent.png")
    assert (tmp_path / "agent.png").stat().st_size > 10_000
    text = script.section(result, args, "agent.png")
    rows = [line for line in text.splitlines() if line.startswith(("| rooms", "| language"))]
    assert len(rows) == 2 and "capped at 300" in rows[1] and "capped" not in rows[0]
    assert rows[0].endswith("| 2 / 1 of 2 |")   # episodes ended: random 2, trained 1
    assert "psychlab_visual_search" in text and "**Evaluation episodes are capped at 300" in text
    assert "Whole run 70 s: training 2 s" in text
    score = 100 * (20.0 + 0.07) / (389.5 + 0.07)
    assert f"| {score:.1f} |" in rows[1]
    assert text.count("| random |") == 1 and text.count("| trained |") == 1
