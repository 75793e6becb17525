"""Warnings, notes and progress bars of the command line.

Progress bars (tqdm, drawn by the library when ``verbose``) are shown only where someone
watches them: on a terminal, without ``--quiet``, and only once the work has run for
:data:`PROGRESS_DELAY` seconds; a short command on a small graph draws none, and a
command whose stderr goes to a file or a pipe writes no bar into it. Warnings raised
while the work runs are held back until it ends, then printed on lines of their own
(see :func:`held_warnings`).
"""

import sys
import time
import warnings
from contextlib import contextmanager, nullcontext, redirect_stderr

__all__ = ["Notes", "PROGRESS_DELAY", "held_warnings"]

#: Seconds of work before the progress bars appear.
PROGRESS_DELAY = 2.0


class Notes:
    """Warnings and notes for stderr, and whether progress bars are shown.

    Parameters
    ----------
    quiet : bool
        ``--quiet``: no progress bar.

    Attributes
    ----------
    progress : bool
        Whether the library draws its progress bars (its ``verbose``): not ``quiet``,
        and stderr is a terminal.
    """

    def __init__(self, quiet):
        self.progress = not quiet and _is_terminal(sys.stderr)

    def write(self, text):
        print(text, file=sys.stderr)

    def warning(self, caught):
        text = warnings.formatwarning(caught.message, caught.category, caught.filename,
                                      caught.lineno)
        self.write(text.rstrip("\n"))

    def progress_bars(self):
        """A context in which the bars are drawn, once :data:`PROGRESS_DELAY` seconds
        have passed since it was entered (nothing changes where no bar is shown)."""
        if not self.progress:
            return nullcontext()
        return redirect_stderr(_Delayed(sys.stderr, PROGRESS_DELAY))


class _Delayed:
    """A stream that drops what is written during its first ``delay`` seconds, then
    passes everything to ``stream``.

    A bar redraws its whole line at each refresh (a carriage return, then the bar), so
    the first refresh after the delay draws it whole; a bar that ends before then is
    never seen, and its last write, which clears its line, is dropped with it.
    """

    def __init__(self, stream, delay):
        self._stream, self._until = stream, time.monotonic() + delay

    def write(self, text):
        if time.monotonic() < self._until:
            return len(text)
        return self._stream.write(text)

    def flush(self):
        if time.monotonic() >= self._until:
            self._stream.flush()

    def __getattr__(self, name):
        return getattr(self._stream, name)


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
