"""Lab2D's grid methods at play time (``grid:setState``, ``grid:update``, queries, ...), and the engine objects
made on the host that play time calls (a world's ``createGrid``, a view's ``observation``, a scene's ``render``):
``invoke``. The grids themselves: ``compile_lua.device.grids``."""
from __future__ import annotations

from typing import Any, List

import jax.numpy as jnp
import numpy as np

from compile_lua.device import user_state
from compile_lua.device.grid_args import named, orientation, piece_of, piece_value, position, static_int
from compile_lua.device.grid_values import GridRef, PieceSet
from compile_lua.device.grids import create_grid, create_layout, demand, rules_of, run, set_state, state_of
from compile_lua.device.host_values import HostTable, plain
from compile_lua.device.layouts import grid_rules
from compile_lua.device.values import Arr, Keyed, MaybeBool, Num, Str, TensorVal, as_num, lua_type
from jaxlab.kernels.lab2d_grid import pieces, queries, update
from jaxlab.kernels.lab2d_grid.state import (CONNECT, DISCONNECT, DISCONNECT_ALL, HIT_BEAM, PUSH, ROTATE,
                                             SET_ORIENTATION, SET_STATE, TELEPORT, TELEPORT_TO_GROUP, GridRules,
                                             empty_grid, piece_at)
from jaxlab.kernels.lab2d_grid.views import LayerView, observe
from jaxlab.kernels.lab2d_tensor import Tensor
from jaxlab.levels.lab2d.grid_world import ORIENTATIONS
from jaxlab.render.grid import tile_scene


_ENQUEUED = {"setState": SET_STATE, "moveAbs": PUSH, "moveRel": PUSH, "turn": ROTATE,
             "setOrientation": SET_ORIENTATION, "teleport": TELEPORT, "teleportToGroup": TELEPORT_TO_GROUP,
             "hitBeam": HIT_BEAM, "connect": CONNECT, "disconnect": DISCONNECT, "disconnectAll": DISCONNECT_ALL}


def handles(target: Any) -> bool:
    """Whether ``target:method(...)`` is this module's: a grid, or a world, view, scene or generator made by
    jaxlab's engine modules on the host."""
    return isinstance(target, GridRef) or (isinstance(target, HostTable) and target.kind is not None)


def invoke(it: Any, target: Any, name: str, args: List[Any], node: Any) -> List[Any]:
    """``target:name(args)`` for a grid (:class:`GridRef`) or an engine object made on the host."""
    if isinstance(target, HostTable):
        kind = target.kind
        if kind == "grid_world.World" and name == "createGrid":
            return create_grid(it, target, args[0] if args else None)
        if kind == "grid_world.LayerView" and name == "observation":
            return [_view(it, target, args[0] if args else None)]
        if kind == "grid_world.LayerView" and name == "gridSize":
            view = plain(target.graph, target.ref)
            return [{"width": view["width"], "height": view["height"]}]
        if kind == "tile.Scene" and name == "render":
            return [_render(it, target, args[0] if args else None)]
        it.fail(f"the method :{name} of a {kind}", "it is not one that runs at play time")
    return _grid_method(it, target, name, args, node)


