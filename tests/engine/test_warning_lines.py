"""An error pattern met on a line the program logged as a warning weighs its cause, but does not
claim "what do you see": a run that only warned is judged by what its metrics show."""

from __future__ import annotations

from triage import api


def _log(tmp_path, level: str):
    lines = []
    for e in range(1, 10):
        lines.append(f"epoch {e} train_loss {0.60 - 0.03 * e:.3f} val_loss {0.50 + 0.04 * e:.3f} "
                     f"train_acc {0.70 + 0.03 * e:.3f} val_acc {0.79 - 0.008 * e:.3f}")
    lines.insert(3, f"2022-09-19 20:30:27,106 - {level} - tensorboardX.x2num - NaN or Inf found in input tensor.")
    p = tmp_path / f"{level.lower()}.log"
    p.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return str(p)


def test_a_warning_line_does_not_hide_the_metric_findings(tmp_path):
    kb = api.load_kb()
    doc = api.scan(_log(tmp_path, "WARNING"), kb=kb)
    ids = [c["id"] for c in doc["causes"]]
    assert "S-overfit" in ids[:3] and "S-nan" in ids
    doc = api.scan(_log(tmp_path, "ERROR"), kb=kb)
    assert [c["id"] for c in doc["causes"]][0] == "S-nan"


def test_ddps_speed_note_about_an_unneeded_flag_names_no_ddp_error(tmp_path):
    """DDP's note that find_unused_parameters=True was set but found nothing unused is about speed: it
    does not point at the reduction error whose message advises that same flag."""
    kb = api.load_kb()
    note = ("[rank0]:[W609 02:34:20.435231410 reducer.cpp:1400] Warning: find_unused_parameters=True was specified in "
            "DDP constructor, but did not find any unused parameters in the forward pass. This flag results in an extra "
            "traversal of the autograd graph every iteration,  which can adversely affect performance.")
    p = tmp_path / "note.log"
    p.write_text(note + "\n" + "\n".join(f"{{'loss': {0.9 - 0.01 * i:.4f}, 'epoch': {i / 10}}}" for i in range(1, 30)) + "\n")
    assert "D-unused-params" not in [c["id"] for c in api.scan(str(p), kb=kb)["causes"]]
    err = tmp_path / "err.log"
    err.write_text("RuntimeError: Expected to have finished reduction in the prior iteration before starting a new one. "
                   "This error indicates that your module has parameters that were not used in producing loss. You can "
                   "enable unused parameter detection by passing the keyword argument `find_unused_parameters=True` to "
                   "`torch.nn.parallel.DistributedDataParallel`\n")
    assert [c["id"] for c in api.scan(str(err), kb=kb)["causes"]][0] == "D-unused-params"


def test_a_cause_met_only_as_an_error_is_not_ranked_from_a_warning(tmp_path):
    """torchvision warns that its optional image extension failed to load (a missing C++ symbol) and the
    run goes on: a CUDA/ABI build problem stops a program, so a warning that names the symbol is not it.
    The same line printed as the error that ended a run still points there."""
    kb = api.load_kb()
    warn = ("/usr/lib/python3.10/site-packages/torchvision/io/image.py:13: UserWarning: Failed to load image Python "
            "extension: '/usr/lib/python3.10/site-packages/torchvision/image.so: undefined symbol: "
            "_ZN3c1017RegisterOperatorsD1Ev'")
    body = "\n".join(f"{{'loss': {2.0 - 0.02 * i:.4f}, 'epoch': {i / 10}}}" for i in range(1, 30))
    p = tmp_path / "warned.log"
    p.write_text("  warnings.warn(\n" + warn + "\n" + body + "\n", encoding="utf-8")
    assert "S-cuda-build" not in [c["id"] for c in api.scan(str(p), kb=kb)["causes"]]
    err = tmp_path / "err.log"
    err.write_text("ImportError: /usr/lib/python3.10/site-packages/torchvision/_C.so: undefined symbol: "
                   "_ZN3c1017RegisterOperatorsD1Ev\n", encoding="utf-8")
    assert [c["id"] for c in api.scan(str(err), kb=kb)["causes"]][0] == "S-cuda-build"
