"""Where a cold test suite's compile time goes: the files `GSOLVE_COMPILE_REPORT=DIR
pytest` wrote (tests/compile_report.py), summed.

    python benchmarks/suite_compiles.py DIR [--top 25]

Prints the compile seconds of all processes (each compile's own seconds, nested ones
apart), then the largest by generated module or game, by function, and by test file."""

import argparse
import json
from collections import Counter
from pathlib import Path


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("dir")
    ap.add_argument("--top", type=int, default=25)
    args = ap.parse_args()
    rows = [r for f in sorted(Path(args.dir).glob("compiles-*.json"))
            for r in json.loads(f.read_text())]
    total = sum(r["own"] for r in rows)
    files = len(list(Path(args.dir).glob("compiles-*.json")))
    print(f"{len(rows):,} compiles in {files} processes: {total:,.0f} s of compiling")
    for title, key in (("module", lambda r: r["module"]),
                       ("function", lambda r: f"{r['module']}.{r['function']}"),
                       ("test file", lambda r: r["test"].split("::")[0])):
        by, count = Counter(), Counter()
        for r in rows:
            by[key(r)] += r["own"]
            count[key(r)] += 1
        print(f"\nby {title}:")
        for k, s in by.most_common(args.top):
            print(f"  {s:8.1f} s {s / max(total, 1e-9):6.1%} {count[k]:6,}  {k}")


if __name__ == "__main__":
    main()
