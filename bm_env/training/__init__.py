"""Self-play training for the Hearts family: ``bm-train`` (see ``docs/training.md``).

Stands on :mod:`bm_env` (the vector engine, the play network and checkpoint format, the
evaluation harness); nothing in :mod:`bm_env` imports it.
"""
