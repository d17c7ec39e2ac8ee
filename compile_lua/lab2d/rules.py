"""The rules of a grid world: what happens during play, declared as data.

:class:`RulesReader` reads the world table's rule lists into the GridSpec's
rules: ``contacts`` (a piece entering or leaving a cell holding another),
``beams`` (fire actions) and ``beamHits`` (what a beam does to what it hits),
``transitions`` (cells changing over time) and ``matrixGame`` (players
playing a matrix game through a beam), each checked against the world's
states, items and beams.
"""
from __future__ import annotations

import re
from typing import Any, Dict, Iterator, Optional, Sequence, Tuple

from compile_lua.lab2d.fields import FieldReader, show, suggest
from compile_lua.lab2d.source import lua_key, lua_string
from jaxlab.levels.lab2d.spec import Beam, BeamHit, Contact, Depletion, MatrixGame, Transition


class RulesReader(FieldReader):
    """Reads the rules of a world; a subclass sets ``data`` (the world
    table), ``states`` (name -> its fields, with ``layer``) and ``items``
    before the rules are read."""

    data: Dict[str, Any]
    states: Dict[str, Dict[str, Any]]
    items: Sequence[str]

    def entries(self, value: Any, field: str, keys: Sequence[str]) -> Iterator[Tuple[str, str, Dict[str, Any]]]:
        """(where, pattern, entry) per entry of the list ``world.<field>``,
        each entry's keys checked against ``keys``."""
        p = lua_key(field)
        for i, entry in enumerate(self.table_list(value, f"world.{field}", p), 1):
            where = f"world.{field}[{i}]"
            self.check_keys(entry, where, keys)
            yield where, p, entry

    def state_name(self, value: Any, where: str, *patterns: str, allow_empty: bool = False) -> str:
        """``value`` if it names a state ('' too with ``allow_empty``: no piece)."""
        if allow_empty and value == "":
            return ""
        name = self.string(value, where, *patterns)
        if name not in self.states:
            raise self.error(f"{where}: {suggest('state', name, self.states)}"
                             + (" ('' removes the piece)" if allow_empty else ""), lua_string(name), *patterns)
        return name

    def same_layer(self, a: str, b: str, where: str, *patterns: str) -> None:
        """Refuses state ``b`` (unless '') on another layer than state ``a``."""
        if b and self.states[a]["layer"] != self.states[b]["layer"]:
            raise self.error(f"{where}: {b!r} is on layer {self.states[b]['layer']!r} but {a!r} is on "
                             f"{self.states[a]['layer']!r}; a piece changes state within its layer",
                             lua_string(b), *patterns)

    def becomes(self, entry: Dict[str, Any], state: str, where: str, p: str) -> Optional[str]:
        """``entry.becomes``: what ``state`` turns into, a state on its layer or
        '' (the piece goes); None when absent."""
        becomes = entry.get("becomes")
        if becomes is not None:
            becomes = self.state_name(becomes, f"{where}.becomes", p, allow_empty=True)
            self.same_layer(state, becomes, f"{where}.becomes", p)
        return becomes

    def read_contacts(self, value: Any) -> Tuple[Contact, ...]:
        """``world.contacts``: a mover entering or leaving a cell with another piece."""
        keys = ("mover", "other", "on", "becomes", "reward", "collect", "otherReward", "respawnFrames")
        out = []
        for where, p, e in self.entries(value, "contacts", keys):
            mover = self.state_name(e.get("mover"), f"{where}.mover", p)
            other = self.state_name(e.get("other"), f"{where}.other", p)
            on = e.get("on", "enter")
            if on not in ("enter", "leave"):
                raise self.error(f"{where}.on must be 'enter' or 'leave', got {show(on)}", p)
            becomes = self.becomes(e, other, where, p)
            catching = other in self.avatar_states() and self.states[other]["layer"] == self.states[mover]["layer"]
            if self.states[other]["layer"] == self.states[mover]["layer"] and not catching:
                raise self.error(f"{where}: {mover!r} and {other!r} are both on layer "
                                 f"{self.states[mover]['layer']!r}; a contact is with a piece on another layer "
                                 "(or with an avatar, to catch it)", lua_string(other), p)
            collect = e.get("collect")
            if collect is not None:
                item = self.string(collect, f"{where}.collect", p)
                if item not in self.items:
                    raise self.error(f"{where}.collect: {suggest('item', item, self.items)}", lua_string(item), p)
                collect = self.items.index(item)
            out.append(Contact(
                mover=mover, other=other, on=on, becomes=becomes,
                reward=self.number(e.get("reward", 0.0), f"{where}.reward", p), collect=collect,
                other_reward=self.number(e.get("otherReward", 0.0), f"{where}.otherReward", p),
                respawn_frames=self.integer(e.get("respawnFrames", 0), f"{where}.respawnFrames", p, lo=0)))
        return tuple(out)

    def avatar_states(self) -> set:
        """The states of the players' avatars, as far as world.players says."""
        players = self.data.get("players")
        return {e.get("state") for e in players if isinstance(e, dict)} if isinstance(players, list) else set()

    def read_beams(self, value: Any) -> Tuple[Beam, ...]:
        """``world.beams``: one fire action each, with unique names."""
        keys = ("action", "length", "radius", "overlay", "cooldown", "cost")
        out = []
        for where, p, e in self.entries(value, "beams", keys):
            action = self.string(e.get("action"), f"{where}.action", p)
            if not re.fullmatch(r"[A-Za-z_]\w*", action) or action in ("move", "turn"):
                raise self.error(f"{where}.action must be a name like 'fireZap' (letters, digits, _), other than "
                                 f"move and turn; got {action!r}", lua_string(action), p)
            if any(b.action == action for b in out):
                raise self.error(f"{where}.action: beam actions must be unique ({action!r} is repeated)",
                                 lua_string(action), p)
            overlay = e.get("overlay")
            out.append(Beam(
                action=action, length=self.integer(e.get("length"), f"{where}.length", p, lo=1),
                radius=self.integer(e.get("radius", 0), f"{where}.radius", p, lo=0),
                overlay=None if overlay is None else self.state_name(overlay, f"{where}.overlay", p),
                cooldown=self.integer(e.get("cooldown", 0), f"{where}.cooldown", p, lo=0),
                cost=self.number(e.get("cost", 0.0), f"{where}.cost", p)))
        return tuple(out)

    def beam_name(self, value: Any, where: str, beams, p: str) -> str:
        """``value`` if it is the action of one of ``beams``."""
        name = self.string(value, where, p)
        actions = [b.action for b in beams]
        if name not in actions:
            raise self.error(f"{where}: {suggest('beam', name, actions)}", lua_string(name), p)
        return name

    def read_beam_hits(self, value: Any, beams) -> Tuple[BeamHit, ...]:
        """``world.beamHits``: what a beam of ``beams`` does to the state it hits."""
        keys = ("beam", "target", "becomes", "reward", "targetReward", "freezeFrames")
        out = []
        for where, p, e in self.entries(value, "beamHits", keys):
            target = self.state_name(e.get("target"), f"{where}.target", p)
            becomes = self.becomes(e, target, where, p)
            out.append(BeamHit(
                beam=self.beam_name(e.get("beam"), f"{where}.beam", beams, p), target=target, becomes=becomes,
                reward=self.number(e.get("reward", 0.0), f"{where}.reward", p),
                target_reward=self.number(e.get("targetReward", 0.0), f"{where}.targetReward", p),
                freeze_frames=self.integer(e.get("freezeFrames", 0), f"{where}.freezeFrames", p, lo=0)))
        return tuple(out)

    def read_transitions(self, value: Any) -> Tuple[Transition, ...]:
        """``world.transitions``: cells changing state with a chance per frame."""
        keys = ("source", "target", "probability", "neighbour", "radius", "depletion", "underAvatars")
        out = []
        for where, p, e in self.entries(value, "transitions", keys):
            source = self.state_name(e.get("source"), f"{where}.source", p)
            target = self.state_name(e.get("target"), f"{where}.target", p, allow_empty=True)
            self.same_layer(source, target, f"{where}.target", p)
            prob = e.get("probability")
            if isinstance(prob, list):
                probability = tuple(self.number(x, f"{where}.probability[{k}]", lua_key("probability"), p, lo=0, hi=1)
                                    for k, x in enumerate(prob, 1))
            else:
                probability = self.number(prob, f"{where}.probability", lua_key("probability"), p, lo=0, hi=1)
            neighbour = e.get("neighbour")
            if neighbour is not None:
                neighbour = self.state_name(neighbour, f"{where}.neighbour", p)
            elif isinstance(probability, tuple) and len(probability) > 1:
                raise self.error(f"{where}: a probability per neighbour count needs neighbour = 'state'",
                                 lua_key("probability"), p)
            depletion = e.get("depletion")
            if depletion is not None:
                if not isinstance(depletion, dict):
                    raise self.error(f"{where}.depletion must be a table {{state =, among =, zeroAt =}}", p)
                self.check_keys(depletion, f"{where}.depletion", ("state", "among", "zeroAt"))
                among = self.string_list(depletion.get("among"), f"{where}.depletion.among", p)
                if not among:
                    raise self.error(f"{where}.depletion.among must list at least one state", p)
                depletion = Depletion(
                    state=self.state_name(depletion.get("state"), f"{where}.depletion.state", p),
                    among=tuple(self.state_name(a, f"{where}.depletion.among", p) for a in among),
                    zero_at=self.number(depletion.get("zeroAt"), f"{where}.depletion.zeroAt", p, lo=0))
                if depletion.zero_at <= 0:
                    raise self.error(f"{where}.depletion.zeroAt must be above 0", p)
            out.append(Transition(
                source=source, target=target, probability=probability, neighbour=neighbour,
                radius=self.integer(e.get("radius", 1), f"{where}.radius", p, lo=1), depletion=depletion,
                under_avatars=self.boolean(e.get("underAvatars", False), f"{where}.underAvatars", p)))
        return tuple(out)

    def read_matrix_game(self, value: Any, beams) -> Optional[MatrixGame]:
        """``world.matrixGame`` (None without one): payoffs by the items held."""
        if value is None:
            return None
        p = lua_key("matrixGame")
        if not isinstance(value, dict):
            raise self.error("world.matrixGame must be a table {beam =, payoff =, respawnFrames =, minItems =}", p)
        self.check_keys(value, "world.matrixGame", ("beam", "payoff", "respawnFrames", "minItems"))
        k = len(self.items)
        if k == 0:
            raise self.error("world.matrixGame needs items (the strategies): world.items = {...}", p)
        payoff = value.get("payoff")
        if (not isinstance(payoff, list) or len(payoff) != k
                or not all(isinstance(r, list) and len(r) == k for r in payoff)):
            raise self.error(f"world.matrixGame.payoff must be a {k}x{k} table (one row and column per item: "
                             f"{', '.join(self.items)}), got {show(payoff)}", lua_key("payoff"), p)
        rows = tuple(tuple(self.number(x, "world.matrixGame.payoff", lua_key("payoff")) for x in r) for r in payoff)
        return MatrixGame(
            beam=self.beam_name(value.get("beam"), "world.matrixGame.beam", beams, p), payoff=rows,
            respawn_frames=self.integer(value.get("respawnFrames", 0), "world.matrixGame.respawnFrames", p, lo=0),
            min_items=self.integer(value.get("minItems", 1), "world.matrixGame.minItems", p, lo=0))

