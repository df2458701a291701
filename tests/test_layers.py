"""The import structure of the `triage` package: layers, and no cycles.

Every import edge is read from the code itself (ast over triage/**/*.py), imports inside functions
and `if TYPE_CHECKING:` blocks included, as is `importlib.import_module("triage...")` with a literal
name: a dependency hidden in a function body is still a dependency.

The layers, lowest first; a module may import its own layer and the ones below, never above:

    foundation  triage (the package: its version), triage.errors (the error root and exit codes),
                triage.writeout (atomic, shareable file writes), triage.runtime (the command line's
                own process settings): import nothing of triage but each other
    kb          triage.kb: the knowledge (nodes, schema, loader, validator, search, checklists as data)
    ingest      triage.ingest: log readers -> one Run; metric names from the knowledge's metrics.yaml
    detect      triage.detect: checks over a Run, driven by the knowledge's detectors
    engine      triage.engine: evidence -> diagnosis -> report; sessions, diff, gate, watch
    render      triage.render: views of engine results (terminal, Markdown, HTML, PDF)
    api         triage.api, triage.checklists: the library's entry points over all of the above
    front       triage.cli, triage.__main__, triage.sweep, triage.probes, triage.integrations,
                triage.mcp_server, triage.notify: the ways in (command line, callbacks, MCP) and
                out (webhooks)

Two rules on top of the order: the API returns data and leaves drawing it to its caller, so
triage.api imports nothing of triage.render (see KNOWN_PENDING); and the probe scripts
(triage/probes/scripts, triage/probes/common_block.py) run alone on a GPU box, so they import
nothing of triage at all.

No cycles either, between any two modules, whatever their layers.

KNOWN_PENDING lists the edges that break these rules today and are being fixed elsewhere; each
entry is exact (importer, imported), so a new violation still fails. Empty it as they land.
"""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "triage"

LAYERS: list[tuple[str, tuple[str, ...]]] = [
    ("foundation", ("triage", "triage.errors", "triage.writeout", "triage.runtime")),
    ("kb", ("triage.kb",)),
    ("ingest", ("triage.ingest",)),
    ("detect", ("triage.detect",)),
    ("engine", ("triage.engine",)),
    ("render", ("triage.render",)),
    ("api", ("triage.api", "triage.checklists")),
    ("front", ("triage.cli", "triage.__main__", "triage.sweep", "triage.probes", "triage.integrations",
               "triage.mcp_server", "triage.notify")),
]
ORDER = " < ".join(name for name, _ in LAYERS)

# Importer -> imported packages it may not use, whatever the order says, and why.
FORBIDDEN = {
    "triage.api": (("triage.render",), "the API returns data; drawing it is the caller's (the CLI's) job"),
}

# Standalone scripts: carried to a GPU box and run with the stdlib and torch only.
STANDALONE = ("triage.probes.scripts", "triage.probes.common_block")

# Edges that break the rules today and are being fixed in other work: (importer module, imported
# module), exact, so a new violation still fails. It held engine.session/engine.transcript ->
# triage.render and triage.api -> triage.render until the typed Report and the display port landed.
# Nothing may be added here without a reason next to it.
KNOWN_PENDING: set[tuple[str, str]] = set()


