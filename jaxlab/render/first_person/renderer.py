"""Compose a first-person frame: walls, floor/ceiling, pickup sprites, depth.

Everything that depends on only the column (wall distance, colour, sprite)
or only the row (floor distance, colour) is computed once as a [W] or [H]
array; each pixel then runs a few dozen broadcast arithmetic ops, fused by
XLA into one loop that writes the packed frame. Walls, floor and ceiling
take a few brightness levels only (a wall 1 or JOINT_SHADE; a floor or
ceiling row its joint, dark and light tiles), so their pixels pick one of a
few packed RGB words made per column or per row; sprites are shaded per
pixel.
"""
from __future__ import annotations

from typing import Optional

import jax.numpy as jnp

from jaxlab.levels.dmlab.heights import has_heights
from jaxlab.levels.dmlab.level import CELL_SIZE, Level
from jaxlab.render.first_person import sprites as sprites_lib
from jaxlab.render.first_person import screen_text as text_lib
from jaxlab.render.first_person import textures
from jaxlab.render.first_person.camera import Camera, make_view
from jaxlab.render.first_person.floors import floor_paint
from jaxlab.render.first_person.height_view import DEPTH_UNITS, render_heights
from jaxlab.render.fusion import materialise, words_to_bytes
from jaxlab.render.first_person.raycast import cast_walls, solid_cells
from jaxlab.render.first_person.screens import draw_screens

WALL_HEIGHT = CELL_SIZE   # units


def _rgb_word(r, g, b, shade) -> jnp.ndarray:
    """uint32 RGB word (byte k = channel k) of colour r, g, b (0..255) times
    brightness ``shade`` (all float32, >= 0, broadcasting together); every
    factor is >= 0, so only the top needs clipping."""
    def byte(c):
        return jnp.minimum(c * shade, 255.0).astype(jnp.uint32)
    return byte(r) | (byte(g) << 8) | (byte(b) << 16)


def _painted_floor(level: Level, pos, row, col, row_up, flat_joint, odd, flat_word) -> jnp.ndarray:
    """uint32[H, W] ``flat_word`` with the floors of coloured rooms painted (``floors.floor_paint``);
    ``row``/``col``: the renderer's per-row [H, 1] and per-column [1, W] values."""
    level_of = jnp.where(flat_joint, row["line_shade"], jnp.where(odd, row["light"], row["lo"]))
    painted, r, g, b = floor_paint(level, pos[0] + row["dist"] * col["ray_x"], pos[1] + row["dist"] * col["ray_y"],
                                   row_up < 0, row["shade"] * level_of)
    return jnp.where(painted, _rgb_word(r, g, b, 1.0), flat_word)


def render_first_person(level: Level, camera: Camera, door_closed, pickup_pos, pickup_present,
                        *, width: int, height: int, with_depth: bool,
                        door_lock=None, theme=None, flat_too: bool = False,
                        ground: Optional[str] = None, masks: bool = True, screens=None) -> jnp.ndarray:
    """Render one first-person frame of ``level`` seen from ``camera``.

    Args:
      level: the Level (unbatched; vmap this function for a batch).
      camera: Camera (pos float32[2] units, eye_z float32[] units, yaw and
        pitch float32[] degrees).
      door_closed: bool[D]; a door cell is solid and drawn while its door is
        closed, and empty floor while open.
      pickup_pos: float32[N, 2] pickup (x, y) in units.
      pickup_present: bool[N]; only these pickups are drawn.
      width, height: static image size in pixels (90-degree horizontal field
        of view, square pixels).
      with_depth: static; add a depth channel.
      door_lock: optional int32[D] look of each door: 0 a plain wooden door
        (as with None), k >= 1 a door locked for key colour k, painted that
        colour (object_catalogue.KEY_COLOURS[k - 1]), -1 a door that never
        opens (dark wood with bars across).
      theme: optional int32[] level theme, 0..textures.NUM_LEVEL_THEMES-1:
        floor, ceiling and default wall looks (textures.LEVEL_THEMES). None
        or 0 is the classic look (bit-identical frames).

    A level with heights (``heights.has_heights``) under a sky is drawn by
    ``height_view.render_heights`` (``camera.eye_z`` is then the eye's height
    in world units; doors, locks, themes and screen text are not drawn).
    ``flat_too`` (static): a batch mixes such levels with flat ones (``sky``
    0, drawn flat); both views are rendered and the level's ``sky`` picks.
    ``ground`` (static, ``heights.GROUND_SLABS``/``GROUND_TERRAIN``): the
    kind of ground every such level stands on, if known: only that kind is
    drawn (the same frames, for less work). ``masks`` (static): the pickups
    may be language objects, drawn from their silhouettes (False: none is,
    and their cost is skipped). ``screens``: uint8[T, h, w, 3] the level
    script's live textures, which the level's screens (``Level.screen_*``)
    show (``screens.draw_screens``); None, or a level without screens, draws
    none (the same program).

    Returns:
      uint8[height, width, 3] RGB, or uint8[height, width, 4] whose channel 3
      is the perpendicular distance in units / 16, rounded and clipped to
      [0, 255] (walls, floor, ceiling and sprites alike). The level's valid
      screen messages are drawn over the colour channels (``render.text``).
    """
    if has_heights(level):   # static: flat levels keep the flat program
        if not flat_too:
            return render_heights(level, camera, pickup_pos, pickup_present, width=width, height=height,
                                  with_depth=with_depth, ground=ground, masks=masks, screens=screens)
        return _render_with_heights(level, camera, door_closed, pickup_pos, pickup_present, width=width,
                                    height=height, with_depth=with_depth, door_lock=door_lock, theme=theme,
                                    masks=masks, screens=screens)
    return _render_flat(level, camera, door_closed, pickup_pos, pickup_present, width=width, height=height,
                        with_depth=with_depth, door_lock=door_lock, theme=theme, masks=masks, screens=screens)


