"""The knowledge and metrics caches: never a way to run code or feed data as another user.

A cache file that another user could have written (owned by someone else, or group/world
writable), a cache folder that is not private, or a file that is not a valid cache is ignored:
the YAML is read instead, and nothing is written to a folder that is not private. The caches
hold plain data, so even a file that passes the checks cannot run code when read.
"""

from __future__ import annotations

import datetime
import os
import pickle
from pathlib import Path

import pytest

from triage.ingest import aliases
from triage.kb import loader

import kb_cache_fixture

cache = kb_cache_fixture.cache  # the private cache-folder fixture

IS_ROOT = hasattr(os, "geteuid") and os.geteuid() == 0
OTHER_UID = 12345
needs_root = pytest.mark.skipif(not IS_ROOT, reason="chown to another user needs root")
posix_only = pytest.mark.skipif(not hasattr(os, "getuid"), reason="ownership checks are POSIX only")

TITLE = "the original title of the test cause"
EVIL = "the tampered title of the test cause"  # same length: a byte-level edit keeps the file valid
assert len(TITLE) == len(EVIL)


class _Payload:
    """Unpickling this writes the marker file: what an attacker's planted cache would do."""

    def __init__(self, marker: Path):
        self.marker = str(marker)

    def __reduce__(self):
        return (exec, (f"open({self.marker!r}, 'w').write('code ran')",))


def _payload(marker: Path) -> bytes:
    return pickle.dumps(_Payload(marker), protocol=pickle.HIGHEST_PROTOCOL)


def _make_kb(root: Path, title: str = TITLE) -> Path:
    (root / "causes").mkdir(parents=True)
    (root / "causes" / "t1.yaml").write_text(
        f"id: T1\nkind: cause\ntitle: {title}\nknob:\n  name: lr\n  range: [1, 2]\n  nested:\n    deep: true\n",
        encoding="utf-8")
    (root / "metrics.yaml").write_text("metrics:\n  loss:\n    aliases: [train_loss]\n", encoding="utf-8")
    return root


def _load(kb: Path) -> loader.LoadResult:
    return loader.load([str(kb)], builtin=False)


def _title(result: loader.LoadResult) -> str:
    (node,) = [n for n in result.nodes if n.id == "T1"]
    return node.title


def _cache_files(folder: Path, prefix: str = "kb-") -> list[Path]:
    return sorted(p for p in folder.rglob(f"{prefix}*") if p.is_file())


def _tamper(files: list[Path]) -> None:
    """Rewrite each cache file with the title swapped, as the same user would: still a valid cache."""
    for path in files:
        data = path.read_bytes()
        assert TITLE.encode() in data
        path.write_bytes(data.replace(TITLE.encode(), EVIL.encode()))


# ---- the knowledge cache ------------------------------------------------------------------------


def test_cache_is_used_when_it_is_ours(tmp_path, cache):
    """The control for the tests below: a valid cache file of ours is read (so ignoring one is a decision)."""
    kb = _make_kb(tmp_path / "kb")
    assert _title(_load(kb)) == TITLE
    files = _cache_files(cache)
    assert len(files) == 1
    _tamper(files)
    assert _title(_load(kb)) == EVIL


def test_planted_pickle_is_never_unpickled(tmp_path, cache):
    kb = _make_kb(tmp_path / "kb")
    _load(kb)
    marker = tmp_path / "pwned"
    files = _cache_files(cache)
    assert files
    for path in files:  # even a file of our own, with private permissions, is only ever data
        path.write_bytes(_payload(marker))
    result = _load(kb)
    assert not marker.exists(), "a planted cache file ran code"
    assert _title(result) == TITLE
    assert not result.problems


@needs_root
def test_planted_pickle_of_another_user_is_never_unpickled(tmp_path, cache):
    kb = _make_kb(tmp_path / "kb")
    _load(kb)
    marker = tmp_path / "pwned"
    for path in _cache_files(cache):
        path.write_bytes(_payload(marker))
        os.chown(path, OTHER_UID, OTHER_UID)
    assert _title(_load(kb)) == TITLE
    assert not marker.exists(), "a cache file planted by another user ran code"


