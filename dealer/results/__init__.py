"""Results: traveller files (:mod:`.importer`), the rules of a result (:mod:`.validate`), single
entries, corrections and missing travellers (:mod:`.entry`), a level race's (:mod:`.levels`), the
round loop (:mod:`.rounds`); the store itself is :mod:`dealer.store`. See ``docs/results.md``."""
