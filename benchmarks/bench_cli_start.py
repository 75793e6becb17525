"""How long ``digraph-askls --help`` takes, beside the floor of starting Python at all.

Times, alternating, ``repeats`` runs each, every one a fresh process:

* ``python -c pass``: the interpreter's own start-up, the floor on a loaded machine;
* ``python -m digraph_askls.cli --help``;
* the console script's path: ``python -c "from digraph_askls.cli import main; main()"``
  with ``--help``, what the ``digraph-askls`` script that ``pip install`` writes runs;
* ``python -m digraph_askls.cli --version``.

The checkout holding this file is put first on ``PYTHONPATH``, so that its package is
timed whether or not it is the one installed. Prints the median and the spread of each,
and the load average of the machine before and after, as JSON.

Usage: python benchmarks/bench_cli_start.py [--repeats 5]
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

COMMANDS = {
    "python -c pass": ["-c", "pass"],
    "python -m digraph_askls.cli --help": ["-m", "digraph_askls.cli", "--help"],
    "console script --help": ["-c", "import sys; from digraph_askls.cli import main; "
                                    "sys.exit(main())", "--help"],
    "python -m digraph_askls.cli --version": ["-m", "digraph_askls.cli", "--version"],
}


def wall_time(arguments, env):
    start = time.perf_counter()
    subprocess.run([sys.executable, *arguments], env=env, stdout=subprocess.DEVNULL,
                   check=True)
    return time.perf_counter() - start


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        filter(None, [str(REPO), os.environ.get("PYTHONPATH")]))}
    times = {name: [] for name in COMMANDS}
    load_before = os.getloadavg()
    wall_time(COMMANDS["python -m digraph_askls.cli --help"], env)   # warm the file cache
    for _ in range(args.repeats):
        for name, arguments in COMMANDS.items():
            times[name].append(wall_time(arguments, env))
    result = {name: {"median_s": round(statistics.median(values), 3),
                     "min_s": round(min(values), 3), "max_s": round(max(values), 3)}
              for name, values in times.items()}
    result.update(repeats=args.repeats, python=sys.version.split()[0],
                  load_average_before=[round(x, 2) for x in load_before],
                  load_average_after=[round(x, 2) for x in os.getloadavg()],
                  cpus=os.cpu_count())
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
