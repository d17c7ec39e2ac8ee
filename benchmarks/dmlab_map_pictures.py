"""Pictures of DeepMind Lab's ``.map`` sources beside the jaxlab levels they convert to (not run in tests).

    PYTHONPATH=. python benchmarks/dmlab_map_pictures.py CHECKOUT OUT_DIR [NAME ...]

For each map (by default nav_maze_static_01..03, nav_maze_random_goal_01..03
and seekavoid_arena_01) it writes ``OUT_DIR/NAME.png``: on the left the
brushes of ``CHECKOUT/assets/maps/src/NAME.map`` seen from above, read
straight from the file (each brush's x-y box, coloured by kind: floor, wall,
sky or ceiling; spawn points as squares, other point entities as dots by
class, decorations left out); on the
right the jaxlab level it converts to (``jaxlab.levels.dmlab.quake_layout``):
its cells (or, for a map converted as ground heights, its heights in colour) and its entities where the level
puts them
(``ConvertedMap.level_xy``), with its hurt zones hatched in red and its jump pads in magenta, an arrow
to the apex of each one's arc. A map jaxlab refuses gets the reason on the
right. The pictures show DeepMind Lab's layouts: keep them out of the
repository.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.patches import Rectangle  # noqa: E402

import numpy as np  # noqa: E402

from jaxlab.levels.dmlab.heights import NO_FLOOR  # noqa: E402
from jaxlab.levels.dmlab.map_parser import CELL_WALL  # noqa: E402
from jaxlab.levels.dmlab.quake_layout import DECORATION_CLASSES, WORLD_CLASSES, convert_quake_map  # noqa: E402
from jaxlab.levels.dmlab.quake_map import SPAWN_CLASSES, Brush, parse_quake_map  # noqa: E402
from jaxlab.levels.dmlab.quake_triggers import NONSOLID_TEXTURES  # noqa: E402
from jaxlab.levels.dmlab.units import CELL_SIZE, GRAVITY  # noqa: E402

DEFAULT_MAPS = ["nav_maze_static_01", "nav_maze_static_02", "nav_maze_static_03", "nav_maze_random_goal_01",
                "nav_maze_random_goal_02", "nav_maze_random_goal_03", "seekavoid_arena_01"]
KIND_COLOURS = {"sky": "#9ecae1", "floor": "#f4a460", "wall": "#2e7d32"}
ENTITY_COLOURS = {"spawn": "#1565c0", "apple_reward": "#d32f2f", "goal": "#ffb300", "lemon_reward": "#fdd835"}


def brush_kind(brush: Brush, ground: float) -> str:
    """'floor', 'sky' (sky or ceiling) or 'wall' for a brush: sky when a texture's name says so; else a thin
    horizontal slab (at most 16 units thick, thinner than wide) is floor when its top is at or under
    ``ground`` (z units, where the spawn points stand) and a ceiling above it; any other brush is wall."""
    x, y, z = brush.size
    if "sky" in " ".join(brush.textures).lower():
        return "sky"
    if z <= 16 and z < min(x, y):
        return "floor" if brush.hi[2] <= ground + 1 else "sky"
    return "wall"


def draw_entity(ax, x: float, y: float, classname: str) -> None:
    """An entity at (x, y): a spawn point as a hollow blue square, anything else as a dot coloured by its class
    (grey for classes not in ENTITY_COLOURS), drawn over the squares."""
    if classname in SPAWN_CLASSES:
        ax.plot(x, y, "s", markerfacecolor="none", markeredgecolor=ENTITY_COLOURS["spawn"], markersize=7, zorder=3)
    else:
        ax.plot(x, y, "o", color=ENTITY_COLOURS.get(classname, "#616161"), markersize=4, zorder=4)


def draw_source(ax, qmap) -> None:
    """The map's solid brushes from above (sky first, then floors, then walls) and its point entities."""
    brushes = [b for e in qmap.entities if e.classname in WORLD_CLASSES for b in e.brushes
               if not all(t in NONSOLID_TEXTURES for t in b.textures)]
    spawn_z = [float(e.fields["origin"].split()[2]) for e in qmap.entities
               if e.classname in SPAWN_CLASSES and len(e.fields.get("origin", "").split()) == 3]
    ground = min(spawn_z, default=0.0)
    counts = {kind: 0 for kind in KIND_COLOURS}
    for kind in ("sky", "floor", "wall"):
        for brush in (b for b in brushes if brush_kind(b, ground) == kind):
            counts[kind] += 1
            (x0, y0), (w, h) = brush.lo[:2], brush.size[:2]
            ax.add_patch(Rectangle((x0, y0), w, h, facecolor=KIND_COLOURS[kind], edgecolor=KIND_COLOURS[kind],
                                   linewidth=0.8, alpha=0.5 if kind == "sky" else 1.0))
    shown = 0
    for entity in qmap.entities:
        origin = entity.fields.get("origin")
        if entity.classname in WORLD_CLASSES + DECORATION_CLASSES or not origin or entity.brushes:
            continue
        x, y = (float(v) for v in origin.split()[:2])
        draw_entity(ax, x, y, entity.classname)
        shown += 1
    ax.autoscale_view()
    ax.set_aspect("equal")
    ax.set_title(f"{Path(qmap.source).name}: {len(brushes)} world brushes (floor {counts['floor']}, "
                 f"wall {counts['wall']}, sky or ceiling {counts['sky']}), {shown} entities", fontsize=8)


