"""The README and docs/ cannot go stale.

Every example they show as a `$ ...` line in a code block (fenced, or indented by four
spaces) is run, in order, one fresh folder per document (so `gsolve-db/...` paths read as
they do for a user in an empty folder), with `gsolve` meaning `python -m solver` of
this checkout, and its output (stdout and stderr together) is compared with the lines
under it. What legitimately varies is normalised on both sides (`normalise`): times and
speeds ("0.007 s", "790,709 positions/s"), peak memory, the temporary folder's path. In
the expected text a line `...` stands for any number of lines, and `...` inside a line for
any text. Commands too slow for a test are listed in SKIP with the reason; their output
is not compared, and nothing after them may depend on them.

Also: the README's command reference names every command and option of `gsolve --help`,
its games table gives each game's methods and variant defaults as `gsolve list` does, and
its Python block runs and gives the values its comments say.
"""

from __future__ import annotations

import functools
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
DOCUMENTS = [README, *sorted((ROOT / "docs").glob("*.md"))]

# command line as written after "$ " -> why it is not run here
SKIP = {
    "gsolve quixo -V size=4 --method retrograde": "several minutes on 2 cores",
    "gsolve connect4 -V width=6,height=4 --method tiers --memory 1":
        "about a minute on 2 cores (benchmarks/results/2026-11-25-connect4-6x4.md)",
}

TIMING = re.compile(r"\d[\d,]*(?:\.\d+)?(?= ?(?:s|ms|min|positions/s)\b)")
MEMORY = re.compile(r"\d[\d,]*(?:\.\d+)?(?= ?(?:GiB|MiB|KiB)\b)")


def normalise(line: str, tmp: str = "") -> str:
    """What may differ from run to run, made equal: numbers of seconds and speeds
    anywhere, numbers of bytes on a `peak memory` line, the temporary folder's path."""
    if tmp:
        line = line.replace(tmp, "<tmp>")
    line = TIMING.sub("<N>", line)
    if "peak memory" in line:
        line = MEMORY.sub("<N>", line)
    return line.rstrip()


def examples(path: Path) -> list[tuple[int, str, list[str]]]:
    """(line number, command, expected output lines) of every `$ ` line in a code block."""
    out: list[tuple[int, str, list[str]]] = []
    lines = path.read_text().split("\n")
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("```"):
            j = i + 1
            while j < len(lines) and not lines[j].startswith("```"):
                j += 1
            block, start, i = lines[i + 1:j], i + 1, j + 1
        elif line.startswith("    ") and (i == 0 or not lines[i - 1].strip()):
            j = i
            while j < len(lines) and (lines[j].startswith("    ") or not lines[j].strip()):
                j += 1
            block, start, i = [x[4:] for x in lines[i:j]], i, j
        else:
            i += 1
            continue
        current = None
        for k, text in enumerate(block):
            if text.startswith("$ "):
                current = (start + k + 1, text[2:].strip(), [])
                out.append(current)
            elif current is not None:
                current[2].append(text)
    for _, _, expected in out:
        while expected and not expected[-1].strip():
            expected.pop()
    return out


def _pattern(line: str) -> re.Pattern:
    return re.compile(".*".join(re.escape(p) for p in line.split("...")) + r"\Z")


def matches(expected: list[str], actual: list[str]) -> bool:
    """Line by line; an expected line `...` matches any number of actual lines."""
    pats = [None if e.strip() == "..." else _pattern(e) for e in expected]

    @functools.cache
    def m(i: int, j: int) -> bool:
        if i == len(pats):
            return j == len(actual)
        if pats[i] is None:
            return any(m(i + 1, k) for k in range(j, len(actual) + 1))
        return j < len(actual) and bool(pats[i].match(actual[j])) and m(i + 1, j + 1)

    return m(0, 0)


def _environment(tmp: Path) -> dict:
    bin_dir = tmp / "bin"
    bin_dir.mkdir()
    exe = bin_dir / "gsolve"
    exe.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m solver "$@"\n')
    exe.chmod(0o755)
    env = dict(os.environ)
    env.pop("GSOLVE_DB", None)  # the default root, ./gsolve-db, as a user has it
    env.update(PATH=f"{bin_dir}{os.pathsep}{env.get('PATH', '')}",
               PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")])),
               PYTHONUNBUFFERED="1",  # stdout and stderr in the order they were written
               GSOLVE_PROGRESS_SECONDS="100000")  # no progress lines in a pipe
    return env


@pytest.mark.parametrize("doc", DOCUMENTS, ids=lambda p: str(p.relative_to(ROOT)))
def test_examples(doc, tmp_path):
    cases = examples(doc)
    if doc == README:
        assert any(cmd.startswith("gsolve ") for _, cmd, _ in cases)
    work = tmp_path / "work"
    work.mkdir()
    env = _environment(tmp_path)
    failures = []
    for lineno, cmd, expected in cases:
        if cmd in SKIP:
            continue
        proc = subprocess.run(["bash", "-c", cmd], cwd=work, env=env, text=True,
                              stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, timeout=300)
        actual = [normalise(x, str(work)) for x in proc.stdout.rstrip("\n").split("\n")]
        if actual == [""]:
            actual = []
        want = [normalise(x) for x in expected]
        if not matches(want, actual):
            failures.append(f"{doc.name}:{lineno}: $ {cmd}\n--- the document shows\n"
                            + "\n".join(want) + "\n--- the command printed (exit "
                            f"{proc.returncode})\n" + "\n".join(actual))
    assert not failures, "\n\n".join(failures)