def _grid_method(it: Any, ref: GridRef, name: str, args: List[Any], node: Any) -> List[Any]:
    if name == "destroy":   # the grid empties (start makes the next one); its shapes are the variable's
        set_state(it, ref, empty_grid(grid_rules(it.env.tr.layout[ref.slot]), state_of(it, ref).key))
        user_state.forget(it, ref.slot)
        return []
    if name == "userState":
        return [user_state.user_state(it, ref, args[0] if args else None)]
    if name == "setUserState":
        user_state.set_user_state(it, ref, args[0] if args else None, args[1] if len(args) > 1 else None)
        return []
    rules = rules_of(it, ref)
    world = rules.world
    a = list(args) + [None] * 4
    if name in _ENQUEUED:
        piece = piece_of(a[0])
        if name in ("moveAbs", "moveRel"):
            extra = (orientation(it, a[1]), int(name == "moveRel"))
        elif name == "setState":
            extra = (named(it, a[1], world.state_names, "state"),)
        elif name in ("turn", "setOrientation"):
            extra = (orientation(it, a[1]),) if name == "setOrientation" else (as_num(a[1]).x.astype(jnp.int32),)
        elif name == "teleport":
            pos = position(it, a[1])
            extra = (pos[0], pos[1], static_int(it, a[2] if a[2] is not None else 0, "the orientation flag"))
        elif name == "teleportToGroup":
            state = -1 if a[2] is None else named(it, a[2], world.state_names, "state")
            extra = (state, named(it, a[1], world.group_names, "group"), 0 if a[3] is None else as_num(a[3]).x)
        elif name == "hitBeam":
            extra = (named(it, a[1], world.hit_names, "hit"), as_num(a[2]).x, as_num(a[3]).x)
        elif name == "connect":
            extra = (piece_of(a[1]),)
        else:
            extra = ()
        set_state(it, ref, update.enqueue(state_of(it, ref), _ENQUEUED[name], piece, *extra))
        return []
    g = state_of(it, ref)
    if name == "position":
        return [Arr(g.piece_pos[jnp.maximum(piece_of(a[0]), 0)])]
    if name == "transform":
        p = jnp.maximum(piece_of(a[0]), 0)
        return [{"pos": Arr(g.piece_pos[p]), "orientation": _orientation_text(it, g.piece_orient[p])}]
    if name == "state":
        p = piece_of(a[0])
        gids = jnp.asarray([it.env.intern(s) for s in world.state_names], jnp.int32)
        return [Str(gids[jnp.clip(g.piece_state[jnp.maximum(p, 0)], 0, len(gids) - 1)],
                    frozenset(world.state_names))]
    if name == "groupCount":
        return [Num(queries.group_count(rules, g, named(it, a[0], world.group_names, "group")), 0)]
    if name in ("groupShuffled", "groupShuffledWithCount"):
        group = named(it, a[1], world.group_names, "group")
        count = None if name == "groupShuffled" else jnp.maximum(as_num(a[2]).x.astype(jnp.int32), 0)
        members, n = run(it, ref, lambda r, g: _shuffled(r, g, group, count))
        if name == "groupShuffledWithCount" and isinstance(a[2], int):   # a count known now: at most that many
            members = members[:max(a[2], 0)]
        return [Keyed(members, jnp.arange(members.shape[0]) < n)]
    if name == "groupRandom":
        group = named(it, a[1], world.group_names, "group")
        return [piece_value(run(it, ref, lambda r, g: queries.group_random(r, g, group)), rules.max_pieces)]
    if name == "rayCastDirection":
        layer = named(it, a[0], world.layer_names, "layer")
        start, direction = position(it, a[1]), position(it, a[2])
        hit, piece, offset = queries.ray_cast_direction(rules, g, layer, start, direction,
                                                        max(rules.width, rules.height))
        return [hit, piece_value(piece, rules.max_pieces), Arr(offset)]
    if name in ("queryDiamond", "queryDisc", "queryRectangle"):
        layer, centre = named(it, a[0], world.layer_names, "layer"), position(it, a[1])
        if name == "queryRectangle":
            found = queries.query_rectangle(rules, g, layer, centre, position(it, a[2]), rules.width * rules.height)
        else:
            radius = static_int(it, a[2], f"the radius of {name}")
            found = queries.query_diamond(rules, g, layer, centre, radius, radius) if name == "queryDiamond" \
                else queries.query_disc(rules, g, layer, centre, radius)
        return [PieceSet(*found)]
    if name == "queryPosition":
        layer = named(it, a[0], world.layer_names, "layer")
        return [piece_value(piece_at(rules, g, position(it, a[1]), layer), rules.max_pieces)]
    if name == "createPiece":
        state = named(it, a[0], world.state_names, "state")
        transform = a[1] if isinstance(a[1], dict) else {}
        pos, orient = position(it, transform.get("pos")), orientation(it, transform.get("orientation", "N"))
        demand(it, ref, 1)
        made = run(it, ref, lambda r, g: pieces.create(r, g, state, pos, orient))
        return [piece_value(made, rules.max_pieces)]
    if name == "removePiece":
        p = piece_of(a[0])
        run(it, ref, lambda r, g: (update.remove(r, g, p), None))
        user_state.forget(it, ref.slot, p)
        return []
    if name == "createLayout":
        create_layout(it, ref, a[0] if isinstance(a[0], dict) else {})
        return []
    if name == "setUpdater":
        kw = a[0] if isinstance(a[0], dict) else {}
        upd = world.update(kw.get("update"))
        group = named(it, kw.get("group"), world.group_names, "group")
        probability, start = kw.get("probability", 1.0), kw.get("startFrame", 0)
        probability = as_num(probability).x if isinstance(probability, Num) else probability
        start = as_num(start).x if isinstance(start, Num) else start
        set_state(it, ref, update.set_updater(rules, g, upd, group, probability, start))
        return []
    if name == "update":
        run(it, ref, lambda r, g: (update.update(r, g), None))
        return []
    it.fail(f"grid:{name}", "jaxlab's Lab2D grid does not give it at play time yet")


