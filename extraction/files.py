"""Reading saved pages from disk for the `mcrawl extract` command and the benchmarks."""
from __future__ import annotations

import gzip
import zlib
from pathlib import Path
from typing import Iterator

from .dom import MAX_PAGE_BYTES

PAGE_SUFFIXES = (".html.gz", ".htm.gz", ".html", ".htm", ".xhtml", ".gz")


def page_id(path: Path) -> str:
    """The file name without its page extensions: `abc.html.gz` -> `abc`."""
    name = path.name
    for suffix in PAGE_SUFFIXES:
        if name.lower().endswith(suffix):
            return name[: -len(suffix)]
    return path.stem


def iter_page_files(paths: list[str]) -> Iterator[Path]:
    """Files named directly, and page files found below named directories, in sorted order."""
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            for child in sorted(path.rglob("*")):
                if child.is_file() and child.name.lower().endswith(PAGE_SUFFIXES):
                    yield child
        else:
            yield path


def read_page_bytes(path: Path, limit: int = MAX_PAGE_BYTES) -> bytes:
    """Read a page, gunzipping `.gz` files; reads at most `limit + 1` bytes so a huge file or a
    gzip bomb is detected by size without loading it all."""
    with open(path, "rb") as fh:
        head = fh.read(2)
        fh.seek(0)
        if head == b"\x1f\x8b":
            try:
                with gzip.GzipFile(fileobj=fh) as gz:
                    return gz.read(limit + 1)
            except (OSError, EOFError, zlib.error) as exc:
                raise ValueError(f"bad gzip data: {exc}") from exc
        return fh.read(limit + 1)
