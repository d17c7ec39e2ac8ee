"""The Lab2D compiler: a Lab2D-style grid script (``api:world``) -> a ``GridSpec``; see docs/grid_lua.md."""
