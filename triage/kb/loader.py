"""Read the knowledge tree (YAML, one node per file) into `Node` objects.

Loading is the only part of the knowledge base that runs on every command, so it is kept
cheap: libyaml when available, and a pickle cache keyed on every file's path, size and
modification time (any edit, addition or removal invalidates it).
"""

from __future__ import annotations

import hashlib
import os
import pickle
from dataclasses import dataclass, field
from pathlib import Path

from triage import __version__

KB_ENV = "TRIAGE_KB_PATH"
CACHE_ENV = "TRIAGE_CACHE_DIR"

# folder under the knowledge root -> the kind of node its files hold
KIND_DIRS = {
    "causes": "cause",
    "symptoms": "symptom",
    "detectors": "detector",
    "probes": "probe",
    "checklists": "checklist",
    "fixes": "fix",
    "deprecated": "deprecated",
}


class LineDict(dict):
    """A mapping that remembers the line of itself and of each of its keys."""

    line: int = 0
    lines: dict

    def __reduce__(self):  # keep line info through pickle
        return (_make_linedict, (dict(self), self.line, getattr(self, "lines", {})))

    def line_of(self, key: str) -> int:
        return getattr(self, "lines", {}).get(key, self.line)


def _make_linedict(data: dict, line: int, lines: dict) -> LineDict:
    d = LineDict(data)
    d.line = line
    d.lines = lines
    return d


_LOADER = None


def _yaml_loader():
    """A safe YAML loader whose mappings are LineDicts (built on first use: yaml is not
    imported at all when the cache is warm)."""
    global _LOADER
    if _LOADER is None:
        import yaml
        from yaml.nodes import ScalarNode

        try:  # libyaml is several times faster; fall back to the pure-Python parser
            base = yaml.CSafeLoader
        except AttributeError:  # pragma: no cover - depends on the PyYAML build
            base = yaml.SafeLoader

        class Loader(base):  # type: ignore[misc, valid-type]
            pass

        def construct_map(loader, node):  # type: ignore[no-untyped-def]
            data = LineDict()
            data.line = node.start_mark.line + 1
            data.lines = {}
            yield data
            data.update(loader.construct_mapping(node))
            for key_node, _ in node.value:
                if isinstance(key_node, ScalarNode):
                    data.lines[key_node.value] = key_node.start_mark.line + 1

        Loader.add_constructor("tag:yaml.org,2002:map", construct_map)
        _LOADER = Loader
    return _LOADER


class KnowledgeError(Exception):
    """A problem with one knowledge file: carries the file and line."""

    def __init__(self, path: Path | str, line: int, message: str):
        super().__init__(f"{path}:{line}: {message}")
        self.path = str(path)
        self.line = line
        self.message = message

    def __reduce__(self):  # pickle (the cache) must rebuild it from its three parts
        return (KnowledgeError, (self.path, self.line, self.message))


@dataclass
class Node:
    id: str
    kind: str
    data: LineDict
    path: str
    root: str  # the knowledge folder the file came from
    builtin: bool = True

    def get(self, key: str, default=None):
        return self.data.get(key, default)

    def line(self, key: str | None = None) -> int:
        return self.data.line_of(key) if key else self.data.line

    @property
    def title(self) -> str:
        for key in ("title", "question"):
            value = self.data.get(key)
            if isinstance(value, str) and value.strip():
                return value.strip()
        return self.id


@dataclass
class LoadResult:
    nodes: list[Node] = field(default_factory=list)
    problems: list[KnowledgeError] = field(default_factory=list)
    roots: list[str] = field(default_factory=list)
    builtin: str | None = None  # the built-in root, when it was loaded
    extras: dict = field(default_factory=dict)  # other data files, e.g. metrics.yaml


def builtin_root() -> Path:
    """The knowledge folder shipped with the package (wheel) or beside it (source tree)."""
    here = Path(__file__).resolve().parent.parent
    shipped = here / "_knowledge"
    if shipped.is_dir():
        return shipped
    return here.parent / "knowledge"


def user_roots(extra: list[str] | None = None) -> list[Path]:
    roots: list[Path] = []
    env = os.environ.get(KB_ENV, "")
    for part in env.split(os.pathsep):
        if part.strip():
            roots.append(Path(part.strip()).expanduser())
    for part in extra or []:
        roots.append(Path(part).expanduser())
    return roots


def _walk(folder: str, out: list[str]) -> None:
    try:
        entries = os.scandir(folder)
    except OSError:
        return
    with entries:
        for entry in entries:
            if entry.is_dir(follow_symlinks=True):
                if entry.name != "fixtures":
                    _walk(entry.path, out)
            elif entry.name.endswith(".yaml"):
                out.append(entry.path)


