"""Read the knowledge tree (YAML, one node per file) into `Node` objects.

Loading is the only part of the knowledge base that runs on every command, so it is kept
cheap: libyaml when available, and a cache keyed on every file's absolute path, size and
modification time (any edit, addition or removal invalidates it).

The cache holds plain data only (msgpack: maps, lists, strings, numbers), never pickles, and it
is read only from a private folder: a real folder (not a symlink) owned by the current user and
not writable by group or others, holding files that are owned by the user and not writable by
group or others, both checked on the opened descriptor. Anything else is ignored and the YAML is
read; nothing is written where the checks fail. See SECURITY.md.
"""

from __future__ import annotations

import fnmatch
import hashlib
import os
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from triage import __version__
from triage.errors import TriageError

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

    def __reduce__(self):  # keep line info through copy.copy / deepcopy
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


class KnowledgeError(TriageError):
    """A problem with one knowledge file: carries the file and line."""

    def __init__(self, path: Path | str, line: int, message: str):
        super().__init__(f"{path}:{line}: {message}")
        self.path = str(path)
        self.line = line
        self.message = message

    def __reduce__(self):  # copy (and pickle) must rebuild it from its three parts
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


# -- where the knowledge is: the one place that finds the folders ---------------------------------
# The built-in folder, then TRIAGE_KB_PATH's, then the folders this process was given (`--kb DIR`).
# The knowledge base (`load`) and the log readers' metric names (triage.ingest.aliases, from each
# folder's metrics.yaml) both ask here, so a folder given with --kb counts for both.
_SESSION_ROOTS: tuple[str, ...] = ()


def use_roots(roots) -> None:
    """Remember the knowledge folders given to this process (`--kb DIR`, repeatable): the CLI and
    triage.api.load_kb call this, so readers that never load the knowledge (`inspect`, `watch`, the
    sweep's workers) name metrics with the same folders."""
    global _SESSION_ROOTS
    _SESSION_ROOTS = tuple(os.path.abspath(os.path.expanduser(str(r))) for r in roots or ())


def session_roots() -> tuple[str, ...]:
    """The folders given to `use_roots` (absolute), in order."""
    return _SESSION_ROOTS


def knowledge_roots(extra: list[str] | None = None) -> list[Path]:
    """Every knowledge folder in layering order: the built-in one, TRIAGE_KB_PATH's, then `extra`
    (by default the folders given to `use_roots`)."""
    return [builtin_root(), *user_roots(list(_SESSION_ROOTS) if extra is None else extra)]


def builtin_root() -> Path:
    """The knowledge folder shipped with the package (wheel) or beside it (source tree)."""
    here = Path(__file__).resolve().parent.parent
    shipped = here / "_knowledge"
    if shipped.is_dir():
        return shipped
    return here.parent / "knowledge"


def user_roots(extra: list[str] | None = None) -> list[Path]:
    """The user's knowledge folders: TRIAGE_KB_PATH's (separated like PATH), then `extra`."""
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
    from triage.kb.guards import MAX_YAML_VALUES, expanded_size

    if expanded_size(data) > MAX_YAML_VALUES:  # nested aliases ("billion laughs"): refused
        raise KnowledgeError(path, 1, f"the YAML stands for more than {MAX_YAML_VALUES:,} values once its "
                                      "aliases (*name) are expanded; not read")
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
    for name, path in _data_files(root):
        if path.is_file():
            try:
                result.extras.setdefault(name, []).append((str(path), parse_file(path)))
            except KnowledgeError as exc:
                result.problems.append(exc)


# data files beside the node folders: extras key -> file name (metrics.yaml: metric names;
# frameworks.yaml: what each framework does by default and how to recognise its logs)
DATA_FILES = {"metrics": "metrics.yaml", "frameworks": "frameworks.yaml"}


def _data_files(root: Path) -> list[tuple[str, Path]]:
    return [(name, root / file) for name, file in DATA_FILES.items()]


# ---- the cache ----------------------------------------------------------------------------------
#
# One file per knowledge set, `kb-<key>.msgpack`, in a private folder (see `open_private_dir`).
# The key covers the format, the version, and every root as given and as resolved (absolute, symlinks
# followed) with each file's size, modification time and identity: two projects whose `--kb kb`
# folders have equal sizes and times do not share an entry. The file is plain msgpack (maps, lists,
# strings, numbers, booleans, nil); a LineDict is an extension value holding (line, lines, items).
# Whatever is read is checked against the expected shape and key, and anything off means the YAML is
# read again: a bad file can at worst be ignored, never run code.

