"""Lay pages out in headless Chromium and measure what a reader sees.

All pages of a test go into one browser run: each page is the `srcdoc` of an iframe as wide as
the window being tested (1280 or 800 px), and a script in the outer page (never in the reports
themselves, which stay script-free) measures every chart's text boxes and the page's width
after layout, and writes the numbers into the DOM that `--dump-dom` prints.
"""

from __future__ import annotations

import html
import json
import os
import re
import subprocess
import tempfile
from pathlib import Path

from triage.render.pdf import find_browser

SKIP_REASON = ("headless Chromium not found (scripts/test installs it with apt-get; or set TRIAGE_CHROMIUM "
               "to a Chrome/Chromium binary)")

_MEASURE = """
window.addEventListener('load', function () {
  var pages = [];
  document.querySelectorAll('iframe').forEach(function (frame) {
    var doc = frame.contentDocument, win = frame.contentWindow;
    var page = {key: frame.dataset.key, width: win.innerWidth, scrollWidth: doc.documentElement.scrollWidth,
                charts: [], findings: [], overflow: []};
    doc.querySelectorAll('svg').forEach(function (svg) {
      var box = svg.getBoundingClientRect();
      var chart = {name: svg.getAttribute('aria-label'), box: [box.left, box.top, box.right, box.bottom], texts: [], plot: null};
      var rect = svg.querySelector('rect');
      if (rect) { var r = rect.getBoundingClientRect(); chart.plot = [r.left, r.top, r.right, r.bottom]; }
      svg.querySelectorAll('text').forEach(function (t) {
        var r = t.getBoundingClientRect();
        chart.texts.push({cls: t.getAttribute('class') || '', text: t.textContent, box: [r.left, r.top, r.right, r.bottom]});
      });
      page.charts.push(chart);
    });
    doc.querySelectorAll('table.findings tbody tr').forEach(function (tr) { page.findings.push(tr.innerText); });
    var sheet = doc.querySelector('.sheet');
    if (sheet) {
      var s = sheet.getBoundingClientRect();
      doc.querySelectorAll('.sheet *').forEach(function (el) {
        var r = el.getBoundingClientRect();
        if (r.width > 0 && r.right > s.right + 1) { page.overflow.push(el.tagName + '.' + el.className + ': ' + (el.textContent || '').slice(0, 60)); }
      });
    }
    pages.push(page);
  });
  var pre = document.createElement('pre');
  pre.id = 'measured';
  pre.textContent = JSON.stringify(pages);
  document.body.appendChild(pre);
});
"""


def measure(pages: dict[str, str], widths=(1280, 800), timeout: float = 90.0) -> dict[tuple[str, int], dict]:
    """{(key, width): measurements} for every page at every width, from one Chromium run."""
    browser = find_browser()
    if browser is None:
        raise RuntimeError(SKIP_REASON)
    frames = []
    for key, page in pages.items():
        for w in widths:
            frames.append(f'<iframe data-key="{html.escape(key)}|{w}" width="{w}" height="1200" '
                          f'style="border:0;display:block" srcdoc="{html.escape(page, quote=True)}"></iframe>')
    outer = ("<!DOCTYPE html><html><head><meta charset=\"utf-8\"></head><body style=\"margin:0\">"
             + "".join(frames) + f"<script>{_MEASURE}</script></body></html>")
    with tempfile.TemporaryDirectory(prefix="triage-measure-") as tmp:
        path = Path(tmp) / "pages.html"
        path.write_text(outer, encoding="utf-8")
        cmd = [browser, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-extensions",
               "--disable-background-networking", "--disable-component-update", "--disable-sync", "--hide-scrollbars",
               f"--user-data-dir={Path(tmp) / 'profile'}", f"--window-size={max(widths) + 40},1200",
               "--dump-dom", path.as_uri()]
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout,
                              env={**os.environ, "HOME": tmp}, stdin=subprocess.DEVNULL)
    found = re.search(r'<pre id="measured">(.*?)</pre>', proc.stdout, re.S)
    if not found:
        raise RuntimeError(f"{browser} returned no measurements (exit {proc.returncode}): {proc.stderr[-400:]}")
    out = {}
    for page in json.loads(html.unescape(found.group(1))):
        key, w = page["key"].rsplit("|", 1)
        out[(key, int(w))] = page
    return out


def overlaps(a, b, slack: float = 0.5) -> bool:
    """Whether two [left, top, right, bottom] boxes share more than `slack` px each way."""
    return a[0] < b[2] - slack and b[0] < a[2] - slack and a[1] < b[3] - slack and b[1] < a[3] - slack


def text_collisions(chart: dict) -> list[tuple[str, str]]:
    """Pairs of texts of one chart whose boxes overlap (labels, ticks, titles, notes)."""
    texts = [t for t in chart["texts"] if t["box"][2] > t["box"][0]]
    return [(a["text"], b["text"]) for i, a in enumerate(texts) for b in texts[i + 1:] if overlaps(a["box"], b["box"])]
