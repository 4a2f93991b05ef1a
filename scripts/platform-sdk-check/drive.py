"""Drive the mock server with the platform's own Python SDK and report what does not fit.

Starts the mock server binary with a webhook receiver (receiver.py) that verifies every
delivery with the SDK's verifier, then calls every operation the mock server serves through
the SDK, on both planes: the workspace plane with the API key, and the worker plane after
giving a worker a sign-in and logging in with the SDK's worker client. Each call must be
parsed by the SDK without an exception, and the values must make sense (a created task is
read back with the same tags, a queue holds the task just offered, ...).

For every failure it prints the operation, what the SDK sent, what the mock server answered
and what the SDK raised. Exit status: 0 when everything passed, 1 otherwise.

    python3 drive.py --mockserver ./mockserver [--json report.json] [--verbose]

The SDK source (package ``fivexer``) must be importable; see README.md.
"""

from __future__ import annotations

import argparse
import json
import secrets
import subprocess
import sys
import traceback
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import httpx

from fivexer import (
    NULL_POLICY,
    CreateTask,
    EscalationPolicy,
    SlaPolicy,
    TaskReferenceInput,
    CreateWorkerIdentity,
    Fivexer,
    FivexerApiError,
    FivexerWorker,
    ListDecisionsQuery,
    ListTasksQuery,
    PatchWorker,
    SuggestWorkers,
    UpdateTaskInput,
    UpsertWorker,
    WorkerLogin,
)
from fivexer import _specs as specs
from receiver import Receiver

# Every operation the mock server serves, by its catalogue id, with the call that reaches it.
OPERATIONS = [
    ("tasks.create", "POST /tasks"),
    ("tasks.get", "GET /tasks/{id}"),
    ("tasks.list", "GET /tasks"),
    ("tasks.cancel", "DELETE /tasks/{id}"),
    ("tasks.accept", "POST /tasks/{id}/accept"),
    ("tasks.reject", "POST /tasks/{id}/reject"),
    ("tasks.complete", "POST /tasks/{id}/complete"),
    ("tasks.assign", "POST /tasks/{id}/assign"),
    ("tasks.setPriority", "PATCH /tasks/{id}"),
    ("tasks.update", "PATCH /tasks/{id}"),
    ("tasks.suggestWorkers", "POST /tasks/suggest-workers"),
    ("workers.upsert", "POST /workers"),
    ("workers.patch", "PATCH /workers/{id}"),
    ("workers.get", "GET /workers/{id}"),
    ("workers.list", "GET /workers"),
    ("workers.setAvailability", "POST /workers/{id}/availability"),
    ("workers.queue", "GET /workers/{id}/queue"),
    ("workers.remove", "DELETE /workers/{id}"),
    ("decisions.list", "GET /decisions"),
    ("learning.status", "GET /learning/status"),
    ("learning.workerStats", "GET /learning/workers/{id}"),
    ("identities.create", "POST /workers/{workerId}/identity"),
    ("identities.remove", "DELETE /workers/{workerId}/identity"),
    ("worker.login", "POST /worker-auth/login"),
    ("worker.logout", "POST /worker-auth/logout"),
    ("worker.me", "GET /portal/me"),
    ("worker.setAvailability", "POST /portal/me/availability"),
    ("worker.queue", "GET /portal/workers/{id}/queue"),
    ("worker.taskDetail", "GET /portal/tasks/{id}"),
    ("worker.accept", "POST /portal/tasks/{id}/accept"),
    ("worker.reject", "POST /portal/tasks/{id}/reject"),
    ("worker.complete", "POST /portal/tasks/{id}/complete"),
    ("worker.startBreak", "POST /portal/breaks/start"),
    ("worker.endBreak", "POST /portal/breaks/end"),
    ("webhooks", "signed deliveries, verified by the SDK"),
    ("quota headers", "X-Quota-* on every workspace answer"),
    ("idempotency", "Idempotency-Key replay and conflict"),
    ("retry on 503", "fault 503 + Retry-After, SDK retries once"),
    ("rate limit", "fault 429 + Retry-After, no retry"),
]

PIN = "4921"  # a made-up PIN for a throwaway sandbox worker


class CheckFailed(Exception):
    """A value the SDK parsed does not make sense."""


def need(condition: bool, message: str) -> None:
    if not condition:
        raise CheckFailed(message)


def is_iso(value: Any) -> bool:
    """An ISO-8601 timestamp string, as the platform sends break and identity times."""
    if not isinstance(value, str):
        return False
    try:
        datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return False
    return True


@dataclass
class Exchange:
    method: str
    url: str
    request_body: str
    status: int | None = None
    response_body: str = ""


