"""`triage mcp` without the SDK, and the CLI's start-up without `mcp`."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]

# Runs the real CLI entry point with the `mcp` package made unimportable (as if not installed).
WITHOUT_MCP = """
import sys
class NoMCP:
    def find_spec(self, name, path=None, target=None):
        if name == "mcp" or name.startswith("mcp."):
            raise ModuleNotFoundError("No module named 'mcp'", name="mcp")
        return None
sys.meta_path.insert(0, NoMCP())
sys.argv = ["triage", *sys.argv[1:]]
from triage.cli import main
main()
"""

# Runs a command and reports whether anything of `mcp` was imported.
IMPORTS = """
import sys
sys.argv = ["triage", *sys.argv[1:]]
from triage.cli import main
try:
    main()
except SystemExit:
    pass
print("MCP-LOADED" if any(m == "mcp" or m.startswith("mcp.") for m in sys.modules) else "MCP-ABSENT", file=sys.stderr)
"""


def run(code: str, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", code, *args], cwd=REPO, capture_output=True, text=True,
                          env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(REPO), "NO_COLOR": "1"}, timeout=120)


def test_without_the_sdk_mcp_says_how_to_install_it():
    proc = run(WITHOUT_MCP, "mcp")
    assert proc.returncode == 2
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and "pip install 'triage[mcp]'" in lines[0], proc.stderr
    assert proc.stdout == ""


def test_other_commands_work_without_the_sdk():
    proc = run(WITHOUT_MCP, "explain", "O9", "--json")
    assert proc.returncode == 0 and '"id": "O9"' in proc.stdout


def test_start_up_does_not_import_mcp():
    for args in (["--help"], ["explain", "O9", "--json"], ["mcp", "--help"], ["search", "nan"]):
        proc = run(IMPORTS, *args)
        assert "MCP-ABSENT" in proc.stderr, (args, proc.stderr[-500:])


def test_the_help_lists_mcp_and_diff():
    proc = run(IMPORTS, "--help")
    assert "mcp " in proc.stdout and "diff " in proc.stdout
