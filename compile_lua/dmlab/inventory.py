"""A level script's inventory callbacks (``api:spawnInventory``, ``api:updateInventory``), met at compile time.

DeepMind Lab calls them with a player's load-out (a table of the player's gadgets, ammunition,
health, armour, power-ups and more) when the player spawns and on every frame; a callback returns
nil, or the load-out with its changes. jaxlab's first-person levels have no inventory yet, so the
compiler calls each callback once on DMLab's default load-out of the agent (player 1, at its spawn
point): a callback that returns nil or the load-out unchanged changes nothing (DeepMind Lab's
observation decorators record the player's inventory this way) and compiles; the changes of one that
edits the load-out are recorded in the compiled file's meta (``"inventory"``) and named in a warning.
"""
from __future__ import annotations

from typing import Any, Dict

#: DeepMind Lab's load-out indices: gadgets (IMPULSE 2, RAPID 3), stats (HEALTH 1, GADGETS 3 the mask of
#: held gadgets, ARMOR 4, MAX_HEALTH 7), and how many slots each array has
IMPULSE, RAPID = 2, 3
HEALTH, GADGETS, ARMOR, MAX_HEALTH = 1, 3, 4, 7
SLOTS = 16
UNLIMITED = -1
INVENTORY_CALLBACKS = ("spawnInventory", "updateInventory")


class InventoryAnswerError(ValueError):
    """An inventory callback answered with something other than nil or a table; ``callback`` names it."""

    def __init__(self, callback: str, message: str):
        super().__init__(message)
        self.callback = callback


def default_load_out(spawn=(0.0, 0.0)) -> Dict[str, Any]:
    """The agent's load-out as DeepMind Lab gives it when the agent spawns at ``spawn`` (x, y units):
    the impulse gadget (unlimited) and the rapid gadget (100), health and max health 100, armour 0, no
    power-ups, standing still, facing east."""
    stats = [0] * SLOTS
    stats[HEALTH - 1], stats[MAX_HEALTH - 1], stats[ARMOR - 1] = 100, 100, 0
    stats[GADGETS - 1] = 2 ** (IMPULSE - 1) + 2 ** (RAPID - 1)
    amounts = [0] * SLOTS
    amounts[IMPULSE - 1], amounts[RAPID - 1] = UNLIMITED, 100
    return {
        "playerId": 1, "playerName": "player", "isBot": False, "gadget": RAPID,
        "amounts": amounts, "stats": stats, "powerups": [0] * SLOTS, "persistents": [0] * SLOTS,
        "position": [float(spawn[0]), float(spawn[1]), 0.0], "velocity": [0.0, 0.0, 0.0],
        "angles": [0.0, 0.0, 0.0], "height": 26.0,
    }


def changes(before: Dict[str, Any], after: Any) -> Dict[str, Any]:
    """The fields of the load-out ``after`` (a callback's answer as Python data; None: unchanged) that
    differ from ``before``: {field: new value}."""
    if after is None:
        return {}
    if not isinstance(after, dict):
        raise ValueError(f"returned a {type(after).__name__}; an inventory callback returns nil or the load-out")
    return {key: value for key, value in after.items() if before.get(key) != value}


def inventory_changes(sandbox, tab, spawn) -> Dict[str, Dict[str, Any]]:
    """{callback: changed fields} of the script's inventory callbacks called once each (``tab``: the
    compile's Tabulator; ``spawn``: the agent's (x, y) units) on a fresh default load-out; callbacks the
    script does not define, and ones that change nothing, are left out. Raises InventoryAnswerError when
    one answers with something other than nil or a table."""
    found = {}
    for name in INVENTORY_CALLBACKS:
        if not tab.has(name):
            continue
        before = default_load_out(spawn)
        answer = sandbox.to_python(tab.call(name, sandbox.table(before)))
        try:
            changed = changes(default_load_out(spawn), answer)
        except ValueError as err:
            raise InventoryAnswerError(name, f"api:{name} {err}") from None
        if changed:
            found[name] = changed
    return found
