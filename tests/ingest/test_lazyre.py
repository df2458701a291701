"""triage.ingest.lazyre: the printed-log readers' patterns compile at their first use."""

from __future__ import annotations

import re
import subprocess
import sys

from triage.ingest import lazyre


def test_a_lazy_pattern_matches_as_the_compiled_one_does():
    lazy = lazyre.compile(r"(?P<name>[a-z_]+)\s*[:=]\s*(?P<value>[-+.\deE]+)", re.I)
    plain = re.compile(r"(?P<name>[a-z_]+)\s*[:=]\s*(?P<value>[-+.\deE]+)", re.I)
    assert "_compiled" not in vars(lazy)  # nothing compiled yet
    assert lazy.pattern == plain.pattern and "_compiled" not in vars(lazy)  # (its text needs no compiling)
    line = "step=10 LOSS: 2.31 lr=3e-4"
    assert lazy.search(line).groupdict() == plain.search(line).groupdict()
    assert "_compiled" in vars(lazy)
    assert [m.group("name") for m in lazy.finditer(line)] == ["step", "LOSS", "lr"]
    assert lazy.sub("<v>", line) == plain.sub("<v>", line)
    assert lazy.flags == plain.flags and lazy.groupindex == plain.groupindex
    assert lazy.search(line).re is lazy.compiled()  # a match's .re is the compiled pattern


def test_a_bad_pattern_fails_at_its_first_use():
    bad = lazyre.compile(r"(unclosed")
    try:
        bad.match("x")
    except re.error:
        pass
    else:
        raise AssertionError("a bad pattern must raise re.error")


def test_a_jsonl_scan_compiles_few_of_the_printed_readers_patterns():
    """Start-up: a JSONL or CSV run does not pay for the several hundred patterns of the printed-log
    readers. Counted in a fresh interpreter, so what other tests compiled does not count."""
    code = (
        "import json, tempfile, os\n"
        "from triage.ingest import lazyre\n"
        "from triage import api\n"
        "d = tempfile.mkdtemp(); p = os.path.join(d, 'm.jsonl')\n"
        "open(p, 'w').write(''.join(json.dumps({'step': i, 'loss': 2.0 / (i + 1)}) + '\\n' for i in range(50)))\n"
        "api.scan(p)\n"
        "from triage.ingest import printed, textlog\n"
        "pats = [v for m in (printed, textlog) for v in vars(m).values() if isinstance(v, lazyre.LazyPattern)]\n"
        "print(len(pats), sum('_compiled' in vars(v) for v in pats))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    total, compiled = int(out[0]), int(out[1])
    assert total > 200 and compiled < 0.1 * total, (total, compiled)