def test_skip_names_only_shown_commands():
    shown = {cmd for doc in DOCUMENTS for _, cmd, _ in examples(doc)}
    assert set(SKIP) <= shown, set(SKIP) - shown


def test_normalise_and_match():
    got = normalise("  time                 solve 0.026 s, compile/load 0.396 s, write 0.263 s")
    assert got == "  time                 solve <N> s, compile/load <N> s, write <N> s"
    assert normalise("  speed                209,378 positions/s") == \
        "  speed                <N> positions/s"
    assert normalise("all checks passed (1.1 s)") == "all checks passed (<N> s)"
    plan = "  largest task   78.7 MiB (41 pieces)"
    assert normalise(plan) == plan
    assert normalise("  peak memory          0.70 GiB") == "  peak memory          <N> GiB"
    assert matches(["a", "...", "d"], ["a", "b", "c", "d"])
    assert matches(["a", "...", "d"], ["a", "d"])
    assert not matches(["a", "d"], ["a", "b", "d"])
    assert matches(['{"x": 1, ...]}'], ['{"x": 1, "y": [2]}'])
    assert not matches(["tie in 9"], ["tie in 8"])


def _section(text: str, title: str) -> str:
    start = text.index(f"\n## {title}")
    end = text.find("\n## ", start + 1)
    return text[start:end if end > 0 else None]


def test_command_reference_names_every_command_and_option():
    from solver.command.cli import cli

    ref = _section(README.read_text(), "Command reference")
    missing = []
    for name, command in sorted(cli.commands.items()):
        if f"gsolve {name}" not in ref:
            missing.append(f"gsolve {name}")
        for param in command.params:
            opts = [o for o in param.opts if o.startswith("--")] or param.opts
            if param.param_type_name == "option" and not any(f"`{o}" in ref or f" {o}" in ref
                                                             for o in opts):
                missing.append(f"gsolve {name} {'/'.join(opts)}")
    assert not missing, "README's command reference lacks: " + ", ".join(missing)


def test_games_table_matches_gsolve_list(tmp_path):
    env = _environment(tmp_path)
    listed = json.loads(subprocess.run([sys.executable, "-m", "solver", "list", "--json"],
                                       env=env, capture_output=True, text=True,
                                       check=True).stdout)
    rows = {}
    for line in _section(README.read_text(), "Games").split("\n"):
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if line.startswith("| `") and len(cells) >= 4:
            rows[cells[0].strip("`")] = cells
    assert sorted(rows) == sorted(g["game"] for g in listed)
    for g in listed:
        cells = rows[g["game"]]
        methods = [m.strip() for m in cells[3].replace("*", "").split(",")]
        assert methods == g["methods"], g["game"]
        assert f"**{g['default_method']}**" in cells[3], g["game"]
        for key, spec in g["variants"].items():
            assert f"`{key}={spec['default']}` ({spec['allowed']})" in cells[2], (g["game"], key)
        if not g["variants"]:
            assert cells[2] == "none", g["game"]


def test_python_api_example(tmp_path, monkeypatch):
    """The README's Python block runs as shown (after the quick tour's solve), and gives
    the values its comments say."""
    text = README.read_text()
    start = text.index("```python\n") + len("```python\n")
    code = text[start:text.index("```", start)]
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("GSOLVE_DB", raising=False)
    from solver.command.cli import main

    assert main(["tictactoe", "--quiet"]) == 0
    scope: dict = {}
    exec(compile(code, "README.md", "exec"), scope)
    assert (scope["info"].value, scope["info"].remoteness) == ("tie", 6)
    assert scope["ttt"].lookup(scope["ttt"].hash("X--/-O-/--X")) == ("tie", 6)
    assert [m.move for m in scope["ttt"].best_moves("X--/-O-/--X")] == ["2", "4", "6", "8"]


def test_readme_is_short():
    """The README is for users (what gsolve does, a tour, the reference, the games, one
    benchmark table); result logs go to benchmarks/results/."""
    lines = README.read_text().count("\n")
    assert lines < 450, f"README.md has {lines} lines; move result logs to benchmarks/results/"


LINK = re.compile(r"\]\(([^)\s]+)\)")


def test_relative_links_resolve():
    """Every relative link of the README, docs/ and benchmarks/ names a file or folder
    that exists (a moved result file or doc cannot leave a dead link behind)."""
    docs = [*DOCUMENTS, *sorted((ROOT / "benchmarks").rglob("*.md"))]
    dead, checked = [], 0
    for doc in docs:
        for target in LINK.findall(doc.read_text()):
            path = target.split("#", 1)[0]
            if not path or re.match(r"[a-z][a-z0-9+.-]*:", path):
                continue  # an anchor in the same file, or a URL
            checked += 1
            if not (doc.parent / path).exists():
                dead.append(f"{doc.relative_to(ROOT)}: {target}")
    assert checked > 50  # the pattern still finds the links
    assert not dead, "dead links: " + ", ".join(dead)
