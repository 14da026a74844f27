"""Play the agents in the browser: ``bm-play --web``, a local server holding whole games.

* :mod:`.game` one game: the person's seat, agents in the others, moves checked, saved and rebuilt;
* :mod:`.view` what the person's seat is sent: its observation in words, nothing more;
* :mod:`.store` the games by unguessable id, each saved atomically after every move;
* :mod:`.app` the JSON API and the page (``static/``: HTML, script and style, nothing external);
* :mod:`.server` uvicorn on a socket bound to 127.0.0.1 unless told otherwise.

Needs the ``web`` extra (Starlette, uvicorn). The reference is docs/play.md, "Play in the browser".
"""

from .app import make_app
from .game import Setup, WebGame
from .store import GameStore

__all__ = ["GameStore", "Setup", "WebGame", "make_app"]
