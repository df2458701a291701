"""Reader rules from the thirty-sixth round on the wild corpus: each test writes a small log in the
print style that asked for the rule and checks what the reader makes of it (mostly logs of an error
alone, which must keep their error evidence and read no metric rows)."""

from __future__ import annotations

from written_log import read_written as _read


def _kinds(run) -> set[str]:
    return {ev.kind for ev in run.events}


def test_nan_divergence_error_repeated_by_every_worker_is_no_row(tmp_path):
    """TF's NanTensorHook in a multi-worker run: each worker logs `ERROR:tensorflow:Model diverged with
    loss = NaN.`, some through absl with its `E0312 ...]` prefix, so the sentence repeats once per worker.
    It stays an error event and is never a loss series."""
    lines = ["Skipping time record for  100  due to checkpoint-saving/warmup overhead"]
    for worker in range(4):
        lines.append("ERROR:tensorflow:Model diverged with loss = NaN.")
        lines.append(f"E0312 08:15:42.{120000 + worker} 1399{worker}2 basic_session_run_hooks.py:760] "
                     "Model diverged with loss = NaN.")
    run = _read(tmp_path, lines)
    assert not run.series
    assert int(run.meta.get("rows") or 0) == 0
    assert "error" in _kinds(run)


def test_notebook_traceback_header_glued_to_its_exception_name(tmp_path):
    """An IPython traceback copied out of a notebook with its colours stripped: the exception's name and
    `Traceback (most recent call last)` run together, and the source lines of the frame (`     12
    optimizer=Adam(0.001))`) carry the line numbers of the cell; they are the traceback, not records."""
    lines = [
        "INFO:tensorflow:Saving checkpoints for 0 into /tmp/model/model.ckpt.",
        "",
        "NanLossDuringTrainingErrorTraceback (most recent call last)",
        "<ipython-input-7-0a1b2c3d4e5f> in <module>()",
        "     12       optimizer=tf.train.AdamOptimizer(0.001))",
        "     13 ",
        "---> 14     estimator.train(input_fn=train_input_fn, steps=500)",
    ]
    run = _read(tmp_path, lines)
    assert not run.series
    assert "traceback" in _kinds(run)


def test_state_dict_size_mismatch_lines_are_errors(tmp_path):
    """PyTorch's `load_state_dict` refusing a checkpoint made for another head, pasted without the
    `RuntimeError` line above it: each `size mismatch for NAME: copying a param with shape ...` line is
    the error itself, and its shapes are no metrics."""
    lines = [
        "size mismatch for head.cls.weight: copying a param with shape torch.Size([11, 512]) from checkpoint, "
        "the shape in current model is torch.Size([21, 512]).",
        "size mismatch for head.cls.bias: copying a param with shape torch.Size([11]) from checkpoint, "
        "the shape in current model is torch.Size([21]).",
    ]
    run = _read(tmp_path, lines)
    assert not run.series
    assert "error" in _kinds(run)


def test_tf_session_error_see_above_for_traceback_is_an_error(tmp_path):
    """TF 1.x ends a failed `session.run` with `InvalidArgumentError (see above for traceback): ...`, its
    stack printed earlier; the message's numbers (a label value, a range) are no metrics."""
    lines = ["InvalidArgumentError (see above for traceback): Received a label value of 12 which is outside "
             "the valid range of [0, 10).  Label values: 3 7 12 1 0 9"]
    run = _read(tmp_path, lines)
    assert not run.series
    assert "error" in _kinds(run)


def test_cpp_exception_frame_dump_is_an_error(tmp_path):
    """A C++ exception of PyTorch's core (the NCCL watchdog's), pasted as its frame dump: `frame #N: ...`
    lines and `Exception raised from FUNC at FILE:LINE (most recent call first):`; an error, no records."""
    lines = [
        "frame #0: c10::Error::Error(c10::SourceLocation, std::string) + 0x96 (0x7f00aa000000 in /opt/lib/libc10.so)",
        "frame #1: c10d::ProcessGroupNCCL::watchdogHandler() + 0x233 (0x7f00ab000000 in /opt/lib/libtorch_cuda.so)",
        "frame #2: clone + 0x43 (0x7f00ac000000 in /lib64/libc.so.6)",
        "",
        "Exception raised from ncclCommWatchdog at ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1500 "
        "(most recent call first):",
        "frame #0: c10::Error::Error(c10::SourceLocation, std::string) + 0x96 (0x7f00aa000000 in /opt/lib/libc10.so)",
    ]
    run = _read(tmp_path, lines)
    assert not run.series
    assert "error" in _kinds(run)


def test_traceback_pasted_from_below_its_header(tmp_path):
    """A Python traceback pasted from its first frame on (`  File "train.py", line 90, in <module>`),
    its header left out: the frames are a traceback, and their line numbers no records."""
    lines = [
        '  File "train.py", line 90, in <module>',
        "    train(args, epoch, loader, model, optimizer)",
        '  File "train.py", line 41, in train',
        "    out = model(x, cond=y)",
        '  File "/usr/lib/python3.8/site-packages/torch/nn/modules/module.py", line 493, in __call__',
        "    result = self.forward(*input, **kwargs)",
    ]
    run = _read(tmp_path, lines)
    assert not run.series
    assert "traceback" in _kinds(run)
    # frames a warning printed between training lines, with no exception after them: the lines go on being read
    steps = [f"step {n} loss: {1.0 / n:.3f}" for n in (1, 2, 3, 4)]
    run = _read(tmp_path, steps[:2] + lines + steps[2:], name="between.log")
    assert [float(v) for v in run.get("loss").values] == [1.0, 0.5, 0.333, 0.25]


def test_starting_training_heading_lists_settings(tmp_path):
    """`logging.info` of a `Starting training:` heading with the run's plan indented under it (`Epochs:
    5`, `Learning rate: 1e-05`, as the Pytorch-UNet script prints it): settings, not a learning-rate
    reading at epoch 5; the training lines after it are read as before."""
    lines = [
        "INFO: Starting training:",
        "        Epochs:          5",
        "        Batch size:      4",
        "        Learning rate:   1e-05",
        "        Training size:   900",
        "        Checkpoints:     True",
    ]
    run = _read(tmp_path, lines)
    assert not run.series
    lines += [f"INFO: epoch {e} step {e * 10} loss {1.0 / e:.4f}" for e in (1, 2, 3)]
    run = _read(tmp_path, lines, name="trained.log")
    assert "learning_rate" not in run.series
    assert [float(v) for v in run.get("loss").values] == [1.0, 0.5, 0.3333]
