"""An HF trainer_state.json whose run was shorter than its logging interval: log_history holds only the
closing summary. Its train_loss (the mean over the whole run) is then the run's one loss reading; beside
per-step records the summary stays in meta, as before."""

import json

from triage.ingest import read_run

SUMMARY = {"epoch": 3.0, "step": 69, "total_flos": 1.1e15, "train_loss": 2.5e11, "train_runtime": 36.1,
           "train_samples_per_second": 46.8, "train_steps_per_second": 1.9}


def _state(tmp_path, history):
    path = tmp_path / "trainer_state.json"
    path.write_text(json.dumps({"global_step": 69, "logging_steps": 500, "max_steps": 69, "log_history": history}),
                    encoding="utf-8")
    return read_run(path)


def test_a_history_of_only_the_closing_summary_reads_its_mean_loss(tmp_path):
    run = _state(tmp_path, [SUMMARY])
    loss = run.get("loss")
    assert loss.steps.tolist() == [69] and loss.values.tolist() == [2.5e11]
    assert set(run.series) == {"loss"}  # throughput and runtime are no readings of the model
    assert any("only the closing summary" in w for w in run.meta["warnings"])


def test_beside_step_records_the_summary_stays_in_meta(tmp_path):
    run = _state(tmp_path, [{"loss": 2.0, "step": 10, "epoch": 0.5}, {"loss": 1.5, "step": 20, "epoch": 1.0}, SUMMARY])
    assert run.get("loss").values.tolist() == [2.0, 1.5]
    assert run.meta["summary"]["train_loss"] == 2.5e11 and run.meta["skipped"]["summary row"] == 1
