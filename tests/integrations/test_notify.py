"""Webhook alerts (triage.notify) against a real HTTP server on localhost: the JSON a Slack-style
webhook expects, retries on 5xx and 429, a timeout on a server that hangs, no retry on 4xx, the
URL's secret never printed; and `watch --notify` / `Monitor(notify=)` post each finding once."""

from __future__ import annotations

import json
import math
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from typer.testing import CliRunner

from triage.cli import app
from triage.notify import Notifier, NotifyError, redact, resolve_url

SECRET = "T000/B000/s3cr3tT0ken"


class Hook:
    """A webhook endpoint: records each JSON body; answers from a script of status codes."""

    def __init__(self, script=(), delay: float = 0.0):
        self.bodies: list[dict] = []
        self.hits = 0
        self.script = list(script)
        self.delay = delay
        hook = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):  # noqa: N802 - http.server's name
                hook.hits += 1
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                if hook.delay:
                    time.sleep(hook.delay)
                code = hook.script.pop(0) if hook.script else 200
                if code == 200:
                    assert self.headers["Content-Type"].startswith("application/json")
                    hook.bodies.append(json.loads(body))
                self.send_response(code)
                if code == 429:
                    self.send_header("Retry-After", "0")
                self.end_headers()
                self.wfile.write(b"ok")

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/services/{SECRET}"

    def close(self):
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def hook():
    h = Hook()
    yield h
    h.close()


def test_a_message_is_slack_json_with_special_characters_escaped(hook):
    n = Notifier(hook.url)
    assert n.send("loss <NaN> & friends")
    assert hook.bodies == [{"text": "loss &lt;NaN&gt; &amp; friends"}]


def test_server_errors_and_rate_limits_are_retried():
    h = Hook(script=[500, 429, 200])
    pauses: list[float] = []
    try:
        n = Notifier(h.url, tries=3, sleep=pauses.append)
        assert n.send("hello")
        assert h.hits == 3 and len(h.bodies) == 1 and len(pauses) == 2
    finally:
        h.close()


def test_a_wrong_url_is_not_retried_and_its_secret_not_printed():
    h = Hook(script=[404, 404, 404])
    said: list[str] = []
    try:
        n = Notifier(h.url, tries=3, warn=said.append, sleep=lambda s: None)
        assert not n.send("hello")
        assert h.hits == 1
        assert len(said) == 1 and "HTTP 404" in said[0]
        assert SECRET not in said[0] and "services" not in said[0]
    finally:
        h.close()


def test_a_hanging_server_times_out_within_the_limit():
    h = Hook(delay=1.5)
    said: list[str] = []
    try:
        n = Notifier(h.url, timeout=0.2, tries=2, warn=said.append, sleep=lambda s: None)
        t0 = time.monotonic()
        assert not n.send("hello")
        assert time.monotonic() - t0 < 1.4
        assert "timed out" in said[0] and SECRET not in said[0]
    finally:
        h.close()


def test_a_refused_connection_is_reported_without_the_url():
    said: list[str] = []
    n = Notifier(f"http://127.0.0.1:9/hooks/{SECRET}", timeout=0.5, tries=2, warn=said.append, sleep=lambda s: None)
    assert not n.send("hello")
    assert said and SECRET not in said[0] and "127.0.0.1:9" in said[0]


def test_posting_happens_in_the_background_and_close_sends_the_rest(hook):
    hook.delay = 0.2
    n = Notifier(hook.url)
    t0 = time.monotonic()
    for i in range(3):
        n.post(f"message {i}")
    assert time.monotonic() - t0 < 0.1, "post() must not wait for the network"
    n.close()
    assert [b["text"] for b in hook.bodies] == ["message 0", "message 1", "message 2"]


def test_url_forms(monkeypatch):
    monkeypatch.setenv("MY_HOOK", "https://hooks.example.com/services/" + SECRET)
    assert resolve_url("env:MY_HOOK").endswith(SECRET)
    assert redact(resolve_url("env:MY_HOOK")) == "https://hooks.example.com/…"
    for bad in ("env:NOT_SET_ANYWHERE", "hooks.example.com/x", "file:///etc/passwd", ""):
        with pytest.raises(NotifyError) as exc:
            resolve_url(bad)
        assert SECRET not in str(exc.value)


# -- the users of it ---------------------------------------------------------------------------------
def test_monitor_posts_each_new_finding_once(hook):
    from triage.integrations import Monitor

    m = Monitor(notify=hook.url, budget=None, quiet=True)
    for i in range(1, 121):
        m.log(i, loss=2.0 / math.sqrt(i) if i < 100 else float("nan"), grad_norm=1.0)
    m.close()
    texts = [b["text"] for b in hook.bodies]
    nan = [t for t in texts if "loss is NaN" in t]
    assert len(nan) == 1, texts
    assert "Knob:" in nan[0] and "triage explain" in nan[0]
    assert len(texts) == len(set(texts))


def test_watch_notify_posts_each_finding_once(tmp_path, hook):
    log = tmp_path / "train.jsonl"
    rows = [json.dumps({"step": i, "loss": 2.0 / math.sqrt(i), "grad_norm": 1.0}) for i in range(1, 100)]
    log.write_text("\n".join(rows) + "\n" + "\n".join(f'{{"step": {i}, "loss": NaN}}' for i in range(100, 120)) + "\n")
    result = CliRunner().invoke(app, ["watch", str(log), "--interval", "0.1", "--stop-after", "0.5", "--notify", hook.url])
    assert result.exit_code == 1, result.output
    texts = [b["text"] for b in hook.bodies]
    assert sum("loss is NaN" in t for t in texts) == 1, texts
    assert SECRET not in result.output


def test_watch_notify_rejects_a_bad_url_in_one_line(tmp_path):
    result = CliRunner().invoke(app, ["watch", str(tmp_path / "x.log"), "--notify", "not a url"])
    assert result.exit_code == 2
    assert "http(s) URL" in result.stderr and "Traceback" not in result.output
