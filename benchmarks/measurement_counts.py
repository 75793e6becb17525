"""How many times each sealed row of AsK-LS was measured, from the git history of the cells.

A cells file keeps one line per cell (the last measurement wins), so the file alone cannot
say how often a row was measured. Every committed version of it can: a cell measured again
has another line (another time, another ``finished`` stamp), so the number of distinct
lines a cell had over the commits that touched its file is the number of its committed
measurements. Runs never committed are not counted, and a measurement replaced before it
was committed is invisible: the counts are a floor.

From the repository root::

    python benchmarks/measurement_counts.py docs/results/comparison-cells.jsonl

prints one row per (protocol, graph, method) of the sealed seed: the splits and the number
of committed measurements of each (e.g. ``6`` when every split was measured six times,
``5-6`` when the splits differ).
"""

import argparse
import json
import subprocess
from collections import defaultdict

SEALED_SEED = 7_340_611
#: The fields that name a row, in the order printed (those a file has).
ROW_FIELDS = ("protocol", "graph", "method", "fraction")


def _versions(path):
    """The text of ``path`` at every commit that touched it, oldest first."""
    commits = subprocess.run(["git", "log", "--format=%H", "--", path], capture_output=True,
                             text=True, check=True).stdout.split()
    for commit in reversed(commits):
        yield subprocess.run(["git", "show", f"{commit}:{path}"], capture_output=True,
                             text=True, check=True).stdout


def _split_and_seed(cell):
    split = cell.get("split", cell.get("draw"))
    seed = cell.get("seed", split[0] if isinstance(split, list) else None)
    return json.dumps(split), seed


def count_measurements(texts, methods_prefix="AsK-LS", seed=SEALED_SEED):
    """Per row (a tuple of :data:`ROW_FIELDS` values): the number of distinct lines of each
    of its cells over the given versions of a cells file.

    >>> one = '{"graph": "g", "method": "AsK-LS default", "seed": 1, "split": 0, "seconds": 1}'
    >>> two = one.replace('"seconds": 1', '"seconds": 2')
    >>> count_measurements([one, one, one + "\\n" + two], seed=1)
    {('g', 'AsK-LS default'): [2]}
    """
    lines = defaultdict(set)
    for text in texts:
        for line in text.splitlines():
            if not line.strip():
                continue
            cell = json.loads(line)
            if not cell.get("method", "").startswith(methods_prefix):
                continue
            split, cell_seed = _split_and_seed(cell)
            if cell_seed != seed:
                continue
            row = tuple(cell[field] for field in ROW_FIELDS if field in cell)
            lines[row, split].add(line.strip())
    counts = defaultdict(list)
    for (row, _), measured in sorted(lines.items(), key=str):
        counts[row].append(len(measured))
    return dict(counts)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="+", help="cells files (JSON lines) under git")
    parser.add_argument("--seed", type=int, default=SEALED_SEED)
    args = parser.parse_args(argv)
    for path in args.paths:
        counts = count_measurements(_versions(path), seed=args.seed)
        print(f"\n{path}\n\n| row | splits | measurements per split |\n|---|---|---|")
        for row, measured in sorted(counts.items(), key=str):
            low, high = min(measured), max(measured)
            times = str(low) if low == high else f"{low}-{high}"
            print(f"| {' / '.join(map(str, row))} | {len(measured)} | {times} |")


if __name__ == "__main__":
    main()