# -- reading the edges ---------------------------------------------------------------------------------
def _modules() -> dict[str, Path]:
    found = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = list(path.relative_to(ROOT).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        found[".".join(parts)] = path
    return found


MODULES = _modules()


def _known(name: str) -> str | None:
    """The module `name` refers to: itself, or the nearest package or module above it (an imported
    function `triage.api.scan` is an edge to `triage.api`)."""
    while name:
        if name in MODULES:
            return name
        name = name.rpartition(".")[0]
    return None


def _targets(module: str, is_package: bool, node: ast.AST) -> list[str]:
    names: list[str] = []
    if isinstance(node, ast.Import):
        names = [a.name for a in node.names]
    elif isinstance(node, ast.ImportFrom):
        base = node.module or ""
        if node.level:
            package = module.split(".") if is_package else module.split(".")[:-1]
            package = package[: len(package) - (node.level - 1)]
            base = ".".join(package + ([base] if base else []))
        names = [f"{base}.{a.name}" if _known(f"{base}.{a.name}") == f"{base}.{a.name}" else base for a in node.names]
    elif isinstance(node, ast.Call):  # importlib.import_module("triage.x") / __import__("triage.x")
        func = node.func
        called = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
        if called in ("import_module", "__import__") and node.args and isinstance(node.args[0], ast.Constant) \
                and isinstance(node.args[0].value, str):
            names = [node.args[0].value]
    return [t for t in (_known(n) for n in names if n == "triage" or n.startswith("triage.")) if t and t != module]


def _edges() -> dict[tuple[str, str], list[int]]:
    """(importer, imported) -> the lines of the importer that make the edge."""
    edges: dict[tuple[str, str], list[int]] = defaultdict(list)
    for module, path in MODULES.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for node in ast.walk(tree):
            for target in _targets(module, path.name == "__init__.py", node):
                edges[(module, target)].append(node.lineno)
    return dict(edges)


EDGES = _edges()


def _layer(module: str) -> int | None:
    for rank, (_, prefixes) in enumerate(LAYERS):
        for p in prefixes:
            if module == p or (p != "triage" and module.startswith(p + ".")):
                return rank
    return None


def _where(importer: str, lines: list[int]) -> str:
    return f"{MODULES[importer].relative_to(ROOT)}:{min(lines)}"


def _in(module: str, prefixes) -> bool:
    return any(module == p or module.startswith(p + ".") for p in prefixes)


# -- the rules -----------------------------------------------------------------------------------------
def test_every_module_has_a_layer():
    missing = [m for m in MODULES if _layer(m) is None]
    assert not missing, (f"modules with no layer: {', '.join(missing)}; place each in LAYERS in {Path(__file__).name} "
                         f"(order: {ORDER}) and say why in its docstring")


def test_no_import_goes_against_the_layers():
    wrong = []
    for (src, dst), lines in sorted(EDGES.items()):
        if (src, dst) in KNOWN_PENDING or _in(src, STANDALONE):
            continue
        ls, ld = _layer(src), _layer(dst)
        if ls is not None and ld is not None and ld > ls:
            wrong.append(f"{_where(src, lines)}: {src} ({LAYERS[ls][0]}) imports {dst} ({LAYERS[ld][0]}), a higher layer")
        for owner, (banned, why) in FORBIDDEN.items():
            if _in(src, (owner,)) and _in(dst, banned):
                wrong.append(f"{_where(src, lines)}: {src} imports {dst}: {why}")
    assert not wrong, f"imports against the flow (order: {ORDER}):\n  " + "\n  ".join(wrong)


def test_probe_scripts_import_nothing_of_triage():
    wrong = [f"{_where(src, lines)}: {src} imports {dst}" for (src, dst), lines in sorted(EDGES.items())
             if _in(src, STANDALONE)]
    assert not wrong, "a probe script runs alone on the GPU box (stdlib and torch only):\n  " + "\n  ".join(wrong)


def _cycles(edges) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan, iterative)."""
    graph: dict[str, list[str]] = defaultdict(list)
    for src, dst in edges:
        graph[src].append(dst)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = 0
    for start in sorted(MODULES):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def test_no_import_cycles():
    edges = {e: lines for e, lines in EDGES.items() if e not in KNOWN_PENDING}
    problems = []
    for component in _cycles(edges):
        inside = [f"{_where(s, lines)}: {s} -> {d}" for (s, d), lines in sorted(edges.items())
                  if s in component and d in component]
        problems.append(f"cycle among {', '.join(component)}:\n    " + "\n    ".join(inside))
    assert not problems, "import cycles (break each by moving the shared part down a layer):\n  " + "\n  ".join(problems)


def test_known_pending_edges_still_exist():
    """An entry of KNOWN_PENDING that no longer matches an import has been fixed: remove it, so
    the rule holds from now on."""
    gone = sorted(e for e in KNOWN_PENDING if e not in EDGES)
    assert not gone, f"fixed, remove from KNOWN_PENDING in {Path(__file__).name}: {gone}"


# -- the reader itself ------------------------------------------------------------------------------------
@pytest.mark.parametrize("source, module, expected", [
    ("from triage import api", "triage.cli", ["triage.api"]),
    ("from triage import __version__", "triage.kb.loader", ["triage"]),
    ("from triage.kb.base import KnowledgeBase", "triage.api", ["triage.kb.base"]),
    ("from .base import KnowledgeBase", "triage.kb.loader", ["triage.kb.base"]),
    ("from . import schema", "triage.kb", ["triage.kb.schema"]),
    ("import triage.detect.checks", "triage.kb.validate", ["triage.detect.checks"]),
    ("importlib.import_module('triage.render.html')", "triage.engine.diff", ["triage.render.html"]),
    ("import numpy", "triage.api", []),
])
def test_edges_are_read_from_every_import_form(source, module, expected):
    node = ast.parse(source).body[0]
    node = node.value if isinstance(node, ast.Expr) else node
    assert _targets(module, module == "triage.kb", node) == expected


def test_a_violation_is_named_with_its_file_and_line(tmp_path):
    """The failure message names the importer, its file and line, and both layers."""
    edges = {("triage.kb.validate", "triage.detect.checks"): [42]}
    (src, dst), lines = next(iter(edges.items()))
    message = f"{_where(src, lines)}: {src} ({LAYERS[_layer(src)][0]}) imports {dst} ({LAYERS[_layer(dst)][0]}), a higher layer"
    assert message == "triage/kb/validate.py:42: triage.kb.validate (kb) imports triage.detect.checks (detect), a higher layer"
    assert _cycles({("triage.api", "triage.checklists"): [1], ("triage.checklists", "triage.api"): [2]}) == \
        [["triage.api", "triage.checklists"]]
