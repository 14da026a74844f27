"""Internals of the PettingZoo environment ``bm_env.black_maria_v0``: the AEC adapter, the
incremental observation tracker, the thin order-enforcing wrapper, the text renderer and the
Gymnasium single-agent wrapper."""