@posix_only
@pytest.mark.parametrize("mode", [0o666, 0o620, 0o602])
def test_cache_file_writable_by_others_is_ignored(tmp_path, cache, mode):
    kb = _make_kb(tmp_path / "kb")
    _load(kb)
    files = _cache_files(cache)
    _tamper(files)
    for path in files:
        os.chmod(path, mode)
    assert _title(_load(kb)) == TITLE


@needs_root
def test_cache_file_of_another_user_is_ignored(tmp_path, cache):
    kb = _make_kb(tmp_path / "kb")
    _load(kb)
    files = _cache_files(cache)
    _tamper(files)
    for path in files:
        os.chmod(path, 0o600)
        os.chown(path, OTHER_UID, OTHER_UID)
    assert _title(_load(kb)) == TITLE


@posix_only
@pytest.mark.parametrize("mode", [0o777, 0o770, 0o707, 0o1777])
def test_cache_folder_writable_by_others_is_not_used(tmp_path, cache, mode):
    kb = _make_kb(tmp_path / "kb")
    _load(kb)
    _tamper(_cache_files(cache))
    os.chmod(cache, mode)
    before = sorted(os.listdir(cache))
    assert _title(_load(kb)) == TITLE
    # and nothing is written there: an edited knowledge file would normally replace the entry
    (kb / "causes" / "t2.yaml").write_text("id: T2\nkind: cause\ntitle: two\n", encoding="utf-8")
    assert {n.id for n in _load(kb).nodes} == {"T1", "T2"}
    assert sorted(os.listdir(cache)) == before


@posix_only
def test_fresh_world_writable_folder_gets_no_cache(tmp_path, cache):
    cache.mkdir()
    os.chmod(cache, 0o777)
    kb = _make_kb(tmp_path / "kb")
    assert _title(_load(kb)) == TITLE
    assert os.listdir(cache) == []


@needs_root
def test_cache_folder_of_another_user_is_not_used(tmp_path, cache):
    kb = _make_kb(tmp_path / "kb")
    _load(kb)
    _tamper(_cache_files(cache))
    os.chown(cache, OTHER_UID, OTHER_UID)
    assert _title(_load(kb)) == TITLE


@posix_only
def test_cache_folder_that_is_a_symlink_is_not_followed(tmp_path, monkeypatch):
    real = tmp_path / "elsewhere"
    kb = _make_kb(tmp_path / "kb")
    monkeypatch.setenv(loader.CACHE_ENV, str(real))
    monkeypatch.delenv("TRIAGE_NO_CACHE", raising=False)
    _load(kb)
    _tamper(_cache_files(real))
    link = tmp_path / "link"
    link.symlink_to(real)
    monkeypatch.setenv(loader.CACHE_ENV, str(link))
    assert _title(_load(kb)) == TITLE


@posix_only
def test_new_cache_folder_is_private(tmp_path, cache):
    kb = _make_kb(tmp_path / "kb")
    _load(kb)
    assert cache.stat().st_mode & 0o777 == 0o700
    for path in _cache_files(cache):
        assert path.stat().st_mode & 0o077 == 0
        assert path.stat().st_uid == os.getuid()


@needs_root
def test_shared_cache_home_gets_a_folder_per_user(tmp_path, monkeypatch):
    shared = tmp_path / "shared"
    shared.mkdir()
    os.chmod(shared, 0o1777)
    os.chown(shared, OTHER_UID, OTHER_UID)
    monkeypatch.delenv(loader.CACHE_ENV, raising=False)
    monkeypatch.delenv("TRIAGE_NO_CACHE", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(shared))
    # another user got there first with the plain name
    (shared / "triage").mkdir(mode=0o700)
    os.chown(shared / "triage", OTHER_UID, OTHER_UID)
    kb = _make_kb(tmp_path / "kb")
    assert _title(_load(kb)) == TITLE
    mine = shared / f"triage-{os.getuid()}"
    assert _cache_files(mine), "no cache of one's own in a shared cache home"
    assert not _cache_files(shared / "triage")


