"""``python -m compile_lua LEVEL.lua ...`` (same as the ``compile_lua`` command)."""
import sys

from compile_lua.cli import main

sys.exit(main())
