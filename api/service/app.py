"""The FastAPI app of CONTRACT.md section 8: state, the event stream (WebSocket and SSE), operator inputs,
shot review packs, the match protocol and the overlay and review pages."""

from __future__ import annotations

import asyncio
import logging
import secrets
import sqlite3
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Annotated, Any

from fastapi import Depends, FastAPI, Header, HTTPException, Query, Request, WebSocket
from fastapi import Path as PathParam
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, HTMLResponse, JSONResponse, RedirectResponse, Response, StreamingResponse
from fastapi.staticfiles import StaticFiles
from pydantic import ValidationError

from api import names
from api.service.apidoc import input_record_schema, openapi_html
from api.service.inputs import InputRefused, TableView, check_input
from api.service.limits import MAX_INT, BodyLimit, parse_json_body, parse_seq
from api.service.match import InputRejected, MatchService
from api.service.protocol import match_protocol, protocol_html
from api.service.review import ClipError, ShotClips, picture_png, shot_list, shot_pack, shot_track
from api.service.settings import ServiceSettings
from api.service.streams import (
    WS_CLOSE_BAD_REQUEST,
    WS_CLOSE_TOO_SLOW,
    WS_CLOSE_TRY_LATER,
    ClientSlots,
    EventStreamResponse,
    pump_websocket,
    sse_lines,
)
from api.store import StoreError, StoreFull
from calibration.contract import Event

STATIC_DIR = Path(__file__).resolve().parent.parent / "static"
__all__ = ["WS_CLOSE_TOO_SLOW", "create_app"]
log = logging.getLogger("tableref.service")

# A shot index in a path: beyond it no match can reach, and SQLite's integers overflow far above it.
ShotNumber = Annotated[int, PathParam(ge=0, le=MAX_INT, description="the shot's index")]
NO_TOKEN_WARNING = (
    "tableref: WARNING: no operator token is set (TABLEREF_OPERATOR_TOKEN): operator inputs are refused and "
    "unpublished clips are closed to everyone; set it to run a match with a referee at the console"
)

DESCRIPTION = """
The live referee: what the camera sees and what the rules make of it.

* **Stream**: `WS /ws` and `GET /events` (server-sent events) carry every event, operator input, verdict and
  state change as `{"seq", "kind", "data"}`. Resume with `/ws?since=SEQ`, or by SSE's `Last-Event-ID`
  (also `?since=SEQ`; given both, the later one counts). Each client has its own bounded buffer; one that
  falls too far behind is dropped (WebSocket close code 4008, or a final SSE `event: dropped`) and resumes
  from the sequence number given. Stream connections are capped (`TABLEREF_MAX_CLIENTS`, default 500):
  over the cap `/events` answers 503 and `/ws` closes with 1013, each with the reason.
* **Limits**: request bodies up to 64 KiB (`TABLEREF_MAX_BODY`; over it 413); finite numbers only; every
  malformed request is a 4xx whose `detail` is one line.
* **Operator**: `POST /inputs` takes one input record of CONTRACT.md section 3 and needs
  `Authorization: Bearer <TABLEREF_OPERATOR_TOKEN>`. Viewers need no token.
* **Review**: `GET /shots`, `GET /shots/{n}` (review pack), `/shots/{n}/picture.png`, `/shots/{n}/clip`
  (cut once; with the operator token until `POST /shots/{n}/clip/publish` opens it to anyone);
  `GET /protocol` and `/protocol.html` (протокол встречи); `GET /names` (the names the pages show).
* **Pages**: `/overlay` (broadcast overlay; `?pos=bottom-left&scale=1.5&theme=light`), `/review` (the
  referee's console: replays and a control for every operator input), and `/api` (this description, offline).
"""


