"""``dealer serve``: live entry at the tables, the director's console and live pages (docs/serve.md).

Imported only by ``dealer serve`` (the web stack stays out of every other command's start)."""