class Recorder:
    """httpx event hooks that keep the HTTP exchanges of the current step, secrets redacted."""

    def __init__(self) -> None:
        self.exchanges: list[Exchange] = []

    def hooks(self) -> dict[str, list[Callable[..., None]]]:
        return {"request": [self._on_request], "response": [self._on_response]}

    def _on_request(self, request: httpx.Request) -> None:
        self.exchanges.append(Exchange(request.method, str(request.url), _redact(request.content)))

    def _on_response(self, response: httpx.Response) -> None:
        response.read()
        if self.exchanges:
            self.exchanges[-1].status = response.status_code
            self.exchanges[-1].response_body = _redact(response.content)


def _redact(raw: bytes) -> str:
    """The body as text, with PINs and session tokens masked (they are credentials)."""
    text = raw.decode("utf-8", "replace")
    try:
        parsed = json.loads(text)
    except ValueError:
        return text
    if isinstance(parsed, dict):
        for key in ("pin", "token"):
            if key in parsed:
                parsed[key] = "<redacted>"
    return json.dumps(parsed, separators=(",", ":"))


@dataclass
class Outcome:
    op: str
    ok: bool
    note: str = ""
    exchanges: list[Exchange] = field(default_factory=list)
    absent: set[str] = field(default_factory=set)
    unread: set[str] = field(default_factory=set)


class Run:
    """Calls operations through the SDK and keeps one outcome per call."""

    def __init__(self, recorder: Recorder, shapes: ShapeLog, verbose: bool) -> None:
        self.recorder = recorder
        self.shapes = shapes
        self.verbose = verbose
        self.outcomes: list[Outcome] = []

    def call(self, op: str, action: Callable[[], Any], check: Callable[[Any], None] | None = None) -> Any:
        """Run one SDK call that should succeed; ``check`` inspects the parsed value."""
        self.recorder.exchanges = []
        self.shapes.reset()
        try:
            value = action()
            if check is not None:
                check(value)
        except FivexerApiError as err:
            self._fail(op, f"SDK raised FivexerApiError status={err.status_code} code={err.code}: {err}")
            return None
        except CheckFailed as err:
            self._fail(op, f"value check: {err}")
            return None
        except Exception as err:  # a parse error in the SDK is exactly what this run looks for
            self._fail(op, f"SDK raised {type(err).__name__}: {err}\n{_last_frame(err)}")
            return None
        self._pass(op)
        return value

    def refused(self, op: str, action: Callable[[], Any], status: int, code: str) -> None:
        """Run one SDK call that the server should refuse with ``status`` and ``code``."""
        self.recorder.exchanges = []
        self.shapes.reset()
        try:
            action()
        except FivexerApiError as err:
            if err.status_code == status and err.code == code:
                self._pass(op)
            else:
                self._fail(op, f"expected {status} {code}, SDK raised {err.status_code} {err.code}: {err}")
            return
        except Exception as err:
            self._fail(op, f"expected {status} {code}, SDK raised {type(err).__name__}: {err}")
            return
        self._fail(op, f"expected {status} {code}, the call succeeded")

    def note(self, op: str, ok: bool, note: str) -> None:
        (self._pass if ok else self._fail)(op, note)

    def _pass(self, op: str, note: str = "") -> None:
        self.outcomes.append(Outcome(op, True, note, [], set(self.shapes.absent), self.shapes.unread()))
        if self.verbose:
            print(f"  ok   {op}")

    def _fail(self, op: str, note: str) -> None:
        self.outcomes.append(
            Outcome(op, False, note, list(self.recorder.exchanges), set(self.shapes.absent), self.shapes.unread())
        )
        if self.verbose:
            print(f"  FAIL {op}: {note.splitlines()[0]}")


def _last_frame(err: BaseException) -> str:
    """Where in the SDK the exception came from (its innermost frame in the fivexer package)."""
    frames = [f for f in traceback.extract_tb(err.__traceback__) if "/fivexer/" in f.filename]
    if not frames:
        return ""
    f = frames[-1]
    return f"  at {f.filename.rsplit('/', 2)[-2:]}:{f.lineno} {f.line}"


# ─────────────────────────── which members the SDK reads ───────────────────────────


class Tracked(dict):
    """A JSON object that remembers which members the SDK's parsers looked up.

    The SDK's models default every optional member, so a member the mock server leaves out (or
    names differently) parses without an error. Tracking the look-ups shows both sides: members
    the SDK asked for that were absent, and members the mock server sent that nothing read.
    """

    def __init__(self, data: dict[str, Any], path: str, log: "ShapeLog") -> None:
        super().__init__(data)
        self._path = path
        self._log = log
        log.seen(self)

    def _child(self, key: str, value: Any) -> Any:
        where = f"{self._path}.{key}" if self._path else key
        if isinstance(value, dict):
            return Tracked(value, where, self._log)
        if isinstance(value, list):
            return [Tracked(v, where + "[]", self._log) if isinstance(v, dict) else v for v in value]
        return value

    def get(self, key: str, default: Any = None) -> Any:
        self._log.read(self, key)
        return self._child(key, dict.get(self, key, default)) if key in self else default

    def __getitem__(self, key: str) -> Any:
        self._log.read(self, key)
        return self._child(key, dict.__getitem__(self, key))

    def items(self) -> Any:  # a model that copies every member (DecisionCandidate.detail) reads them all
        for key in dict.keys(self):
            self._log.read(self, key)
        return dict.items(self)


