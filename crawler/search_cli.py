"""`mcrawl search QUERY`: ranked results with highlighted snippets, from either index backend."""
from __future__ import annotations

import html
import json
import re
import sys
from datetime import date, datetime, time, timedelta

BOLD, RESET = "\033[1m", "\033[0m"
_EM = re.compile(r"<em>(.*?)</em>", re.S)


def add_arguments(parser) -> None:
    parser.add_argument("query", nargs="*", help="words to search for (empty: newest articles)")
    parser.add_argument("--site", help="only this site (host without www., e.g. example.com)")
    parser.add_argument("--since", help="published on or after this day (YYYY-MM-DD) or time (ISO 8601)")
    parser.add_argument("--until", help="published up to and including this day, or before this ISO time")
    parser.add_argument("--page-type", help="news, blog, forum, ...")
    parser.add_argument("--channel-kind", choices=["rss", "metasearch", "listpage", "sitemap"])
    parser.add_argument("--sort", choices=["relevance", "newest"], default="relevance")
    parser.add_argument("--limit", type=int, default=10, help="results to show (default 10)")
    parser.add_argument("--offset", type=int, default=0)
    parser.add_argument("--index", help="index URL (default: settings index_url / $MCRAWL_INDEX)")
    parser.add_argument("--config", help="settings file (TOML or YAML)")
    parser.add_argument("--json", action="store_true", help="one JSON object per hit")
    parser.add_argument("--color", choices=["auto", "always", "never"], default="auto",
                        help="bold matches (default: when printing to a terminal)")


def parse_when(value: str | None, end: bool) -> datetime | None:
    """A day means the whole day: --until 2024-05-31 includes that day."""
    if not value:
        return None
    value = value.strip()
    try:
        if len(value) == 10:
            day = date.fromisoformat(value)
            return datetime.combine(day + timedelta(days=1) if end else day, time.min)
        return datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        raise ValueError(f"{value!r} is not a date (YYYY-MM-DD) or ISO 8601 time") from None


def render_snippet(snippet: str | None, color: bool) -> str:
    """<em> -> ANSI bold (or plain), other markup entities decoded, whitespace folded."""
    text = _EM.sub(lambda m: f"{BOLD}{m.group(1)}{RESET}" if color else m.group(1), snippet or "")
    return " ".join(html.unescape(text).split())


def format_hit(rank: int, hit, color: bool) -> str:
    title = hit.title or "(no title)"
    head = f"{rank:>3}. {BOLD + title + RESET if color else title}"
    meta = " · ".join(str(x) for x in (hit.site, (hit.pubdate or "")[:16].replace("T", " "), hit.source) if x)
    lines = [head, f"     {hit.url}"]
    if meta:
        lines.append(f"     {meta}")
    snippet = render_snippet(hit.snippet, color)
    if snippet:
        lines.append(f"     {snippet}")
    return "\n".join(lines)


def run(args) -> int:
    from crawler.config import ConfigError, load_settings
    from workers.index import IndexUnavailable, open_index

    try:
        index_url = args.index or load_settings(args.config).index_url
        since, until = parse_when(args.since, False), parse_when(args.until, True)
    except (ConfigError, ValueError) as exc:
        print(f"mcrawl search: {exc}", file=sys.stderr)
        return 2
    if args.limit < 1:
        print("mcrawl search: --limit must be at least 1", file=sys.stderr)
        return 2
    query = " ".join(args.query)
    try:
        index = open_index(index_url)
        results = index.search(query, site=args.site, since=since, until=until, page_type=args.page_type,
                               channel_kind=args.channel_kind, sort=args.sort, offset=args.offset, size=args.limit)
    except IndexUnavailable as exc:
        print(f"mcrawl search: index unavailable: {exc}", file=sys.stderr)
        return 3
    except ValueError as exc:
        print(f"mcrawl search: {exc}", file=sys.stderr)
        return 2
    if args.json:
        import dataclasses

        for hit in results.hits:
            print(json.dumps(dataclasses.asdict(hit), ensure_ascii=False))
        return 0
    color = args.color == "always" or (args.color == "auto" and sys.stdout.isatty())
    shown = len(results.hits)
    print(f"{results.total} result(s) for {query!r}" + (f", showing {args.offset + 1}-{args.offset + shown}" if shown else ""))
    for i, hit in enumerate(results.hits, start=args.offset + 1):
        print()
        print(format_hit(i, hit, color))
    return 0
