"""`triage sweep --json`: one JSON document, written as the runs finish.

    {"version": "...", "kind": "sweep", "source": "...",
     "runs": [{"index", "id", "name", "source", "verdict", "top_cause", "config", "error",
               "scan": <the run's `scan --json` document>}, ...],
     "summary": {"runs", "healthy", "broken", "unreadable", "executor", "workers", "elapsed_s",
                 "groups": [...], "separating": [...]}}

The runs come in the order they finish (`index` is their place in the listing); the summary comes
last because it is known last. Writing each run as it arrives keeps the driver's memory flat: the
document is never held whole. One run per line, so `grep` and `jq -c '.runs[]'` both work.
"""

from __future__ import annotations

import json
from typing import TextIO


class JsonStream:
    def __init__(self, out: TextIO, source: str):
        from triage import __version__

        self.out = out
        self.first = True
        out.write("{" + f'"version": {json.dumps(__version__)}, "kind": "sweep", "source": {json.dumps(source)},'
                  + '\n"runs": [\n')

    def run(self, record: dict, kept) -> None:
        entry = {"index": record.get("index"), "id": record.get("id"), "name": record.get("name"),
                 "source": record.get("source"), "verdict": kept.verdict,
                 "top_cause": kept.to_dict()["top_cause"], "config": record.get("config") or {},
                 "error": record.get("error"), "scan": record.get("scan")}
        self.out.write(("" if self.first else ",\n") + json.dumps(entry, ensure_ascii=False))
        self.first = False

    def end(self, summary) -> None:
        self.out.write(("\n" if not self.first else "") + '],\n"summary": '
                       + json.dumps(summary.to_dict(), ensure_ascii=False, indent=1) + "}\n")
        self.out.flush()
