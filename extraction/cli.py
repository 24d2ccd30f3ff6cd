"""`mcrawl extract`: run the extraction pipeline over saved pages and print one JSON line per page."""
from __future__ import annotations

import argparse
import sys
import time
from datetime import datetime, timezone

from .files import iter_page_files, page_id, read_page_bytes
from .pipeline import extract
from .result import ExtractionResult


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("paths", nargs="+", metavar="FILE_OR_DIR", help="saved pages (.html, .html.gz) or folders of them")
    parser.add_argument("--url", help="the page's URL (for one file); helps resolve links and dates")
    parser.add_argument("--tz", default=None, help="default time zone for times without an offset, e.g. Asia/Shanghai")
    parser.add_argument("--templates", help="a mined template library (JSON) to try before the template-free path")
    parser.add_argument("--fetched-at", help="ISO time the pages were fetched (anchors relative times); default now")
    parser.add_argument("--quiet", action="store_true", help="no progress line on stderr")


def load_templates(path: str | None):
    if not path:
        return None
    from .templates.library import TemplateLibrary  # only needed with --templates

    return TemplateLibrary.load(path)


def run(args: argparse.Namespace) -> int:
    fetched_at = datetime.fromisoformat(args.fetched_at) if args.fetched_at else datetime.now(timezone.utc)
    try:
        templates = load_templates(args.templates)
    except (OSError, ValueError) as exc:  # missing file, bad JSON, not a template library
        print(f"mcrawl extract: cannot load templates from {args.templates}: {exc}", file=sys.stderr)
        return 2
    out = sys.stdout
    count = invalid = 0
    started = time.monotonic()
    for path in iter_page_files(args.paths):
        pid = page_id(path)
        try:
            data = read_page_bytes(path)
        except (OSError, ValueError) as exc:
            result = ExtractionResult.failure(f"unreadable: {exc}", url=args.url)
        else:
            try:
                result = extract(data, url=args.url, fetched_at=fetched_at, tz=args.tz, templates=templates)
            except Exception as exc:  # noqa: BLE001 - one bad page must not end a run over thousands
                result = ExtractionResult.failure(f"extractor error: {type(exc).__name__}: {exc}", url=args.url)
        out.write(result.to_json(id=pid, file=str(path)) + "\n")
        count += 1
        invalid += not result.valid
        if not args.quiet and sys.stderr.isatty() and count % 50 == 0:
            rate = count / max(time.monotonic() - started, 1e-9)
            print(f"\r{count} pages, {invalid} invalid, {rate:.0f} pages/s", end="", file=sys.stderr)
    if not args.quiet and sys.stderr.isatty() and count >= 50:
        print(file=sys.stderr)
    if count == 0:
        print("mcrawl extract: no page files found", file=sys.stderr)
        return 1
    return 0
