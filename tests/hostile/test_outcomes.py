"""Issue 16, "Wrong outcome or leftovers": every exit code as documented, nothing left behind
after an error or a signal, nothing written where the person did not ask."""

from __future__ import annotations

import json
import os
import signal
import stat
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from hostile_helpers import REPO, cli, cli_json, triage_process

NOTHING = 3  # `scan` read the input and found nothing to diagnose (triage/cli.py ExitCode.NOTHING_READ)


# -- nothing read is its own outcome -------------------------------------------------------------
@pytest.mark.parametrize("name, data", [
    ("blank.jsonl", b"   \n\n  \t\n"),
    ("events.out.tfevents.1.host", bytes(range(256)) * 20),  # garbage named like an event file
    ("skipped.jsonl", b'{"a": "x"}\n{"b": "y"}\n{"a": null}\n'),  # every row skipped
    ("empty.csv", b"step,loss\n"),
])
def test_zero_rows_read_is_nothing_read_not_healthy(tmp_path, name, data):
    p = tmp_path / name
    p.write_bytes(data)
    code, out = cli("scan", str(p))
    assert code == NOTHING and "nothing read" in out, out  # not 0 (healthy), not 2 (unreadable)
    assert "No problems found" not in out
    code, out = cli("scan", "--json", str(p))
    assert code == NOTHING and '"healthy": true' not in out


def test_nothing_read_says_which_value_lines_it_left(tmp_path):
    # a line per seed under names that are no metric and on no counter: the error says what it saw and why
    # it read no series from it; lines all alike (a setting printed again) and prose add no such note
    p = tmp_path / "seeds.txt"
    p.write_text("".join(f"run {i}: dev best {0.8 + i / 100:.4f}, held {0.7 + i / 50:.4f}\n" for i in range(6)))
    code, out = cli("scan", str(p))
    assert code == NOTHING and "6 lines print values in one shape" in out and "'held'" in out, out
    same = tmp_path / "same.txt"
    same.write_text("IMS_PER_BATCH: 2, WORKERS: 4\n" * 5)
    code, out = cli("scan", str(same))
    assert code == NOTHING and "print values in one shape" not in out, out


def test_nothing_read_exit_code_in_a_batch(tmp_path):
    empty = tmp_path / "empty.jsonl"
    empty.write_text('{"note": "starting"}\n')
    good = tmp_path / "good.jsonl"
    good.write_text("".join(json.dumps({"step": s, "loss": 2 - s / 100}) + "\n" for s in range(40)))
    code, docs = cli_json("scan", "--json", str(empty), str(good))
    assert code == NOTHING and docs[0]["outcome"] == "nothing read" and "error" not in docs[1]
    missing = tmp_path / "missing.jsonl"
    code, _ = cli("scan", str(empty), str(missing))
    assert code == 2  # unreadable input wins over nothing read


def test_exit_codes_are_documented():
    from triage.cli import ExitCode

    readme = (REPO / "README.md").read_text()
    assert ExitCode.NOTHING_READ == 3 and "3 nothing read" in readme
    code, out = cli("scan", "--help")
    assert "3 nothing read" in " ".join(out.split())


