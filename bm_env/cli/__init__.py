"""Command-line entry points: ``bm-demo``, ``bm-play``, ``bm-bench``, ``bm-eval``, ``bm-soak``; :mod:`.args` holds what they check alike."""
