"""triage: tells you why your training run is broken and which knob fixes it."""

__version__ = "0.1.0"
