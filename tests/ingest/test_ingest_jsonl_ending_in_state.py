"""ms-swift's logging.jsonl: one record per log, and as its last line a record that holds the whole
trainer state (its log_history among other keys). The file is JSON Lines, not a trainer_state.json:
it is read line by line, not refused as a JSON document with extra data."""

import json

from triage.ingest import read_run


def test_json_lines_ending_in_a_record_with_the_log_history(tmp_path):
    rows = [{"loss": 2.0 - i / 10, "learning_rate": 1e-4, "global_step/max_steps": f"{i}/10", "epoch": i / 10}
            for i in range(1, 11)]
    last = {"last_model_checkpoint": "out/checkpoint-10", "log_history": rows, "memory": 16.5}
    path = tmp_path / "logging.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows) + json.dumps(last) + "\n", encoding="utf-8")
    run = read_run(path)
    assert run.format == "jsonl"
    assert run.get("loss").values.tolist()[:10] == [2.0 - i / 10 for i in range(1, 11)]
