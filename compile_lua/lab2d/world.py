"""The world table of a grid script, checked and turned into a GridSpec.

:class:`WorldReader` reads what ``api:world()`` returned (as Python data):
the map as text and its ``charMap``, ``layers`` in render order, ``states``
on them with their sprites (ASCII art and a palette), the players, the
rules (lab2d_rules) and the episode's settings. Each field is checked
(lab2d_fields) and an error names it at the script line that writes it.
"""
from __future__ import annotations

import difflib
from typing import Any, Dict, List, Optional, Tuple

from compile_lua.errors import LuaScriptError
from compile_lua.lab2d.fields import DOCS, show, suggest
from compile_lua.lab2d.rules import RulesReader
from compile_lua.lab2d.source import Locator, Where, lua_key, lua_string
from jaxlab.levels.lab2d.spec import Player, Sprite, State, View, GridSpec

WORLD_KEYS = ("name", "map", "charMap", "layers", "states", "sprites", "players", "contacts", "beams",
              "beamHits", "transitions", "matrixGame", "items", "initialInventory", "movement",
              "topology", "spriteSize", "view", "episodeFrames", "endWhenGone", "completionReward",
              "stepCost", "actionPrefix")
STATE_KEYS = ("layer", "sprite", "char", "groups", "pushable", "blocksBeams")
SPRITE_KEYS = ("art", "palette")
#: Per-state callbacks (in a states entry) and what to declare instead.
STATE_CALLBACKS: Dict[str, str] = {
    "onEnter": "contacts (on = 'enter')",
    "onLeave": "contacts (on = 'leave')",
    "onContact": "contacts",
    "onHit": "beamHits (or matrixGame between players)",
    "onUpdate": "transitions",
    "onAdd": "transitions or the becomes of contacts/beamHits",
    "onRemove": "transitions or the becomes of contacts/beamHits",
    "onBlocked": "contacts (pushable states, blocksBeams)",
}


