"""Lab2D's ``system.grid_world`` at play time: grids on jaxlab's Lab2D grid kernel.

``world:createGrid{...}`` (a world made on the host by ``grid_world.World``) makes a grid whose state is
the play-time variable ``grid.<world>`` (layout entry ``("grid", world, width, height, torus, max_pieces,
max_queue)``); the Lua value is a :class:`~compile_lua.device.grid_values.GridRef` naming it, so every name
holding the grid (``self._grid``, a callback's ``grid``) reaches the same state. The grid's rules (its
world, size, topology and the state callbacks, each a Lua function translated on the spot) are fixed
when ``createGrid`` is traced (``Translation.grid_rules``).

A grid method that may run callbacks (``update``, ``createPiece``, ``createLayout``, ``removePiece``,
``groupRandom``) carries the rest of the play-time state through the kernel in ``GridState.user``: a
callback sees and changes the api's fields as Lua would. Pieces are int32 handles read as numbers that
may be nil (-1: no piece). The methods: ``compile_lua.device.grid_methods``.
"""
from __future__ import annotations

from typing import Any, Dict, List, Mapping

import jax
import jax.numpy as jnp
import numpy as np

from compile_lua.device import draws, ops, tensors, user_state
from compile_lua.device.grid_args import named, piece_value, static_int
from compile_lua.device.grid_values import GridRef, GridStore, GridText, texts_chars
from compile_lua.device.host_values import Closure, HostFunction, HostTable, keys, plain
from compile_lua.device.layouts import load, store
from compile_lua.device.values import Str, TensorVal, is_traced, lua_type, tensors_in
from compile_lua.engine.lab2d_grid import text_size
from jaxlab.kernels.lab2d_grid import dispatch, pieces
from jaxlab.kernels.lab2d_grid.state import GridCallbacks, GridRules, empty_grid
from jaxlab.levels.lab2d import pushbox_rooms
from jaxlab.levels.lab2d.grid_world import GridWorld, world_from_config

#: room for pieces beyond those the grid's layouts and the callback that makes the grid create (pieces made
#: during play); a grid that runs out sets NO_FREE_SLOT in its error bits
EXTRA_PIECES = 32
#: queued actions a grid has room for (one that runs out sets QUEUE_FULL)
MAX_QUEUE = 64


def rules_of(it: Any, ref: GridRef) -> GridRules:
    rules = it.env.tr.grid_rules.get(ref.slot)
    if rules is None:
        it.fail("a grid used before the callback that makes it", "api:start makes the grid (world:createGrid); "
                "it is translated first")
    return rules


def state_of(it: Any, ref: GridRef):
    return it.env.state[ref.slot].g


def set_state(it: Any, ref: GridRef, g: Any) -> None:
    it.env.state[ref.slot] = it.predicated(GridStore(g), it.env.state[ref.slot])


def _packed(env: Any, kinds: Mapping[str, tuple]) -> Dict[str, Any]:
    """The user pytree the kernel carries through callbacks: ``env``'s key and its variables of ``kinds``
    (state key -> layout entry), stored."""
    return {"key": env.key, "vars": {k: store(kind, tensors.current(env, env.state[k]), env.intern)
                                     for k, kind in kinds.items()}}


def run(it: Any, ref: GridRef, op) -> Any:
    """``op(rules, g) -> (g, result)`` on the grid, with the other play-time state carried in ``g.user`` for
    the callbacks it runs; returns ``result``."""
    env, rules = it.env, rules_of(it, ref)
    kinds = {k: env.tr.layout[k] for k in env.state if k in env.tr.layout and k != ref.slot}
    g, result = op(rules, state_of(it, ref).replace(user=_packed(env, kinds)))
    for k, kind in kinds.items():
        env.state[k] = it.predicated(load(kind, g.user["vars"][k], k), tensors.current(env, env.state[k]))
        for t in tensors_in(env.state[k]):   # what the callbacks wrote to a tensor kept in state: every view sees
            env.storages[t.owner] = t.t.storage
    live = it.live()
    env.key = g.user["key"] if live is True else jnp.where(live, g.user["key"], env.key)
    set_state(it, ref, g.replace(user=None))
    return result