class ShapeLog:
    """Members read but absent, and members sent but never read, for the current step."""

    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        self._objects: list[Tracked] = []
        self._read: dict[int, set[str]] = {}
        self.absent: set[str] = set()

    def seen(self, obj: Tracked) -> None:
        self._objects.append(obj)
        self._read.setdefault(id(obj), set())

    def read(self, obj: Tracked, key: str) -> None:
        self._read.setdefault(id(obj), set()).add(key)
        if key not in obj:
            self.absent.add(f"{obj._path}.{key}" if obj._path else key)

    def unread(self) -> set[str]:
        out = set()
        for obj in self._objects:
            read = self._read.get(id(obj), set())
            if obj._path and not read:
                continue  # a free-form map (meta, context, result, weights) the SDK keeps whole
            for key in obj:
                if key not in self._read.get(id(obj), set()):
                    out.add(f"{obj._path}.{key}" if obj._path else key)
        return out


def _track(value: Any, log: ShapeLog) -> Any:
    if isinstance(value, dict):
        return Tracked(value, "", log)
    return value


class TrackedFivexer(Fivexer):
    """The SDK's workspace client, with every parsed answer tracked (transport unchanged)."""

    shapes: ShapeLog

    def _request(self, *args: Any, **kwargs: Any) -> Any:
        return _track(super()._request(*args, **kwargs), self.shapes)


class TrackedWorker(FivexerWorker):
    """The SDK's worker client, with every parsed answer tracked (transport unchanged)."""

    shapes: ShapeLog

    def _send(self, spec: Any) -> Any:
        return _track(super()._send(spec), self.shapes)


# ─────────────────────────────── the scenario ───────────────────────────────


def workers(run: Run, fx: Fivexer) -> str | None:
    """Upsert, get, list, patch and a dry-run match; returns the id the server made for a worker."""
    run.call(
        "workers.upsert",
        lambda: fx.workers.upsert(
            UpsertWorker(id="ana", tags=["billing", "german"], routing_weights={"billing": 1.5}, max_backlog_size=5, available=True)
        ),
        lambda wid: need(wid == "ana", f"upsert returned id {wid!r}, want 'ana'"),
    )
    run.call(
        "workers.upsert",
        lambda: fx.workers.upsert(UpsertWorker(id="bob", tags=["billing"], available=True)),
        lambda wid: need(wid == "bob", f"upsert returned id {wid!r}, want 'bob'"),
    )
    generated = run.call(
        "workers.upsert",
        lambda: fx.workers.upsert(UpsertWorker(tags=["english"], available=False)),
        lambda wid: need(bool(wid), "upsert without id returned no id"),
    )

    def check_ana(w: Any) -> None:
        need(w.id == "ana", f"id {w.id!r}")
        need(sorted(w.tags) == ["billing", "german"], f"tags {w.tags!r}")
        need(w.routing_weights == {"billing": 1.5}, f"routingWeights {w.routing_weights!r}")
        need(w.max_backlog_size == 5, f"maxBacklogSize {w.max_backlog_size!r}")
        need(w.available is True, f"available {w.available!r}")

    run.call("workers.get", lambda: fx.workers.get("ana"), check_ana)
    run.refused("workers.get", lambda: fx.workers.get("nobody"), 404, "not_found")

    def check_list(lst: Any) -> None:
        need({"ana", "bob"} <= set(lst.workers), f"workers {lst.workers!r}")
        need(lst.count == len(lst.workers), f"count {lst.count} for {len(lst.workers)} ids")

    run.call("workers.list", fx.workers.list, check_list)
    run.call(
        "workers.patch",
        lambda: fx.workers.patch("bob", PatchWorker(tags=["billing", "english"])),
        lambda wid: need(wid == "bob", f"patch returned id {wid!r}"),
    )
    run.call(
        "workers.get",
        lambda: fx.workers.get("bob"),
        lambda w: need(sorted(w.tags) == ["billing", "english"], f"patched tags {w.tags!r}"),
    )

    def check_suggest(res: Any) -> None:
        need(res.tags == ["billing"], f"tags {res.tags!r}")
        found = {w.worker_id: w for w in res.workers}
        need({"ana", "bob"} <= set(found), f"workers {sorted(found)!r}")
        need(found["ana"].eligible and found["bob"].eligible, "ana and bob should both be eligible")

    run.call("tasks.suggestWorkers", lambda: fx.tasks.suggest_workers(SuggestWorkers(tags=["billing"], limit=10)), check_suggest)
    return generated