CACHE_FORMAT = 3  # the layout of a cache file; part of every key (1 was a pickle; 3 adds frameworks.yaml)
_EXT_LINEDICT = 1
_SCALARS = frozenset({str, int, float, bool, type(None)})
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
KB_CACHES_KEPT = 8  # knowledge-set caches kept side by side, newest first (write_cache's `bounded`)
METRIC_CACHES_KEPT = 16  # metrics.yaml caches, one per file path
# the checks need POSIX owners and *at() calls; elsewhere (Windows) the cache is simply not used
_CACHE_SUPPORTED = (
    hasattr(os, "geteuid") and hasattr(os, "O_NOFOLLOW") and hasattr(os, "O_DIRECTORY")
    and os.open in os.supports_dir_fd and os.rename in os.supports_dir_fd
    and os.unlink in os.supports_dir_fd and os.mkdir in os.supports_dir_fd and os.listdir in os.supports_fd
)


def _fingerprint(roots: list[Path], base: Path | None = None) -> str:
    """The cache key of a set of knowledge roots: each root as given and resolved, and every file's path,
    size, modification and change time and identity (plain strings and os.stat: this runs on every command)."""
    h = hashlib.sha1(f"{__version__}\0{CACHE_FORMAT}\0{base}\n".encode())
    for root in roots:
        h.update(f"{root}\0{os.path.realpath(root)}\n".encode())
        files: list[str] = []
        for sub in KIND_DIRS:
            _walk(os.path.join(root, sub), files)
        files.sort()
        files.extend(os.path.join(root, name) for name in DATA_FILES.values())
        parts = []
        for path in files:
            try:
                st = os.stat(path)
            except FileNotFoundError:  # the data files are optional
                continue
            parts.append(f"{path}\0{st.st_size}\0{st.st_mtime_ns}\0{st.st_ctime_ns}\0{st.st_ino}\0{st.st_dev}\n")
        h.update("".join(parts).encode())
    return h.hexdigest()


def _cache_dir() -> Path:
    """$TRIAGE_CACHE_DIR, else `triage` under $XDG_CACHE_HOME or ~/.cache; where that base folder
    belongs to someone else (a shared cache home), `triage-<uid>` so that each user has their own."""
    env = os.environ.get(CACHE_ENV)
    if env:
        return Path(env)
    base = Path(os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache"))
    if hasattr(os, "geteuid"):
        uid = os.geteuid()
        try:
            if os.stat(base).st_uid != uid:
                return base / f"triage-{uid}"
        except OSError:  # missing: it will be created, and be ours
            pass
    return base / "triage"


def _is_private(st: os.stat_result) -> bool:
    """Owned by this user and not writable by group or others."""
    return st.st_uid == os.geteuid() and not st.st_mode & (stat.S_IWGRP | stat.S_IWOTH)


def open_private_dir(folder: str | os.PathLike, create: bool = False, dir_fd: int | None = None) -> int | None:
    """A descriptor of `folder` when it is a real folder (a symlink there is not followed) owned by this
    user and not writable by group or others, checked on the descriptor; with `create`, a missing folder
    is made with mode 0700 (its parents as usual, unless `dir_fd` is given: then `folder` is one name in
    that folder). None when it is not usable, or on a platform without the needed calls: the caller then
    neither reads nor writes there. The caller closes the descriptor."""
    if not _CACHE_SUPPORTED:
        return None
    flags = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | _CLOEXEC
    created = False
    try:
        fd = os.open(folder, flags, dir_fd=dir_fd)
    except FileNotFoundError:
        if not create:
            return None
        try:
            if dir_fd is None:
                Path(folder).parent.mkdir(parents=True, exist_ok=True)
            os.mkdir(folder, 0o700, dir_fd=dir_fd)
            created = True
        except FileExistsError:
            pass
        except OSError:
            return None
        try:
            fd = os.open(folder, flags, dir_fd=dir_fd)
        except OSError:
            return None
    except OSError:  # a symlink (ELOOP), not a folder, no access
        return None
    try:
        st = os.fstat(fd)
        if stat.S_ISDIR(st.st_mode) and _is_private(st):
            if created:
                os.fchmod(fd, 0o700)  # exactly 0700 whatever the umask
            return fd
    except OSError:
        pass
    os.close(fd)
    return None


def read_cache(cache_file: Path) -> bytes | None:
    """The bytes of `cache_file` if its folder is private and the file is a regular file owned by this
    user and not writable by group or others (checked on the open descriptor); otherwise None."""
    dfd = open_private_dir(cache_file.parent)
    if dfd is None:
        return None
    try:
        fd = os.open(cache_file.name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | _CLOEXEC, dir_fd=dfd)
    except OSError:
        return None
    finally:
        os.close(dfd)
    with os.fdopen(fd, "rb") as fh:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or not _is_private(st):
            return None
        return fh.read()


def _unlink_quietly(name: str, dfd: int) -> None:
    try:
        os.unlink(name, dir_fd=dfd)
    except OSError:
        pass


def write_cache(cache_file: Path, data: bytes | Callable[[], bytes | None], stale: str | tuple[str, ...] = (),
                bounded: tuple[str, int] | None = None) -> None:
    """Write `data` to `cache_file` atomically (a new 0600 file in the same folder, then renamed over it)
    and remove the other files of that folder matching the `stale` pattern(s); `bounded` (pattern, n) keeps
    the n newest files matching the pattern (this one among them) and removes older ones. `data` may be a function
    giving the bytes (or None: nothing to write), called only once the folder is known to be usable.
    Only a private folder (see `open_private_dir`, created 0700 when missing) is written; a cache that
    cannot be written (read-only home, a folder that is not private) is simply skipped."""
    dfd = open_private_dir(cache_file.parent, create=True)
    if dfd is None:
        return
    name = cache_file.name
    tmp = None
    try:
        payload = data() if callable(data) else data
        if payload is None:
            return
        tmp = f".{name}.{os.getpid()}.{os.urandom(6).hex()}.tmp"
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | _CLOEXEC, 0o600, dir_fd=dfd)
        with os.fdopen(fd, "wb") as fh:
            fh.write(payload)
        os.replace(tmp, name, src_dir_fd=dfd, dst_dir_fd=dfd)
        tmp = None
        patterns = (stale,) if isinstance(stale, str) else stale
        kept: list[tuple[int, str]] = []
        for old in os.listdir(dfd):
            if old == name:
                continue
            if any(fnmatch.fnmatchcase(old, p) for p in patterns):
                _unlink_quietly(old, dfd)
            elif bounded is not None and fnmatch.fnmatchcase(old, bounded[0]):
                try:
                    kept.append((os.stat(old, dir_fd=dfd, follow_symlinks=False).st_mtime_ns, old))
                except OSError:
                    pass
        if bounded is not None and len(kept) >= bounded[1]:
            kept.sort(reverse=True)
            for _, old in kept[max(0, bounded[1] - 1):]:
                _unlink_quietly(old, dfd)
    except OSError:
        pass
    finally:
        if tmp is not None:
            try:
                os.unlink(tmp, dir_fd=dfd)
            except OSError:
                pass
        os.close(dfd)


