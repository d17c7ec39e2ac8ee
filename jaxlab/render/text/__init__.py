"""The text family's renderer: a game's text composed on device as tokens (``narration``)."""
