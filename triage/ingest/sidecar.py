"""Run configuration found beside a log: class counts, vocabulary size, LR schedule settings.

Detectors use it to know what a run expected (ln of the class count, a configured warmup).
Looked up, first match wins: `<log>.config.json|yaml` (a config named after the log), then
`config.json`, `hparams.yaml`, `config.yaml`, `training_args.json`, `args.json`,
`trainer_config.json` in the same folder. Nested mappings are flattened (the innermost key
wins, so `model.num_classes` is read as `num_classes`); W&B's `{key: {value: ...}}` shape is
unwrapped. A config that cannot be parsed is skipped with a warning, never an error.
"""

from __future__ import annotations

import json
from pathlib import Path

NAMES = ("config.json", "hparams.yaml", "config.yaml", "training_args.json", "args.json", "trainer_config.json")
MAX_BYTES = 2_000_000


def candidates(log_path: Path) -> list[Path]:
    out = []
    if log_path.is_file():
        stem = log_path.name.split(".")[0]
        for ext in (".config.json", ".config.yaml", ".config.yml"):
            out.append(log_path.with_name(stem + ext))
        folder = log_path.parent
    else:
        folder = log_path
    out.extend(folder / n for n in NAMES)
    return out


def _flatten(data, out: dict, depth: int = 0) -> None:
    if depth > 6 or not isinstance(data, dict):
        return
    for key, value in data.items():
        if isinstance(value, dict):
            if set(value) <= {"value", "desc"} and "value" in value:  # W&B config.yaml entry
                out[str(key)] = value["value"]
            elif key in ("id2label", "label2id"):  # HF: the label map is the class count, not settings
                out[str(key)] = dict(value)
            else:
                _flatten(value, out, depth + 1)
        elif isinstance(value, (str, int, float, bool)) or value is None:
            out[str(key)] = value


def load_config(path: Path) -> dict:
    text = path.read_text(encoding="utf-8", errors="replace")
    if path.suffix == ".json":
        data = json.loads(text)
    else:
        import yaml

        data = yaml.safe_load(text)
    flat: dict = {}
    _flatten(data, flat)
    return flat


def attach(run, path: str | Path) -> dict | None:
    """Find a config beside `path` and merge it into run.meta['config'] (existing keys win)."""
    if str(path) == "-":
        return None
    base = Path(path)
    for cand in candidates(base):
        try:
            if not cand.is_file() or cand.stat().st_size > MAX_BYTES:
                continue
            config = load_config(cand)
        except (OSError, ValueError, UnicodeError) as exc:
            run.meta.setdefault("warnings", []).append(f"config {cand.name} skipped: {exc}")
            continue
        except Exception as exc:  # yaml errors and the like: a config is optional
            run.meta.setdefault("warnings", []).append(f"config {cand.name} skipped: {type(exc).__name__}")
            continue
        merged = dict(config)
        merged.update(run.meta.get("config") or {})
        run.meta["config"] = merged
        run.meta["config_path"] = str(cand)
        return merged
    return None
