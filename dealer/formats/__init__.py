"""Pure documents: a file's bytes or a mapping to objects and back, no paths, no database."""
