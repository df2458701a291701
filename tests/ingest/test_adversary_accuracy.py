"""An adversary's accuracy (a domain classifier's, a discriminator's) is never read as the model's."""

from __future__ import annotations

from triage.ingest import read_run


def test_an_adversarys_accuracy_is_not_promoted_to_the_models(tmp_path):
    # a domain classifier's accuracy at 0.5 is what domain-adversarial training aims for: it keeps its own name,
    # while a head's one accuracy (`val_head_acc`) is still read as the model's
    p = tmp_path / "metrics.csv"
    rows = ["epoch,train_loss,val_loss,val_domain_acc"] + [f"{i},{1.0 / i:.3f},{1.1 / i:.3f},0.50{i}" for i in range(1, 7)]
    p.write_text("\n".join(rows) + "\n")
    run = read_run(str(p))
    assert "eval/accuracy" not in run.series and "eval/domain_acc" in run.series
    q = tmp_path / "head.csv"
    q.write_text(p.read_text().replace("val_domain_acc", "val_head_acc"))
    assert "eval/accuracy" in read_run(str(q)).series
