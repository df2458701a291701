"""A reference to one run of a sweep: small and picklable, so a million of them can be listed by the
driver and shipped to workers, which do the reading."""

from __future__ import annotations

from dataclasses import dataclass, field

from triage.errors import TriageError

# kinds of reference; the per-run function (work.py) knows how to load each
PATH = "path"  # a log file or a run folder, read like `triage scan PATH`
TUNE = "tune"  # a Ray Tune trial folder: result.json / progress.csv, params.json as the config
MLFLOW = "mlflow"  # a run on an MLflow tracking server (or any tracking URI the mlflow client takes)


class SweepError(TriageError):
    """A sweep that cannot start (no runs found, a server that does not answer): one line, exit 2."""


@dataclass(frozen=True)
class RunRef:
    """One run: `kind` says how to load it, `locator` where (a path, or an MLflow run id).

    `name` is what the report shows (a path relative to the folder given, a run name). For MLflow
    runs `uri` is the tracking URI, and `params`/`metric_keys` come from the run listing so the
    worker need not ask for them again.
    """

    kind: str
    locator: str
    name: str
    uri: str = ""
    experiment: str = ""
    params: tuple = field(default=(), compare=False)  # ((key, value-as-text), ...)
    metric_keys: tuple = field(default=(), compare=False)

    @property
    def label(self) -> str:
        """The run's address as the report and the JSON give it."""
        if self.kind == MLFLOW:
            base = self.uri.rstrip("/")
            if base.startswith(("http://", "https://")) and self.experiment:
                return f"{base}/#/experiments/{self.experiment}/runs/{self.locator}"
            return f"mlflow:{base}#{self.locator}"
        return self.locator