def task_lifecycle(run: Run, fx: Fivexer) -> None:
    """Create, read, offer, accept, complete, reject, assign, reprioritise, edit, cancel, list."""
    # A task only ana can take: matched to her at once.
    run.call(
        "tasks.create",
        lambda: fx.tasks.create(
            CreateTask(
                tags=["billing", "german"],
                id="t_invoice",
                priority=5,
                meta={"customer": "c_42"},
                title="Refund invoice 2024-118",
                description="Customer was charged twice",
            )
        ),
        lambda t: need(t.id == "t_invoice" and t.status in ("queued", "pending"), f"created {t.id!r} {t.status!r}"),
    )

    def check_invoice(t: Any) -> None:
        need(sorted(t.tags) == ["billing", "german"], f"tags {t.tags!r}")
        need(t.priority == 5, f"priority {t.priority!r}")
        need(t.meta == {"customer": "c_42"}, f"meta {t.meta!r}")
        need(t.title == "Refund invoice 2024-118", f"title {t.title!r}")
        need(t.status == "pending" and t.worker_id == "ana", f"status {t.status!r} worker {t.worker_id!r}")
        need(isinstance(t.created_at, int), f"createdAt {t.created_at!r} is not epoch ms")

    run.call("tasks.get", lambda: fx.tasks.get("t_invoice"), check_invoice)
    run.refused("tasks.get", lambda: fx.tasks.get("t_missing"), 404, "not_found")
    run.refused("tasks.create", lambda: fx.tasks.create(CreateTask(tags=["billing"], id="t_invoice")), 409, "task_exists")
    run.refused("tasks.create", lambda: fx.tasks.create(CreateTask(tags=[])), 400, "validation_failed")
    run.call(
        "workers.get",
        lambda: fx.workers.get("ana"),
        lambda w: need(w.queue_depth == 1, f"queueDepth {w.queue_depth} with t_invoice offered to ana"),
    )
    run.call(
        "workers.queue",
        lambda: fx.workers.queue("ana"),
        lambda q: need(q.worker_id == "ana" and "t_invoice" in q.task_ids, f"queue {q!r}"),
    )

    def check_decisions(ds: Any) -> None:
        need(len(ds) >= 1, "no decision for t_invoice")
        d = ds[0]
        need(d.task_id == "t_invoice" and d.worker_id == "ana", f"decision {d.task_id!r} -> {d.worker_id!r}")
        need(isinstance(d.matched_at, int) and d.matched_at > 0, f"matchedAt {d.matched_at!r}")
        need(any(c.worker_id == "ana" for c in d.candidates), f"candidates {[c.worker_id for c in d.candidates]!r}")

    run.call("decisions.list", lambda: fx.decisions.list(ListDecisionsQuery(task_id="t_invoice", limit=5)), check_decisions)
    run.call(
        "decisions.list",
        lambda: fx.decisions.list(ListDecisionsQuery(worker_id="ana")),
        lambda ds: need(all(d.worker_id == "ana" for d in ds) and ds, f"{len(ds)} decisions, not all ana's"),
    )
    run.call(
        "tasks.accept",
        lambda: fx.tasks.accept("t_invoice", "ana"),
        lambda a: need(a.id == "t_invoice" and a.status == "accepted", f"accept answered {a!r}"),
    )
    run.call(
        "tasks.complete",
        lambda: fx.tasks.complete("t_invoice", "ana", {"refunded": True, "amount": 19.9}),
        lambda a: need(a.id == "t_invoice" and a.status == "completed", f"complete answered {a!r}"),
    )
    run.refused("tasks.accept", lambda: fx.tasks.accept("t_invoice", "ana"), 409, "invalid_state")

    # Offered to somebody, rejected, then offered to the other.
    run.call("tasks.create", lambda: fx.tasks.create(CreateTask(tags=["billing"], id="t_callback", priority=2)))
    first = run.call("tasks.get", lambda: fx.tasks.get("t_callback"), lambda t: need(t.worker_id in ("ana", "bob"), f"offered to {t.worker_id!r}"))
    if first is not None and first.worker_id:
        other = "bob" if first.worker_id == "ana" else "ana"
        run.call(
            "tasks.reject",
            lambda: fx.tasks.reject("t_callback", first.worker_id),
            lambda a: need(a.id == "t_callback" and a.status in ("queued", "pending"), f"reject answered {a!r}"),
        )
        run.call(
            "tasks.get",
            lambda: fx.tasks.get("t_callback"),
            lambda t: need(t.worker_id == other, f"after the reject offered to {t.worker_id!r}, want {other!r}"),
        )

    # Directed offer, then priority and an in-place edit.
    run.call("tasks.create", lambda: fx.tasks.create(CreateTask(tags=["billing"], id="t_directed", vetoed_workers=[])))
    run.call(
        "tasks.assign",
        lambda: fx.tasks.assign("t_directed", "bob", force=True),
        lambda r: need(r.id == "t_directed" and r.worker_id == "bob" and r.status == "pending", f"assign answered {r!r}"),
    )
    run.call(
        "tasks.setPriority",
        lambda: fx.tasks.set_priority("t_directed", 9),
        lambda p: need(p.id == "t_directed" and p.priority == 9, f"setPriority answered {p!r}"),
    )

    def check_update(r: Any) -> None:
        need(r.id == "t_directed", f"id {r.id!r}")
        need(sorted(r.tags) == ["billing", "english"], f"tags {r.tags!r}")
        need(r.requeued is False, f"requeued {r.requeued!r} although bob has both tags")

    run.call(
        "tasks.update",
        lambda: fx.tasks.update("t_directed", UpdateTaskInput(tags=["billing", "english"], title="Call back about the refund")),
        check_update,
    )
    run.call(
        "tasks.get",
        lambda: fx.tasks.get("t_directed"),
        lambda t: need(t.priority == 9 and sorted(t.tags) == ["billing", "english"], f"priority {t.priority!r} tags {t.tags!r}"),
    )

    # A task nobody can take stays queued; cancelling it answers 204.
    run.call("tasks.create", lambda: fx.tasks.create(CreateTask(tags=["french"], id="t_french")))
    run.call("tasks.cancel", lambda: fx.tasks.cancel("t_french"), lambda v: need(v is None, f"cancel answered {v!r}"))
    run.call("tasks.get", lambda: fx.tasks.get("t_french"), lambda t: need(t.status == "cancelled", f"status {t.status!r}"))

    def walk_pages() -> list[str]:
        seen: list[str] = []
        cursor = None
        for _ in range(10):
            page = fx.tasks.list(ListTasksQuery(status="all", cursor=cursor, limit=2))
            seen += [t.id for t in page.tasks]
            if not page.has_more:
                return seen
            need(page.next_cursor is not None, "hasMore without nextCursor")
            cursor = page.next_cursor
        raise CheckFailed("more than 10 pages for four tasks")

    run.call(
        "tasks.list",
        walk_pages,
        lambda ids_: need(ids_ == ["t_invoice", "t_callback", "t_directed", "t_french"], f"listed {ids_!r}"),
    )
    run.call(
        "tasks.list",
        lambda: fx.tasks.list(ListTasksQuery(status="pending")),
        lambda page: need(all(t.status == "pending" for t in page.tasks), f"statuses {[t.status for t in page.tasks]!r}"),
    )



