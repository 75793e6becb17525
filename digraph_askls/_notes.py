"""Warnings and notes of the command line, on lines of their own after the progress bars."""

import sys
import warnings
from contextlib import contextmanager

__all__ = ["Notes", "held_warnings"]


class Notes:
    """Warnings and notes for stderr, each on a line of its own after the progress bars.

    The progress bars (tqdm, ``leave=False``) end by clearing their line with carriage
    returns and no newline. On a terminal the cursor then sits at the start of an empty
    line; in a pipe or a log file the next text would continue the bar's line. So the
    first note after bars that were shown, on a stream that is not a terminal, starts
    with a newline. Warnings raised while the bars run are held back until they finish
    (see :func:`held_warnings`).
    """

    def __init__(self, progress):
        self.newline_first = progress and not _is_terminal(sys.stderr)

    def write(self, text):
        if self.newline_first:
            sys.stderr.write("\n")
            self.newline_first = False
        print(text, file=sys.stderr)

    def warning(self, caught):
        text = warnings.formatwarning(caught.message, caught.category, caught.filename,
                                      caught.lineno)
        self.write(text.rstrip("\n"))


def _is_terminal(stream):
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


@contextmanager
def held_warnings(notes):
    """Record the warnings of a command and print them through ``notes`` at its end.

    The warning filters in force still decide which are shown (once per place by
    default); only when they are printed changes.
    """
    with warnings.catch_warnings(record=True) as caught:
        yield caught
    for item in caught:
        notes.warning(item)
