"""Command-line entry points: ``bm-demo``, ``bm-play``, ``bm-bench``, ``bm-eval``."""
