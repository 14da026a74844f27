"""The games a web table server holds, each under an unguessable id, saved after every move.

With a data folder every game is written there as ``<id>.json`` (:meth:`WebGame.saved`: its
record plus its setup) after every change, atomically (:func:`~bm_env.engine.files.write_atomic`:
a reader or a crash never sees half a file), and a store opened on the same folder rebuilds
every game from its file and carries on where each stood; finished games stay there and
stay downloadable. A file that does not rebuild stops the store from opening, with its name
and the reason: nothing is skipped or overwritten. Without a folder the games live in memory.

Each game has its own lock: requests for one game are taken one at a time, different
games at once.
"""

from __future__ import annotations

import json
import re
import secrets
import threading
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

from ..engine.files import write_atomic
from ..engine.record import RecordError
from .game import Setup, WebGame

#: What a game id looks like: secrets.token_urlsafe(16), 22 URL-safe characters.
ID_PATTERN = re.compile(r"[A-Za-z0-9_-]{22}")


class UnknownGame(KeyError):
    """No game has this id."""

    def __str__(self) -> str:
        return self.args[0]


class StoreError(ValueError):
    """A data folder whose games cannot be rebuilt, with the file and the reason."""


class GameStore:
    """Games by id, each behind its own lock, saved to ``data`` (a folder) when one is given."""

    def __init__(self, data: str | Path | None = None) -> None:
        self.data = None if data is None else Path(data)
        self._games: dict[str, WebGame] = {}
        self._locks: dict[str, threading.Lock] = {}
        self._guard = threading.Lock()  # guards the two dicts
        if self.data is not None:
            if self.data.exists() and not self.data.is_dir():
                raise StoreError(f"{self.data} is not a folder; give a folder for the games")
            self.data.mkdir(parents=True, exist_ok=True)
            self._load()

    def _load(self) -> None:
        for path in sorted(self.data.glob("*.json")):
            if not ID_PATTERN.fullmatch(path.stem):
                continue
            try:
                saved = json.loads(path.read_text(encoding="utf-8"))
                game = WebGame.restore(saved)
            except (OSError, ValueError, RecordError) as e:
                raise StoreError(f"{path}: cannot rebuild this game: {e}") from None
            self._games[path.stem] = game
            self._locks[path.stem] = threading.Lock()

    def __len__(self) -> int:
        return len(self._games)

    def ids(self) -> list[str]:
        with self._guard:
            return list(self._games)

    def create(self, setup: Setup) -> tuple[str, WebGame]:
        """Start a game (the agents play up to the person's first decision), save it, return its id."""
        return self.add(WebGame.start(setup))

    def add(self, game: WebGame) -> tuple[str, WebGame]:
        """Keep ``game`` under a new id and save it."""
        with self._guard:
            gid = secrets.token_urlsafe(16)
            while gid in self._games:
                gid = secrets.token_urlsafe(16)
            self._games[gid] = game
            self._locks[gid] = threading.Lock()
        self.save(gid, game)
        return gid, game

    @contextmanager
    def game(self, gid: str) -> Iterator[WebGame]:
        """The game ``gid``, held under its lock for the ``with`` block; :class:`UnknownGame` if none."""
        with self._guard:
            game = self._games.get(gid)
            lock = self._locks.get(gid)
        if game is None:
            raise UnknownGame(f"no game has the id {gid!r}; start one with POST /api/games")
        with lock:
            yield game

    def save(self, gid: str, game: WebGame) -> None:
        """Write the game's file (nothing without a data folder); call it under the game's lock."""
        if self.data is not None:
            saved = game.saved()
            write_atomic(self.data / f"{gid}.json", lambda f: json.dump(saved, f, ensure_ascii=False))
