"""The probe registry behind `triage probe list | show | export | run`, and the result loader."""

from __future__ import annotations

import difflib
import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from triage.errors import TriageError
from triage.runtime import user_env
from triage.ingest.probe_result import RESULT_FIELDS, RESULT_STATUSES, ProbeResultError  # noqa: F401 - re-exported

SCRIPTS = Path(__file__).resolve().parent / "scripts"


class ProbeError(TriageError):
    """Unknown probe, bad arguments, a run that produced no result: one line, exit 2."""


@dataclass
class ProbeInfo:
    name: str
    title: str
    checks: str
    needs: list[str]
    answers: list[str]
    path: Path
    usage: str = ""
    optional: list[str] = field(default_factory=list)


@dataclass
class RunOutcome:
    name: str
    returncode: int
    result: dict | None
    out: Path | None = None
    extra: dict = field(default_factory=dict)


def script_path(name: str) -> Path:
    return SCRIPTS / f"probe_{name}.py"


def names() -> list[str]:
    return sorted(p.stem[len("probe_"):] for p in SCRIPTS.glob("probe_*.py"))


def _metadata(kb_dirs: list[str] | None) -> dict:
    try:
        from triage import api

        kb = api.load_kb(kb_dirs or [])
        return {n.id: n for n in kb.by_kind("probe")}
    except Exception:  # noqa: BLE001 - a broken knowledge base must not stop the probes: use the docstrings
        return {}


def _docstring(path: Path) -> str:
    import ast

    try:
        return ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or ""
    except (OSError, SyntaxError):
        return ""


def script_constants(path: Path) -> dict:
    """The literal module-level constants of a probe script (NAME, VERSION, NEEDS, OPTIONAL), read without running it."""
    import ast

    found = {}
    try:
        tree = ast.parse(path.read_text(encoding="utf-8"))
    except (OSError, SyntaxError):
        return found
    for node in tree.body:
        if isinstance(node, ast.Assign):
            try:
                value = ast.literal_eval(node.value)
            except ValueError:
                continue
            for target in node.targets:
                if isinstance(target, ast.Name):
                    found[target.id] = value
                elif isinstance(target, ast.Tuple) and isinstance(value, tuple):
                    for t, v in zip(target.elts, value):
                        if isinstance(t, ast.Name):
                            found[t.id] = v
    return found


def _info(name: str, meta) -> ProbeInfo:
    path = script_path(name)
    doc = _docstring(path)
    consts = script_constants(path)
    usage = next((line.split(":", 1)[1].strip() for line in doc.splitlines() if line.startswith("Usage:")), "")
    needs, optional = list(consts.get("NEEDS", ())), list(consts.get("OPTIONAL", ()))
    if meta is not None:
        return ProbeInfo(name, meta.title, str(meta.get("checks") or ""), [str(x) for x in meta.get("needs") or needs],
                         [str(x) for x in meta.get("answers") or []], path, usage, optional)
    first = doc.split("\n\n")[0].replace("\n", " ")
    return ProbeInfo(name, first.split(":")[0], first, needs, [], path, usage, optional)


def list_probes(kb_dirs: list[str] | None = None) -> list[ProbeInfo]:
    meta = _metadata(kb_dirs)
    return [_info(n, meta.get(n)) for n in names()]


def get(name: str, kb_dirs: list[str] | None = None) -> ProbeInfo:
    name = name.strip().removeprefix("probe_").removesuffix(".py")
    if name not in names():
        close = difflib.get_close_matches(name, names(), n=3, cutoff=0.5)
        hint = f"; did you mean {', '.join(close)}?" if close else ""
        raise ProbeError(f"unknown probe {name!r}{hint} (`triage probe list` shows them all)")
    return _info(name, _metadata(kb_dirs).get(name))


def export(name: str | None, dest: str | os.PathLike = ".", force: bool = False) -> list[Path]:
    """Write one standalone probe file (or all of them when name is None or 'all') into dest.

    `dest` is made when its own folder exists (one level, like mkdir), never a missing tree; a
    script already there is replaced only with `force`. Scripts get mode 0777 less the umask."""
    from triage.probes.assemble import standalone
    from triage.writeout import check_target, write_text

    targets = names() if name in (None, "all") else [get(name).name]
    folder = Path(dest)
    if folder.exists() and not folder.is_dir():
        raise ProbeError(f"{folder} is not a folder")
    if not folder.exists():
        parent = folder.parent if str(folder.parent) else Path(".")
        if not parent.is_dir():
            raise ProbeError(f"cannot export to {folder}: folder {parent} does not exist (create it first; "
                             "missing folders are not made for you)")
        try:
            folder.mkdir()
        except OSError as exc:
            raise ProbeError(f"cannot write to {dest}: {exc.strerror or exc}") from None
    files = [folder / script_path(n).name for n in targets]
    there = [f.name for f in files if f.exists()]
    if there and not force:
        shown = ", ".join(there[:3]) + (f" and {len(there) - 3} more" if len(there) > 3 else "")
        raise ProbeError(f"{shown} already in {folder}; add --force to replace")
    return [write_text(check_target(f, what="probe export"), standalone(script_path(n)), executable=True,
                       what="probe export") for n, f in zip(targets, files)]


