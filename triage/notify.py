"""Post findings to a webhook (Slack's incoming webhooks and the chat tools that accept their
format: Mattermost, Rocket.Chat, Discord's `/slack` endpoint, Zulip's Slack-compatible one).

One JSON object per message, `{"text": "..."}`, sent from a background thread so that a slow or
dead endpoint never holds up training: each message is tried up to `tries` times, with `timeout`
seconds per try and a doubling pause between tries (a `Retry-After` from HTTP 429 is honoured,
up to a bound). Network errors, timeouts, HTTP 429 and 5xx are retried; other HTTP errors (a
wrong or revoked URL) are not. A webhook URL is a secret (whoever has it can post to the
channel): it is never printed. Messages name only its scheme and host, and `env:NAME` reads the
URL from an environment variable so it stays out of shell history and process lists.
"""

from __future__ import annotations

import json
import os
import queue
import sys
import threading
import time
import urllib.error
import urllib.request
from typing import Callable
from urllib.parse import urlsplit

from triage.errors import TriageError

MAX_RETRY_AFTER = 10.0


class NotifyError(TriageError, ValueError):
    """A webhook setting that cannot work (one line, no secret in it)."""


def resolve_url(url: str) -> str:
    """The webhook URL from `url` or, for `env:NAME`, from that environment variable."""
    url = str(url or "").strip()
    if url.startswith("env:"):
        name = url[4:].strip()
        value = os.environ.get(name, "").strip()
        if not value:
            raise NotifyError(f"notify: environment variable {name} is not set")
        url = value
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise NotifyError("notify: the webhook must be an http(s) URL (or env:NAME naming a variable that holds one)")
    return url


def redact(url: str) -> str:
    """What may be shown of a webhook URL: scheme and host (the path holds the token)."""
    try:
        p = urlsplit(url)
        host = p.hostname or "?"
        if p.port:
            host = f"{host}:{p.port}"
        return f"{p.scheme}://{host}/…"
    except ValueError:
        return "the webhook"


def slack_escape(text: str) -> str:
    """Slack reads &, < and > as markup (links, mentions): escape them as its docs ask."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def payload(text: str) -> bytes:
    return json.dumps({"text": slack_escape(text)}, ensure_ascii=False).encode("utf-8")


def _stderr(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


class Notifier:
    """Sends messages to one webhook in the background; `close()` waits (boundedly) for the rest."""

    def __init__(self, url: str, timeout: float = 5.0, tries: int = 3, backoff: float = 0.5,
                 warn: Callable[[str], None] | None = None, sleep: Callable[[float], None] = time.sleep):
        self.url = resolve_url(url)
        self.where = redact(self.url)
        self.timeout = float(timeout)
        self.tries = max(1, int(tries))
        self.backoff = float(backoff)
        self.warn = warn or _stderr
        self.sleep = sleep
        self.sent = 0
        self.failed = 0
        self._queue: queue.Queue = queue.Queue()
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()

    # -- public ----------------------------------------------------------------------------------
    def post(self, text: str) -> None:
        """Queue one message; returns at once."""
        with self._lock:
            if self._thread is None:
                self._thread = threading.Thread(target=self._work, name="triage-notify", daemon=True)
                self._thread.start()
        self._queue.put(text)

    def close(self, wait: float | None = None) -> None:
        """Send what is queued, waiting at most `wait` seconds (default: one message's worst case)."""
        if self._thread is None:
            return
        self._queue.put(None)
        limit = self.worst_case() if wait is None else wait
        self._thread.join(max(0.0, limit))
        if self._thread.is_alive():
            self.warn(f"triage: notify: gave up waiting for {self.where} ({self._queue.qsize()} message(s) not sent)")
        self._thread = None

    def worst_case(self) -> float:
        pauses = sum(min(self.backoff * 2 ** i, MAX_RETRY_AFTER) for i in range(self.tries - 1))
        return self.tries * self.timeout + pauses + 1.0

    def send(self, text: str) -> bool:
        """Post one message now, with the retries; True when the endpoint accepted it."""
        body = payload(text)
        last = ""
        for attempt in range(self.tries):
            retry_after = None
            try:
                req = urllib.request.Request(self.url, data=body, method="POST",
                                             headers={"Content-Type": "application/json; charset=utf-8",
                                                      "User-Agent": "triage-notify"})
                with urllib.request.urlopen(req, timeout=self.timeout) as resp:  # noqa: S310 - http(s) only
                    resp.read(1 << 16)
                self.sent += 1
                return True
            except urllib.error.HTTPError as exc:
                last = f"HTTP {exc.code}"
                if exc.code != 429 and exc.code < 500:
                    break  # a wrong or revoked URL: trying again will not help
                retry_after = _retry_after(exc.headers.get("Retry-After") if exc.headers else None)
            except (urllib.error.URLError, OSError, ValueError) as exc:
                last = _reason(exc)
            if attempt + 1 < self.tries:
                pause = self.backoff * 2 ** attempt if retry_after is None else retry_after
                self.sleep(min(pause, MAX_RETRY_AFTER))
        self.failed += 1
        self.warn(f"triage: notify: {self.where} did not take a message ({last}; {attempt + 1} tries)")
        return False

    # -- the worker ------------------------------------------------------------------------------
    def _work(self) -> None:
        while True:
            text = self._queue.get()
            if text is None:
                return
            try:
                self.send(text)
            except Exception as exc:  # never let the thread die with messages queued
                self.failed += 1
                self.warn(f"triage: notify: {self.where}: {type(exc).__name__}")


def _retry_after(value) -> float | None:
    try:
        return max(0.0, float(value))
    except (TypeError, ValueError):
        return None


def _reason(exc: BaseException) -> str:
    """Why a request failed, in words that cannot carry the URL."""
    if isinstance(exc, TimeoutError) or "timed out" in str(exc).lower():
        return "timed out"
    reason = getattr(exc, "reason", None)
    if isinstance(reason, TimeoutError):
        return "timed out"
    if isinstance(reason, OSError) and reason.strerror:
        return reason.strerror.lower()
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror.lower()
    return type(exc).__name__
