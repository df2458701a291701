"""Error messages read as error events, never as metric rows: a NaN guard's sentence printed twice
(TF 1.x writes each message through absl and through logging), R's `Error in ...:` with its message
on the next line, and a trainer's `Loss is not finite` notice. Every log here is written for the test."""

from __future__ import annotations

from written_log import read_written as _read


def _errors(run):
    return [e for e in run.events if e.kind in ("error", "traceback")]


def test_a_nan_guard_sentence_printed_twice_is_an_error_not_two_rows(tmp_path):
    run = _read(tmp_path, [
        "INFO:tensorflow:Saving checkpoints for 0 into out/model.ckpt.",
        "ERROR:tensorflow:Model diverged with loss = NaN.",
        "E0410 22:34:13.729731 4483055104 basic_session_run_hooks.py:760] Model diverged with loss = NaN.",
    ])
    assert run.meta["rows"] == 0
    assert _errors(run)


def test_r_error_in_call_with_the_message_on_the_next_line(tmp_path):
    run = _read(tmp_path, [
        "Epoch 1/20",
        "Error in `FUN()`:",
        "! Error when evaluating update for metric with abbrev \"MAE\"",
    ])
    assert run.meta["rows"] == 0
    assert any("Error in" in e.text for e in _errors(run))


def test_loss_not_finite_notices_are_error_events(tmp_path):
    run = _read(tmp_path, [
        "Epoch [0/5]; Iter [0/900]; Loss 10.08; LR 1.00e-06; Iter time 3.72",
        "Loss in not finite. Skip this training step.",
        "Loss is not finite. Terminate training.",
    ])
    assert run.meta["rows"] == 1
    assert len(_errors(run)) >= 1


def test_ipython_traceback_header_opens_a_traceback(tmp_path):
    """Jupyter and IPython head a traceback with the exception's name before `Traceback (most recent
    call last)`: the block is a traceback event, and no metric is read from it."""
    run = _read(tmp_path, [
        "Num examples = 68 | Num Epochs = 7 | Total steps = 60",
        "-" * 75,
        "NotImplementedError                       Traceback (most recent call last)",
        "Cell In[23], line 1",
        "----> 1 trainer_stats = trainer.train()",
        "",
        "File /opt/env/site-packages/trainer.py:68, in wrapper(self, *args, **kwargs)",
        "     66 if hasattr(self, 'model'):",
    ])
    kinds = [e.kind for e in run.events]
    assert "traceback" in kinds
    assert any("NotImplementedError" in e.text for e in run.events if e.kind == "traceback")
    assert not run.series


def test_cpp_uncaught_exception_lines_are_errors(tmp_path):
    """A C++ engine that dies prints `terminate called after throwing an instance of ...` and a
    `what():` line with the message: both are error events."""
    run = _read(tmp_path, [
        "Epoch[0] Batch [20]\tSpeed: 2.81 samples/sec\tTrain-RPNAcc=0.81,\tRPNLogLoss=0.54,",
        "terminate called after throwing an instance of 'dmlc::Error'",
        "  what():  [10:44:35] src/storage/pooled_storage_manager.h:107: cudaMalloc failed: out of memory",
    ])
    texts = [e.text for e in _errors(run)]
    assert any(t.startswith("terminate called") for t in texts)
    assert any("cudaMalloc failed" in t for t in texts)


def test_tf1_coordinator_error_is_an_error_event(tmp_path):
    """TF 1.x logs the exception that stops its training threads at INFO level: `Error reported to
    Coordinator: <class ...InvalidArgumentError'>, LossTensor is inf or nan.`; it is an error event."""
    run = _read(tmp_path, [
        "INFO:tensorflow:global step 1: loss = 12.6485 (10.52 sec/step)",
        "INFO:tensorflow:Error reported to Coordinator: <class 'tensorflow.python.framework.errors_impl."
        "InvalidArgumentError'>, LossTensor is inf or nan. : Tensor had NaN values",
    ])
    assert any("Error reported to Coordinator" in e.text for e in _errors(run))
