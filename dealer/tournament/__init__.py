"""Tournament formats: pure pairing and bracket logic (round robin, Swiss, knockout)."""