def _callback(it: Any, slot: str, fn: Any, hit: bool = False):
    """A state callback (a Lua function) as the kernel calls it: ``(g, *handles) -> g`` (``(g, absorbed)``
    for onHit), run in a fresh interpreter over the state ``g.user`` carries."""
    tr, outline = it.env.tr, it.o
    interpreter, environment = type(it), type(it.env)   # Interpreter and Env: their modules import this one

    def body(g, *handles):
        user = g.user
        kinds = {k: tr.layout[k] for k in user["vars"]}
        env = environment(tr, user, tr.inputs())
        env.defining = True
        env.state[slot] = GridStore(g.replace(user=None))
        inner = interpreter(outline, env)
        handed = [piece_value(h, g.piece_state.shape[0]) for h in handles]
        result = inner.inline(inner.callable(fn), [GridRef(slot)] + handed)
        new = _packed(env, kinds)
        # a variable this callback widened (an int that became a float) keeps its carried type this trace; the
        # translation is traced again with the wider one (Translation.settle)
        new = jax.tree_util.tree_map(lambda x, old: jnp.asarray(x).astype(old.dtype), new, user)
        g = env.state[slot].g.replace(user=new)
        if hit:
            absorbed = ops.truthy(result[0]) if result else False
            return g, jnp.asarray(absorbed, jnp.bool_)
        return g

    traced = {}

    def call(g, *handles):
        # one traced program per nesting depth and update context (what the kernel decides at trace time from
        # them), shared by every place the kernel calls the callback from: the level compiles once per callback
        where = (dispatch.depth(), dispatch.in_update())
        if where not in traced:
            traced[where] = jax.jit(body)
        return traced[where](g, *handles)
    return call


def _check_captures(it: Any, fn: Any) -> None:
    """A callback made in one callback runs in others: what it holds from where it was made must be known
    at translation time."""
    if not isinstance(fn, Closure):
        return
    for scope in fn.scopes:
        for name, v in scope.items():
            if is_traced(v) or isinstance(v, TensorVal):
                it.fail(f"a state callback holding the local '{name}'", "its value is known only at play time, "
                        "where the grid was made; keep it in an api field (self.x) and read it there")


