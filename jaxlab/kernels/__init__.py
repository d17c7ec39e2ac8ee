"""Every family's kernel: pure ``reset``/``step`` over level data, under ``jit`` and ``vmap``.

One sub-package per family: ``first_person`` (DeepMind Lab's world), ``grid`` (Lab2D-style grid
worlds), ``memory`` (the memory-task suite's first-person tasks), ``psychlab`` (its screen tasks) and
``text`` (text quests). A kernel imports levels, render and core; nothing below imports a kernel.
"""
