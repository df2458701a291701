"""How error lines and probe results move the ranking: line numbers, one row per message, ties
broken by specificity, a failed probe that names its cause, a passing probe that is healthy."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from triage import api
from triage.cli import app
from triage.engine import session as S
from triage.engine.diagnosis import ERROR_MATCH, error_line_weights

HERE = Path(__file__).resolve().parent
runner = CliRunner()

OOM = ("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of "
       "23.69 GiB of which 1.50 GiB is free. Of the allocated memory 20.12 GiB is allocated by PyTorch, and "
       "312.00 MiB is reserved by PyTorch but unallocated.")
TRACEBACK = """Traceback (most recent call last):
  File "train.py", line 42, in <module>
    loss = model(**batch).loss
  File "/opt/venv/lib/python3.11/site-packages/torch/nn/modules/module.py", line 1736, in _call_impl
    return forward_call(*args, **kwargs)
{last}
"""


@pytest.fixture(scope="module")
def kb():
    return api.load_kb()


def _scan(kb, tmp_path, text, name="crash.log"):
    path = tmp_path / name
    path.write_text(text)
    return api.scan(str(path), kb=kb)


def test_an_error_is_reported_on_its_own_line_not_where_the_traceback_starts(kb, tmp_path):
    text = "step 1 | loss 2.301\nstep 2 | loss 2.250\n" + TRACEBACK.format(last=OOM)
    doc = _scan(kb, tmp_path, text)
    errors = doc["_applied"].errors
    assert len(errors) == 1 and errors[0]["line"] == 8, errors
    assert text.splitlines()[7].startswith("torch.OutOfMemoryError")


def test_each_message_is_listed_once_with_its_count_and_all_its_causes(kb, tmp_path):
    line = ("[rank{r}]:[E321 02:07:08.40827125{r} ProcessGroupNCCL.cpp:607] [Rank {r}] Watchdog caught collective "
            "operation timeout: WorkNCCL(SeqNum=1580, OpType=ALLREDUCE, NumelIn=466119168, NumelOut=466119168, "
            "Timeout(ms)=600000) ran for 60006{r} milliseconds before timing out.")
    doc = _scan(kb, tmp_path, "\n".join(line.format(r=r) for r in range(4)) + "\n")
    errors = doc["_applied"].errors
    assert len(errors) == 1 and errors[0]["count"] == 4 and errors[0]["line"] == 1
    assert errors[0]["causes"][0] == "D-nccl-timeout"
    oom = _scan(kb, tmp_path, TRACEBACK.format(last=OOM), "oom.log")["_applied"].errors
    assert len(oom) == 1 and oom[0]["causes"][0] == "S-oom" and len(oom[0]["causes"]) > 5  # one row, every cause


def test_the_scan_output_shows_one_row_per_message(tmp_path):
    path = tmp_path / "ranks.log"
    path.write_text("\n".join(f"[rank{r}]: {OOM}" for r in range(8)) + "\n")
    out = runner.invoke(app, ["scan", str(path)], env={"COLUMNS": "200"}).output
    assert out.count("CUDA out of memory. Tried to allocate") == 1 + out.count("because error text")
    assert "(8 times)" in out


def test_an_oom_that_names_the_allocation_puts_the_oom_cause_clearly_first(kb, tmp_path):
    causes = _scan(kb, tmp_path, TRACEBACK.format(last=OOM))["causes"]
    assert causes[0]["id"] == "S-oom"
    assert causes[0]["score"] >= 5 * causes[1]["score"], [(c["id"], c["score"]) for c in causes[:3]]


def test_a_large_reserved_but_unallocated_gap_puts_fragmentation_first(kb, tmp_path):
    text = OOM.replace("312.00 MiB is reserved", "6.40 GiB is reserved")
    assert _scan(kb, tmp_path, TRACEBACK.format(last=text))["causes"][0]["id"] == "M-fragmentation"


def test_a_specific_pattern_beats_a_generic_one_on_the_same_line():
    spans = {"generic": ("CUDA error", 10), "specific": ("Expected all tensors to be on the same device", 45)}
    w = error_line_weights(spans, {})
    assert w["specific"] == ERROR_MATCH and 1 < w["generic"] < w["specific"] / 4


def test_refinements_share_the_evidence_of_the_broad_cause_they_refine():
    spans = {"broad": ("CUDA out of memory", 18), "a": ("CUDA out of memory", 18), "b": ("CUDA out of memory", 18),
             "own": ("GiB is reserved by PyTorch but unallocated", 42)}
    w = error_line_weights(spans, {"a": {"broad"}, "b": {"broad"}, "own": {"broad"}})
    assert w["own"] == ERROR_MATCH  # a refinement with its own, longer match keeps it
    assert w["a"] == w["b"] == pytest.approx(w["broad"] / 3)


def test_a_pasted_error_line_without_a_traceback_is_still_matched(kb, tmp_path):
    doc = _scan(kb, tmp_path, "Expected more than 1 value per channel when training\n")
    assert doc["causes"][0]["id"] == "V7" and not doc["healthy"]


# -- probes ------------------------------------------------------------------------------------
def _load_probe(name: str):
    from triage.probes.assemble import runnable

    path = runnable(Path(api.__file__).parent / "probes" / "scripts" / f"probe_{name}.py")
    spec = importlib.util.spec_from_file_location(f"probe_{name}_e17", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def probe_results(tmp_path_factory):
    """Real probe results from the real probe scripts on small CPU models (run in-process)."""
    pytest.importorskip("torch")
    out = tmp_path_factory.mktemp("probes")
    setups = HERE / "probe_setups_e17.py"
    runs = {"output_form": ("output_form", "nll_on_raw_logits"), "loss_at_init": ("loss_at_init", "nll_on_raw_logits"),
            "overfit_pass": ("overfit_one_batch", "healthy_classifier")}
    paths = {}
    for key, (probe, setup) in runs.items():
        path = out / f"{key}.json"
        _load_probe(probe).main(["--setup", f"{setups}:{setup}", "--out", str(path), "--timeout", "60"])
        paths[key] = str(path)
    return paths


def test_the_probes_measured_what_the_setups_hold(probe_results):
    status = {k: json.loads(Path(p).read_text())["status"] for k, p in probe_results.items()}
    assert status == {"output_form": "fail", "loss_at_init": "fail", "overfit_pass": "pass"}


def test_a_failed_output_form_probe_puts_o16_clearly_first(probe_results):
    result = runner.invoke(app, ["scan", "--json", probe_results["output_form"]])
    doc = json.loads(result.output)
    assert result.exit_code == 1 and not doc["healthy"]
    assert doc["causes"][0]["id"] == "O16" and doc["causes"][0]["score"] >= 0.3
    assert all(c["score"] * 10 <= doc["causes"][0]["score"] for c in doc["causes"][1:])


def test_a_passing_probe_alone_is_healthy(probe_results):
    result = runner.invoke(app, ["scan", "--json", probe_results["overfit_pass"]])
    doc = json.loads(result.output)
    assert result.exit_code == 0 and doc["healthy"] is True and doc["causes"] == []


def test_two_failed_probes_end_a_session_in_a_question_or_two(kb, probe_results):
    """Given as logs (the path `ask --log` takes), two failed probes settle it: the opening question
    at most, then O16 above the stopping rule."""
    diag, _ = S.prepare(kb, logs=[probe_results["output_form"], probe_results["loss_at_init"]])
    replay = S.Replay({}, [])
    sess = S.Session(kb, S.AnswersPrompter(replay), S.QuietDisplay(), diagnosis=diag, notes=[], command="t")
    outcome = sess.run()
    assert outcome.top[0].id == "O16" and outcome.questions <= 1, outcome


@pytest.mark.parametrize("text,cause", [
    # NumPy's warnings from a from-scratch network whose loss then prints nan
    ("== EPOCH:  1 / 5  ==\n/home/u/net.py:101: RuntimeWarning: divide by zero encountered in log\n"
     "Error:  nan\n== EPOCH:  2 / 5  ==\nError:  nan\n", "S-log-of-zero"),
    # the stop check of Theano-era NMT trainers
    ("Epoch  2 Update  540 Cost  11.716671 UD  0.46\nEpoch  2 Update  550 Cost  25.91058 UD  0.57\n"
     "Epoch  2 Update  560 Cost  31.2 UD  0.61\nNaN detected\n", "S-nan"),
    # Keras 2's check of the targets against the model's output layer
    ("ValueError: Error when checking target: expected dense_1 to have shape (1,) but got array with shape (17,)\n",
     "S-target-size-mismatch"),
])
def test_more_error_messages_name_their_cause(kb, tmp_path, text, cause):
    errors = _scan(kb, tmp_path, text)["_applied"].errors
    assert errors and errors[0]["causes"][0] == cause, errors


@pytest.mark.parametrize("line", [
    "RuntimeError: normal expects all elements of std >= 0.0",
    "ValueError: Expected parameter loc (Tensor of shape (64, 6)) of distribution Normal(loc: torch.Size([64, 6]), "
    "scale: torch.Size([64, 6])) to satisfy the constraint Real(), but found invalid values:",
    "ValueError: loss=nan, policy_loss=nan, entropy_loss=nan, advantage_loss=nan",
])
def test_a_policy_or_a_guard_that_met_nan_names_it(kb, tmp_path, line):
    text = "".join(f"update {i} | reward {i * 1.5:.2f} | entropy 1.2\n" for i in range(6)) + line + "\n"
    errors = _scan(kb, tmp_path, text)["_applied"].errors
    assert errors and errors[0]["causes"][0] == "S-nan", errors
