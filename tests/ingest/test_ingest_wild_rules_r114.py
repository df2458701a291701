"""Reading rules of round r114 (synthetic lines in the styles the wild corpus showed)."""
from triage.ingest import read_run


def _read(tmp_path, text: str, name: str = "log.txt"):
    p = tmp_path / name
    p.write_text(text)
    return read_run(str(p))


def test_pass_named_by_its_verb_in_a_sentence(tmp_path):
    # `Epoch N trained with loss: x` beside `Epoch N evaluated with loss: y, iou: z`: the verb names the split
    text = "".join(f"Epoch {e} trained with loss: {0.5 / (e + 1):.4f}. Took 120.5 s.\n"
                   f"Epoch {e} evaluated with loss: {0.7 - 0.01 * e:.4f}, iou: {0.3 + 0.01 * e:.2f}. Took 30.1 s.\n"
                   for e in range(4))
    run = _read(tmp_path, text)
    assert list(run.series["loss"].values) == [0.5, 0.25, 0.1667, 0.125]
    assert list(run.series["eval/loss"].values) == [0.7, 0.69, 0.68, 0.67]
    assert "eval/iou" in run.series or "eval/miou" in run.series