def draw_volumes(ax, converted) -> None:
    """The converted level's hurt and kill zones (red hatched boxes) and jump pads (magenta boxes, each with an
    arrow from its centre to the apex of the arc it throws the player on)."""
    def box(x0, y0, x1, y1, **style):
        (a, b), (c, d) = converted.level_xy(x0, y0), converted.level_xy(x1, y1)
        ax.add_patch(Rectangle((a, b), c - a, d - b, fill=False, linewidth=1.2, zorder=5, **style))
        return (a + c) / 2, (b + d) / 2
    for zone in converted.hurt_zones:
        for x0, y0, _, x1, y1, _ in zone.boxes:
            box(x0, y0, x1, y1, edgecolor="red", hatch="//")
    for pad in converted.jump_pads:
        vx, vy, vz = pad.velocity
        for x0, y0, _, x1, y1, _ in pad.boxes:
            x, y = box(x0, y0, x1, y1, edgecolor="magenta")
            ax.annotate("", xy=(x + vx * vz / GRAVITY, y + vy * vz / GRAVITY), xytext=(x, y), zorder=6,
                        arrowprops={"arrowstyle": "->", "color": "magenta"})


def draw_level(ax, converted) -> None:
    """The converted level's cells from above (walls dark), or its ground heights (a map converted as heights:
    colour by height in units, black where there is no floor), and its entities where the level puts them."""
    cells, heights = converted.parsed.cells, converted.parsed.floor_z
    rows, cols = cells.shape
    if heights is None:
        ax.imshow(cells == CELL_WALL, cmap="Greys", vmin=0, vmax=1.6, origin="upper",
                  extent=(0, cols * CELL_SIZE, 0, rows * CELL_SIZE), interpolation="nearest")
    else:   # row 0 at the top, as the cells
        shown = np.ma.masked_less_equal(np.asarray(heights, np.float32), NO_FLOOR)
        image = ax.imshow(shown, cmap=plt.get_cmap("viridis").with_extremes(bad="black"), origin="upper",
                          extent=(0, cols * CELL_SIZE, 0, rows * CELL_SIZE), interpolation="nearest")
        plt.colorbar(image, ax=ax, fraction=0.04, label="ground height (units)")
    for fields in converted.spawn_vars:
        x, y = converted.level_xy(*(float(v) for v in fields["origin"].split()[:2]))
        draw_entity(ax, x, y, fields.get("classname", ""))
    draw_volumes(ax, converted)
    ax.set_aspect("equal")
    floor = int((cells != CELL_WALL).sum())
    ax.set_title(f"jaxlab: {rows} x {cols} cells ({converted.layout}), {floor} floor, "
                 f"{len(converted.parsed.spawns)} spawns, {len(converted.parsed.pickups)} pickups", fontsize=8)


def picture(checkout: Path, name: str, out_dir: Path) -> str:
    """Writes ``out_dir/name.png`` and returns a line about the conversion (its notes, or why it is refused)."""
    path = checkout / "assets" / "maps" / "src" / f"{name}.map"
    qmap = parse_quake_map(path.read_text(encoding="utf-8"), str(path))
    fig, (left, right) = plt.subplots(1, 2, figsize=(16, 7))
    draw_source(left, qmap)
    try:
        converted = convert_quake_map(qmap)
    except ValueError as err:
        right.text(0.5, 0.5, str(err), wrap=True, ha="center", va="center", fontsize=8)
        right.set_axis_off()
        line = f"{name}: refused: {err}"
    else:
        draw_level(right, converted)
        line = f"{name}: " + " | ".join(converted.notes)
    fig.tight_layout()
    fig.savefig(out_dir / f"{name}.png", dpi=110)
    plt.close(fig)
    return line


def main(argv=None) -> int:
    """Command line: CHECKOUT OUT_DIR [NAME ...]; prints one line per map."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("checkout", type=Path, help="a DeepMind Lab checkout (holding assets/maps/src)")
    parser.add_argument("out_dir", type=Path, help="where the pictures go (outside the repository)")
    parser.add_argument("names", nargs="*", default=DEFAULT_MAPS, help="maps to draw (default: %(default)s)")
    args = parser.parse_args(argv)
    if not (args.checkout / "assets" / "maps" / "src").is_dir():
        sys.exit(f"{args.checkout} has no assets/maps/src")
    args.out_dir.mkdir(parents=True, exist_ok=True)
    for name in args.names:
        print(picture(args.checkout, name, args.out_dir))
    return 0


if __name__ == "__main__":
    sys.exit(main())
