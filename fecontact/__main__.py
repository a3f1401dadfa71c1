"""``python -m fecontact`` and the ``fecontact`` command.

Signal handlers go in first, before the command line imports numpy, scipy
and scikit-fem: a Ctrl-C or SIGTERM during those imports ends with one line
and status 130 or 143, not a traceback.
"""

import os
import signal
import sys


def _stopped_while_starting(signum, frame):
    sys.stderr.write(f"interrupted by {signal.Signals(signum).name}; nothing was written\n")
    sys.stderr.flush()
    os._exit(128 + signum)


def run() -> int:
    """Install the start-up signal handlers, then run :func:`fecontact.cli.main`."""
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, _stopped_while_starting)
    from .cli import main

    return main(final=True)


if __name__ == "__main__":
    sys.exit(run())
