"""Speed benchmarks of every family: ``jaxlab-bench`` (``cli``) and the per-family code the scripts under
``benchmarks/`` share with it (``first_person``, ``grid``, ``text``, ``memory``; ``timing`` for the
timing and the per-batch tables; ``targets`` and ``report`` for the command)."""
