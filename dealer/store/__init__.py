"""Storage: the results database (:mod:`dealer.store.db`, its schema and hash chain), the event's
folder of dealt boards (:mod:`dealer.store.folder`) and safe file writing (:mod:`dealer.files`)."""