def run(name: str, setup: str, out: str | os.PathLike | None = None, max_steps: int | None = None,
        timeout: float | None = None, device: str | None = None, capture: bool = False) -> RunOutcome:
    """Run the standalone script in a subprocess with this interpreter; return its exit code and result.

    The script prints its verdict on stdout and its one-line errors on stderr (passed through unless
    `capture`). Exit codes: 0 pass / inconclusive, 1 fail, 2 setup or probe error.
    """
    info = get(name)
    if ":" not in setup or not setup.rsplit(":", 1)[0] or not setup.rsplit(":", 1)[1]:
        raise ProbeError(f"--setup must look like FILE.py:FUNC, got {setup!r}")
    from triage.probes.assemble import runnable

    try:
        script = runnable(info.path)  # written just now, in a private folder (see SECURITY.md)
    except OSError as exc:
        raise ProbeError(f"cannot write the probe script: {exc.strerror or exc}") from None
    tmp = None
    if out is None:  # the result goes to a fresh folder of our own (mode 0700), removed afterwards
        tmp = tempfile.mkdtemp(prefix=f"triage-probe-{info.name}-")
        out = os.path.join(tmp, "result.json")
    try:
        return _run(info, script, setup, out, tmp, max_steps, timeout, device, capture)
    finally:
        if tmp is not None:
            shutil.rmtree(tmp, ignore_errors=True)


def _run(info: ProbeInfo, script: Path, setup: str, out: str | os.PathLike, tmp: str | None,
         max_steps: int | None, timeout: float | None, device: str | None, capture: bool) -> RunOutcome:
    cmd = [sys.executable, str(script), "--setup", setup, "--out", str(out)]
    if max_steps is not None:
        cmd += ["--max-steps", str(max_steps)]
    if timeout is not None:
        cmd += ["--timeout", str(timeout)]
    if device:
        cmd += ["--device", device]
    limit = (timeout or DEFAULT_TIMEOUT) + GRACE
    stdout, stderr, returncode = _supervise(cmd, capture, limit, info.name, timeout or DEFAULT_TIMEOUT)
    proc = subprocess.CompletedProcess(cmd, returncode, stdout, stderr)
    result = None
    if Path(out).exists():
        try:
            result = load_result(out)
        except ProbeResultError:
            result = None
    extra = {"stdout": proc.stdout, "stderr": proc.stderr} if capture else {}
    return RunOutcome(info.name, proc.returncode, result, None if tmp else Path(out), extra)


DEFAULT_TIMEOUT = 300.0  # the probe scripts' own default for --timeout
# Seconds on top of --timeout for the script to start (import torch) and write its result. The
# script's own alarm covers its steps only; this deadline, counted from the start, covers the
# setup too: a make_setup() that hangs is stopped here.
GRACE = 10.0


def _supervise(cmd: list[str], capture: bool, limit: float, name: str, timeout: float):
    """Run the probe in its own process group; stop the whole group (the probe and any workers it
    started) at the deadline, and on any interruption of ours (Ctrl-C, SIGTERM turned into an
    exception by the CLI): a probe never outlives `triage probe run`."""
    pipe = subprocess.PIPE if capture else None
    # (the environment as the user had it: not the command line's own BLAS setting, triage.runtime)
    proc = subprocess.Popen(cmd, stdout=pipe, stderr=pipe, text=True, start_new_session=True, env=user_env())
    try:
        out, err = proc.communicate(timeout=limit)
    except subprocess.TimeoutExpired:
        _stop_group(proc)
        raise ProbeError(f"probe {name} did not finish within {limit:g}s (--timeout {timeout:g}s, which counts "
                         f"its setup too, plus {GRACE:g}s to start and report) and was stopped") from None
    except BaseException:
        _stop_group(proc)
        raise
    return out, err, proc.returncode


def _stop_group(proc: subprocess.Popen) -> None:
    """SIGTERM to the probe's process group, SIGKILL if it is still there 2 s later; reaped."""
    import signal

    if not hasattr(os, "killpg"):  # no process groups (Windows): the probe itself
        proc.kill()
        proc.communicate()
        return
    for sig, wait in ((signal.SIGTERM, 2.0), (signal.SIGKILL, 5.0)):
        try:
            os.killpg(proc.pid, sig)
        except (ProcessLookupError, PermissionError, OSError):
            break
        try:
            proc.wait(timeout=wait)
            break
        except subprocess.TimeoutExpired:
            continue
    try:
        proc.communicate(timeout=1.0)
    except (subprocess.TimeoutExpired, ValueError, OSError):
        pass


def load_result(path: str | os.PathLike) -> dict:
    """Read and validate one probe result, every field (triage.ingest.probe_result, the one
    reader); raise ProbeResultError naming the problem."""
    from triage.ingest.probe_result import read_result

    return read_result(path, strict=True)


def check_answers(result: dict, kb) -> list[str]:
    """Problems with a result's answers against a knowledge base: unknown question IDs or answer values."""
    problems = []
    for qid, value in result.get("answers", {}).items():
        node = kb.get(qid)
        if node is None or node.kind != "symptom":
            problems.append(f"unknown question {qid}")
        elif value not in kb.answer_values(node):
            problems.append(f"{qid}: {value!r} is not one of {', '.join(kb.answer_values(node))}")
    return problems