def _yaml_files(root: Path) -> list[Path]:
    files: list[str] = []
    for sub in KIND_DIRS:
        _walk(os.path.join(root, sub), files)
    return [Path(p) for p in sorted(files)]


def parse_file(path: Path) -> LineDict:
    """Parse one YAML file; raise KnowledgeError naming the file and line on failure."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise KnowledgeError(path, 1, f"cannot read file: {exc}") from None
    import yaml

    try:
        data = yaml.load(text, Loader=_yaml_loader())  # noqa: S506 - safe loader subclass
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark else 1
        raise KnowledgeError(path, line, f"invalid YAML: {exc.problem or exc}") from None
    except yaml.YAMLError as exc:
        raise KnowledgeError(path, 1, f"invalid YAML: {exc}") from None
    if not isinstance(data, LineDict):
        raise KnowledgeError(path, 1, "expected a mapping of fields at the top of the file")
    return data


def _load_root(root: Path, builtin: bool, result: LoadResult) -> None:
    for path in _yaml_files(root):
        rel_kind = KIND_DIRS[path.relative_to(root).parts[0]]
        try:
            data = parse_file(path)
        except KnowledgeError as exc:
            result.problems.append(exc)
            continue
        node_id = data.get("id")
        if not isinstance(node_id, str) or not node_id.strip():
            node_id = path.stem
            result.problems.append(KnowledgeError(path, data.line, "missing `id` (a string)"))
        kind = data.get("kind", rel_kind)
        result.nodes.append(Node(str(node_id), str(kind), data, str(path), str(root), builtin))
    metrics = root / "metrics.yaml"
    if metrics.is_file():
        try:
            result.extras.setdefault("metrics", []).append((str(metrics), parse_file(metrics)))
        except KnowledgeError as exc:
            result.problems.append(exc)


def _fingerprint(roots: list[Path]) -> str:
    h = hashlib.sha1(__version__.encode())
    for root in roots:
        h.update(str(root).encode())
        files = _yaml_files(root) if root.is_dir() else []
        metrics = root / "metrics.yaml"
        if metrics.is_file():
            files.append(metrics)
        for path in files:
            st = path.stat()
            h.update(f"{path}\0{st.st_size}\0{st.st_mtime_ns}\n".encode())
    return h.hexdigest()


def _cache_dir() -> Path:
    env = os.environ.get(CACHE_ENV)
    if env:
        return Path(env)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "triage"


def load(extra_roots: list[str] | None = None, use_cache: bool = True, builtin: bool = True) -> LoadResult:
    """Load the built-in knowledge plus the user's folders (TRIAGE_KB_PATH, --kb).

    With builtin=False only `extra_roots` are read (no environment): used to check a
    stand-alone knowledge folder.
    """
    base = builtin_root() if builtin else None
    extra = user_roots(extra_roots) if builtin else [Path(r) for r in extra_roots or []]
    roots = ([base] if base else []) + extra
    result = LoadResult(roots=[str(r) for r in roots], builtin=str(base) if base else None)
    missing = [
        KnowledgeError(root, 0, "knowledge folder does not exist")
        for root in extra
        if not root.is_dir()
    ]
    existing = [r for r in roots if r.is_dir()]

    cache_file = None
    if use_cache and os.environ.get("TRIAGE_NO_CACHE") is None:
        try:
            key = _fingerprint(existing)
            cache_file = _cache_dir() / f"kb-{key}.pickle"
            with open(cache_file, "rb") as fh:
                cached = pickle.load(fh)
            if isinstance(cached, LoadResult):
                cached.problems = cached.problems + missing
                return cached
        except Exception:  # a stale, partial or foreign cache is simply rebuilt
            pass

    for root in existing:
        _load_root(root, root == base, result)

    if cache_file is not None:
        write_cache(cache_file, result, "kb-*.pickle")
    result.problems.extend(missing)
    return result


def write_cache(cache_file: Path, obj, stale: str) -> None:
    """Pickle `obj` to `cache_file` atomically and remove the older files matching `stale` beside
    it. A cache that cannot be written (read-only home) is simply skipped."""
    try:
        cache_file.parent.mkdir(parents=True, exist_ok=True)
        import tempfile

        fd, tmp = tempfile.mkstemp(dir=cache_file.parent, suffix=".tmp")
        with os.fdopen(fd, "wb") as fh:
            pickle.dump(obj, fh, protocol=pickle.HIGHEST_PROTOCOL)
        os.replace(tmp, cache_file)
        for old in cache_file.parent.glob(stale):
            if old != cache_file:
                old.unlink(missing_ok=True)
    except OSError:
        pass
