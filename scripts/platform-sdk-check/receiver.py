"""Webhook receiver that checks every delivery with the platform SDK's own verifier.

Each POST is verified with ``fivexer.Webhook.construct_event`` against the raw body and the
``X-Fivexer-Signature`` header, exactly as an application built on that SDK would. A delivery
that verifies is answered 200; one that does not is answered 400 and recorded as a failure,
so the mock server's delivery log shows it too.

Used by drive.py in-process (``Receiver``), or on its own:

    python3 receiver.py --port 9000 --secret whsec_...

The SDK source is not part of this repository; see README.md for how to get it.
"""

from __future__ import annotations

import argparse
import json
import threading
import time
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from fivexer import SIGNATURE_HEADER, SignatureVerificationError, Webhook


@dataclass
class Delivery:
    """One POST that reached the receiver and what the SDK's verifier said about it."""

    path: str
    event: str | None
    verified: bool
    error: str | None
    body: bytes


class Receiver:
    """A loopback HTTP server that verifies and records webhook deliveries."""

    def __init__(self, secret: str, host: str = "127.0.0.1", port: int = 0) -> None:
        self.secret = secret
        self._lock = threading.Lock()
        self._deliveries: list[Delivery] = []
        self._arrived = threading.Condition(self._lock)
        self._server = ThreadingHTTPServer((host, port), self._handler_class())
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}/hooks"

    def start(self) -> Receiver:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    def deliveries(self) -> list[Delivery]:
        with self._lock:
            return list(self._deliveries)

    def wait_for(self, count: int, timeout: float = 10.0) -> list[Delivery]:
        """Block until at least ``count`` deliveries arrived (or ``timeout`` passes)."""
        deadline = time.monotonic() + timeout
        with self._arrived:
            while len(self._deliveries) < count:
                left = deadline - time.monotonic()
                if left <= 0:
                    break
                self._arrived.wait(left)
            return list(self._deliveries)

    def _record(self, delivery: Delivery) -> None:
        with self._arrived:
            self._deliveries.append(delivery)
            self._arrived.notify_all()

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 (http.server naming)
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length)
                header = self.headers.get(SIGNATURE_HEADER) or ""
                try:
                    event = Webhook.construct_event(body, header, receiver.secret)
                    delivery = Delivery(self.path, event.event, True, None, body)
                except SignatureVerificationError as err:
                    delivery = Delivery(self.path, _event_name(body), False, f"signature: {err}", body)
                except (ValueError, UnicodeDecodeError) as err:
                    delivery = Delivery(self.path, None, False, f"payload: {err}", body)
                receiver._record(delivery)
                self.send_response(200 if delivery.verified else 400)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, format: str, *args: object) -> None:  # keep the run's output readable
                return

        return Handler


def _event_name(body: bytes) -> str | None:
    try:
        parsed = json.loads(body)
    except ValueError:
        return None
    return parsed.get("event") if isinstance(parsed, dict) else None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=9000)
    parser.add_argument("--secret", required=True, help="the mock server's signing secret")
    args = parser.parse_args()
    receiver = Receiver(args.secret, port=args.port).start()
    print(f"listening on {receiver.url}", flush=True)
    seen = 0
    try:
        while True:
            for d in receiver.wait_for(seen + 1, timeout=1.0)[seen:]:
                status = "verified" if d.verified else f"REJECTED ({d.error})"
                print(f"{d.event or '?'}: {status}", flush=True)
                seen += 1
    except KeyboardInterrupt:
        receiver.stop()


if __name__ == "__main__":
    main()