def task_policies(run: Run, fx: Fivexer) -> None:
    """The platform's richer members: policies, rich data and geo on a task, network and geo on a worker."""
    run.call(
        "workers.upsert",
        lambda: fx.workers.upsert(UpsertWorker(id="cara", tags=["field"], available=True)),
        lambda wid: need(wid == "cara", f"upsert returned id {wid!r}"),
    )
    run.call(
        "workers.patch",
        lambda: fx.workers.patch(
            "cara", PatchWorker(ip="10.1.2.3", latitude=59.437, longitude=24.7536, max_travel_distance_km=25)
        ),
        lambda wid: need(wid == "cara", f"patch returned id {wid!r}"),
    )
    run.call(
        "workers.upsert",
        lambda: fx.workers.upsert(UpsertWorker(id="dan", tags=["english"], team_ids=[], locale="en", available=False)),
        lambda wid: need(wid == "dan", f"upsert returned id {wid!r}"),
    )
    run.call(
        "workers.get",
        lambda: fx.workers.get("dan"),
        lambda w: need(w.locale == "en" and w.available is False, f"locale {w.locale!r} available {w.available!r}"),
    )
    run.call(
        "tasks.create",
        lambda: fx.tasks.create(
            CreateTask(
                tags=["field"],
                id="t_site_visit",
                priority=3,
                escalation=EscalationPolicy(respond_within_ms=30_000, on_no_response="block", priority_boost=1),
                sla=SlaPolicy(complete_within_ms=3_600_000, max_rejections=3, on_max_rejections="park"),
                title="Site visit",
                context={"orderId": "41", "floor": 2},
                references=[TaskReferenceInput(url="https://crm.example/o/41", label="Order 41")],
            )
        ),
    )
    run.call(
        "tasks.create",
        lambda: fx.tasks.create(CreateTask(tags=["field"], id="t_geo", latitude=59.43, longitude=24.75, max_distance_km=10)),
    )
    run.call(
        "tasks.get",
        lambda: fx.tasks.get("t_geo"),
        lambda t: need((t.latitude, t.longitude, t.max_distance_km) == (59.43, 24.75, 10), f"geo {t.latitude!r} {t.longitude!r} {t.max_distance_km!r}"),
    )

    def check_policies(t: Any) -> None:
        need(t.escalation is not None and t.escalation.respond_within_ms == 30_000, f"escalation {t.escalation!r}")
        need(t.escalation.on_no_response == "block", f"onNoResponse {t.escalation.on_no_response!r}")
        need(t.sla is not None and t.sla.max_rejections == 3, f"sla {t.sla!r}")
        need(t.worker_id == "cara", f"offered to {t.worker_id!r}, want cara (the only field worker, 1 km away)")

    run.call("tasks.get", lambda: fx.tasks.get("t_site_visit"), check_policies)
    run.call("tasks.create", lambda: fx.tasks.create(CreateTask(tags=["field"], id="t_cidr", allowed_cidrs=["10.0.0.0/8"])))
    run.call(
        "tasks.get",
        lambda: fx.tasks.get("t_cidr"),
        lambda t: need(t.allowed_cidrs == ["10.0.0.0/8"] and t.worker_id == "cara", f"allowedCidrs {t.allowed_cidrs!r} worker {t.worker_id!r}"),
    )
    run.call("tasks.create", lambda: fx.tasks.create(CreateTask(tags=["field"], id="t_no_policy", escalation=NULL_POLICY)))
    run.call(
        "tasks.get",
        lambda: fx.tasks.get("t_no_policy"),
        lambda t: need(t.escalation is None, f"escalation {t.escalation!r} after an explicit null"),
    )



