"""The match the service observes: every record goes through here, into the store, then to the clients.

One lock orders everything: the camera events of a video frame (from the runner) and an operator's input
(from an HTTP request) are each one step: fed to the referee, written to the store in one transaction with
the verdicts they caused and a ``state`` message when the summary changed, and only after the commit handed
to the stream hub. A restart rebuilds the referee and the live state by replaying the stored records.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable
from typing import Any

from api.service.hub import StreamHub
from api.service.live import LiveState
from api.service.referee import RefereeSession, open_referee
from api.service.warnings import position_warnings
from api.store import Message, Store, Transaction
from calibration.contract import Event
from calibration.table import TableModel


class InputRejected(ValueError):
    """An operator input the referee refuses in the current state; nothing was recorded."""


class MatchService:
    def __init__(
        self,
        store: Store,
        *,
        source: str,
        game: str,
        players: dict[str, str] | None = None,
        table: TableModel | None = None,
        calibration: dict[str, Any] | None = None,
        resume: bool = True,
        referee_factory: Callable[[str], RefereeSession | None] = open_referee,
        client_limit: int = 2000,
    ) -> None:
        self.store = store
        self.game = game
        self.table = table or TableModel()
        self.calibration = calibration or {"status": "none"}
        self._referee_factory = referee_factory
        self.match = store.open_match(source, game, players or {"A": "A", "B": "B"}, resume=resume)
        self.resumed = store.last_seq(self.match.id) > 0
        self.hub = StreamHub(self._read, client_limit=client_limit)
        self.source_info: dict[str, Any] = {"status": "starting"}
        # shot -> why its verdict needs a referee's review (the camera was lost or dropped frames during it)
        self.review_reasons: dict[int, dict[str, str]] = {}  # shot -> {what: reason}
        self._lock = threading.RLock()
        # Called with each operator input once it is stored (the runner passes renames to the pipeline).
        self.input_hooks: list[Callable[[Event], None]] = []
        self._rebuild()

    # ---- reading ----------------------------------------------------------------------------------
    def _read(self, after: int, limit: int) -> list[Message]:
        return self.store.messages(self.match.id, after, limit)

    @property
    def match_id(self) -> int:
        return self.match.id

    @property
    def progress_frame(self) -> int:
        return self.store.match(self.match.id).progress_frame

    @property
    def referee_available(self) -> bool:
        return self.referee is not None

    # ---- rebuilding after a restart -----------------------------------------------------------------
    def _rebuild(self) -> None:
        self.referee = self._referee_factory(self.game)
        self.live = LiveState(players=dict(self.match.players))
        self._last_summary: dict[str, Any] | None = None
        self.referee_errors: list[str] = []
        self.source_names: dict[str, str] = {}
        after = 0
        while True:
            page = self.store.messages(self.match.id, after, 1000)
            for msg in page:
                if msg.kind in ("event", "input"):
                    if self.referee is not None:
                        try:  # the verdicts are already stored
                            out = self.referee.feed(Event.model_validate(msg.data))
                        except ValueError as exc:
                            out = None
                            self._note_referee_error(Event.model_validate(msg.data), exc)
                    self.live.apply_event(msg.data)
                    if self.referee is not None and out == [] and msg.data.get("type") == "concede":
                        self._frame_result_from_referee()
                    if msg.kind == "input" and msg.data.get("type") == "rename":
                        self._note_rename(str(msg.data["ball"]), str(msg.data["to"]))
                elif msg.kind == "verdict":
                    self.live.apply_verdict(msg.data)
                elif msg.kind == "state":
                    self._last_summary = msg.data
                after = msg.seq
            if len(page) < 1000:
                break

    # ---- writing ---------------------------------------------------------------------------------------
    def ingest(
        self,
        frame: int,
        events: Iterable[Event],
        *,
        t: float | None = None,
        positions: dict[str, tuple[float, float]] | None = None,
    ) -> list[Message]:
        """The records a source produced at one video frame (camera events, or inputs from a log), the ball
        positions the tracker holds then (when they changed), then the source's progress. Returns the
        messages published."""
        with self._lock:
            try:
                with self.store.transaction() as tx:
                    if positions:
                        tx.positions(self.match.id, frame, t, positions)
                    for ev in events:
                        self._record(tx, ev, origin="source")
                    due = getattr(self.referee, "placement_due", None)
                    if due is not None and not self.live.moving:
                        warned = due(positions, t)  # 001 2.1.5в: the referee's own warning, before the stroke
                        if warned is not None:
                            self._record(tx, warned, origin="referee")
                    self._maybe_state(tx)
                    tx.progress(self.match.id, frame)
            except BaseException:
                self._rebuild()
                raise
            self.live.video_frame = frame
            if t is not None:
                self.live.t = t
            self.hub.publish(tx.messages)
            return tx.messages

    def post_input(self, ev: Event) -> list[Message]:
        """An operator's input. Raises InputRejected (and records nothing) when the referee refuses it."""
        if not ev.is_input:
            raise InputRejected(f"'{ev.type}' is a camera event, not an operator input")
        with self._lock:
            if ev.shot is None:
                ev = ev.model_copy(update={"shot": self.live.default_input_shot(ev.type)})
            try:
                with self.store.transaction() as tx:
                    self._record(tx, ev, origin="operator")
                    self._maybe_state(tx)
            except BaseException:
                self._rebuild()
                raise
            if ev.type == "rename":
                self._note_rename(str(ev.ball), str(ev.to))
            self.hub.publish(tx.messages)
            for hook in self.input_hooks:
                hook(ev)
            return tx.messages

    def _note_rename(self, old: str, new: str) -> None:
        """Keep ``source_names`` (the id a recorded source uses -> the id it has now) up to date."""
        names = dict(self.source_names)
        raw = [r for r, cur in names.items() if cur == old]
        if old not in names:
            raw.append(old)
        for r in raw:
            names[r] = new
        self.source_names = {r: cur for r, cur in names.items() if r != cur}

    def source_event(self, ev: Event) -> Event:
        """A record of a recorded source (an event log) with the operator's renames applied: the log was
        written with the ids the camera gave, the match goes on with the corrected ones."""
        names = self.source_names
        if not names:
            return ev
        upd: dict[str, Any] = {}
        if ev.ball is not None and ev.ball in names:
            upd["ball"] = names[ev.ball]
        if ev.balls is not None and any(b in names for b in ev.balls):
            upd["balls"] = tuple(names.get(b, b) for b in ev.balls)
        if ev.positions is not None and any(b in names for b in ev.positions):
            upd["positions"] = {names.get(b, b): p for b, p in ev.positions.items()}
        return ev.model_copy(update=upd) if upd else ev

    def note_looks(self, looks: dict[str, str]) -> None:
        """What the balls the camera could not number look like now (the observer's colour words); the next
        ``state`` message carries a change to every page."""
        with self._lock:
            self.live.looks = dict(looks)

    def flag_shot(self, shot: int, reason: str, what: str | None = None) -> None:
        """The shot's verdict (when it comes, and every amended one) is flagged for review, ``reason`` in its
        notes: the observer did not see all of it. A later reason about the same ``what`` replaces the
        earlier one (a count of dropped frames that grows)."""
        with self._lock:
            self.review_reasons.setdefault(shot, {})[what or reason] = reason

    def note_source(self, source: dict[str, Any]) -> None:
        """The source's condition as the stream shows it (a ``state`` message when it changes): live,
        reconnecting, ended early."""
        with self._lock:
            if source == self.live.source:
                return
            self.live.source = dict(source)
            with self.store.transaction() as tx:
                self._maybe_state(tx)
            self.hub.publish(tx.messages)

    def finish(self, status: str = "finished") -> None:
        with self._lock:
            self.store.set_match_status(self.match.id, status)
            self.source_info["status"] = status

    def _record(self, tx: Transaction, ev: Event, *, origin: str) -> None:
        mid = self.match.id
        data = ev.to_dict()
        if ev.is_input:
            tx.input(mid, data, origin)
            self.live.apply_event(data)
            if ev.type == "frame_start":
                tx.game_frame(mid, self.live.game_frame, ev.game or self.game, ev.breaker, self.live.next_shot)
        else:
            tx.event(mid, data)
            if ev.type == "shot_start" and ev.shot is not None:
                frame_no = self.live.game_frame + (1 if self.live.frame_over else 0)
                if not self.store.game_frames(mid) and frame_no == 1:
                    tx.game_frame(mid, 1, self.game, None, ev.shot)
                elif self.live.frame_over:
                    tx.game_frame(mid, frame_no, self.game, None, ev.shot)
                tx.shot_started(mid, ev.shot, frame_no, data)
            elif ev.type == "shot_end":
                shot = ev.shot if ev.shot is not None else self.live.shot
                if shot is not None:
                    tx.shot_ended(mid, shot, data)
            self.live.apply_event(data)
        if self.referee is None:
            return
        try:
            verdicts = self.referee.feed(ev)
        except ValueError as exc:
            if origin == "operator":
                raise InputRejected(str(exc)) from exc
            # A camera record the referee cannot place stays recorded (it is what the camera saw) and is
            # reported on /state; the referee carries on with the next one.
            self._note_referee_error(ev, exc)
            return
        for v in verdicts:
            reasons = self.review_reasons.get(v.get("shot")) if isinstance(v.get("shot"), int) else None
            if reasons:
                v = {**v, "review": True, "notes": [*(v.get("notes") or []), *reasons.values()]}
            tx.verdict(mid, v, self.live.game_frame)
            self.live.apply_verdict(v)
        if ev.type == "concede" and not verdicts:
            self._frame_result_from_referee()

    def _frame_result_from_referee(self) -> None:
        """A frame conceded before its first stroke has no shot whose verdict could carry the result (001
        1.5.5): the score, the winner and the frame's end are taken from the referee's own state."""
        snap = self.referee.snapshot() if self.referee is not None else None
        if snap and snap.get("frame_over"):
            self.live.end_frame(snap.get("score") or {}, snap.get("winner"))

    def _note_referee_error(self, ev: Event, exc: ValueError) -> None:
        self.referee_errors.append(f"{ev.type} at frame {ev.frame}: {exc}")
        del self.referee_errors[:-20]

    def _maybe_state(self, tx: Transaction) -> None:
        summary = self.live.summary()
        if summary != self._last_summary:
            tx.append(self.match.id, "state", summary)
            self._last_summary = summary

    # ---- the state page ----------------------------------------------------------------------------------
    def state(self) -> dict[str, Any]:
        with self._lock:
            live = self.live
            positions = dict(live.positions)
            out: dict[str, Any] = {
                "match": self.match.id,
                "game": self.game,
                "players": dict(live.players),  # as the last frame_start named them
                "calibration": dict(self.calibration),
                "seq": self.store.last_seq(self.match.id),
                "video_frame": live.video_frame,
                "t": live.t,
                **live.summary(),
                "source": {**live.source, **self.source_info},
                "balls": [{"id": b, "pos": [round(p[0], 1), round(p[1], 1)]} for b, p in sorted(positions.items())],
                "last_verdict": live.last_verdict,
                "referee": "on" if self.referee is not None else "not available in this build",
                "referee_errors": list(self.referee_errors),
            }
            snap = self.referee.snapshot() if self.referee is not None else None
            if snap:
                out["referee_state"] = snap
            in_hand = bool(snap and snap.get("ball_in_hand"))
            out["warnings"] = [] if live.moving else position_warnings(self.table, positions, self.game, in_hand)
            return out
