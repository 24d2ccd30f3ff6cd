"""The `mcrawl` command: one entry point, one sub-command per job."""
from __future__ import annotations

import argparse
import importlib
import sys

# sub-command -> (module, help). Modules are imported only when their command runs, so
# `mcrawl extract` does not pay for Scrapy, and a missing optional piece breaks only its command.
COMMANDS = {
    "extract": ("extraction.cli", "extract articles from saved pages, one JSON line per page"),
    "bench": ("extraction.bench", "score the extractors on ../shared/bench and print a table"),
    "serve": ("crawler.web_cli", "the web console: search, channels, status (default http://127.0.0.1:8080/)"),
    "spiders": ("crawler.spiders_cli", "Scrapy spiders: take crawl jobs, queue the detail URLs they find"),
    "worker": ("workers.worker_cli", "extraction worker: fetch detail pages, extract, index"),
    "controller": ("crawler.controller", "claim due channels, push crawl jobs, adapt intervals, flag idle channels"),
    "search": ("crawler.search_cli", "search the article index (Elasticsearch or SQLite FTS) with highlighted snippets"),
    "demo": ("crawler.demo_cli", "offline demo: crawl a local demo news site and search it (no servers needed)"),
    "templates": ("crawler.templates_cli", "mine page templates of a site (cluster, induce, label), show or edit them"),
}


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The full parser; only `command`'s module is imported to add its arguments."""
    parser = argparse.ArgumentParser(prog="mcrawl", description="Multichannel news/blog/forum crawler")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    for name, (module, help_text) in COMMANDS.items():
        sp = sub.add_parser(name, help=help_text, description=help_text)
        sp.set_defaults(_module=module)
        if name == command:
            importlib.import_module(module).add_arguments(sp)
    return parser


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    command = next((a for a in argv if not a.startswith("-")), None)
    args = build_parser(command).parse_args(argv)
    try:
        return importlib.import_module(args._module).run(args) or 0
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    sys.exit(main())