def test_two_projects_with_the_same_relative_path_do_not_share_an_entry(tmp_path, cache, monkeypatch):
    """Same relative --kb, same file sizes and modification times, different content."""
    a = _make_kb(tmp_path / "a" / "kb", title="A" * len(TITLE))
    b = _make_kb(tmp_path / "b" / "kb", title="B" * len(TITLE))
    for rel in ("causes/t1.yaml", "metrics.yaml"):
        st = (a / rel).stat()
        os.utime(b / rel, ns=(st.st_atime_ns, st.st_mtime_ns))
        assert (a / rel).stat().st_size == (b / rel).stat().st_size
    monkeypatch.chdir(tmp_path / "a")
    assert _title(loader.load(["kb"], builtin=False)) == "A" * len(TITLE)
    monkeypatch.chdir(tmp_path / "b")
    assert _title(loader.load(["kb"], builtin=False)) == "B" * len(TITLE)
    monkeypatch.chdir(tmp_path / "a")
    assert _title(loader.load(["kb"], builtin=False)) == "A" * len(TITLE)


def test_same_folder_spelled_two_ways_keeps_its_own_paths(tmp_path, cache, monkeypatch):
    _make_kb(tmp_path / "kb")
    monkeypatch.chdir(tmp_path)
    rel = loader.load(["kb"], builtin=False)
    absolute = loader.load([str(tmp_path / "kb")], builtin=False)
    assert rel.nodes[0].path == os.path.join("kb", "causes", "t1.yaml")
    assert absolute.nodes[0].path == str(tmp_path / "kb" / "causes" / "t1.yaml")


def _same(a, b) -> None:
    """Equal values, equal types, and equal line information at every level."""
    assert type(a) is type(b)
    if isinstance(a, loader.LineDict):
        assert a.line == b.line and a.lines == b.lines
    if isinstance(a, dict):
        assert list(a) == list(b)
        for k in a:
            _same(a[k], b[k])
    elif isinstance(a, list):
        assert len(a) == len(b)
        for x, y in zip(a, b):
            _same(x, y)
    else:
        assert a == b


def test_cached_load_equals_a_fresh_parse(cache):
    fresh = loader.load(use_cache=False)
    loader.load()  # writes the cache
    assert _cache_files(cache)
    warm = loader.load()
    assert warm.roots == fresh.roots and warm.builtin == fresh.builtin
    assert [(n.id, n.kind, n.path, n.root, n.builtin) for n in warm.nodes] == \
           [(n.id, n.kind, n.path, n.root, n.builtin) for n in fresh.nodes]
    for x, y in zip(warm.nodes, fresh.nodes):
        _same(x.data, y.data)
    assert [p for p, _ in warm.extras["metrics"]] == [p for p, _ in fresh.extras["metrics"]]
    for (_, x), (_, y) in zip(warm.extras["metrics"], fresh.extras["metrics"]):
        _same(x, y)
    assert [str(p) for p in warm.problems] == [str(p) for p in fresh.problems]


def test_problems_survive_the_cache(tmp_path, cache):
    kb = _make_kb(tmp_path / "kb")
    (kb / "causes" / "bad.yaml").write_text("id: [unclosed\n", encoding="utf-8")
    first = _load(kb)
    second = _load(kb)
    assert [(p.path, p.line, p.message) for p in second.problems] == \
           [(p.path, p.line, p.message) for p in first.problems]
    assert second.problems and all(isinstance(p, loader.KnowledgeError) for p in second.problems)


def test_values_that_are_not_plain_data_are_still_right(tmp_path, cache):
    """A date (or a set) has no plain-data form in the cache: such a knowledge base is simply re-read."""
    kb = _make_kb(tmp_path / "kb")
    (kb / "causes" / "t2.yaml").write_text("id: T2\nkind: cause\nadded: 2020-01-02\n", encoding="utf-8")
    for _ in range(2):
        (node,) = [n for n in _load(kb).nodes if n.id == "T2"]
        assert node.get("added") == datetime.date(2020, 1, 2)


# ---- the metrics cache (metrics.yaml, read on every scan) -----------------------------------------