class _NotPlain(Exception):
    """A value with no plain-data form (a date, a set, ...): that knowledge set is not cached."""


def _encode_result(key: str, result: LoadResult) -> bytes | None:
    """The cache file for `result`, or None when it holds something that is not plain data."""
    import msgspec

    enc = msgspec.msgpack.Encoder()
    ext = msgspec.msgpack.Ext

    def plain(obj):
        t = type(obj)
        if t in _SCALARS:
            return obj
        if t is list:
            return [plain(v) for v in obj]
        if t is LineDict:
            items = {}
            for k, v in obj.items():
                if type(k) not in _SCALARS:
                    raise _NotPlain(type(k).__name__)
                items[k] = plain(v)
            return ext(_EXT_LINEDICT, enc.encode((obj.line, getattr(obj, "lines", {}), items)))
        raise _NotPlain(t.__name__)

    if set(result.extras) - set(DATA_FILES):
        return None
    try:
        doc = (
            CACHE_FORMAT, key, result.roots, result.builtin,
            # each node's data is its own msgpack document, decoded when the node is first used
            [(n.id, n.kind, enc.encode(plain(n.data)), n.path, n.root, n.builtin) for n in result.nodes],
            [(p.path, p.line, p.message) for p in result.problems],
            [(path, plain(data)) for path, data in result.extras.get("metrics", [])],
            [(path, plain(data)) for path, data in result.extras.get("frameworks", [])],
        )
        return enc.encode(doc)
    except Exception:  # noqa: BLE001 - _NotPlain, an integer too large for msgpack: no cache
        return None


