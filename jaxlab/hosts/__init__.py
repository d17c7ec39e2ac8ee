"""The originals' host APIs over jaxlab kernels: DeepMind Lab's ``Lab`` (``hosts.dmlab``), Lab2D's
``Lab2d`` (``hosts.lab2d``, also ``jaxlab.grid.Lab2d``; over a raw-API script ``hosts.lab2d_raw``) with
Lab2D's ``WORLD.TEXT`` interop (``hosts.lab2d_text``), dm_memorytasks' ``load`` (``hosts.memorytasks``,
also ``jaxlab.memorytasks``) and TextWorld's (``hosts.text``, also ``jaxlab.text``)."""
