"""Error helpers: clear messages with close-match suggestions."""
from __future__ import annotations

import difflib
from typing import Iterable


class UnknownNameError(KeyError, ValueError):
    """An unknown level, observation, setting or pickup name."""

    def __str__(self) -> str:  # KeyError would quote the message
        return str(self.args[0])


def unknown_name_error(kind: str, name: str, known: Iterable[str]) -> UnknownNameError:
    """Build an UnknownNameError for ``name`` suggesting the closest ``known`` names."""
    known = sorted(known)
    close = difflib.get_close_matches(str(name), known, n=3, cutoff=0.5)
    hint = f" Did you mean {', '.join(repr(c) for c in close)}?" if close else ""
    listing = ", ".join(known) if len(known) <= 12 else f"{len(known)} names, see the docs"
    return UnknownNameError(f"unknown {kind} {name!r}.{hint} Known: {listing}.")