class WorldReader(RulesReader):
    """Checks the world table ``data`` (Python data from Lua) and builds the
    GridSpec, its ``settings`` given."""

    def __init__(self, script: Locator, data: Dict[str, Any], settings: Dict[str, Any]):
        super().__init__(script)
        self.data, self.settings = data, settings

    def read(self) -> GridSpec:
        """The GridSpec of the world table, every field checked."""
        d = self.data
        self.check_keys(d, "world", WORLD_KEYS)
        for key in ("map", "charMap", "layers", "states", "players"):
            if d.get(key) is None:
                raise self.error(f"world: missing {key!r} (a world needs map, charMap, layers, states and "
                                 f"players; see {DOCS})")
        name = self.string(d.get("name", self.script.path.stem), "world.name", lua_key("name"))
        self.layers = self.read_layers(d["layers"])
        self.sprites = self.read_sprites(d.get("sprites"))
        self.states = self.read_states(d["states"])
        char_map = self.read_char_map(d["charMap"])
        rows = self.read_map(d["map"], char_map)
        self.items = self.string_list(d.get("items"), "world.items", lua_key("items"))
        if len(set(self.items)) != len(self.items):
            raise self.error(f"world.items: item names must be unique, got {self.items}", lua_key("items"))
        players = self.read_players(d["players"], rows, char_map)
        contacts = self.read_contacts(d.get("contacts"))
        beams = self.read_beams(d.get("beams"))
        beam_hits = self.read_beam_hits(d.get("beamHits"), beams)
        transitions = self.read_transitions(d.get("transitions"))
        matrix_game = self.read_matrix_game(d.get("matrixGame"), beams)
        inventory = self.read_inventory(d.get("initialInventory"))
        action_prefix = self.boolean(d.get("actionPrefix", True), "world.actionPrefix", lua_key("actionPrefix"))
        if not action_prefix and (len(players) != 1 or beams):
            raise self.error("world.actionPrefix = false (a single MOVE action) needs exactly one player "
                             "and no beams", lua_key("actionPrefix"))
        end = d.get("endWhenGone")
        return GridSpec(
            name=name, map=rows, char_map=char_map, layers=self.layers,
            states=tuple(self.build_state(n) for n in sorted(self.states)),
            players=players, contacts=contacts, beams=beams, beam_hits=beam_hits, transitions=transitions,
            matrix_game=matrix_game, items=tuple(self.items), initial_inventory=inventory,
            movement=self.choice(d.get("movement", "absolute"), "world.movement", ("absolute", "relative")),
            topology=self.choice(d.get("topology", "BOUNDED"), "world.topology", ("bounded", "torus")),
            sprite_size=self.sprite_size(d.get("spriteSize", 8)),
            view=self.read_view(d.get("view")),
            episode_frames=self.integer(d.get("episodeFrames", 1000), "world.episodeFrames",
                                        lua_key("episodeFrames"), lo=1),
            end_when_gone=None if end is None else self.state_name(end, "world.endWhenGone", lua_key("endWhenGone")),
            completion_reward=self.number(d.get("completionReward", 0.0), "world.completionReward",
                                          lua_key("completionReward")),
            step_cost=self.number(d.get("stepCost", 0.0), "world.stepCost", lua_key("stepCost")),
            action_prefix=action_prefix,
            settings=self.settings,
        )

    def sprite_size(self, value: Any) -> int:
        """``world.spriteSize``: 8 or 16."""
        size = self.integer(value, "world.spriteSize", lua_key("spriteSize"))
        if size not in (8, 16):
            raise self.error(f"world.spriteSize must be 8 or 16 (sprite art of any square size is scaled to it), "
                             f"got {size}", lua_key("spriteSize"))
        return size

    def read_layers(self, value: Any) -> Tuple[str, ...]:
        """``world.layers``: unique names, in render order."""
        layers = self.string_list(value, "world.layers", lua_key("layers"))
        if not layers:
            raise self.error("world.layers must list the layers in render order, e.g. {'background', "
                             "'items', 'avatars'}", lua_key("layers"))
        self.check_unique(layers, "world.layers", "layer")
        return tuple(layers)

    def read_sprites(self, value: Any) -> Dict[str, Sprite]:
        """``world.sprites``: name -> Sprite."""
        if value is None:
            return {}
        if not isinstance(value, dict):
            raise self.error("world.sprites must be a table {Name = {art = [[...]], palette = {...}}, ...}",
                             lua_key("sprites"))
        start = self.script.source().find(lua_key("sprites"))
        return {str(name): self.read_sprite(entry, f"world.sprites.{name}", str(name), start)
                for name, entry in value.items()}

    def read_sprite(self, entry: Any, where: str, name: str, start: Optional[Where] = None) -> Sprite:
        """One sprite ``{art =, palette =}``: square art of palette characters."""
        at = self.script.source().find(lua_key(name), after=start) if name else None
        at = at or start
        if not isinstance(entry, dict):
            raise self.error(f"{where} must be a table {{art = [[...]], palette = {{...}}}}, got {show(entry)}",
                             lua_key(name), after=start)
        self.check_keys(entry, where, SPRITE_KEYS, after=at)
        for key in SPRITE_KEYS:
            if key not in entry:
                raise self.error(f"{where}: missing {key!r}", lua_key(name), after=start)
        art = entry["art"]
        rows = text_rows(art)
        if rows is None:
            raise self.error(f"{where}.art must be a string (rows separated by newlines, e.g. [[...]]) or a list "
                             f"of row strings, got {show(art)}", lua_key("art"), after=at)
        palette = self.read_palette(entry["palette"], f"{where}.palette", at)
        if not rows:
            raise self.error(f"{where}.art is empty", lua_key("art"), after=at)
        for i, row in enumerate(rows):
            if len(row) != len(rows):
                raise self.script.row_error(rows, i, f"{where}.art must be square: {len(rows)} rows, but row "
                                            f"{i + 1} has {len(row)} characters ({row!r})", lua_key("art"), at)
            for j, ch in enumerate(row):
                if ch not in palette:
                    raise self.script.row_error(rows, i, f"{where}.art row {i + 1}, column {j + 1}: {ch!r} is not "
                                                f"in the palette (palette: {''.join(sorted(palette))!r})",
                                                lua_key("art"), at)
        return Sprite(rows=tuple(rows), palette=palette)

    def read_palette(self, value: Any, where: str, at: Optional[Where]) -> Dict[str, Tuple[int, ...]]:
        """A sprite's palette: character -> {r, g, b[, a]}."""
        if not isinstance(value, dict) or not value:
            raise self.error(f"{where} must be a table {{['c'] = {{r, g, b[, a]}}, ...}}, got {show(value)}",
                             lua_key("palette"), after=at)
        out = {}
        for ch, colour in value.items():
            if not isinstance(ch, str) or len(ch) != 1:
                raise self.error(f"{where}: keys must be single characters, got {ch!r}", lua_key("palette"),
                                 after=at)
            if (not isinstance(colour, list) or len(colour) not in (3, 4)
                    or not all(isinstance(x, int) and not isinstance(x, bool) and 0 <= x <= 255 for x in colour)):
                raise self.error(f"{where}[{ch!r}] must be {{r, g, b}} or {{r, g, b, a}} with integers 0..255, "
                                 f"got {show(colour)}", lua_key(ch), lua_key("palette"), after=at)
            out[ch] = tuple(colour)
        return out

    def read_states(self, value: Any) -> Dict[str, Dict[str, Any]]:
        """``world.states`` (a table by name, or a list of tables with a name):
        name -> its checked fields."""
        start = self.script.source().find(lua_key("states"))
        if isinstance(value, list):   # the list form: {{name = 'wall', layer = ...}, ...}
            entries = []
            for i, entry in enumerate(value, 1):
                if not isinstance(entry, dict) or not isinstance(entry.get("name"), str):
                    raise self.error(f"world.states[{i}] must be a table with a name, got {show(entry)}",
                                     lua_key("states"))
                entries.append((entry["name"], {k: v for k, v in entry.items() if k != "name"}))
        elif isinstance(value, dict) and value:
            entries = [(str(k), v) for k, v in value.items()]
        else:
            raise self.error("world.states must be a table {name = {layer = ..., sprite = ...}, ...}, got "
                             f"{show(value)}", lua_key("states"))
        self.check_unique([n for n, _ in entries], "world.states", "state")
        states = {}
        for name, entry in entries:
            where = f"world.states.{name}"
            at = self.script.source().find(lua_key(name), lua_string(name), after=start) or start
            if not isinstance(entry, dict):
                raise self.error(f"{where} must be a table {{layer = ..., sprite = ...}}, got {show(entry)}",
                                 lua_key(name), after=start)
            self.check_keys(entry, where, STATE_KEYS, after=at, callbacks=STATE_CALLBACKS)
            layer = self.string(entry.get("layer"), f"{where}.layer", lua_key("layer"))
            if layer not in self.layers:
                raise self.error(f"{where}.layer: {suggest('layer', layer, self.layers)}", lua_string(layer),
                                 lua_key("layer"), after=at)
            sprite = entry.get("sprite")
            if isinstance(sprite, dict):
                sprite = self.read_sprite(sprite, f"{where}.sprite", "", at)
            elif sprite is not None:
                sprite_name = self.string(sprite, f"{where}.sprite", lua_key("sprite"))
                if sprite_name not in self.sprites:
                    raise self.error(f"{where}.sprite: {suggest('sprite', sprite_name, self.sprites)}",
                                     lua_string(sprite_name), after=at)
                sprite = self.sprites[sprite_name]
            char = entry.get("char", " ")
            if not isinstance(char, str) or len(char) != 1:
                raise self.error(f"{where}.char must be one character (its WORLD.TEXT character), got "
                                 f"{show(char)}", lua_key("char"), after=at)
            states[name] = {
                "layer": layer, "sprite": sprite, "char": char,
                "groups": tuple(self.string_list(entry.get("groups"), f"{where}.groups", lua_key("groups"))),
                "pushable": self.boolean(entry.get("pushable", False), f"{where}.pushable", lua_key("pushable")),
                "blocks_beams": self.boolean(entry.get("blocksBeams", False), f"{where}.blocksBeams",
                                             lua_key("blocksBeams")),
            }
        return states

    def build_state(self, name: str) -> State:
        """The State named ``name`` (read by read_states)."""
        s = self.states[name]
        return State(name=name, layer=s["layer"], sprite=s["sprite"], char=s["char"], groups=s["groups"],
                     pushable=s["pushable"], blocks_beams=s["blocks_beams"])

    def read_char_map(self, value: Any) -> Dict[str, Tuple[str, ...]]:
        """``world.charMap``: map character -> the states of its cells, one per layer."""
        if not isinstance(value, dict) or not value:
            raise self.error("world.charMap must be a table {['c'] = 'state' or {'state1', 'state2'}, ...}, got "
                             f"{show(value)}", lua_key("charMap"))
        start = self.script.source().find(lua_key("charMap"))
        out = {}
        for ch, placed in value.items():
            where = f"world.charMap[{ch!r}]"
            if not isinstance(ch, str) or len(ch) != 1 or ord(ch) > 255:
                raise self.error(f"world.charMap: keys must be single (ASCII) characters, got {ch!r}",
                                 lua_key(str(ch)), lua_key("charMap"), after=start)
            names = self.string_list(placed, where, lua_key(ch), lua_key("charMap"))
            by_layer: Dict[str, str] = {}
            for name in names:
                if name not in self.states:
                    raise self.error(f"{where}: {suggest('state', name, self.states)}", lua_string(name),
                                     lua_key("charMap"), after=start)
                layer = self.states[name]["layer"]
                if layer in by_layer:
                    raise self.error(f"{where} puts {by_layer[layer]!r} and {name!r} on layer {layer!r}; a cell "
                                     "holds one state per layer", lua_string(name), after=start)
                by_layer[layer] = name
            out[ch] = tuple(names)
        return dict(sorted(out.items()))

    def read_map(self, value: Any, char_map: Dict[str, Tuple[str, ...]]) -> Tuple[str, ...]:
        """``world.map``: rows of equal length, of characters in ``char_map``."""
        rows = text_rows(value)
        if rows is None:
            raise self.error(f"world.map must be a string of rows (e.g. [[...]]) or a list of row strings, got "
                             f"{show(value)}", lua_key("map"))
        if not rows or not rows[0]:
            raise self.error("world.map is empty", lua_key("map"))

        def fail(row: int, message: str) -> LuaScriptError:
            return self.script.row_error(rows, row, message, lua_key("map"),
                                         self.script.source().find(lua_key("map")))

        width = len(rows[0])
        for r, row in enumerate(rows):
            if len(row) != width:
                raise fail(r, f"world.map row {r + 1} has {len(row)} characters but row 1 has {width}: every row "
                              "must have the same length (the map is a rectangle)")
        for r, row in enumerate(rows):
            for c, ch in enumerate(row):
                if ch not in char_map:
                    close = difflib.get_close_matches(ch, list(char_map), n=3)
                    raise fail(r, f"world.map row {r + 1}, column {c + 1}: character {ch!r} is not in charMap "
                                  f"(known: {''.join(sorted(char_map))!r})"
                                  f"{' — did you mean ' + repr(close[0]) + '?' if close else ''}")
        return tuple(rows)

    def read_players(self, value: Any, rows, char_map) -> Tuple[Player, ...]:
        """``world.players``: avatar states on one layer, spawning where the map has room."""
        entries = self.table_list(value, "world.players", lua_key("players"))
        if not entries:
            raise self.error("world.players must list at least one player {state = ..., spawn = ...}",
                             lua_key("players"))
        players = []
        for i, entry in enumerate(entries, 1):
            where = f"world.players[{i}]"
            self.check_keys(entry, where, ("state", "spawn"))
            players.append(Player(state=self.state_name(entry.get("state"), f"{where}.state", lua_key("players")),
                                  spawn=self.state_name(entry.get("spawn"), f"{where}.spawn", lua_key("players"))))
        layers = {self.states[p.state]["layer"] for p in players}
        if len(layers) != 1:
            raise self.error(f"world.players: all avatar states must be on one layer, got {sorted(layers)}",
                             lua_key("players"))
        for spawn in sorted({p.spawn for p in players}):
            cells = sum(row.count(ch) for row in rows for ch, placed in char_map.items() if spawn in placed)
            wanted = sum(p.spawn == spawn for p in players)
            if cells < wanted:
                raise self.error(f"world.players: {wanted} player(s) spawn at {spawn!r} but the map has {cells} "
                                 f"cell(s) holding it", lua_key("players"), lua_string(spawn))
        return tuple(players)

    def read_inventory(self, value: Any) -> Tuple[int, ...]:
        """``world.initialInventory``: a count per item."""
        if value is None or value == {}:
            return ()
        p = lua_key("initialInventory")
        if not isinstance(value, list):
            raise self.error(f"world.initialInventory must be a list of counts, got {show(value)}", p)
        if len(value) != len(self.items):
            raise self.error(f"world.initialInventory has {len(value)} entries for {len(self.items)} item(s)", p)
        return tuple(self.integer(x, "world.initialInventory", p, lo=0) for x in value)

    def read_view(self, value: Any) -> View:
        """``world.view``: the players' view, in cells around them."""
        if value is None:
            return View()
        p = lua_key("view")
        if not isinstance(value, dict):
            raise self.error("world.view must be a table {left =, right =, forward =, backward =}", p)
        keys = ("left", "right", "forward", "backward")
        self.check_keys(value, "world.view", keys)
        default = View()
        return View(**{k: self.integer(value.get(k, getattr(default, k)), f"world.view.{k}", p, lo=0) for k in keys})


def text_rows(value: Any) -> Optional[List[str]]:
    """The rows of a map or sprite art: a list of row strings as it is, or
    the lines of a multi-line string (leading empty lines and a last line of
    spaces only, the indentation of a closing ``]]``, are not rows); None for
    anything else."""
    if isinstance(value, list) and all(isinstance(r, str) for r in value):
        return list(value)
    if not isinstance(value, str):
        return None
    lines = value.replace("\r\n", "\n").split("\n")
    while lines and lines[0] == "":
        lines.pop(0)
    if lines and not lines[-1].strip():
        lines.pop()
    return lines
