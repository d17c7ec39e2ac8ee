"""``jaxlab-bench``'s outputs from one results dict: the markdown section, the JSON file and the plot.

The results dict (what ``--json`` writes and ``--from-json`` reads back)::

    {"device": str, "slug": str, "date": "YYYY-MM-DD", "jax": str, "command": str,
     "targets":   [{"family", "env", "setup", "steps", "repeats"}],
     "rows":      [{"family", "env", "batch", "compile_s" (s), "step_ms" (ms), "median", "best" (env-steps/s)}],
     "originals": [{"family", "env", "name", "rate" (steps/s, or None when not measured), "detail"}]}
"""
from __future__ import annotations

import json
import os
from pathlib import Path

HEADER = ("| family | env | batch | env-steps/s (median) | compile + first call (s) | device | date "
          "| original | original steps/s | × original |\n"
          "|---|---|---:|---:|---:|---|---|---|---:|---:|")


def original_of(results: dict, family: str, env: str) -> dict:
    """The original record compared with ``family``/``env`` in ``results``."""
    return next(o for o in results["originals"] if (o["family"], o["env"]) == (family, env))


def table_rows(results: dict) -> list:
    """One markdown row per (family, env, batch) of ``results``: the original's rate and jaxlab's median
    over it where the original was measured, '—' where not."""
    rows = []
    for r in results["rows"]:
        o = original_of(results, r["family"], r["env"])
        if o["rate"] is None:
            name, rate, ratio = f"{o['name']} (not measured)", "—", "—"
        else:
            name, rate, ratio = o["name"], f"{o['rate']:,.0f}", f"{r['median'] / o['rate']:,.1f}×"
        rows.append(f"| {r['family']} | {r['env']} | {r['batch']} | {r['median']:,.0f} | {r['compile_s']:.1f} "
                    f"| {results['device']} | {results['date']} | {name} | {rate} | {ratio} |")
    return rows


def section(results: dict, plot: str | None = None) -> str:
    """The dated markdown section of ``results``: heading, setup, table, the originals (how each was
    measured, or why not) and the plot's image link when ``plot`` (a path relative to the markdown file)."""
    lines = [f"### jaxlab-bench: every family, observations on — {results['device']}, {results['date']}", "",
             f"jax {results['jax']}; `{results['command']}`; env-steps/s = batch × steps / seconds of a timed "
             f"scan (`block_until_ready`), median of the repeats; compile + first call: XLA compile plus one scan.",
             ""]
    lines += [f"- {t['family']} / {t['env']}: {t['setup']}; {t['steps']} steps per timed scan, median of "
              f"{t['repeats']}." for t in results["targets"]]
    lines += ["", HEADER] + table_rows(results) + ["", "Originals:", ""]
    for o in results["originals"]:
        if o["rate"] is None:
            lines.append(f"- {o['family']} / {o['env']}: **{o['name']}**: {o['detail']}.")
        else:
            lines.append(f"- {o['family']} / {o['env']}: **{o['name']}** {o['rate']:,.0f} steps/s — {o['detail']}; "
                         f"× original = jaxlab median / this rate (the original runs one env at a time on the CPU).")
    if plot:
        lines += ["", f"![env-steps/s vs batch size, {results['device']}]({plot})"]
    return "\n".join(lines)


def write_json(results: dict, path: str) -> None:
    """Write ``results`` to ``path`` as indented JSON."""
    Path(path).write_text(json.dumps(results, indent=1) + "\n", encoding="utf-8")


def read_json(path: str) -> dict:
    """The results dict a ``--json`` run wrote to ``path``."""
    return json.loads(Path(path).read_text(encoding="utf-8"))


def relative_to_file(path: str, markdown_file: str) -> str:
    """``path`` relative to the folder of ``markdown_file`` (for an image link), with '/' separators."""
    return Path(os.path.relpath(Path(path).resolve(), Path(markdown_file).resolve().parent)).as_posix()


def plot(results: dict, path: str) -> None:
    """Save a log-log PNG at ``path``: env-steps/s (median) against batch size, one line per jaxlab env,
    and a dashed horizontal line (same colour) per measured original; title with device and date."""
    import matplotlib
    import matplotlib.ticker
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(9, 5.5), dpi=120)
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    envs = list(dict.fromkeys((r["family"], r["env"]) for r in results["rows"]))
    for i, (family, env) in enumerate(envs):
        color = colors[i % len(colors)]
        points = sorted((r["batch"], r["median"]) for r in results["rows"] if (r["family"], r["env"]) == (family, env))
        ax.plot(*zip(*points), marker="o", color=color, label=f"jaxlab {family}: {env}")
        o = original_of(results, family, env)
        if o["rate"] is not None:
            ax.axhline(o["rate"], color=color, linestyle="--", linewidth=1.2,
                       label=f"{o['name']}, 1 env ({env}): {o['rate']:,.0f}/s")
    batches = sorted({r["batch"] for r in results["rows"]})
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xticks(batches, [f"{b:,}" for b in batches])
    ax.xaxis.set_minor_locator(matplotlib.ticker.NullLocator())
    ax.set_xlabel("batch size (envs stepped together)")
    ax.set_ylabel("env-steps/s (median, observations on)")
    ax.set_title(f"jaxlab env-steps/s vs batch size\n{results['device']}, {results['date']}")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0.0)
    unmeasured = [f"{o['name']} ({o['family']}): {o['detail']}" for o in results["originals"] if o["rate"] is None]
    if unmeasured:
        fig.text(0.01, -0.01, "\n".join(["Originals without a line:"] + unmeasured), fontsize=7, va="top")
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, bbox_inches="tight")
    plt.close(fig)
