"""`triage probe run` runs only a script it has just written, in a private folder of the user's own.

When the cache folder cannot be used, the script goes to a per-user folder under the temporary
directory; a file planted there (or at the old shared name), a folder owned by someone else or
writable by others, and a symlink in place of the folder are never used.
"""

from __future__ import annotations

import hashlib
import os
import stat
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from triage.probes import runner
from triage.probes.assemble import runnable, standalone

IS_ROOT = hasattr(os, "geteuid") and os.geteuid() == 0
OTHER_UID = 12345
pytestmark = pytest.mark.skipif(not hasattr(os, "geteuid"), reason="POSIX ownership and modes")
NAME = "loss_at_init"
SCRIPT = runner.script_path(NAME)


@pytest.fixture
def fake_tmp(tmp_path, monkeypatch) -> Path:
    """A temporary directory of the test's own, and a cache folder that cannot be created (the
    situation of a read-only home): the probe script has to go under the temporary directory."""
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    os.chmod(tmp, 0o1777)
    monkeypatch.setattr(tempfile, "tempdir", str(tmp))
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("")
    monkeypatch.setenv("TRIAGE_CACHE_DIR", str(blocker / "cache"))
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    return tmp


def _predictable_names() -> list[str]:
    digest = hashlib.sha1(standalone(SCRIPT).encode()).hexdigest()[:12]
    return [f"probe_{NAME}-{digest}.py"]


def _plant(folder: Path, marker: Path) -> None:
    """What another user could leave in a shared temporary directory: the script, and a module that
    Python would import from the script's folder."""
    folder.mkdir(parents=True, exist_ok=True)
    code = f"open({str(marker)!r}, 'a').write('planted code ran\\n')\n"
    for name in _predictable_names():
        (folder / name).write_text(code)
    (folder / "torch.py").write_text(code)


def _fallback_folders(tmp: Path) -> list[Path]:
    return [tmp / "triage-probes", tmp / f"triage-probes-{os.geteuid()}"]


def _run(tmp_path, monkeypatch):
    """`probe run` for real, recording the command it starts."""
    seen = []
    real = subprocess.Popen

    def spy(cmd, *args, **kwargs):
        seen.append(cmd)
        return real(cmd, *args, **kwargs)

    monkeypatch.setattr(runner.subprocess, "Popen", spy)
    setup = tmp_path / "no_such_setup.py"
    outcome = runner.run(NAME, f"{setup}:make_setup", capture=True, timeout=60)
    assert len(seen) == 1
    return outcome, Path(seen[0][1])


def _assert_private_and_exact(script: Path) -> None:
    assert script.read_text(encoding="utf-8") == standalone(SCRIPT)
    for path in (script, script.parent):
        st = os.lstat(path)
        assert not stat.S_ISLNK(st.st_mode)
        assert st.st_uid == os.geteuid()
        assert not st.st_mode & 0o022
    assert os.lstat(script.parent).st_mode & 0o777 == 0o700


def test_planted_script_in_the_temp_fallback_is_not_run(tmp_path, fake_tmp, monkeypatch):
    marker = tmp_path / "pwned"
    for folder in _fallback_folders(fake_tmp):
        _plant(folder, marker)
        os.chmod(folder, 0o777)
        if IS_ROOT:
            for path in [folder, *folder.iterdir()]:
                os.chown(path, OTHER_UID, OTHER_UID)
    outcome, script = _run(tmp_path, monkeypatch)
    assert not marker.exists(), marker.read_text()
    assert outcome.returncode == 2  # the real probe ran and said that the setup file is missing
    assert "no_such_setup" in outcome.extra["stderr"]
    _assert_private_and_exact(script)
    assert script.parent not in _fallback_folders(fake_tmp)


@pytest.mark.skipif(not IS_ROOT, reason="chown to another user needs root")
def test_private_looking_folder_of_another_user_is_not_used(tmp_path, fake_tmp, monkeypatch):
    marker = tmp_path / "pwned"
    for folder in _fallback_folders(fake_tmp):
        _plant(folder, marker)
        os.chmod(folder, 0o700)
        for path in [folder, *folder.iterdir()]:
            os.chown(path, OTHER_UID, OTHER_UID)
    _, script = _run(tmp_path, monkeypatch)
    assert not marker.exists()
    _assert_private_and_exact(script)


def test_symlinked_fallback_folder_is_not_followed(tmp_path, fake_tmp, monkeypatch):
    marker = tmp_path / "pwned"
    target = tmp_path / "attacker"  # where the link points: it even looks private
    _plant(target, marker)
    os.chmod(target, 0o700)
    before = sorted(os.listdir(target))
    for folder in _fallback_folders(fake_tmp):
        folder.symlink_to(target, target_is_directory=True)
    _, script = _run(tmp_path, monkeypatch)
    assert not marker.exists()
    assert sorted(os.listdir(target)) == before, "wrote through the symlink"
    _assert_private_and_exact(script)
    assert Path(os.path.realpath(script)).parent != target.resolve()


def test_our_own_folder_is_rewritten_not_trusted(tmp_path, fake_tmp, monkeypatch):
    """Even in the per-user folder a stale or edited script of the same name is replaced before it runs."""
    marker = tmp_path / "pwned"
    first = runnable(SCRIPT)
    assert first.parent == fake_tmp / f"triage-probes-{os.geteuid()}"
    _assert_private_and_exact(first)
    first.write_text(f"open({str(marker)!r}, 'w').write('stale script ran')\n")
    outcome, script = _run(tmp_path, monkeypatch)
    assert script == first
    assert not marker.exists()
    assert outcome.returncode == 2
    _assert_private_and_exact(script)


def test_cache_folder_writable_by_others_is_not_used(tmp_path, monkeypatch, fake_tmp):
    cache = tmp_path / "cache"
    (cache / "probes").mkdir(parents=True)
    os.chmod(cache, 0o777)
    monkeypatch.setenv("TRIAGE_CACHE_DIR", str(cache))
    marker = tmp_path / "pwned"
    _plant(cache / "probes", marker)
    script = runnable(SCRIPT)
    assert cache not in script.parents
    _assert_private_and_exact(script)


def test_script_goes_to_the_cache_when_it_is_private(tmp_path, monkeypatch):
    monkeypatch.setenv("TRIAGE_CACHE_DIR", str(tmp_path / "cache"))
    script = runnable(SCRIPT)
    assert script.parent == tmp_path / "cache" / "probes"
    _assert_private_and_exact(script)
    proc = subprocess.run([sys.executable, str(script), "--help"], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0 and "--setup" in proc.stdout


def test_result_file_is_written_in_a_private_folder(tmp_path, monkeypatch):
    """Without --out the probe's result goes to a fresh private folder, not to a guessable /tmp name."""
    monkeypatch.setenv("TRIAGE_CACHE_DIR", str(tmp_path / "cache"))
    seen = []

    def fake(cmd, *args, **kwargs):
        out = Path(cmd[cmd.index("--out") + 1])
        seen.append((out, os.lstat(out.parent)))
        return "", "", 2

    monkeypatch.setattr(runner, "_supervise", fake)
    runner.run(NAME, f"{tmp_path}/x.py:f", capture=True)
    (out, st), = seen
    assert stat.S_ISDIR(st.st_mode) and st.st_uid == os.geteuid() and st.st_mode & 0o777 == 0o700
    assert not out.parent.exists()  # removed afterwards
