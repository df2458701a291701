"""The printed reader keeps one parsed plan per line shape; a shape whose name holds digits (`Top1`, `Top5`)
is kept apart per name, but only while those digits take few values: a counter inside a path or a word
would otherwise cost a parse and a stored plan for every line of the log."""

from __future__ import annotations

from written_log import read_written

from triage.ingest import printed, textlog


def _parses(monkeypatch) -> list[int]:
    calls = [0]
    real = printed.parse

    def counted(line):
        calls[0] += 1
        return real(line)

    monkeypatch.setattr(printed, "parse", counted)
    return calls


def test_a_counter_inside_a_path_does_not_cost_a_parse_per_line(tmp_path, monkeypatch):
    calls = _parses(monkeypatch)
    lines = []
    for i in range(1, 1501):
        lines.append(f"loader {i % 4} fetched chunk s3://bucket/part-{i}.bin in {0.25 + i % 7 / 100:.2f}s")
        if i % 50 == 0:
            lines.append(f"step {i} loss {2.0 - i / 1000:.4f}")
    run = read_written(tmp_path, lines)
    assert [float(s) for s in run.get("loss").steps][:2] == [50.0, 100.0] and len(run.get("loss")) == 30
    assert calls[0] <= textlog.DIGIT_NAMES_KEPT + 10, calls[0]  # was one parse per line (1,530)


def test_names_told_apart_by_their_digits_keep_their_own_names(tmp_path):
    lines = []
    for epoch in range(1, 4):
        lines.append(f"epoch {epoch}")
        lines += [f"  head{k}_loss: {1.0 / (epoch * k):.4f}" for k in range(1, 13)]
    run = read_written(tmp_path, lines)
    for k in (1, 7, 12):
        assert [round(float(v), 4) for v in run.get(f"head{k}_loss").values] == \
               [round(1.0 / (e * k), 4) for e in range(1, 4)], k