def _render_with_heights(level: Level, camera: Camera, door_closed, pickup_pos, pickup_present, **kw):
    """A level with heights under a sky (``sky`` >= 1) drawn by ``height_view``; one with ``sky`` 0 (a
    flat level batched with levels of heights) drawn flat, with the eye over its floor at 0."""
    kw_heights = {k: kw[k] for k in ("width", "height", "with_depth", "masks", "screens")}
    hills = render_heights(level, camera, pickup_pos, pickup_present, **kw_heights)
    flat = _render_flat(level, camera, door_closed, pickup_pos, pickup_present, **kw)
    return jnp.where(level.sky > 0, hills, flat)


def _render_flat(level: Level, camera: Camera, door_closed, pickup_pos, pickup_present,
                 *, width: int, height: int, with_depth: bool, door_lock=None, theme=None,
                 masks: bool = True, screens=None) -> jnp.ndarray:
    """``render_first_person`` of a flat level."""
    f32 = jnp.float32
    view = make_view(camera, width, height)
    pos = jnp.asarray(camera.pos, f32)
    eye_z = jnp.asarray(camera.eye_z, f32)

    # --- per column: walls -------------------------------------------------
    solid = solid_cells(level.cells, level.door_index, door_closed)
    hits = cast_walls(solid, jnp.asarray(level.rows), pos, view.ray)
    is_door = level.door_index[hits.row, hits.col] >= 0
    front_theme = level.variation[hits.front_row, hits.front_col].astype(jnp.int32)
    wall_theme = level.variation[hits.row, hits.col].astype(jnp.int32)
    wall_var = jnp.where(front_theme > 0, front_theme, wall_theme)
    lock = None
    if door_lock is not None:
        lock = jnp.asarray(door_lock, jnp.int32)[jnp.maximum(level.door_index[hits.row, hits.col], 0)]
    style = textures.wall_style(wall_var, is_door, hits.y_face, hits.u, hits.dist,
                                door_lock=lock, level_theme=theme)
    px_per_unit = view.focal / hits.dist                          # [W]
    wall_top = view.horizon - (WALL_HEIGHT - eye_z) * px_per_unit  # [W] rows
    wall_bottom = view.horizon + eye_z * px_per_unit

    # --- per column: sprites -----------------------------------------------
    drawn = screens is not None and level.screen_box.shape[0] > 0   # static: only levels with screens
    sc = sprites_lib.sprite_columns(
        pos, eye_z, view.forward, view.focal, view.horizon, width, hits.dist,
        jnp.asarray(pickup_pos, f32), level.pickup_kind, jnp.asarray(pickup_present, bool),
        textures.distance_shade, scale=level.pickup_scale, masks=masks)

    # --- per row: floor and ceiling -----------------------------------------
    fr = textures.flat_rows(view.row_up, view.focal, eye_z, WALL_HEIGHT, theme=theme)

    # --- the [W] and [H] values the pixels read, computed once --------------
    lo = 1.0 - fr.checker   # dark tiles; light ones: lo + 1/2 x (2 checker), as computed before packing
    col = dict(wall_top=wall_top, wall_bottom=wall_bottom, course_at_eye=eye_z * style.inv_course,
               course_per_row=hits.dist / view.focal * style.inv_course, joint_h=style.joint_h,
               u_scaled=style.u_scaled, joint_v=style.joint_v, stagger=style.stagger,
               wall_plain=_rgb_word(style.r, style.g, style.b, 1.0),
               wall_joint=_rgb_word(style.r, style.g, style.b, textures.JOINT_SHADE),
               ray_x=view.ray[:, 0], ray_y=view.ray[:, 1],
               **{"sprite_" + k: v for k, v in sc._asdict().items() if (with_depth or drawn or k != "dist")
                  and v is not None})
    row = dict(ts=fr.dist * fr.scale, tile_x=pos[0] * fr.scale, tile_y=pos[1] * fr.scale, line=fr.line,
               flat_line=_rgb_word(fr.r, fr.g, fr.b, fr.line_shade), flat_dark=_rgb_word(fr.r, fr.g, fr.b, lo),
               flat_light=_rgb_word(fr.r, fr.g, fr.b, lo + 0.5 * (2.0 * fr.checker)))
    if with_depth or drawn:
        col["wall_dist"], row["flat_dist"] = hits.dist, fr.dist
    if level.floor_rect.shape[0] > 0:   # static: a coloured floor's brightness levels, per row
        row.update(dist=fr.dist, shade=textures.distance_shade(fr.dist), lo=lo, light=lo + fr.checker,
                   line_shade=fr.line_shade)
    col = {k: v[None, :] for k, v in zip(col, materialise(tuple(col.values())))}
    row = {k: v[:, None] for k, v in zip(row, materialise(tuple(row.values())))}
    sc = sprites_lib.SpriteColumns(**{k: col.get("sprite_" + k) for k in sprites_lib.SpriteColumns._fields})

    # --- per pixel ([H, W] broadcasts of the [W] and [H] values) -------------
    rc = (jnp.arange(height, dtype=f32) + f32(0.5))[:, None]
    row_up = view.row_up[:, None]
    wall = (rc >= col["wall_top"]) & (rc < col["wall_bottom"])
    on_joint = textures.wall_joints(col["course_at_eye"] + row_up * col["course_per_row"], col["joint_h"],
                                    col["u_scaled"], col["joint_v"], col["stagger"])
    flat_joint, odd = textures.flat_tiles(row["tile_x"] + row["ts"] * col["ray_x"],
                                          row["tile_y"] + row["ts"] * col["ray_y"], row["line"])
    in_sprite, sprite_k, second = sprites_lib.sprite_pixels(rc, sc)
    sprite_word = _rgb_word(jnp.where(second, sc.r2, sc.r), jnp.where(second, sc.g2, sc.g),
                            jnp.where(second, sc.b2, sc.b_), sprite_k)
    # One uint32 per pixel (byte k = channel k), split into bytes at the end:
    # XLA then emits one fused loop over the pixels.
    flat_word = jnp.where(flat_joint, row["flat_line"], jnp.where(odd, row["flat_light"], row["flat_dark"]))
    if level.floor_rect.shape[0] > 0:   # static: only levels with coloured floors paint them
        flat_word = _painted_floor(level, pos, row, col, row_up, flat_joint, odd, flat_word)
    packed = jnp.where(in_sprite, sprite_word,
                       jnp.where(wall, jnp.where(on_joint, col["wall_joint"], col["wall_plain"]), flat_word))
    if with_depth or drawn:
        dist = jnp.where(in_sprite, sc.dist, jnp.where(wall, col["wall_dist"], row["flat_dist"]))
    if drawn:
        packed, dist = draw_screens(packed, dist, level, screens, view, pos, eye_z)
    if with_depth:
        depth = jnp.clip(jnp.round(dist * (1.0 / DEPTH_UNITS)), 0.0, 255.0).astype(jnp.uint32)
        packed = packed | (depth << 24)
    if level.text_chars.shape[0] > 0:   # static: levels without screen messages pay nothing
        packed = text_lib.draw_text(packed, level)
    return words_to_bytes(packed, 4 if with_depth else 3)
