"""Results: the SQLite store (:mod:`.db`), traveller files (:mod:`.importer`), single entries,
corrections and missing travellers (:mod:`.manage`). See ``docs/results.md``."""