def availability_and_learning(run: Run, fx: Fivexer, generated: str | None) -> None:
    """Pause with a backlog release, resume, learning reads, and removing a worker."""

    def check_release(a: Any) -> None:
        need(a.id == "bob" and a.available is False, f"answer {a!r}")
        need(a.released_task_ids is not None and "t_directed" in a.released_task_ids, f"released {a.released_task_ids!r}")

    run.call("workers.setAvailability", lambda: fx.workers.set_availability("bob", False, release_backlog=True), check_release)
    run.call(
        "workers.setAvailability",
        lambda: fx.workers.set_availability("bob", True),
        lambda a: need(a.available is True and not a.released_task_ids, f"answer {a!r}"),
    )

    def check_status(s: Any) -> None:
        need(isinstance(s.enabled, bool), f"enabled {s.enabled!r}")
        need(s.stats is None or s.stats.decisions >= 1, f"stats {s.stats!r}")

    run.call("learning.status", fx.learning.status, check_status)
    run.call(
        "learning.workerStats",
        lambda: fx.learning.worker_stats("ana"),
        lambda st: need(st.worker_id == "ana", f"workerId {st.worker_id!r}"),
    )
    if generated:
        run.call("workers.remove", lambda: fx.workers.remove(generated), lambda v: need(v is None, f"remove answered {v!r}"))
        run.refused("workers.get", lambda: fx.workers.get(generated), 404, "not_found")


def transport(run: Run, fx: Fivexer, admin: httpx.Client, api_key: str) -> None:
    """What the SDK's transport relies on: quota headers, idempotency keys, Retry-After on faults."""
    auth = {"authorization": f"Bearer {api_key}"}

    def check_quota(_: Any) -> None:
        q = fx.quota
        need(q is not None, "no X-Quota-* headers parsed")
        need(all(v is not None for v in vars(q).values()), f"quota fields missing: {q!r}")

    run.call("quota headers", fx.workers.list, check_quota)

    # The same Idempotency-Key twice: the second answer is the first one, and one task exists.
    spec = specs.tasks_create(CreateTask(tags=["billing"], id="t_idem"))
    first = run.call("idempotency", lambda: fx._send(spec, idempotency_key="replay-key-1"))
    run.call(
        "idempotency",
        lambda: fx._send(spec, idempotency_key="replay-key-1"),
        lambda again: need(again == first, f"replay answered {again!r}, first answer {first!r}"),
    )
    other = specs.tasks_create(CreateTask(tags=["billing"], id="t_idem_other"))
    run.refused("idempotency", lambda: fx._send(other, idempotency_key="replay-key-1"), 409, "idempotency_conflict")

    # A 503 with Retry-After once: the SDK (one retry) waits, resends with the same key, succeeds.
    admin.post("/faults", headers=auth, json={"method": "POST", "path": "/tasks", "status": 503, "retryAfterMs": 1000, "times": 1})
    retrying = Fivexer(fx.base_url, api_key, http_client=fx._client, max_retries=1)
    run.call(
        "retry on 503",
        lambda: retrying.tasks.create(CreateTask(tags=["billing"], id="t_retried")),
        lambda t: need(t.id == "t_retried" and len(run.recorder.exchanges) == 2, f"{len(run.recorder.exchanges)} attempts"),
    )
    # A 429 without retries: the error carries the code and the Retry-After seconds.
    admin.post("/faults", headers=auth, json={"method": "GET", "path": "/tasks/*", "status": 429, "retryAfterMs": 2000, "times": 1})

    def rate_limited() -> None:
        try:
            fx.tasks.get("t_retried")
        except FivexerApiError as err:
            need((err.status_code, err.code, err.retry_after) == (429, "rate_limited", 2.0),
                 f"{err.status_code} {err.code} retry_after={err.retry_after!r}")
            need(err.quota is not None, "no quota snapshot on the 429")
            return
        raise CheckFailed("the 429 fault did not reach the SDK")

    run.call("rate limit", rate_limited)
    admin.delete("/faults", headers=auth)