def encode_plain(obj) -> bytes | None:
    """msgpack of `obj` when it is plain data (dicts, lists, strings, numbers, booleans, None) that comes
    back exactly as it went in; None otherwise (a date, a set, a tuple, ...): such a value is not cached."""
    def check(o) -> None:
        t = type(o)
        if t is dict:
            for k, v in o.items():
                if type(k) not in _SCALARS:
                    raise _NotPlain(type(k).__name__)
                check(v)
        elif t is list:
            for v in o:
                check(v)
        elif t not in _SCALARS:
            raise _NotPlain(t.__name__)

    try:
        check(obj)
        import msgspec

        return msgspec.msgpack.encode(obj)
    except Exception:  # noqa: BLE001 - _NotPlain, an integer too large for msgpack: no cache
        return None


_DECODERS: tuple | None = None


def _decoders():
    """(the decoder of a cache file, the decoder of one node's data), built on first use."""
    global _DECODERS
    if _DECODERS is None:
        from typing import Any, Optional

        import msgspec

        def ext_hook(code: int, data: memoryview):
            if code != _EXT_LINEDICT:
                raise ValueError(f"unknown extension {code}")
            line, lines, items = inner.decode(data)
            d = LineDict(items)
            d.line = line
            d.lines = lines
            return d

        inner = msgspec.msgpack.Decoder(tuple[int, dict[str, int], dict], ext_hook=ext_hook)
        whole = msgspec.msgpack.Decoder(
            tuple[int, str, list[str], Optional[str], list[tuple[str, str, bytes, str, str, bool]],
                  list[tuple[str, int, str]], list[tuple[str, Any]], list[tuple[str, Any]]],
            ext_hook=ext_hook,
        )
        _DECODERS = (whole, msgspec.msgpack.Decoder(ext_hook=ext_hook))
    return _DECODERS


class _CachedNode(Node):
    """A node read from the cache. Its data is decoded on first use (most commands look at a handful of
    the nodes); data that does not decode to a mapping is read again from the node's own YAML file."""

    @classmethod
    def lazy(cls, node_id: str, kind: str, raw: bytes, path: str, root: str, builtin: bool) -> _CachedNode:
        node = cls.__new__(cls)
        node.__dict__.update(id=node_id, kind=kind, path=path, root=root, builtin=builtin, _raw=raw)
        return node

    @property
    def data(self) -> LineDict:  # type: ignore[override]
        state = self.__dict__
        value = state.get("_data")
        if value is None:
            try:
                value = _decoders()[1].decode(state["_raw"])
            except Exception:  # noqa: BLE001 - checked below
                value = None
            if type(value) is not LineDict:
                value = _reparse(self.path)
            self.data = value
        return value

    @data.setter
    def data(self, value: LineDict) -> None:
        self.__dict__["_data"] = value
        self.__dict__.pop("_raw", None)


def _reparse(path: str) -> LineDict:
    try:
        return parse_file(Path(path))
    except KnowledgeError:
        empty = LineDict()
        empty.line, empty.lines = 1, {}
        return empty


def _decode_result(data: bytes, key: str, roots: list[str], builtin: str | None) -> LoadResult | None:
    """The LoadResult in a cache file, or None unless it has exactly the expected shape and key."""
    fmt, found_key, found_roots, found_builtin, nodes, problems, metrics, frameworks = _decoders()[0].decode(data)
    if fmt != CACHE_FORMAT or found_key != key or found_roots != roots or found_builtin != builtin:
        return None
    if any(type(doc) is not LineDict for _, doc in metrics + frameworks):
        return None
    result = LoadResult(roots=found_roots, builtin=found_builtin)
    result.nodes = [_CachedNode.lazy(*node) for node in nodes]
    result.problems = [KnowledgeError(path, line, message) for path, line, message in problems]
    for name, docs in (("metrics", metrics), ("frameworks", frameworks)):
        if docs:
            result.extras[name] = docs
    return result


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

    cache_file = key = None
    if use_cache and os.environ.get("TRIAGE_NO_CACHE") is None:
        try:
            key = _fingerprint(existing, base)
            cache_file = _cache_dir() / f"kb-{key}.msgpack"
            data = read_cache(cache_file)
            cached = _decode_result(data, key, result.roots, result.builtin) if data is not None else None
            if cached is not None:
                cached.problems = cached.problems + missing
                return cached
        except Exception:  # noqa: BLE001 - a stale, partial or foreign cache is simply rebuilt
            pass

    for root in existing:
        _load_root(root, root == base, result)

    if cache_file is not None and key is not None:
        # a few knowledge sets keep their caches side by side (two checkouts, a folder of one's own rules given
        # with --kb, a test run's temporary one): one slot would be rebuilt at every switch between them
        write_cache(cache_file, lambda: _encode_result(key, result), ("kb-*.pickle",),
                    bounded=("kb-*.msgpack", KB_CACHES_KEPT))
    result.problems.extend(missing)
    return result
