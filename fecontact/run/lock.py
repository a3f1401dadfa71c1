"""One run at a time in an output folder: the lock file ``.fecontact.lock``.

A run (and a restart) takes the lock before it reads or writes anything in
its folder, and gives it back when it ends, however it ends.  The lock is an
exclusive ``flock`` on the file, which the operating system releases when
the process ends, also when it is killed: a second run into a folder that a
live run holds is refused in one line that names the holder (process, host,
start, case); a lock file left by a process that is gone (killed with
SIGKILL, a machine that went down) holds no ``flock`` and is taken over,
with a message naming the process that left it.

The file records who holds it, as JSON: ``pid``, ``host``, ``started``
(ISO time) and ``case``.  On systems without ``fcntl`` (Windows) there is no
lock.
"""

from __future__ import annotations

import json
import logging
import os
import socket
import time
from dataclasses import dataclass
from pathlib import Path

try:
    import fcntl
except ImportError:                                   # pragma: no cover - Windows
    fcntl = None

logger = logging.getLogger(__name__)

#: name of the lock file in an output folder
LOCK = ".fecontact.lock"


class FolderBusy(Exception):
    """Another live run holds the output folder (one line naming it and the holder)."""


def _holder(text: str) -> str:
    """Who a lock file says holds it, in words (``"an unknown process"`` when unreadable)."""
    try:
        info = json.loads(text)
        return (f"process {int(info['pid'])} on {info['host']}, started {info['started']}, "
                f"case {info['case']}")
    except (ValueError, KeyError, TypeError):
        return "an unknown process"


@dataclass
class FolderLock:
    """The held lock of one output folder.

    Attributes
    ----------
    path : Path
        The lock file.
    fd : int or None
        Its open descriptor, which holds the ``flock`` (``None`` once released
        or without ``fcntl``).
    """

    path: Path
    fd: int | None

    @classmethod
    def acquire(cls, folder: Path, case: str = "") -> "FolderLock":
        """Take the lock of ``folder`` (made if need be) for this process.

        Parameters
        ----------
        folder : Path
            The output folder.
        case : str
            The case file, recorded for a refused second run's message.

        Returns
        -------
        FolderLock

        Raises
        ------
        FolderBusy
            A live process holds it.
        OSError
            The folder cannot be made, or the lock file not written.
        """
        folder = Path(folder)
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / LOCK
        if fcntl is None:                             # pragma: no cover - Windows
            return cls(path, None)
        while True:
            fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                text = os.pread(fd, 4096, 0).decode("utf-8", "replace")
                os.close(fd)
                raise FolderBusy(f"{folder}: another run is writing into this folder "
                                 f"({_holder(text)}); wait for it to end, or choose another "
                                 f"output folder") from None
            # the file may have been removed by the holder that just released it: lock the one
            # at the path, or two runs could each hold a lock of their own file
            try:
                same = os.stat(path).st_ino == os.fstat(fd).st_ino
            except FileNotFoundError:
                same = False
            if same:
                break
            os.close(fd)
        left = os.pread(fd, 4096, 0).decode("utf-8", "replace").strip()
        if left:
            logger.warning("%s: took over the lock left by %s, which no longer runs", folder,
                           _holder(left))
        record = json.dumps({"pid": os.getpid(), "host": socket.gethostname(),
                             "started": time.strftime("%Y-%m-%dT%H:%M:%S"), "case": str(case)})
        os.ftruncate(fd, 0)
        os.pwrite(fd, record.encode(), 0)
        return cls(path, fd)

    def release(self) -> None:
        """Give the lock back and remove its file (no-op once released)."""
        if self.fd is None:
            return
        try:
            self.path.unlink(missing_ok=True)
        except OSError:
            pass                                      # the flock goes with the descriptor anyway
        os.close(self.fd)
        self.fd = None

    def __enter__(self) -> "FolderLock":
        return self

    def __exit__(self, *exc) -> None:
        self.release()