def worker_plane(run: Run, fx: Fivexer, base_url: str, workspace_id: str, hooks: dict[str, Any]) -> None:
    """Give ana a sign-in, log in with the SDK's worker client and use every portal operation."""

    def check_identity(ident: Any) -> None:
        need(ident.worker_id == "ana", f"workerId {ident.worker_id!r}")
        need(ident.label == "Ana at desk 4", f"label {ident.label!r}")
        need(ident.has_pin is True, f"hasPin {ident.has_pin!r}")
        need(bool(ident.id), "no identity id")
        need(ident.status == "active", f"status {ident.status!r}")
        need(is_iso(ident.created_at), f"createdAt {ident.created_at!r} is not an ISO-8601 time")

    run.call("identities.create", lambda: fx.identities.create("ana", CreateWorkerIdentity(label="Ana at desk 4", pin=PIN)), check_identity)

    wk = TrackedWorker(base_url, http_client=httpx.Client(timeout=10, event_hooks=hooks), max_retries=0)
    wk.shapes = run.shapes
    run.refused("worker.login", lambda: wk.login(WorkerLogin(workspace_id, "ana", "0000")), 401, "invalid_credentials")
    run.call(
        "worker.login",
        lambda: wk.login(WorkerLogin(workspace_id, "ana", PIN)),
        lambda s: need(s.token.startswith("wt_"), "token is not a wt_ token"),
    )

    def check_me(me: Any) -> None:
        need(me.worker_id == "ana", f"workerId {me.worker_id!r}")
        need(me.available is True and me.on_break is False, f"available {me.available!r} onBreak {me.on_break!r}")

    run.call("worker.me", wk.me, check_me)
    run.call(
        "worker.setAvailability",
        lambda: wk.set_availability(False),
        lambda a: need(a.worker_id == "ana" and a.available is False, f"answer {a!r}"),
    )
    run.call(
        "worker.setAvailability",
        lambda: wk.set_availability(True),
        lambda a: need(a.worker_id == "ana" and a.available is True, f"answer {a!r}"),
    )
    # An unattended worker's liveness contract (staleAfterMs), sent only with available: true.
    run.call(
        "worker.setAvailability",
        lambda: wk.set_availability(True, stale_after_ms=120_000),
        lambda a: need(a.worker_id == "ana" and a.available is True, f"answer {a!r}"),
    )

    run.call("tasks.create", lambda: fx.tasks.create(CreateTask(tags=["german"], id="t_portal", title="Translate the letter", context={"pages": 2})))
    run.call("worker.queue", wk.queue, lambda q: need(q.worker_id == "ana" and "t_portal" in q.task_ids, f"queue {q!r}"))

    def check_detail(d: Any) -> None:
        need(d.id == "t_portal" and d.status == "pending", f"{d.id!r} {d.status!r}")
        need(d.tags == ["german"], f"tags {d.tags!r}")
        need(d.title == "Translate the letter", f"title {d.title!r}")

    run.call("worker.taskDetail", lambda: wk.task_detail("t_portal"), check_detail)
    run.refused("worker.taskDetail", lambda: wk.task_detail("t_callback_missing"), 404, "not_found")
    run.call("worker.accept", lambda: wk.accept("t_portal"), lambda a: need(a.status == "accepted", f"answer {a!r}"))
    run.call("worker.complete", lambda: wk.complete("t_portal", {"pages": 2}), lambda a: need(a.status == "completed", f"answer {a!r}"))

    run.call("tasks.create", lambda: fx.tasks.create(CreateTask(tags=["german"], id="t_portal2")))
    run.call("worker.reject", lambda: wk.reject("t_portal2"), lambda a: need(a.id == "t_portal2" and a.status in ("queued", "pending"), f"answer {a!r}"))

    def check_started(b: Any) -> None:
        need(b.worker_id == "ana" and b.on_break is True, f"answer {b!r}")
        need(is_iso(b.since), f"since {b.since!r} is not an ISO-8601 time")

    run.call("worker.startBreak", lambda: wk.start_break("lunch"), check_started)
    run.refused("worker.startBreak", lambda: wk.start_break(), 409, "break_already_open")
    run.call("worker.me", wk.me, lambda me: need(me.on_break is True and bool(me.break_started_at), f"onBreak {me.on_break!r} since {me.break_started_at!r}"))
    run.call(
        "worker.endBreak",
        wk.end_break,
        lambda b: need(b is not None and b.on_break is False and is_iso(b.ended_at), f"answer {b!r}"),
    )
    run.call("worker.endBreak", wk.end_break, lambda b: need(b is None, f"no break open, answer {b!r}"))
    run.call("worker.logout", wk.logout, lambda v: need(v is None and wk.session_token is None, "token kept after logout"))

    wk.set_token(None)
    run.call("worker.login", lambda: wk.login(WorkerLogin(workspace_id, "ana", PIN)))
    run.call("identities.remove", lambda: fx.identities.remove("ana"), lambda v: need(v is None, f"answer {v!r}"))
    run.refused("worker.me", wk.me, 401, "unauthorized")
    run.refused("identities.remove", lambda: fx.identities.remove("ana"), 404, "not_found")
    run.call("workers.remove", lambda: fx.workers.remove("bob"))


