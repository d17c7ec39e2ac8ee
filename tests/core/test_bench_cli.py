"""``jaxlab-bench``: a real ``--quick`` run of two families with their originals (dmlab2d playing pushbox,
TextWorld playing the same game) writes the markdown table, the JSON and the plot it claims; the
table comes back the same from the JSON; a missing original is named, not invented."""
import math
import re
import tomllib
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from jaxlab.bench import cli, grid, report, targets, text

pytest.importorskip("dmlab2d")
pytest.importorskip("textworld")

ROOT = Path(__file__).resolve().parents[2]
COLUMNS = ["family", "env", "batch", "env-steps/s (median)", "compile + first call (s)", "device", "date",
           "original", "original steps/s", "× original"]


def _cells(line: str) -> list:
    return [c.strip() for c in line.strip().strip("|").split("|")]


def _number(cell: str) -> float:
    return float(cell.replace(",", "").rstrip("×"))


@pytest.fixture(scope="module")
def quick_run(tmp_path_factory):
    """One ``jaxlab-bench --quick`` run of grid and text, appended to a copy of a BENCHMARKS.md."""
    folder = tmp_path_factory.mktemp("bench")
    markdown = folder / "BENCHMARKS.md"
    markdown.write_text("# Benchmarks\n\nearlier sections\n", encoding="utf-8")
    paths = {"markdown": markdown, "json": folder / "results.json", "plot": folder / "docs" / "images" / "bench.png"}
    cli.main(["--quick", "--families", "grid,text", "--json", str(paths["json"]), "--plot", str(paths["plot"]),
              "--append", str(markdown)])
    return paths


def test_quick_table_rows_columns_and_originals(quick_run):
    written = quick_run["markdown"].read_text(encoding="utf-8")
    assert written.startswith("# Benchmarks\n\nearlier sections\n")   # appended, not overwritten
    section = written.split("earlier sections\n", 1)[1]
    assert re.search(r"^### jaxlab-bench: .* — .+, \d{4}-\d{2}-\d{2}$", section, re.M)
    lines = section.splitlines()
    header = lines.index(report.HEADER.splitlines()[0])
    assert _cells(lines[header]) == COLUMNS
    rows = [_cells(line) for line in lines[header + 2:] if line.startswith("| ")]
    game = "1 TextWorld game"
    assert [(r[0], r[1], int(r[2])) for r in rows] == [
        ("grid", "pushbox", 1), ("grid", "pushbox", 4), ("text", game, 1), ("text", game, 4)]
    for r in rows:
        rate, compile_s, original, ratio = _number(r[3]), _number(r[4]), _number(r[8]), _number(r[9])
        assert all(math.isfinite(x) and x > 0 for x in (rate, compile_s, original, ratio))
        assert r[7].startswith("dmlab2d " if r[0] == "grid" else "TextWorld ")
        assert ratio == pytest.approx(rate / original, rel=0.05, abs=0.06)   # both cells are rounded
    assert "![env-steps/s vs batch size" in section and "docs/images/bench.png)" in section


def test_json_round_trip(quick_run, capsys):
    results = report.read_json(quick_run["json"])
    assert len(results["rows"]) == 4 and len(results["originals"]) == 2
    assert all(math.isfinite(r["median"]) and r["median"] > 0 for r in results["rows"])
    assert all(o["rate"] > 0 for o in results["originals"])
    capsys.readouterr()
    cli.main(["--from-json", str(quick_run["json"])])
    again = capsys.readouterr().out
    table = [line for line in quick_run["markdown"].read_text(encoding="utf-8").splitlines() if line.startswith("| ")]
    assert table and table == [line for line in again.splitlines() if line.startswith("| ")]


def test_unmeasured_original_is_named_not_invented(quick_run, tmp_path):
    results = report.read_json(quick_run["json"])
    results["originals"][0].update(name="dmlab2d", rate=None, detail="not installed: pip install jaxlab[originals]")
    section = report.section(results)
    grid_rows = [_cells(line) for line in section.splitlines() if line.startswith("| grid |")]
    assert grid_rows and all(r[7:] == ["dmlab2d (not measured)", "—", "—"] for r in grid_rows)
    assert "- grid / pushbox: **dmlab2d**: not installed: pip install jaxlab[originals]." in section
    report.plot(results, tmp_path / "plot.png")   # one original line fewer, a footnote instead
    assert (tmp_path / "plot.png").stat().st_size > 20_000


def test_plot_is_a_nonblank_png(quick_run):
    path = quick_run["plot"]
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and path.stat().st_size > 20_000
    with Image.open(path) as image:
        assert image.format == "PNG" and image.width > 600 and image.height > 400
        pixels = np.asarray(image.convert("RGB"))
    assert len(np.unique(pixels.reshape(-1, 3), axis=0)) > 50          # lines, text and legend, not a flat fill
    assert (pixels < 128).any(axis=-1).mean() > 0.005                    # some dark ink (axes, labels)


def test_missing_originals_are_named(monkeypatch, tmp_path):
    opts = cli.options(cli.parse_args(["--quick", "--grid-levels", "pushbox,jaxlab_commons_harvest"]), tmp_path)
    pushbox, harvest = targets.plan_grid(opts)
    assert pushbox.missing == "" and harvest.missing.endswith("not comparable")
    monkeypatch.setattr(grid, "dmlab2d", None)
    monkeypatch.setattr(text, "textworld", None)
    assert [t.missing for t in targets.plan_grid(opts)] == ["not installed: pip install jaxlab[originals]"] * 2
    assert targets.plan_text(opts) == []                  # no games to play without TextWorld
    assert targets.plan_first_person(opts)[0].missing.startswith("not pip-installable")
    assert "DeepMind Lab" in targets.plan_memory(opts)[0].missing


def test_unknown_family_is_a_usage_error(capsys):
    with pytest.raises(SystemExit) as exit_:
        cli.parse_args(["--families", "grid,nope"])
    assert exit_.value.code == 2 and "unknown families: nope" in capsys.readouterr().err


def test_entry_point_and_originals_extra_are_declared():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert project["scripts"]["jaxlab-bench"] == "jaxlab.bench.cli:main"
    assert {"dmlab2d>=1.0", "textworld>=1.7"} <= set(project["optional-dependencies"]["originals"])
