"""The probe registry, the standalone contract of the scripts, and `triage probe ...` on the command line."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from triage import probes
from triage.cli import app
from triage.probes.assemble import standalone

from probe_helpers import SCRIPTS, SETUPS, load_script

REPO = Path(__file__).resolve().parents[2]
runner = CliRunner()
OPTIONAL_LIBS = {"transformers", "tokenizers"}


def test_at_least_twelve_probes_each_with_metadata():
    names = probes.names()
    assert len(names) >= 12
    for name in names:
        meta = yaml.safe_load((REPO / "knowledge" / "probes" / f"{name}.yaml").read_text())
        consts = probes.runner.script_constants(probes.script_path(name))
        assert consts["NAME"] == name
        assert list(consts["NEEDS"]) == meta["needs"], name
        assert meta["answers"], name


def test_every_script_has_the_place_for_the_common_block():
    for path in sorted(SCRIPTS.glob("probe_*.py")):
        text = standalone(path)
        assert "def main(" in text and text.count("# ---- end of common block") == 1, path.name


@pytest.mark.parametrize("path", sorted(SCRIPTS.glob("probe_*.py")), ids=lambda p: p.stem)
def test_scripts_import_only_stdlib_and_torch(path):
    tree = ast.parse(standalone(path))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            mods = [a.name.split(".")[0] for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            mods = [(node.module or "").split(".")[0]]
        else:
            continue
        for mod in mods:
            assert mod in sys.stdlib_module_names or mod == "torch" or mod in OPTIONAL_LIBS, f"{path.name} imports {mod}"
            assert mod != "triage"


def test_standalone_script_runs_outside_the_repo(tmp_path):
    """Exported into an empty folder and run with `python -I` (no triage on the path), as on the GPU box."""
    copied = probes.export("grad_flow", tmp_path / "box")
    assert [p.name for p in copied] == ["probe_grad_flow.py"]
    out = tmp_path / "r.json"
    proc = subprocess.run([sys.executable, "-I", str(copied[0]), "--setup", f"{SETUPS}:detached_body", "--out", str(out)],
                          capture_output=True, text=True, cwd=tmp_path, timeout=120)
    assert proc.returncode == 1, proc.stderr
    assert "grad_flow: FAIL" in proc.stdout
    result = probes.load_result(out)
    assert result["answers"] == {"Q-gradnorm": "zero"}


def test_export_all(tmp_path):
    copied = probes.export("all", tmp_path)
    assert sorted(p.name for p in copied) == sorted(f"probe_{n}.py" for n in probes.names())


# -- the setup contract: wrong setups exit 2 with one line saying what was expected ----------------
@pytest.mark.parametrize("spec,words", [
    (f"{SETUPS}:returns_list", "expected a dict with model, optimizer"),
    (f"{SETUPS}:missing_batch", "without batch; expected"),
    (f"{SETUPS}:raises", "raises() raised RuntimeError: dataset path does not exist"),
    (f"{SETUPS}:no_such_function", "has no function no_such_function()"),
    (f"{Path(__file__).parent / 'broken_import.py'}:make_setup", "could not import"),
    ("missing_file.py:make_setup", "setup file not found"),
    (str(SETUPS), "--setup must look like FILE.py:FUNC"),
])
def test_bad_setup_exits_2_with_one_line(capsys, spec, words):
    code = load_script("grad_flow").main(["--setup", spec])
    captured = capsys.readouterr()
    assert code == 2
    assert captured.out == ""
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and words in lines[0], captured.err


@pytest.mark.parametrize("spec,words", [
    ("returns_list", "expected a dict with model, optimizer"),
    ("missing_batch", "without batch; expected"),
    ("raises", "dataset path does not exist"),
])
def test_bad_setup_message_and_error_result(probe, spec, words):
    code, result, out, err = probe("grad_flow", spec)
    assert code == 2
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: ") and words in lines[0]
    assert out == ""
    assert result["status"] == "error" and words in result["message"]


def test_wrong_types_in_setup(probe, tmp_path):
    f = tmp_path / "bad.py"
    f.write_text("def make():\n    return {'model': 1, 'optimizer': None, 'loss_fn': None, 'batch': (1, 2)}\n")
    code, result, out, err = probe("dead_activations", "make", setup_file=f)
    assert code == 2 and "setup['model'] is int; expected a torch.nn.Module" in err


def test_timeout_gives_inconclusive(probe, tmp_path):
    f = tmp_path / "slow.py"
    f.write_text(
        "import sys, time\nsys.path.insert(0, %r)\nimport probe_setups as setups\n\n"
        "def make():\n    s = setups.good()\n    base = s['loss_fn']\n"
        "    def slow(out, y):\n        time.sleep(0.05)\n        return base(out, y) * 0 + 1.0 + 0 * out.sum()\n"
        "    s['loss_fn'] = slow\n    return s\n" % str(SETUPS.parent))
    out = tmp_path / "r.json"
    code = load_script("overfit_one_batch").main(["--setup", f"{f}:make", "--out", str(out), "--timeout", "0.3"])
    result = json.loads(out.read_text())
    assert code == 0 and result["status"] == "inconclusive" and "timed out" in result["message"]
    assert result["measurements"]["steps"] >= 1  # partial measurements survive


def test_max_steps_bounds_the_work(probe):
    code, result, out, err = probe("overfit_one_batch", "softmax_ce", "--max-steps", "7")
    assert result["measurements"]["steps"] == 7


# -- CLI -------------------------------------------------------------------------------------------
def test_cli_probe_list_json():
    res = runner.invoke(app, ["probe", "list", "--json"])
    assert res.exit_code == 0, res.output
    rows = json.loads(res.output)
    assert {r["name"] for r in rows} == set(probes.names())
    assert all(r["answers"] for r in rows)


def test_cli_probe_show():
    res = runner.invoke(app, ["probe", "show", "optimizer_coverage"])
    assert res.exit_code == 0
    assert "Q-opt-optimizer-coverage" in res.output and "needs:" in res.output


def test_cli_probe_show_unknown():
    res = runner.invoke(app, ["probe", "show", "grad_flo"])
    assert res.exit_code == 2
    assert "unknown probe 'grad_flo'; did you mean grad_flow?" in res.output


def test_cli_probe_export(tmp_path):
    res = runner.invoke(app, ["probe", "export", "labels", "-o", str(tmp_path)])
    assert res.exit_code == 0
    assert (tmp_path / "probe_labels.py").exists()


def _triage(*args, cwd=REPO):
    return subprocess.run([sys.executable, "-m", "triage", *args], capture_output=True, text=True, cwd=cwd, timeout=120,
                          env={"NO_COLOR": "1", "PATH": "/usr/bin:/bin", "HOME": str(Path.home()), "COLUMNS": "200"})


def test_cli_probe_run_fail_and_pass(tmp_path):
    out = tmp_path / "r.json"
    proc = _triage("probe", "run", "output_form", "--setup", f"{SETUPS}:softmax_ce", "--out", str(out))
    assert proc.returncode == 1, proc.stderr
    assert "output_form: FAIL" in proc.stdout
    assert probes.load_result(out)["answers"] == {"Q-output-loss": "softmax-ce"}
    proc = _triage("probe", "run", "output_form", "--setup", f"{SETUPS}:good", "--max-steps", "1", "--timeout", "60")
    assert proc.returncode == 0, proc.stderr
    assert "output_form: PASS" in proc.stdout


def test_cli_probe_run_bad_setup_one_line_exit_2():
    proc = _triage("probe", "run", "grad_flow", "--setup", f"{SETUPS}:returns_list")
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert len(proc.stderr.strip().splitlines()) == 1 and "expected a dict" in proc.stderr