def check_webhooks(run: Run, admin: httpx.Client, api_key: str, receiver: Receiver) -> None:
    """Every event the server sent reached the receiver and verified with the SDK's verifier."""
    auth = {"authorization": f"Bearer {api_key}"}
    admin.post("/flush", headers=auth)
    events = admin.get("/events", headers=auth).json()["events"]
    got = receiver.wait_for(len(events))
    bad = [d for d in got if not d.verified]
    run.note("webhooks", bool(events), f"{len(events)} events sent")
    run.note("webhooks", len(got) >= len(events), f"{len(got)} deliveries received for {len(events)} events")
    for d in bad:
        run.note("webhooks", False, f"{d.event}: {d.error}; body {d.body[:300]!r}")
    kinds = sorted({d.event or "?" for d in got})
    print(f"webhooks: {len(events)} events, {len(got)} deliveries verified by the SDK: {len(got) - len(bad)}; kinds {kinds}")


# ─────────────────────────────── running it ───────────────────────────────


def start_mockserver(binary: str, webhook_url: str, secret: str) -> tuple[subprocess.Popen[str], dict[str, str]]:
    proc = subprocess.Popen(
        [binary, "-webhook-url", webhook_url, "-signing-secret", secret, "-seed", "7"],
        stdout=subprocess.PIPE,
        stderr=sys.stderr,
        text=True,
    )
    assert proc.stdout is not None
    line = proc.stdout.readline()
    if not line:
        proc.kill()
        raise SystemExit("the mock server printed no start line")
    return proc, json.loads(line)


def report(run: Run, json_path: str | None) -> int:
    by_op: dict[str, list[Outcome]] = {op: [] for op, _ in OPERATIONS}
    for o in run.outcomes:
        by_op.setdefault(o.op, []).append(o)
    failed = 0
    print("\noperation                  calls  result   route")
    routes = dict(OPERATIONS)
    for op, outs in by_op.items():
        if not outs:
            verdict = "NOT RUN"
        elif all(o.ok for o in outs):
            verdict = "pass"
        else:
            verdict = "FAIL"
            failed += 1
        print(f"{op:26} {len(outs):5}  {verdict:7}  {routes.get(op, '')}")
    for o in run.outcomes:
        if o.ok:
            continue
        print(f"\n--- {o.op}: {o.note}")
        for ex in o.exchanges:
            print(f"    sent     {ex.method} {ex.url} {ex.request_body}")
            print(f"    answered {ex.status} {ex.response_body[:600]}")
    print("\nmembers the SDK reads that the mock server did not send (absent), and members it sent that")
    print("the SDK never reads (unread), per operation; (n/m) = in n of its m calls:")
    for op, outs in by_op.items():
        if "." not in op or not outs:
            continue
        absent = Counter(k for o in outs for k in o.absent)
        unread = Counter(k for o in outs for k in o.unread)
        if absent or unread:
            print(f"  {op}")
            for label, counts in (("absent", absent), ("unread", unread)):
                if counts:
                    print(f"    {label}: " + ", ".join(f"{k} ({n}/{len(outs)})" for k, n in sorted(counts.items())))
    if json_path:
        with open(json_path, "w") as fh:
            rows = [
                o.__dict__
                | {"exchanges": [e.__dict__ for e in o.exchanges], "absent": sorted(o.absent), "unread": sorted(o.unread)}
                for o in run.outcomes
            ]
            json.dump(rows, fh, indent=1)
    total = len(by_op)
    print(f"\n{total - failed} of {total} operations and checks passed")
    return 1 if failed else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mockserver", default="./mockserver", help="path to the mock server binary")
    parser.add_argument("--json", help="also write every outcome as JSON here")
    parser.add_argument("--verbose", action="store_true")
    args = parser.parse_args()

    secret = "whsec_" + secrets.token_hex(16)
    receiver = Receiver(secret).start()
    proc, started = start_mockserver(args.mockserver, receiver.url, secret)
    try:
        url = started["url"].rstrip("/")
        base_url = url[: -len("/v1")] if url.endswith("/v1") else url
        recorder = Recorder()
        http = httpx.Client(timeout=10, event_hooks=recorder.hooks())
        fx = TrackedFivexer(base_url, started["apiKey"], http_client=http, max_retries=0)
        fx.shapes = ShapeLog()
        run = Run(recorder, fx.shapes, args.verbose)
        generated = workers(run, fx)
        task_lifecycle(run, fx)
        task_policies(run, fx)
        availability_and_learning(run, fx, generated)
        admin = httpx.Client(base_url=base_url + "/_mock", timeout=40)
        transport(run, fx, admin, started["apiKey"])
        worker_plane(run, fx, base_url, started["workspaceId"], recorder.hooks())
        check_webhooks(run, admin, started["apiKey"], receiver)
        return report(run, args.json)
    finally:
        proc.terminate()
        proc.wait(timeout=10)
        receiver.stop()


if __name__ == "__main__":
    sys.exit(main())
