"""The web table's HTTP face: a small JSON API and the page that uses it (Starlette).

Routes (docs/play.md, "Play in the browser", has the reference):

* ``GET /`` the page; ``GET /static/...`` its script and style (package data, nothing external);
* ``GET /api/presets`` the presets, their player counts and whether an agent ships for each;
* ``POST /api/games`` a new game (:meth:`~.game.Setup.from_request`) -> its ``id`` and the seat's ``view``;
* ``GET /api/games/{id}`` the view; ``POST /api/games/{id}/actions`` the person's move, ``{"card": "QS"}``,
  ``{"action": 56}`` or ``{"cards": [...]}`` for a pass -> the view once the agents have answered;
* ``GET /api/games/{id}/hint`` what the shipped agent would play, with its numbers;
* ``GET /api/games/{id}/table.svg`` the table from the seat (:func:`~bm_env.pictures.table_svg`);
* ``GET /api/games/{id}/replay`` the replay page of the seat's view (``bm-replay --seat``);
* ``GET /api/games/{id}/record`` the game record, once the game is over (it holds every hand).

A request that cannot be taken gets a 4xx answer ``{"error": "<one line>"}`` and changes
nothing: 400 a malformed body, 404 an unknown game or route, 405 a wrong method, 409 a
move or hint out of turn or a record asked for too early, 413 a body over the cap, 422 a
card the rules do not allow here (with the rule). Bodies are read up to ``max_body`` bytes
and no further. Game logic runs in Starlette's thread pool, one request per game at a time.
"""

from __future__ import annotations

import json
from typing import Any, Callable

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from ..engine.actions import MAX_ACTIONS, parse_action
from ..engine.cards import ACCEPTED_FORMS, parse_card
from ..engine.infostate import information_state
from ..engine.rules import PRESETS, make_rules
from ..pictures import replay_html, table_svg
from .game import IllegalMove, NoHint, NotYourTurn, SetupError, Setup, WebGame, shipped_for
from .store import GameStore, UnknownGame
from .view import seat_view

#: The largest request body taken, in bytes (a move is a few dozen).
MAX_BODY = 4096
_STATUS = {SetupError: 400, UnknownGame: 404, NotYourTurn: 409, NoHint: 409, IllegalMove: 422}


class BadRequest(Exception):
    """A request answered with ``status`` and a one-line reason."""

    def __init__(self, status: int, reason: str) -> None:
        super().__init__(reason)
        self.status = status


def _error(status: int, reason: str) -> JSONResponse:
    return JSONResponse({"error": " ".join(str(reason).split())}, status_code=status)


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a number JSON allows")


async def _json_body(request: Request, limit: int) -> dict[str, Any]:
    """The body as a JSON object, read up to ``limit`` bytes; :class:`BadRequest` otherwise."""
    length = request.headers.get("content-length")
    if length is not None and (not length.isdigit() or int(length) > limit):
        raise BadRequest(413, f"the body may be at most {limit} bytes")
    body = b""
    async for chunk in request.stream():
        body += chunk
        if len(body) > limit:
            raise BadRequest(413, f"the body may be at most {limit} bytes")
    try:
        data = json.loads(body.decode("utf-8"), parse_constant=_refuse_constant)
    except (UnicodeDecodeError, ValueError) as e:
        raise BadRequest(400, f"the body must be a JSON object: {e}") from None
    if not isinstance(data, dict):
        raise BadRequest(400, f"the body must be a JSON object, got {json.dumps(data)[:60]}")
    return data


def read_move(body: dict[str, Any]) -> list[int]:
    """The action ids a move's body names: ``{"card": "QS"}``, ``{"action": 56}`` or ``{"cards": [...]}``."""
    if len(body) != 1 or next(iter(body)) not in ("card", "action", "cards"):
        raise BadRequest(400, 'a move is one of {"card": "QS"}, {"action": ID} or {"cards": ["QS", ...]} '
                              f"(a pass), got {json.dumps(body)[:80]}")
    key, value = next(iter(body.items()))
    if key == "action":
        if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < MAX_ACTIONS:
            raise BadRequest(400, f"action must be an action id in 0..{MAX_ACTIONS - 1}, got {json.dumps(value)}")
        return [value]
    cards = [value] if key == "card" else value
    if not isinstance(cards, list) or not cards or not all(isinstance(c, str) for c in cards):
        raise BadRequest(400, f"{key} must be {'a card' if key == 'card' else 'a non-empty list of cards'} "
                              f"such as \"QS\", got {json.dumps(value)[:80]}")
    try:
        return [parse_action(c) if key == "card" else parse_card(c) for c in cards]
    except ValueError:
        raise BadRequest(400, f"cannot read {json.dumps(value)[:80]} as {'a card' if key == 'card' else 'cards'}; "
                              f"accepted: {ACCEPTED_FORMS}") from None


