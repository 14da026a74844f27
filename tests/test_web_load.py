"""The web table under load: 50 games at once against the shipped agent, over HTTP on loopback.

``bm-play --web`` runs in a subprocess on a free 127.0.0.1 port with a data folder; 50 client
threads each play one black_maria deal to its end (bounded: at most 60 moves a game, the
whole run within a deadline). Every request must succeed, every game must finish, and every
record must replay. The median and 99th-percentile response times are printed: a benchmark
to read, not a timed assertion (figures taken on a loaded machine say little).

Needs the ``web`` extra; CI installs it in the browser step and runs this there.
"""

from __future__ import annotations

import random
import statistics
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

pytest.importorskip("starlette", reason="the web extra is not installed (pip install -e '.[web]')")
import httpx  # noqa: E402

from bm_env.engine.record import replay_deal  # noqa: E402
from kit import web_move  # noqa: E402

pytestmark = pytest.mark.slow

GAMES = 50
MOVES = 60  # a black_maria deal takes the person 18 moves (the pass, 17 cards)
DEADLINE = 900.0  # seconds for the whole run


@pytest.fixture()
def web_server(tmp_path):
    proc = subprocess.Popen([sys.executable, "-m", "bm_env.cli.play", "--web", "--port", "0", "--data", str(tmp_path)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        line = proc.stdout.readline()
        assert "http://127.0.0.1:" in line, (line, proc.stderr.read() if proc.poll() is not None else "")
        yield line.split()[5].rstrip("/"), tmp_path
    finally:
        proc.terminate()
        proc.wait(timeout=60)


def test_fifty_games_at_once_against_the_shipped_agent(web_server):
    base, data = web_server
    assert base.startswith("http://127.0.0.1:")
    times: dict[str, list[float]] = {"new game": [], "move": [], "record": []}
    errors: list[str] = []
    lock = threading.Lock()
    stop = time.monotonic() + DEADLINE

    def timed(client, kind, method, path, **kw):
        t = time.perf_counter()
        r = client.request(method, base + path, **kw)
        with lock:
            times[kind].append(time.perf_counter() - t)
        if r.status_code >= 300:
            raise AssertionError(f"{method} {path}: {r.status_code} {r.text}")
        return r.json()

    def play(k: int):
        chooser = random.Random(k)
        with httpx.Client(timeout=120) as client:
            try:
                made = timed(client, "new game", "POST", "/api/games", json={"rules": "black_maria", "seed": k})
                gid, view = made["id"], made["view"]
                for _ in range(MOVES):
                    if view["over"] or time.monotonic() > stop:
                        break
                    view = timed(client, "move", "POST", f"/api/games/{gid}/actions", json=web_move(view, chooser))
                if not view["over"]:
                    raise AssertionError(f"game {k} not over after {MOVES} moves or the deadline")
                return timed(client, "record", "GET", f"/api/games/{gid}/record")
            except Exception as e:  # every failure is counted and shown, none stops the others
                with lock:
                    errors.append(f"game {k}: {type(e).__name__}: {e}")
                return None

    start = time.perf_counter()
    with ThreadPoolExecutor(GAMES) as pool:
        records = list(pool.map(play, range(GAMES)))
    wall = time.perf_counter() - start
    assert errors == []
    for rec in records:
        deal = replay_deal(rec)
        assert deal.scores is not None and sum(deal.scores) == 43
    assert len(list(data.glob("*.json"))) == GAMES
    every = sum(times.values(), [])
    print(f"\nweb table under load: {GAMES} games at once, {len(every)} requests in {wall:.1f} s "
          f"(server and clients on one machine; a move's answer includes the shipped agents' moves)")
    for kind, seconds in [("every request", every), *times.items()]:
        ms = sorted(t * 1000 for t in seconds)
        p99 = statistics.quantiles(ms, n=100)[98]
        print(f"  {kind}: {len(ms)} requests, median {statistics.median(ms):.1f} ms, "
              f"99th percentile {p99:.1f} ms, max {ms[-1]:.1f} ms")