def _shuffled(rules: GridRules, g: Any, group: Any, count: Any):
    g, members, n = queries.group_shuffled(rules, g, group, count)
    return g, (members, n)


def found(it: Any, found_set: PieceSet, key: Any) -> Any:
    """``query[piece]``: the piece's position where the query found it (a fixed table that may be nil)."""
    if lua_type(key) not in ("number", "nil"):
        return None
    hits = (found_set.pieces == piece_of(key)) & (found_set.pieces >= 0)
    return MaybeBool(jnp.bool_(True), jnp.any(hits))


def _orientation_text(it: Any, orient: Any) -> Str:
    gids = jnp.asarray([it.env.intern(o) for o in ORIENTATIONS], jnp.int32)
    return Str(gids[jnp.mod(orient, 4)], frozenset(ORIENTATIONS))


def _view(it: Any, view: HostTable, kwargs: Any) -> TensorVal:
    """``view:observation{grid =, piece =, orientation =}``: an Int32 tensor {H, W, render layers}."""
    if not isinstance(kwargs, dict) or not isinstance(kwargs.get("grid"), GridRef):
        it.fail("view:observation without a grid", "it takes {grid = <grid>, piece = , orientation = }")
    ref = kwargs["grid"]
    rules, g = rules_of(it, ref), state_of(it, ref)
    data = plain(view.graph, view.ref)
    sprite_map = {rules.world.sprite(k): rules.world.sprite(v) for k, v in (data.get("spriteMap") or {}).items()}
    lv = LayerView(data["left"], data["right"], data["forward"], data["backward"], bool(data["centered"]),
                   sprite_map or None)
    piece = kwargs.get("piece")
    if piece is None:
        pos, facing, own, shown = jnp.zeros(2, jnp.int32), jnp.int32(0), None, True
    else:
        p = piece_of(piece)
        q = jnp.maximum(p, 0)
        pos, own = g.piece_pos[q], g.piece_orient[q]
        shown = (p >= 0) & (rules.state_layer(g.piece_state[q]) >= 0)
        facing = own
    if kwargs.get("orientation") is not None:
        facing = orientation(it, kwargs["orientation"])
    ids = observe(rules, lv, g, pos, facing, own, shown)
    return TensorVal(Tensor.fresh("Int32", ids), None)


def _render(it: Any, scene: HostTable, ids: Any) -> TensorVal:
    """``scene:render(ids)``: a Byte tensor {H * h, W * w, 3}."""
    if not isinstance(ids, TensorVal) or len(ids.t.shape) != 3:
        it.fail("scene:render of anything but a layer view's observation", "it paints sprite ids {H, W, layers}")
    rgb, alpha = atlas(scene)
    return TensorVal(Tensor.fresh("Byte", tile_scene.render(ids.t.array(), rgb, alpha)), None)


def atlas(scene: HostTable):
    """(rgb uint8[N, h, w, 3], alpha uint8[N, h, w]) of a scene's tile set (sprites without an image:
    transparent)."""
    data = plain(scene.graph, scene.graph.field(scene.ref, "set"))
    names, h, w = data["names"], data["height"], data["width"]
    rgba = np.zeros((len(names), h, w, 4), np.uint8)
    images = data.get("images") or {}
    items = enumerate(images, start=1) if isinstance(images, list) else images.items()
    for sprite_id, hexdata in items:
        rgba[sprite_id] = np.frombuffer(bytes.fromhex(hexdata), np.uint8).reshape(h, w, 4)
    return jnp.asarray(rgba[..., :3]), jnp.asarray(rgba[..., 3])
