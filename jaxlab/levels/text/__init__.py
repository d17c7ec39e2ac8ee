"""Text-quest level data: the logic language (``logic_text``), grounding into a compiled
``TextGame`` (``grounding``, ``tables``, ``compiled_game``), the game text (``grammar``,
``food_states``, ``vocab``), ``GameSpec`` (``game_spec``), TextWorld's game files
(``game_schema``, ``textworld_import``), batch compiles (``compile_pool``) and the seeded
generators of TextWorld's families (``generators``)."""
