"""Files written whole or not at all: each is written under a temporary name in its
directory and renamed into place, so that an interrupted write (Ctrl-C, a killed process, a
full disk) never leaves a file that looks complete."""

from __future__ import annotations

import os
import uuid
from pathlib import Path
from typing import Callable


def atomic_write(path: str | os.PathLike[str], write: Callable[[Path], object]) -> None:
    """Calls `write(tmp)` to write a temporary file beside `path`, then renames it to `path`.
    The temporary file is removed if `write` raises (KeyboardInterrupt included)."""
    path = Path(path)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{uuid.uuid4().hex[:8]}.tmp")
    try:
        write(tmp)
        os.replace(tmp, path)
    finally:
        if tmp.exists():
            tmp.unlink()


def atomic_write_text(path: str | os.PathLike[str], text: str) -> None:
    atomic_write(path, lambda tmp: tmp.write_text(text, encoding="utf-8"))