def _callbacks(it: Any, world: GridWorld, table: Any, slot: str) -> GridCallbacks:
    """Lab2D's ``stateCallbacks`` table (state -> onAdd, onRemove, onBlocked, onUpdate{func = fn},
    onContact{contact = {enter = fn, leave = fn}}, onHit = true | fn | {hit = fn | true}) as GridCallbacks. Lab2D's
    older names are read first, and a table of the newer ones replaces them: ``<contact>OnEnter``,
    ``<contact>OnLeave``, ``<func>Update`` (an update's function name), ``<hit>OnHit`` (else ``onHit``, when it is
    not a table). A key Lab2D reads under neither name is refused."""
    found: Dict[str, dict] = {k: {} for k in ("on_add", "on_remove", "on_blocked", "on_enter", "on_leave", "on_update",
                                              "on_hit")}
    index = it.env.builtins.index

    def entries(v: Any) -> List[tuple]:
        if isinstance(v, dict):
            return sorted(v.items())
        if isinstance(v, HostTable):
            return [(k, index(it, v, k, None)) for k in keys(v)]
        it.fail(f"a state callbacks entry that is a {lua_type(v)}", "stateCallbacks maps names to tables")

    def fn(v: Any, what: str, hit: bool = False):
        if v is None or (hit and isinstance(v, bool)):
            return v or None
        if not isinstance(v, (Closure, HostFunction)):
            it.fail(f"{what} that is a {lua_type(v)}", "a callback is a function")
        _check_captures(it, v)
        return _callback(it, slot, v, hit)

    def put(kind: str, key: Any, made: Any) -> None:
        if made is None:
            found[kind].pop(key, None)
        else:
            found[kind][key] = made

    for state_name, spec in entries(table):
        state, fields = world.state(state_name), dict(entries(spec))
        older = {f"{c}On{side.title()}": (f"on_{side}", (state, world.contact(c)))
                 for c in world.contact_names for side in ("enter", "leave")}
        older.update({f"{h}OnHit": ("on_hit", (state, world.hit(h))) for h in world.hit_names})
        updates = {f"{func}Update": [(state, u) for u, f in enumerate(world.update_functions) if f == func]
                   for func in world.update_functions}
        unknown = set(fields) - set(older) - set(updates) - {"onAdd", "onRemove", "onBlocked", "onUpdate", "onContact",
                                                               "onHit"}
        if unknown:
            it.fail(f"the state callback {state_name}.{sorted(unknown)[0]}", "Lab2D's are onAdd, onRemove, onBlocked, "
                    "onUpdate, onContact and onHit (and the older <contact>OnEnter, <contact>OnLeave, <func>Update "
                    "and <hit>OnHit)")
        if not isinstance(fields.get("onHit"), (dict, HostTable)):   # onHit = true | fn: every hit's, unless named
            for h in world.hit_names:
                put("on_hit", (state, world.hit(h)), fn(fields.get("onHit"), f"{state_name}.onHit", hit=True))
        for name, (kind, key) in older.items():
            if name in fields:
                put(kind, key, fn(fields[name], f"{state_name}.{name}", hit=kind == "on_hit"))
        for name, targets in updates.items():
            if name in fields:
                made = fn(fields[name], f"{state_name}.{name}")
                for key in targets:
                    put("on_update", key, made)
        for field, kind in (("onAdd", "on_add"), ("onRemove", "on_remove"), ("onBlocked", "on_blocked")):
            if field in fields:
                put(kind, state, fn(fields[field], f"{state_name}.{field}"))
        if "onUpdate" in fields:   # keyed by the updates' func names (updateOrder); every update's
            by_func = dict(entries(fields["onUpdate"]))
            made = {func: fn(by_func.get(func), f"{state_name}.onUpdate.{func}")
                    for func in set(world.update_functions)}
            for u, func in enumerate(world.update_functions):
                put("on_update", (state, u), made[func])
        if "onContact" in fields:
            for contact, sides in entries(fields["onContact"]):
                sides = dict(entries(sides))
                if set(sides) - {"enter", "leave"}:
                    it.fail(f"onContact.{contact}.{sorted(set(sides) - {'enter', 'leave'})[0]}", "a contact has enter "
                            "and leave callbacks")
                for side in ("enter", "leave"):
                    put(f"on_{side}", (state, world.contact(contact)),
                        fn(sides.get(side), f"{state_name}.onContact.{contact}.{side}"))
        if isinstance(fields.get("onHit"), (dict, HostTable)):
            hits = dict(entries(fields["onHit"]))
            for h in world.hit_names:
                put("on_hit", (state, world.hit(h)), fn(hits.get(h, False), f"{state_name}.onHit.{h}", hit=True))
    return GridCallbacks(**found)


def create_grid(it: Any, world_table: HostTable, kwargs: Any) -> List[Any]:
    """``world:createGrid{size =, layout =, stateMap =, stateCallbacks =, topology =}``."""
    if not isinstance(kwargs, dict):
        it.fail("world:createGrid without a table", "it takes {size = , stateCallbacks = , ...}")
    graph = world_table.graph
    world = world_from_config(plain(graph, graph.field(world_table.ref, "config")))
    layout = kwargs.get("layout")
    if "size" in kwargs:
        size = kwargs["size"]
        size = plain(size.graph, size.ref) if isinstance(size, HostTable) else size
        width = static_int(it, size.get("width"), "the grid's width")
        height = static_int(it, size.get("height"), "the grid's height")
    elif isinstance(layout, str):
        width, height = text_size(layout)
    else:
        it.fail("world:createGrid without a size", "give size = {width = , height = } or a layout text")
    torus = static_int(it, kwargs.get("topology", 0), "the topology") == 1
    slot = f"grid.{world_table.ref[1]}"
    tr = it.env.tr
    kind = tr.layout.get(slot) or ("grid", world, width, height, torus, EXTRA_PIECES, MAX_QUEUE)
    if kind[1:5] != (world, width, height, torus):
        it.fail("a second grid of one world with another size", "each world makes grids of one size")
    if slot not in tr.layout:
        tr.define(slot, kind)
    rules = GridRules(world, width, height, torus, kind[5], kind[6])
    tr.grid_demand[slot] = 0
    found = kwargs.get("stateCallbacks") or {}
    callbacks = GridCallbacks() if it.env.tr.discovering == 2 else _callbacks(it, world, found, slot)
    tr.grid_rules[slot] = GridRules(world, width, height, torus, rules.max_pieces, rules.max_queue, callbacks)
    env = it.env
    key = draws.split_key(it)
    old = env.state.get(slot, GridStore(empty_grid(rules, key)))
    env.state[slot] = it.predicated(GridStore(empty_grid(rules, key)), old)
    user_state.forget(it, slot)
    ref = GridRef(slot)
    if layout is not None and kwargs.get("stateMap") is not None:
        create_layout(it, ref, {"layout": layout, "stateMap": kwargs["stateMap"]})
    return [ref]