# -- signals -------------------------------------------------------------------------------------------
def _big_jsonl(path: Path, mb: int = 110) -> None:
    block = "".join(f'{{"step": {s}, "loss": {2.5 - s * 1e-7:.6f}, "lr": 0.0003}}\n' for s in range(20_000)).encode()
    with open(path, "wb") as fh:
        for _ in range(mb * (1 << 20) // len(block) + 1):
            fh.write(block)


def _children(pid: int) -> list[int]:
    try:
        out = subprocess.run(["ps", "-o", "pid=", "--ppid", str(pid)], capture_output=True, text=True).stdout
    except OSError:
        return []
    return [int(x) for x in out.split()]


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().split()[2] != "Z"
    except OSError:
        return False


def _reading_in_parallel(proc) -> list[int]:
    """Wait until the scan has forked its reader children; their pids."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        kids = _children(proc.pid)
        if kids:
            return kids
        if proc.poll() is not None:
            pytest.skip("the read finished before it could be interrupted")
        time.sleep(0.01)
    raise AssertionError("no reader child appeared")


def _shm_names() -> list[str]:
    return [n for n in os.listdir("/dev/shm") if n.startswith("triage-cols-")]


@pytest.mark.skipif(not os.path.isdir("/dev/shm") or not hasattr(os, "fork"), reason="Linux shared memory")
@pytest.mark.parametrize("sig, code", [(signal.SIGTERM, 143), (signal.SIGKILL, -9)])
def test_a_signal_during_a_parallel_read_leaves_no_shm_and_no_children(tmp_path, sig, code):
    """SIGTERM: the readers are stopped and everything is removed on the way out. SIGKILL cannot
    be caught: the readers die with their parent (PR_SET_PDEATHSIG) and the shared-memory files
    never had a name to leave behind."""
    p = tmp_path / "big.jsonl"
    _big_jsonl(p)
    before = set(_shm_names())
    proc = triage_process("scan", str(p), env={"TRIAGE_NO_CACHE": "1"})
    kids = _reading_in_parallel(proc)
    proc.send_signal(sig)
    proc.communicate(timeout=60)
    assert proc.returncode == code
    deadline = time.monotonic() + 10
    while [k for k in kids if _alive(k)] and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not [k for k in kids if _alive(k)]
    assert set(_shm_names()) <= before


@pytest.mark.parametrize("sig, code", [(signal.SIGTERM, 143), (signal.SIGINT, 130)])
def test_a_signal_while_stdin_is_copied_leaves_no_temp_file(tmp_path, sig, code):
    import tempfile

    tmpdir = tmp_path / "tmp"
    tmpdir.mkdir()
    proc = triage_process("scan", "-", stdin=subprocess.PIPE, env={"TMPDIR": str(tmpdir)})
    chunk = b'{"step": 1, "loss": 2.0}\n' * 40_000
    deadline = time.monotonic() + 60
    try:
        while not list(tmpdir.glob("triage-stdin-*")) and time.monotonic() < deadline:
            proc.stdin.write(chunk)
            proc.stdin.flush()
        proc.stdin.write(chunk)
        assert list(tmpdir.glob("triage-stdin-*"))
        proc.send_signal(sig)
    finally:
        try:
            proc.stdin.close()
        except BrokenPipeError:
            pass
        proc.stdin = None
    proc.communicate(timeout=60)
    assert proc.returncode == code
    assert not list(tmpdir.glob("triage-stdin-*"))
    assert tempfile.gettempdir()  # the test's own temp dir is untouched


# -- pipes -------------------------------------------------------------------------------------------------
def test_dev_stdin_and_process_substitution_are_read(tmp_path):
    lines = "".join(f"step {s} | loss {2.5 - s / 100:.3f}\n" for s in range(1, 60))
    proc = subprocess.run([sys.executable, "-m", "triage", "inspect", "--json", "/dev/stdin"], input=lines,
                          capture_output=True, text=True, cwd=REPO, timeout=60)
    assert proc.returncode == 0 and json.loads(proc.stdout)["runs"][0]["rows"] == 59, proc.stderr
    if Path("/bin/bash").exists():
        cmd = f"{sys.executable} -m triage scan --json <(printf '{lines}')"
        proc = subprocess.run(["/bin/bash", "-c", cmd], capture_output=True, text=True, cwd=REPO, timeout=60)
        assert proc.returncode in (0, 1) and json.loads(proc.stdout)["sources"][0]["rows"] == 59, proc.stderr


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes need POSIX")
def test_inspect_reads_a_named_pipe(tmp_path):
    fifo = tmp_path / "live.log"
    os.mkfifo(fifo)

    def write():
        with open(fifo, "w") as fh:
            fh.write("".join(f"step {i} | loss {2.5 - i * 0.01:.3f}\n" for i in range(1, 40)))

    threading.Thread(target=write, daemon=True).start()
    code, doc = cli_json("inspect", "--json", str(fifo))
    assert code == 0 and doc["runs"][0]["rows"] == 39


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes need POSIX")
@pytest.mark.parametrize("cmd", ["scan", "inspect"])
def test_a_named_json_pipe_with_no_writer_does_not_block(tmp_path, cmd):
    fifo = tmp_path / "result.json"
    os.mkfifo(fifo)
    proc = subprocess.run([sys.executable, "-m", "triage", cmd, str(fifo)], capture_output=True, text=True,
                          cwd=REPO, timeout=60, env={**os.environ, "TRIAGE_PIPE_WAIT": "1"})
    assert proc.returncode == 2 and "no writer" in proc.stderr, proc.stderr


# -- what is written, and where ---------------------------------------------------------------------------
@pytest.fixture
def answers(tmp_path):
    p = tmp_path / "answers.yaml"
    p.write_text("Q-start: nan\n")
    return str(p)


def _leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.startswith(".") and p.name.endswith((".tmp", ".check"))
                  or p.name.startswith(".triage-"))


def test_ask_save_to_a_folder_or_an_unwritable_place_exits_2(tmp_path, answers):
    (tmp_path / "out.md").mkdir()
    for target in (str(tmp_path / "out.md"), str(tmp_path / "missing" / "x.md"), "/proc/x.md"):
        code, out = cli("ask", "--answers", answers, "--save", target)
        assert code == 2 and "saved" not in out and "Traceback" not in out, (target, out)
    assert _leftovers(tmp_path) == []


def test_scan_report_to_a_folder_leaves_no_temp_file(tmp_path):
    log = tmp_path / "log.jsonl"
    log.write_text("".join(json.dumps({"step": s, "loss": 2 - s / 100}) + "\n" for s in range(30)))
    (tmp_path / "r.html").mkdir()
    for target in (str(tmp_path / "r.html"), str(tmp_path / "nope" / "r.md"), "/proc/r.md"):
        code, out = cli("scan", str(log), "--report", target)
        assert code == 2 and "report written" not in out, (target, out)
    assert _leftovers(tmp_path) == [] and _leftovers(tmp_path / "r.html") == []


@pytest.mark.parametrize("mask, mode", [(0o022, 0o644), (0o027, 0o640)])
def test_reports_and_transcripts_are_shareable(tmp_path, answers, mask, mode):
    log = tmp_path / "log.jsonl"
    log.write_text("".join(json.dumps({"step": s, "loss": 2 - s / 100}) + "\n" for s in range(30)))
    old = os.umask(mask)
    try:
        cli("scan", str(log), "--report", str(tmp_path / "r.md"))
        cli("ask", "--answers", answers, "--save", str(tmp_path / "t.md"))
        cli("checklist", "preflight", "-f", "md", "-o", str(tmp_path / "c.md"))
    finally:
        os.umask(old)
    for name in ("r.md", "t.md", "t.json", "c.md"):
        assert stat.S_IMODE((tmp_path / name).stat().st_mode) == mode, name


def test_checklist_output_makes_no_folders_and_keeps_files(tmp_path):
    code, out = cli("checklist", "preflight", "-f", "md", "-o", str(tmp_path / "a" / "b" / "c.md"))
    assert code == 2 and "does not exist" in out and not (tmp_path / "a").exists()
    target = tmp_path / "c.md"
    target.write_text("mine")
    code, out = cli("checklist", "preflight", "-f", "md", "-o", str(target))
    assert code == 2 and "--force" in out and target.read_text() == "mine"
    code, out = cli("checklist", "preflight", "-f", "md", "-o", str(target), "--force")
    assert code == 0 and target.read_text() != "mine"


def test_probe_export_makes_no_tree_and_keeps_files(tmp_path):
    code, out = cli("probe", "export", "labels", "-o", str(tmp_path / "a" / "b"))
    assert code == 2 and not (tmp_path / "a").exists()
    code, out = cli("probe", "export", "labels", "-o", str(tmp_path / "box"))  # one level, like mkdir
    assert code == 0 and (tmp_path / "box" / "probe_labels.py").is_file()
    mine = tmp_path / "box" / "probe_labels.py"
    mine.write_text("# edited on the GPU box\n")
    code, out = cli("probe", "export", "labels", "-o", str(tmp_path / "box"))
    assert code == 2 and "--force" in out and mine.read_text() == "# edited on the GPU box\n"
    code, out = cli("probe", "export", "labels", "-o", str(tmp_path / "box"), "--force")
    assert code == 0 and "run_probe" in mine.read_text() or "def " in mine.read_text()
    assert mine.stat().st_mode & 0o111


# -- the knowledge cache is keyed on where the folder is ----------------------------------------------
def test_same_relative_kb_path_in_two_projects_gets_two_cache_entries(tmp_path, monkeypatch):
    from triage.kb import loader

    monkeypatch.setenv("TRIAGE_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("TRIAGE_NO_CACHE", raising=False)
    for proj, title in (("a", "Title AAAA"), ("b", "Title BBBB")):
        d = tmp_path / proj / "kb" / "causes"
        d.mkdir(parents=True)
        (d / "t1.yaml").write_text(f"id: T1\nkind: cause\ntitle: {title}\n")
        os.utime(d / "t1.yaml", (1_700_000_000, 1_700_000_000))
        os.utime(d, (1_700_000_000, 1_700_000_000))
    seen = []
    for proj in ("a", "b", "a", "b"):
        monkeypatch.chdir(tmp_path / proj)
        (node,) = [n for n in loader.load(["kb"], builtin=False).nodes if n.id == "T1"]
        seen.append(node.title)
    assert seen == ["Title AAAA", "Title BBBB", "Title AAAA", "Title BBBB"]


# -- probes: the timeout covers the setup; a signal stops the probe too ---------------------------------
HANG = '''
import os, sys, time
def make():
    with open(os.environ["PROBE_PID_FILE"], "w") as fh:
        fh.write(str(os.getpid()))
    time.sleep(600)
'''


@pytest.fixture
def hanging_setup(tmp_path):
    pytest.importorskip("torch")
    setup = tmp_path / "hang_setup.py"
    setup.write_text(HANG)
    return setup


def _wait_for(path: Path, timeout: float = 90) -> int:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if path.exists() and path.read_text().strip():
            return int(path.read_text())
        time.sleep(0.05)
    raise AssertionError(f"{path} never appeared")


@pytest.mark.slow  # waits out the timeout (1 s) plus the grace to start torch (15 s)
def test_probe_timeout_covers_a_hanging_setup(tmp_path, hanging_setup, monkeypatch):
    from triage.probes import ProbeError, runner

    pid_file = tmp_path / "pid"
    monkeypatch.setenv("PROBE_PID_FILE", str(pid_file))
    monkeypatch.setattr(runner, "GRACE", 15.0)  # time to import torch on a busy machine
    t0 = time.monotonic()
    with pytest.raises(ProbeError) as err:
        runner.run("output_form", f"{hanging_setup}:make", timeout=1, capture=True)
    assert "setup" in str(err.value) and time.monotonic() - t0 < 30  # it was timeout + 60 s, setup not counted
    assert not _alive(_wait_for(pid_file, 1))  # the setup had started, and it is gone


@pytest.mark.slow  # starts a probe (imports torch) before the signal
def test_sigterm_to_probe_run_stops_the_probe(tmp_path, hanging_setup):
    pid_file = tmp_path / "pid"
    proc = triage_process("probe", "run", "output_form", "--setup", f"{hanging_setup}:make", "--timeout", "300",
                          env={"PROBE_PID_FILE": str(pid_file)})
    probe_pid = _wait_for(pid_file)
    proc.send_signal(signal.SIGTERM)
    proc.communicate(timeout=60)
    assert proc.returncode == 143
    deadline = time.monotonic() + 10
    while _alive(probe_pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _alive(probe_pid)


def test_a_sentence_printed_again_and_again_is_output_not_a_description():
    """A loop's words are never matched against the knowledge as if a person had described a problem."""
    from triage.api import looks_like_prose

    note = "My loss went to nan after a few epochs.\nI use Adam with lr 0.01 and fp16.\nAny idea why?"
    assert looks_like_prose(note)
    loop = "\n".join(f"Total rewards in episode {k} is 3.8 total number of steps are {49 * k}" for k in range(12))
    assert not looks_like_prose(loop)
    # an AutoML report: words, but line after line of scores and timings to several decimals
    report = "\n".join(["The task is binary_classification with evaluation metric logloss",
                        "1_Default_LightGBM logloss 0.50397 trained in 25.31 seconds",
                        "2_Default_Xgboost logloss 0.505556 trained in 26.08 seconds",
                        "3_Default_CatBoost logloss 0.502192 trained in 33.14 seconds",
                        "AutoML will ensemble available models"])
    assert not looks_like_prose(report)
    quoted = "My loss was 2.31 at step 10, then 2.45 and 3.11 later.\nThe LR is 0.001.\nWhat is wrong?"
    assert looks_like_prose(quoted)


def test_a_config_dump_is_settings_not_a_description():
    """A YAML or INI dump is a program's settings: its keys (`optimizer`, `save`, `batch_size`) are never
    matched against the knowledge as if a person had described a problem. A note that quotes one setting
    is still a person's."""
    from triage.api import looks_like_prose

    yaml_dump = "\n".join(["### Experiment Configuration ###", "model:", "  affine: true", "  nflow: 60", "optimizer:",
                           "  LR: 0.001", "output:", "  save: true", "parameters:", "  batch_size: 100"])
    assert not looks_like_prose(yaml_dump)
    ini = "\n".join(["[train]", "lr = 3e-4", "epochs = 10", "I think these are fine", "- warmup"])
    assert not looks_like_prose(ini)
    note = "\n".join(["My loss is flat at 2.30 from the first epoch.", "lr: 0.1", "I tried SGD and Adam.",
                      "Why does it not learn?"])
    assert looks_like_prose(note)


def test_words_that_are_not_about_training_are_nothing_read(tmp_path):
    """A licence or a manual page is prose, but not about training: its ordinary words ("loss" of profits,
    "without", "code") are never ranked against the knowledge as if they described a failed run."""
    licence = tmp_path / "LICENSE.txt"
    licence.write_text("Redistribution and use in source and binary forms, with or without modification, are\n"
                       "permitted provided that the following conditions are met. In no event shall the holder be\n"
                       "liable for any direct or indirect damages, including loss of use, data, or profits.\n")
    code, out = cli("scan", str(licence))
    assert code == NOTHING and "none of them is about training a model" in out, out
    code, out = cli("scan", "--json", str(licence))
    assert code == NOTHING and '"causes": [{' not in out


@pytest.mark.parametrize("note", ["training is slow", "My loss is NaN after two epochs with fp16, any idea?",
                                  "ValueError: Attempting to unscale FP16 gradients."])
def test_a_short_note_about_training_is_still_a_description(tmp_path, note):
    p = tmp_path / "note.txt"
    p.write_text(note + "\n")
    code, doc = cli_json("scan", "--json", str(p))
    assert code == 1 and doc["causes"], doc


def test_training_words_follow_the_search_spelling():
    """The knowledge's training words are spelled as the search index spells a text's words (a plural
    dropped, a joined word kept whole), so `Gradients` and `fine-tune` count and `fine` alone does not."""
    from triage.api import load_kb
    from triage.engine.evidence import about_training, training_words

    kb = load_kb()
    words = training_words(kb)
    assert {"gradient", "fine-tune", "epoch", "loss"} <= words and "fine" not in words
    assert about_training(kb, "Gradients vanish")
    assert not about_training(kb, "I will fine tune the wording of this letter before the meeting.")
    assert not about_training(kb, " ".join(["The software is provided as is and the loss of data is yours."] * 5))


def test_tagged_lines_and_banners_are_output_not_a_description():
    """A library's tagged log lines (`[LightGBM] [Info] ...`) and a launcher's notice framed by rules of
    stars are a program's words; a note with one Markdown rule in it is still a person's."""
    from triage.api import looks_like_prose

    tagged = "\n".join(["[LightGBM] [Info] Finished loading parameters", "[LightGBM] [Info] Loading query boundaries...",
                        "[LightGBM] [Info] Started training...", "[LightGBM] [Info] Trained a tree with leaves=1"])
    assert not looks_like_prose(tagged)
    banner = "*" * 41 + "\nSetting OMP_NUM_THREADS environment variable for each process to be 1 in default.\n" + "*" * 41
    assert not looks_like_prose(banner)
    note = ("The loss stays flat after the first epoch.\nI train a small CNN on my own images.\n-----\n"
            "Any idea what to check first?\nThe learning rate is the default one.")
    assert looks_like_prose(note)