def _presets() -> list[dict[str, Any]]:
    return [{"name": name, "summary": p.summary, "players": list(p.player_counts), "default_players": p.default_players,
             "shipped": [n for n in p.player_counts if shipped_for(name, make_rules(name, n))]}
            for name, p in PRESETS.items()]


def make_app(store: GameStore, max_body: int = MAX_BODY) -> Starlette:
    """The ASGI app serving the games of ``store``."""

    def answer(gid: str, work: Callable[[WebGame], Any], save: bool = False) -> Any:
        """Run ``work`` on game ``gid`` under its lock (saving it after, if asked); errors become BadRequest."""
        try:
            with store.game(gid) as game:
                out = work(game)
                if save:
                    store.save(gid, game)
                return out
        except tuple(_STATUS) as e:
            raise BadRequest(_STATUS[type(e)], str(e)) from None

    async def page(request: Request) -> Response:
        from importlib import resources

        return HTMLResponse(resources.files(__package__).joinpath("static/index.html").read_text(encoding="utf-8"))

    async def presets(request: Request) -> Response:
        return JSONResponse(_presets())

    async def create(request: Request) -> Response:
        body = await _json_body(request, max_body)

        def work() -> dict[str, Any]:
            try:
                gid, game = store.create(Setup.from_request(body))
            except SetupError as e:
                raise BadRequest(400, str(e)) from None
            with store.game(gid) as game:
                return {"id": gid, "view": seat_view(game)}

        return JSONResponse(await run_in_threadpool(work), status_code=201)

    async def view(request: Request) -> Response:
        return JSONResponse(await run_in_threadpool(answer, request.path_params["gid"], seat_view))

    async def act(request: Request) -> Response:
        gid = request.path_params["gid"]
        actions = read_move(await _json_body(request, max_body))

        def work(game: WebGame) -> dict[str, Any]:
            game.move(actions)
            return seat_view(game)

        return JSONResponse(await run_in_threadpool(answer, gid, work, True))

    async def hint(request: Request) -> Response:
        return JSONResponse(await run_in_threadpool(answer, request.path_params["gid"], WebGame.hint))

    async def table(request: Request) -> Response:
        def work(game: WebGame) -> str:
            m = game.match
            return table_svg(information_state(m.deal, game.setup.seat, m.totals, m.deals_played))

        svg = await run_in_threadpool(answer, request.path_params["gid"], work)
        return Response(svg, media_type="image/svg+xml")

    async def replay(request: Request) -> Response:
        page_html = await run_in_threadpool(answer, request.path_params["gid"],
                                            lambda g: replay_html(g.record(), g.setup.seat))
        return HTMLResponse(page_html)

    async def record(request: Request) -> Response:
        gid = request.path_params["gid"]

        def work(game: WebGame) -> tuple[str, dict[str, Any]]:
            if not game.over:
                raise NotYourTurn("the record shows every hand, so it is given once the game is over; "
                                  "the replay of your view is at /replay")
            return game.setup.preset, game.record()

        preset, rec = await run_in_threadpool(answer, gid, work)
        name = f"{preset}-{gid}.json"
        return JSONResponse(rec, headers={"Content-Disposition": f'attachment; filename="{name}"'})

    async def bad_request(request: Request, exc: BadRequest) -> Response:
        return _error(exc.status, str(exc))

    async def http_error(request: Request, exc: HTTPException) -> Response:
        return _error(exc.status_code, exc.detail)

    routes = [
        Route("/", page),
        Route("/api/presets", presets),
        Route("/api/games", create, methods=["POST"]),
        Route("/api/games/{gid}", view),
        Route("/api/games/{gid}/actions", act, methods=["POST"]),
        Route("/api/games/{gid}/hint", hint),
        Route("/api/games/{gid}/table.svg", table),
        Route("/api/games/{gid}/replay", replay),
        Route("/api/games/{gid}/record", record),
        Mount("/static", StaticFiles(packages=[(__package__, "static")]), name="static"),
    ]
    return Starlette(routes=routes, exception_handlers={BadRequest: bad_request, HTTPException: http_error})