def create_layout(it: Any, ref: GridRef, kwargs: Any) -> None:
    rules = rules_of(it, ref)
    layout, state_map = kwargs.get("layout"), kwargs.get("stateMap")
    if isinstance(state_map, HostTable):
        state_map = plain(state_map.graph, state_map.ref)
    if not isinstance(state_map, dict):
        it.fail("createLayout without a stateMap", "stateMap maps characters to state names")
    ids = {}
    for char, name in state_map.items():
        ids[char] = int(named(it, name, rules.world.state_names, "state"))
    offset = kwargs.get("offset")
    offset = (0, 0) if offset is None else tuple(static_int(it, v, "an offset") for v in (offset if isinstance(
        offset, list) else [offset.get("x"), offset.get("y")]))
    if isinstance(layout, str):
        demand(it, ref, sum(layout.count(c) for c in ids))
        run(it, ref, lambda r, g: pieces.create_layout(r, g, ids, layout, offset))
    elif isinstance(layout, GridText):
        cells = int(np.prod(layout.chars.shape))
        demand(it, ref, min(cells, sum((layout.most or {}).get(c, cells) for c in ids)))
        run(it, ref, lambda r, g: pieces.create_layout_chars(r, g, ids, layout.chars, offset))
    elif isinstance(layout, Str):   # one of several texts, chosen at play time
        demand(it, ref, max(sum(text.count(c) for c in ids) for text in layout.cands))
        chars = texts_chars(layout, it.env.intern, it.fail)
        run(it, ref, lambda r, g: pieces.create_layout_chars(r, g, ids, chars, offset))
    else:
        it.fail(f"a layout that is a {lua_type(layout)}", "a layout is a text")


def demand(it: Any, ref: GridRef, pieces_made: int) -> None:
    """Count ``pieces_made`` more pieces (times the pieces a rolled loop around the call may run over) that the
    callback making the grid may create: a grid whose room is less than they and :data:`EXTRA_PIECES` gets
    more (and the translation is traced again)."""
    tr = it.env.tr
    tr.grid_demand[ref.slot] = tr.grid_demand.get(ref.slot, 0) + pieces_made * it.demand_scale
    kind = tr.layout[ref.slot]
    need = tr.grid_demand[ref.slot] + EXTRA_PIECES
    if need > kind[5]:
        tr.widen(ref.slot, kind[:5] + (need,) + kind[6:])
        user_state.resized(tr, ref.slot, need)


def generate_pushbox(it: Any, args: List[Any], node: Any) -> List[Any]:
    """``pushbox.generate{seed =, width =, height =, numBoxes =, roomSteps =}``: a room made on the device by
    jaxlab's generator (``jaxlab.levels.lab2d.pushbox_rooms``) from the state's key (the ``seed`` is not
    Lab2D's: the room is not Lab2D's room for that seed), as the layout text createLayout takes."""
    kwargs = args[0] if args and isinstance(args[0], dict) else None
    if kwargs is None:
        it.fail("pushbox.generate without a table", "it takes {seed =, width =, height =, numBoxes =, roomSteps =}")
    sizes = {k: static_int(it, kwargs.get(k, d), f"pushbox.generate's {k}") for k, d in
             (("width", 10), ("height", 10), ("numBoxes", 4), ("roomSteps", 30))}
    try:
        pushbox_rooms.check_sizes(sizes["height"], sizes["width"], sizes["numBoxes"], sizes["roomSteps"])
    except ValueError as e:
        it.fail("pushbox.generate of these sizes", str(e))
    room = pushbox_rooms.generate_room(draws.split_key(it), sizes["height"], sizes["width"], sizes["numBoxes"],
                                       sizes["roomSteps"])
    boxes = sizes["numBoxes"]
    return [GridText(room, {"P": 1, "B": boxes, "X": boxes, "&": boxes})]
