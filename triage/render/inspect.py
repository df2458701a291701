"""`triage inspect`: what a log reader found, as a table with a sparkline per metric, or as JSON.

Also `sources_block(run)`, the per-source entry of `triage scan --json` (DESIGN.md section 7).
"""

from __future__ import annotations

import math
from typing import Any, Iterable

SPARK = "▁▂▃▄▅▆▇█"
NAN_MARK = "×"


def sources_block(run) -> dict[str, Any]:
    """The contract's `sources` entry: {"path", "format", "rows", "skipped", "metrics"}."""
    return {
        "path": run.path,
        "format": run.format,
        "rows": int(run.meta.get("rows", 0)),
        "skipped": int(sum(run.meta.get("skipped", {}).values())),
        "metrics": run.metrics(),
    }


def sparkline(values, width: int = 24) -> str:
    """Unicode sparkline of a series; buckets holding a NaN/inf are drawn as '×'."""
    import numpy as np

    v = np.asarray(values, dtype=np.float64)
    n = len(v)
    if n == 0:
        return ""
    width = max(1, min(width, n))
    edges = np.linspace(0, n, width + 1).astype(np.int64)
    fin = np.isfinite(v)
    if not fin.any():
        return NAN_MARK * width
    lo, hi = float(v[fin].min()), float(v[fin].max())
    out = []
    for i in range(width):
        a, b = edges[i], max(edges[i + 1], edges[i] + 1)
        seg = v[a:b]
        f = np.isfinite(seg)
        if not f.all():
            out.append(NAN_MARK)
            continue
        m = float(seg.mean())
        if hi == lo:
            out.append(SPARK[len(SPARK) // 2])
        else:
            out.append(SPARK[min(len(SPARK) - 1, int((m - lo) / (hi - lo) * (len(SPARK) - 1) + 0.5))])
    return "".join(out)


def _fmt(x) -> str:
    if x is None:
        return ""
    if isinstance(x, str):
        return x
    if isinstance(x, int):
        return str(x)
    if math.isnan(x):
        return "nan"
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    a = abs(x)
    if a != 0 and (a < 1e-3 or a >= 1e6):
        return f"{x:.3e}"
    return f"{x:.4g}"


def _steps(run) -> str:
    r = run.steps_range()
    if r is None:
        return "unknown"
    return f"{_fmt(_int(r[0]))}–{_fmt(_int(r[1]))}"


def _int(x: float):
    return int(x) if float(x).is_integer() else x


def run_dict(run) -> dict[str, Any]:
    metrics = []
    for name in run.metrics():
        s = run.series[name]
        st = s.stats()
        metrics.append({"name": name, "split": s.split, "source_key": s.source_key, **st,
                        "sparkline": sparkline(s.values)})
    r = run.steps_range()
    meta = {k: v for k, v in run.meta.items() if k not in ("rows", "skipped", "restarts", "duplicates", "warnings")}
    return {
        "path": run.path,
        "format": run.format,
        "rows": int(run.meta.get("rows", 0)),
        "skipped": dict(run.meta.get("skipped", {})),
        "restarts": int(run.meta.get("restarts", 0)),
        "duplicates": int(run.meta.get("duplicates", 0)),
        "steps": None if r is None else [_int(r[0]), _int(r[1])],
        "metrics": metrics,
        "events": [e.to_dict() for e in run.events],
        "warnings": list(run.meta.get("warnings", [])),
        "meta": _jsonable(meta),
    }


def _jsonable(x):
    if isinstance(x, dict):
        return {str(k): _jsonable(v) for k, v in x.items()}
    if isinstance(x, (list, tuple, set)):
        return [_jsonable(v) for v in x]
    if isinstance(x, float) and not math.isfinite(x):
        return "nan" if math.isnan(x) else ("inf" if x > 0 else "-inf")
    if isinstance(x, (str, int, float, bool)) or x is None:
        return x
    try:
        return float(x)
    except (TypeError, ValueError):
        return str(x)


def inspect_json(runs: Iterable) -> dict[str, Any]:
    """One JSON document for `triage inspect --json`."""
    from triage import __version__

    return {"version": __version__, "runs": [run_dict(r) for r in runs]}


def inspect_table(runs: Iterable, console) -> None:
    """Render each run: a header line, one row per metric with a sparkline, then events and warnings."""
    from rich.table import Table
    from rich.text import Text

    for i, run in enumerate(runs):
        if i:
            console.print()
        skipped = run.meta.get("skipped", {})
        sk = sum(skipped.values())
        head = Text()
        head.append(run.path, style="bold")
        head.append(f"  {run.format}", style="cyan")
        head.append(f"  rows {run.meta.get('rows', 0)}")
        head.append(f"  steps {_steps(run)}")
        if sk:
            head.append(f"  skipped {sk} (" + ", ".join(f"{k}: {v}" for k, v in sorted(skipped.items())) + ")",
                        style="yellow")
        if run.meta.get("restarts"):
            head.append(f"  restarts {run.meta['restarts']}", style="yellow")
        if run.meta.get("duplicates"):
            head.append(f"  duplicate steps {run.meta['duplicates']}", style="yellow")
        console.print(head)
        if run.series:
            table = Table(box=None, header_style="bold", pad_edge=False, show_edge=False)
            wide = getattr(console, "width", 120) >= 120
            spark_w = 24 if wide else 10
            longest = max(len(n) for n in run.series)
            cols = [("metric", {"style": "bold", "no_wrap": True, "overflow": "ellipsis",
                                "min_width": min(longest, 40 if wide else 28)})]
            if wide:
                cols += [("split", {"style": "dim", "no_wrap": True})]
            cols += [("n", {"justify": "right"})]
            if wide:
                cols += [("steps", {"justify": "right", "no_wrap": True})]
            cols += [("first", {"justify": "right"}), ("last", {"justify": "right"}), ("min", {"justify": "right"}),
                     ("max", {"justify": "right"}), ("NaN", {"justify": "right"}), ("", {"no_wrap": True})]
            for col, kw in cols:
                table.add_column(col, **kw)
            for name in run.metrics():
                s = run.series[name]
                st = s.stats()
                bad = st["nan"] + st["inf"]
                nan_txt = Text(str(st["nan"]) + (f"+{st['inf']}inf" if st["inf"] else ""),
                               style="bold red" if bad else "dim")
                steps = "" if st["first_step"] is None else f"{_fmt(st['first_step'])}–{_fmt(st['last_step'])}"
                spark = Text()
                for ch in sparkline(s.values, spark_w):
                    spark.append(ch, style="red" if ch == NAN_MARK else "green")
                cells = [name] + ([s.split] if wide else []) + [str(st["n"])] + ([steps] if wide else [])
                cells += [_fmt(st["first"]), _fmt(st["last"]), _fmt(st["min"]), _fmt(st["max"]), nan_txt, spark]
                table.add_row(*cells)
            console.print(table)
        else:
            console.print(Text("  no metrics found", style="dim"))
        if run.events:
            counts: dict[str, int] = {}
            for e in run.events:
                counts[e.kind] = counts.get(e.kind, 0) + 1
            console.print(Text("  events: " + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())),
                               style="magenta"))
            for e in [e for e in run.events if e.kind in ("traceback", "error", "overflow")][:5]:
                first = e.text.strip().splitlines()[-1] if e.kind == "traceback" else e.text.strip()
                where = f"line {e.line}" if e.line else ""
                console.print(Text(f"    {e.kind} {where}: {first[:160]}", style="dim"))
        for w in run.meta.get("warnings", [])[:8]:
            console.print(Text(f"  note: {w}", style="yellow"))


# Used by the CLI's `inspect` command (kept here so the command stays a thin wrapper).
def inspect_command(paths: list[str], fmt: str | None, as_json: bool, out_console=None, err_console=None) -> int:
    """Read each PATH and render it; returns the exit code (2 when a path cannot be read)."""
    import json
    import sys

    from triage.ingest import IngestError, read_run

    runs = []
    for p in paths:
        try:
            runs.append(read_run(p, fmt))
        except IngestError as exc:
            if err_console is not None:
                err_console.print(f"[bold red]error:[/] {exc}", highlight=False, markup=True, soft_wrap=True)
            else:
                sys.stderr.write(f"error: {exc}\n")
            return 2
    if as_json:
        sys.stdout.write(json.dumps(inspect_json(runs), indent=2, ensure_ascii=False) + "\n")
        return 0
    if out_console is None:
        from rich.console import Console

        out_console = Console(soft_wrap=False)
    inspect_table(runs, out_console)
    return 0
