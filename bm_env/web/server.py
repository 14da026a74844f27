"""Running the web table: uvicorn serving :func:`~.app.make_app` on a socket bound here.

The socket is bound before uvicorn starts, so that the address printed is the one listened
on (port 0 picks a free port) and a browser opened at once finds it.
"""

from __future__ import annotations

import socket
import sys
import threading
import webbrowser
from typing import TextIO

from .app import make_app
from .store import GameStore

LOOPBACK = ("127.0.0.1", "::1", "localhost")


def bind(host: str, port: int) -> socket.socket:
    """A listening TCP socket on ``host``:``port``; ``OSError`` (with the reason) when it cannot be had."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
        sock.listen(128)
    except OSError:
        sock.close()
        raise
    return sock


def serve(store: GameStore, host: str = "127.0.0.1", port: int = 8000, open_browser: bool = False,
          out: TextIO = sys.stdout) -> None:
    """Serve the games of ``store`` until interrupted, saying first where."""
    import uvicorn

    sock = bind(host, port)
    shown = f"[{host}]" if ":" in host else host
    url = f"http://{shown}:{sock.getsockname()[1]}/"
    reach = "this machine only" if host in LOOPBACK else "other machines too (--host)"
    kept = f"games saved in {store.data} ({len(store)} to continue)" if store.data is not None else \
        "games kept in memory only (--data DIR keeps them)"
    print(f"bm-play: the table is at {url} (listening on {host}: {reach}); {kept}. Ctrl-C stops.", file=out, flush=True)
    if open_browser:
        threading.Thread(target=webbrowser.open, args=(url,), daemon=True).start()
    server = uvicorn.Server(uvicorn.Config(make_app(store), log_level="warning"))
    server.run(sockets=[sock])
