"""On-device building blocks of procedural first-person levels: level assembly, mazes, cells."""
