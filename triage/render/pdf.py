"""Print a standalone HTML page to PDF with headless Chromium (when it is installed).

No Python PDF library is involved: the page's own print CSS decides the layout, exactly as
when a person prints it from a browser. The browser runs with networking, sync, updates and
the GPU off, in a throw-away profile.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from pathlib import Path

from triage.errors import TriageError

BROWSER_ENV = "TRIAGE_CHROMIUM"
CANDIDATES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "chrome", "headless_shell")
HOW_TO_GET = (
    "PDF output needs headless Chromium. Install it (Debian/Ubuntu: `apt-get install chromium`; "
    "macOS: `brew install --cask chromium`) or point TRIAGE_CHROMIUM at a Chrome/Chromium binary. "
    "Meanwhile `--format html` writes a page that prints the same from any browser."
)


class PdfUnavailable(TriageError, RuntimeError):
    """No browser to print with."""


class PdfFailed(TriageError, RuntimeError):
    """The browser ran but produced no PDF."""


def find_browser() -> str | None:
    env = os.environ.get(BROWSER_ENV)
    if env:
        return env if (os.path.isfile(env) and os.access(env, os.X_OK)) else shutil.which(env)
    for name in CANDIDATES:
        path = shutil.which(name)
        if path:
            return path
    return None


def browser_command(browser: str, html_path: Path, pdf_path: Path, profile: Path) -> list[str]:
    return [
        browser, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync",
        "--disable-extensions", "--disable-default-apps", "--mute-audio", "--hide-scrollbars",
        f"--user-data-dir={profile}", "--no-pdf-header-footer", "--print-to-pdf-no-header",
        f"--print-to-pdf={pdf_path}", html_path.resolve().as_uri(),
    ]


def html_to_pdf(html: str, out: Path | str, timeout: float = 120.0, browser: str | None = None) -> Path:
    """Write `html` to a temporary file and print it to `out`. Raises PdfUnavailable when no
    browser is found and PdfFailed when printing fails."""
    browser = browser or find_browser()
    if not browser:
        raise PdfUnavailable(HOW_TO_GET)
    out = Path(out)
    with tempfile.TemporaryDirectory(prefix="triage-pdf-") as tmp:
        tmpdir = Path(tmp)
        page = tmpdir / "page.html"
        page.write_text(html, encoding="utf-8")
        target = tmpdir / "out.pdf"
        cmd = browser_command(browser, page, target, tmpdir / "profile")
        try:
            proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout,
                                  env={**os.environ, "HOME": str(tmpdir)}, stdin=subprocess.DEVNULL)
        except FileNotFoundError:
            raise PdfUnavailable(HOW_TO_GET) from None
        except subprocess.TimeoutExpired:
            raise PdfFailed(f"{browser} did not finish printing within {timeout:.0f} s") from None
        if not target.is_file() or target.stat().st_size == 0:
            tail = (proc.stderr or proc.stdout or "").strip().splitlines()[-3:]
            raise PdfFailed(f"{browser} printed no PDF (exit {proc.returncode}): {' | '.join(tail)}")
        out.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(target, out)
    return out
