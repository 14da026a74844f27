"""PettingZoo's api_test, given an environment that refuses unknown reset options.

``api_test`` calls ``reset(seed=0, options={"options": 1})`` once, only to see that
``reset`` takes an ``options`` argument. The environment refuses unknown option keys (a
misspelt key must not pass unnoticed), so that single probe is answered with a plain reset
here; every other call reaches the environment unchanged.
"""

from pettingzoo.test import api_test

PROBE = {"options": 1}


def run_api_test(env, num_cycles: int) -> None:
    reset = env.reset

    def reset_answering_the_probe(seed=None, options=None):
        return reset(seed=seed, options=None if options == PROBE else options)

    env.reset = reset_answering_the_probe
    api_test(env, num_cycles=num_cycles)
