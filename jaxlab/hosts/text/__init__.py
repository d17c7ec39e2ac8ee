"""TextWorld's host APIs over the text kernel: ``start``/``Environment``/``EnvInfos`` (``host``),
``Game``, ``make``, ``load`` (``game_api``), ``BatchEnv`` (``batch``), the ``textworld.gym``
drop-in (``gym``), free text to command ids (``parser``) and the ``jaxlab-tw`` command (``cli``);
the public face is ``jaxlab.text``."""
