"""``python -m experiments <command> ...``: the result tables, from the repository's root."""

import sys

from experiments._cli import main

if __name__ == "__main__":
    sys.exit(main())