def create_app(service: MatchService, settings: ServiceSettings) -> FastAPI:
    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        service.hub.bind(asyncio.get_running_loop())
        if not settings.operator_token:
            log.warning(NO_TOKEN_WARNING)
        try:
            yield
        finally:
            service.hub.unbind()

    app = FastAPI(title="tableref", version="0.1.0", description=DESCRIPTION, lifespan=lifespan)
    app.state.service = service
    app.state.settings = settings
    clips = ShotClips(settings.cache_dir)
    app.state.clips = clips
    app.mount("/static", StaticFiles(directory=STATIC_DIR), name="static")
    app.add_middleware(BodyLimit, limit=settings.max_body)
    slots = ClientSlots(settings.max_clients)
    app.state.stream_slots = slots

    def operator(authorization: Annotated[str | None, Header()] = None) -> None:
        """The operator token check: 401 without a bearer token, 403 with a wrong one."""
        expected = settings.operator_token
        if not expected:
            raise HTTPException(403, "operator inputs are disabled: set TABLEREF_OPERATOR_TOKEN for the service")
        if not authorization or not authorization.lower().startswith("bearer "):
            raise HTTPException(401, "operator token required: Authorization: Bearer <token>",
                                headers={"WWW-Authenticate": "Bearer"})  # fmt: skip
        if not secrets.compare_digest(authorization[7:].strip().encode(), expected.encode()):
            raise HTTPException(403, "wrong operator token")

    # ---- pages ------------------------------------------------------------------------------------------
    @app.get("/", include_in_schema=False)
    def index() -> RedirectResponse:
        return RedirectResponse("/review")

    @app.get("/overlay", response_class=FileResponse, tags=["pages"])
    def overlay() -> FileResponse:
        """The broadcast overlay (transparent background; a browser source for streaming software)."""
        return FileResponse(STATIC_DIR / "overlay.html", media_type="text/html")

    @app.get("/review", response_class=FileResponse, tags=["pages"])
    def review() -> FileResponse:
        """The referee's console: the shots, each shot's replay and pack, a control for every operator input."""
        return FileResponse(STATIC_DIR / "review.html", media_type="text/html")

    @app.get("/api", response_class=HTMLResponse, tags=["pages"])
    def api_page() -> HTMLResponse:
        """This API described from its OpenAPI schema, on one page that needs nothing from the internet."""
        return HTMLResponse(openapi_html(app.openapi()))

    # ---- state and stream ------------------------------------------------------------------------------
    @app.get("/state", tags=["stream"])
    def state() -> dict[str, Any]:
        """Calibration status, balls and positions, shot state, score, player to play, ball in hand, pending
        spotting, and the referee's warnings (001 2.1.20) for the current position."""
        out = service.state()
        out["storage"] = service.store.health()
        out["clients"] = {"open": slots.open, "cap": slots.limit, "refused": slots.refused}
        return out

    @app.get("/events", tags=["stream"], response_class=StreamingResponse,
             responses={400: {"description": "a malformed since or Last-Event-ID"},
                        503: {"description": "the stream connection cap is reached"}})  # fmt: skip
    async def events(
        since: Annotated[int | None, Query(ge=0, le=MAX_INT, description="resume after this sequence number")] = None,
        last_event_id: Annotated[str | None, Header()] = None,
    ) -> StreamingResponse:
        """Server-sent events: `id` is the sequence number, `data` the same JSON as a /ws message. Resumes
        after the later of `?since` and `Last-Event-ID` (an EventSource opened with `?since` reconnects with
        its last id and gets no repeats). A comment line is sent after quiet stretches; a client that does not
        take a write for `TABLEREF_SEND_TIMEOUT` seconds is disconnected."""
        after = max(since or 0, parse_seq(last_event_id, "Last-Event-ID"))
        if not slots.take():
            raise HTTPException(503, slots.refusal(), headers={"Retry-After": "5"})
        headers = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}
        return EventStreamResponse(sse_lines(service.hub.follow(after), settings.sse_keepalive), slots=slots,
                                   send_timeout=settings.send_timeout, headers=headers)  # fmt: skip

    @app.websocket("/ws")
    async def ws(websocket: WebSocket) -> None:
        """The stream as JSON text messages `{"seq", "kind", "data"}`; `?since=SEQ` resumes after SEQ. Closes
        with 4008 (too slow: resume with the `?since=` in the reason), 1013 (the connection cap is reached,
        try later) or 1008 (a malformed `since`)."""
        await websocket.accept()
        try:
            since = parse_seq(websocket.query_params.get("since"), "since")
        except HTTPException as exc:
            await websocket.close(WS_CLOSE_BAD_REQUEST, str(exc.detail)[:120])
            return
        if not slots.take():
            await websocket.close(WS_CLOSE_TRY_LATER, slots.refusal())
            return
        try:
            await pump_websocket(websocket, service.hub.follow, since, send_timeout=settings.send_timeout)
        finally:
            slots.give_back()

    # ---- operator inputs -----------------------------------------------------------------------------------
    @app.post("/inputs", tags=["operator"], dependencies=[Depends(operator)], status_code=201,
              openapi_extra={"requestBody": {"required": True,
                                             "content": {"application/json": {"schema": input_record_schema()}}}},
              responses={400: {"description": "not JSON, nested too deep, or a non-finite number"},
                         401: {"description": "no operator token"}, 403: {"description": "a wrong operator token"},
                         409: {"description": "the input does not fit the match (the reason says why)"},
                         413: {"description": "the body is over the size limit"},
                         422: {"description": "not a valid input record"},
                         507: {"description": "the disk is full: the input was not recorded"}})  # fmt: skip
    async def post_input(request: Request) -> dict[str, Any]:
        """One operator input record of CONTRACT.md section 3 (`frame_start`, `call`, `call_any`, `reorder`,
        `third_ball`, `manual_foul`, `play_on`, and the extensions `rerack`, `concede`, `placement_warning`), or a
        correction: `rename` (`ball`, `to`: "this ball is number 7") or `void_pot` (`ball`: void the last pot
        of that ball; 409 once the next stroke is played, 001 1.5.4). Without `shot` it applies to the shot in
        progress or the next one (a manual foul, a play-on choice or a void: the shot just played). Answers
        with the messages it caused: the input, amended verdicts, the new state."""
        obj = parse_json_body(await request.body())
        if not isinstance(obj, dict):
            raise HTTPException(422, "the body must be one JSON object (an input record)")
        try:
            ev = Event.model_validate(obj)
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(p) for p in first.get("loc", ()))
            msg = str(first.get("msg", "invalid")).removeprefix("Value error, ")
            raise HTTPException(422, f"{where + ': ' if where else ''}{msg}") from None
        if not ev.is_input:
            raise HTTPException(422, f"'{ev.type}' is a camera event; operators post input records only")
        live = service.live
        potted = lambda: service.store.potted_balls(service.match_id)  # noqa: E731
        view = TableView(frozenset(live.positions), live.next_shot, potted)
        try:
            check_input(ev, view)
        except InputRefused as exc:
            raise HTTPException(exc.status, exc.reason) from None
        try:
            msgs = await asyncio.get_running_loop().run_in_executor(None, service.post_input, ev)
        except InputRejected as exc:
            raise HTTPException(409, f"the referee refuses this input: {_one_line(exc)}") from None
        return {"accepted": msgs[0].data if msgs else ev.to_dict(), "messages": [m.to_dict() for m in msgs]}

    # ---- review --------------------------------------------------------------------------------------------
    @app.get("/shots", tags=["review"])
    def shots() -> list[dict[str, Any]]:
        """Every shot of the match with its verdict in brief."""
        return shot_list(service.store, service.match_id)

    @app.get("/shots/{n}", tags=["review"])
    def shot(n: ShotNumber) -> dict[str, Any]:
        """The review pack of shot n: events with confidence, the verdict with its clauses, start and end
        positions, links to the picture and the video excerpt."""
        return _pack(n)

    @app.get("/shots/{n}/track", tags=["review"])
    def shot_track_route(n: ShotNumber) -> dict[str, Any]:
        """Where every ball was during shot n, frame by frame (the console draws them in step with the replay)."""
        return shot_track(service.store, service.match_id, _pack(n))

    @app.get("/shots/{n}/picture.png", tags=["review"], response_class=Response)
    def shot_picture(n: ShotNumber) -> Response:
        """Top-down drawing: every ball's path, contacts, cushion touches, pots and spotted balls."""
        pack = _pack(n)
        first = pack["start_frame"] if pack["start_frame"] is not None else 0
        last = pack["end_frame"] if pack["end_frame"] is not None else first + 100_000
        paths = service.store.track_rows(service.match_id, first, last)
        png = picture_png(pack, service.table, paths)
        if png is None:
            raise HTTPException(501, "the table drawing is not part of this build")
        return Response(png, media_type="image/png")

    @app.get("/shots/{n}/clip", tags=["review"], response_class=FileResponse)
    @app.head("/shots/{n}/clip", tags=["review"], response_class=FileResponse, include_in_schema=False)
    def shot_clip(n: ShotNumber, authorization: Annotated[str | None, Header()] = None) -> FileResponse:
        """The video excerpt of shot n (WebM), cut once from the match video. For the referee's console (with
        the operator token) until the operator publishes it (`POST /shots/{n}/clip/publish`); then for anyone."""
        pack = _pack(n)
        if not clips.published(service.match_id, n):
            if not authorization:
                raise HTTPException(401, f"the clip of shot {n} is not published: the operator token is needed",
                                    headers={"WWW-Authenticate": "Bearer"})  # fmt: skip
            operator(authorization)
        match = service.store.match(service.match_id)
        try:
            path = clips.clip(_match_video(match.source), pack, match.fps, match.id)
        except ClipError as exc:
            raise HTTPException(exc.status, exc.reason) from None
        return FileResponse(path, media_type="video/webm")

    @app.post("/shots/{n}/clip/publish", tags=["review"], dependencies=[Depends(operator)])
    def publish_clip(n: ShotNumber) -> dict[str, Any]:
        """The operator publishes shot n's clip: from now on anyone may fetch it (the overlay, a broadcast)."""
        _pack(n)
        clips.publish(service.match_id, n)
        return {"shot": n, "published": True, "clip": f"/shots/{n}/clip"}

    @app.get("/names", tags=["pages"])
    def display_names() -> dict[str, Any]:
        """What the pages show for this match's codes: the game's name and target, pockets, manual fouls."""
        return names.display_info(service.game)

    @app.get("/protocol", tags=["review"])
    def protocol() -> dict[str, Any]:
        """The match protocol (протокол встречи): frames, scores, winners, fouls per player."""
        return match_protocol(service.store, service.match_id)

    @app.get("/protocol.html", tags=["review"], response_class=HTMLResponse)
    def protocol_page() -> HTMLResponse:
        """The match protocol as a printable page."""
        return HTMLResponse(protocol_html(match_protocol(service.store, service.match_id), dict(service.live.looks)))

    def _pack(n: int) -> dict[str, Any]:
        if not 0 <= n <= MAX_INT:
            raise HTTPException(404, f"no shot {n} in this match")
        match = service.store.match(service.match_id)
        looks = dict(service.live.looks)
        pack = shot_pack(service.store, service.match_id, n, table=service.table, fps=match.fps, looks=looks)
        if pack is None:
            raise HTTPException(404, f"no shot {n} in this match")
        return pack

    @app.exception_handler(ValueError)
    async def value_error(request: Request, exc: ValueError) -> JSONResponse:
        return JSONResponse({"detail": _one_line(exc)}, status_code=422)

    @app.exception_handler(RequestValidationError)
    async def invalid_request(request: Request, exc: RequestValidationError) -> JSONResponse:
        """FastAPI's list of errors as one line: where and what, for the first one."""
        errors = exc.errors()
        first = errors[0] if errors else {}
        where = ".".join(str(p) for p in first.get("loc", ()))
        what = str(first.get("msg", "invalid request")).removeprefix("Value error, ")
        more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
        return JSONResponse({"detail": _one_line(f"{where}: {what}{more}" if where else what)}, status_code=422)

    @app.exception_handler(StoreError)
    async def store_error(request: Request, exc: StoreError) -> JSONResponse:
        # The disk is full (507) or the record cannot be written or read (503): the step was not recorded.
        return JSONResponse({"detail": _one_line(exc)}, status_code=507 if isinstance(exc, StoreFull) else 503)

    @app.exception_handler(sqlite3.Error)
    async def database_error(request: Request, exc: sqlite3.Error) -> JSONResponse:
        log.error("the match record failed: %s", exc)
        return JSONResponse({"detail": f"the match record cannot be read: {_one_line(exc)}"}, status_code=503)

    @app.exception_handler(Exception)
    async def unexpected(request: Request, exc: Exception) -> JSONResponse:
        # Logged in full for the operator; the client gets one line that names no server path.
        log.exception("unexpected error on %s %s", request.method, request.url.path)
        return JSONResponse({"detail": f"internal error ({type(exc).__name__}); see the service log"}, status_code=500)

    return app


def _one_line(exc: object) -> str:
    text = " ".join(str(exc).split())
    return text if len(text) <= 300 else text[:297] + "..."


def _match_video(source: str) -> Path | None:
    path = Path(source)
    if path.is_dir():
        path = path / "video.mp4"
    if path.suffix == ".jsonl" or not path.is_file():
        return None
    return path