@pytest.fixture
def metrics_file(tmp_path) -> Path:
    path = tmp_path / "m" / "metrics.yaml"
    path.parent.mkdir()
    path.write_text(f"metrics:\n  loss:\n    doc: {TITLE}\n    aliases: [train_loss, 'train/loss']\n",
                    encoding="utf-8")
    return path


def test_metrics_cache_is_used_when_it_is_ours(metrics_file, cache):
    expected = aliases._load_yaml(metrics_file)
    assert aliases._load_cached(metrics_file) == expected
    files = _cache_files(cache, "metrics-")
    assert len(files) == 1
    _tamper(files)
    assert aliases._load_cached(metrics_file)["metrics"]["loss"]["doc"] == EVIL


def test_metrics_cache_planted_pickle_is_never_unpickled(tmp_path, metrics_file, cache):
    expected = aliases._load_yaml(metrics_file)
    aliases._load_cached(metrics_file)
    marker = tmp_path / "pwned"
    files = _cache_files(cache, "metrics-")
    assert files
    for path in files:
        path.write_bytes(_payload(marker))
    assert aliases._load_cached(metrics_file) == expected
    assert not marker.exists(), "a planted metrics cache ran code"


def _spoiled_metrics_cache_is_ignored(metrics_file, cache, spoil) -> None:
    expected = aliases._load_yaml(metrics_file)
    aliases._load_cached(metrics_file)
    files = _cache_files(cache, "metrics-")
    _tamper(files)
    for path in files:
        spoil(path)
    assert aliases._load_cached(metrics_file) == expected


@posix_only
def test_metrics_cache_writable_by_others_is_ignored(metrics_file, cache):
    _spoiled_metrics_cache_is_ignored(metrics_file, cache, lambda path: os.chmod(path, 0o666))


@needs_root
def test_metrics_cache_of_another_user_is_ignored(metrics_file, cache):
    _spoiled_metrics_cache_is_ignored(metrics_file, cache, lambda path: os.chown(path, OTHER_UID, OTHER_UID))


@posix_only
def test_metrics_cache_in_a_world_writable_folder_is_not_used(metrics_file, cache):
    expected = aliases._load_yaml(metrics_file)
    aliases._load_cached(metrics_file)
    _tamper(_cache_files(cache, "metrics-"))
    os.chmod(cache, 0o777)
    assert aliases._load_cached(metrics_file) == expected


def test_metrics_cache_is_keyed_on_the_absolute_path(tmp_path, cache, monkeypatch):
    for name, word in (("a", "AAAA"), ("b", "BBBB")):
        (tmp_path / name).mkdir()
        (tmp_path / name / "metrics.yaml").write_text(f"metrics:\n  loss:\n    doc: {word}\n", encoding="utf-8")
    st = (tmp_path / "a" / "metrics.yaml").stat()
    os.utime(tmp_path / "b" / "metrics.yaml", ns=(st.st_atime_ns, st.st_mtime_ns))
    for name, word in (("a", "AAAA"), ("b", "BBBB"), ("a", "AAAA")):
        monkeypatch.chdir(tmp_path / name)
        assert aliases._load_cached(Path("metrics.yaml"))["metrics"]["loss"]["doc"] == word


def test_node_data_that_does_not_decode_is_read_from_its_file(tmp_path, cache):
    """Each node's data is decoded on first use; if that fails, the node's own YAML file is read."""
    import msgspec

    kb = _make_kb(tmp_path / "kb")
    fresh = _load(kb)
    (path,) = _cache_files(cache)
    doc = list(msgspec.msgpack.decode(path.read_bytes()))
    doc[4] = [(*node[:2], b"\xc1", *node[3:]) for node in doc[4]]  # 0xc1 is never valid msgpack
    path.write_bytes(msgspec.msgpack.encode(doc))
    (node,) = _load(kb).nodes
    assert type(node).__name__ == "_CachedNode"  # the envelope was accepted: the node is lazy
    _same(node.data, fresh.nodes[0].data)
    assert node.title == TITLE and node.line("title") == 3
