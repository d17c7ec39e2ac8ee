"""The DMLab compiler: a DMLab Lua level script (``nextMap``, ``createPickup``, ...) -> a first-person level bank."""
