"""`mcrawl templates`: mine templates from saved pages of a site, show them, override a slot label.

    mcrawl templates mine DIR --site S [--urls GOLD.json] [--labels LABELS.json] [--out FILE] [--db URL]
    mcrawl templates show FILE | --db URL [--site S]
    mcrawl templates label FILE --template ID --field body|headline|date --node N

Saving: `--out` writes the library as JSON (what `mcrawl extract --templates FILE` reads); `--db`
writes one `templates` row per template (MySQL or SQLite through crawler.store), the row's
`url_prefix` being the template's main URL prefix and its `body` the template JSON.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path


def add_arguments(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="action", metavar="ACTION")
    sub.required = True
    mine = sub.add_parser("mine", help="cluster a site's saved pages and induce one template per cluster")
    mine.add_argument("dir", help="folder of saved pages (.html, .html.gz) of one site")
    mine.add_argument("--site", required=True, help="site name stored with the templates")
    mine.add_argument("--urls", help="JSON mapping page id -> URL (or -> {\"url\": ...}, e.g. a gold.json)")
    mine.add_argument("--labels", help="JSON mapping page id -> label, to print the clustering purity")
    mine.add_argument("--out", help="write the template library to this JSON file")
    mine.add_argument("--db", help="also save the templates to this store (mysql://... or sqlite:///...)")
    mine.add_argument("--workers", type=int, default=1, help="processes for parsing (default 1)")
    show = sub.add_parser("show", help="print the templates of a library file or a store")
    show.add_argument("file", nargs="?", help="template library JSON")
    show.add_argument("--db", help="read the templates from this store instead")
    show.add_argument("--site", help="with --db: only this site")
    label = sub.add_parser("label", help="set a slot by hand (automatic labelling never overwrites it)")
    label.add_argument("file", help="template library JSON (rewritten in place)")
    label.add_argument("--template", required=True, help="template id, as printed by `show`")
    label.add_argument("--field", required=True, choices=["body", "headline", "date"])
    label.add_argument("--node", required=True, type=int, help="required node number, as printed by `show --nodes`")
    show.add_argument("--nodes", action="store_true", help="also list every required node")


def _mapping(path: str | None, field: str) -> dict[str, str]:
    if not path:
        return {}
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    if not isinstance(data, dict):
        raise ValueError(f"{path}: expected a JSON object of page id -> value")
    out = {}
    for key, value in data.items():
        if isinstance(value, dict):
            value = value.get(field)
        if isinstance(value, str) and value:
            out[str(key)] = value
    return out


def describe(library, nodes: bool = False, out=None) -> None:
    out = out or sys.stdout
    for t in library:
        slots = ", ".join(f"{name}=node {s.node} <{t.keys[s.node]}> ({s.source}, agreement {s.agreement:.2f}"
                          + (f", {len(s.drop_lines)} template lines dropped" if s.drop_lines else "") + ")"
                          for name, s in sorted(t.slots.items()))
        usable = "" if t.threshold <= 1 else "  [one-page cluster: not used for extraction]"
        print(f"template {t.id}: {t.pages} pages, {len(t.keys)} required nodes, {len(t.optional)} optional nodes,"
              f" threshold {t.threshold:.2f}{usable}", file=out)
        print(f"  slots: {slots or 'none (extraction falls back to the template-free path)'}", file=out)
        if t.url_prefixes:
            top = sorted(t.url_prefixes.items(), key=lambda kv: -kv[1])[:5]
            print("  url prefixes: " + ", ".join(f"{p} ({n})" for p, n in top)
                  + (f" and {len(t.url_prefixes) - 5} more" if len(t.url_prefixes) > 5 else ""), file=out)
        if nodes:
            for i, (key, depth) in enumerate(zip(t.keys, t.depths)):
                print(f"    {i:4d} {'  ' * min(depth, 30)}{key}{' *' if t.repeatable[i] else ''}", file=out)


def main_prefix(template) -> str:
    if not template.url_prefixes:
        return ""
    return max(template.url_prefixes.items(), key=lambda kv: (kv[1], -len(kv[0])))[0]


def save_to_store(library, db_url: str, site: str) -> list[int]:
    from crawler.store import open_store

    store = open_store(db_url)
    ids, used = [], set()
    for t in library:
        prefix = main_prefix(t)
        # (site, url_prefix) is unique in the table; two templates of one section get numbered rows.
        row_prefix = prefix if prefix not in used else f"{prefix}#{t.id.rsplit('#', 1)[-1]}"
        used.add(row_prefix)
        quality = t.slots["body"].agreement if "body" in t.slots else 0.0
        ids.append(store.save_template(site, row_prefix, t.to_dict(), name=t.id, quality=quality, pages=t.pages,
                                       enabled=t.threshold <= 1))
    return ids


def library_from_store(db_url: str, site: str | None = None):
    """The enabled templates of a store as a TemplateLibrary (what a worker passes to extract())."""
    from crawler.store import open_store
    from workers.templates import library_from_store as from_open_store

    store = open_store(db_url)
    try:
        return from_open_store(store, site)
    finally:
        store.close()


def run_mine(args) -> int:
    from extraction.files import iter_page_files, page_id, read_page_bytes
    from extraction.templates.mine import mine_items

    urls, labels = _mapping(args.urls, "url"), _mapping(args.labels, "label")
    items = []
    for path in iter_page_files([args.dir]):
        pid = page_id(path)
        try:
            items.append((pid, read_page_bytes(path), urls.get(pid)))
        except (OSError, ValueError) as exc:
            print(f"skipped {path}: {exc}", file=sys.stderr)
    if not items:
        print(f"mcrawl templates: no page files in {args.dir}", file=sys.stderr)
        return 1
    library, report = mine_items(items, args.site, labels=labels or None, workers=args.workers)
    for pid, reason in report.skipped:
        print(f"skipped {pid}: {reason}", file=sys.stderr)
    if not report.pages:
        print("mcrawl templates: no readable pages", file=sys.stderr)
        return 1
    print(f"{report.pages} pages, {len(report.clusters)} clusters"
          + (f", purity {report.purity:.3f} against the given labels" if report.purity is not None else "")
          + f" ({report.exact_comparisons} exact LCS comparisons, parsing {report.seconds['parse+features']:.1f} s, clustering {report.seconds['cluster']:.1f} s)")
    for t, members in zip(library, report.clusters):
        shown = ", ".join(members[:8]) + (f" ... ({len(members)})" if len(members) > 8 else "")
        print(f"cluster {t.id}: {len(members)} pages: {shown}")
    describe(library)
    if args.out:
        library.save(args.out)
        print(f"wrote {len(library)} templates to {args.out}")
    if args.db:
        ids = save_to_store(library, args.db, args.site)
        print(f"saved {len(ids)} templates to the store (ids {', '.join(map(str, ids))})")
    return 0


def run(args: argparse.Namespace) -> int:
    from extraction.templates.library import TemplateLibrary, TemplateLibraryError

    try:
        if args.action == "mine":
            return run_mine(args)
        if args.action == "show":
            if args.db:
                library = library_from_store(args.db, args.site)
            elif args.file:
                library = TemplateLibrary.load(args.file)
            else:
                print("mcrawl templates show: give a library FILE or --db URL", file=sys.stderr)
                return 2
            if not len(library):
                print("no templates")
            describe(library, nodes=args.nodes)
            return 0
        library = TemplateLibrary.load(args.file)
        if args.template not in library.templates:
            print(f"mcrawl templates: no template {args.template!r} in {args.file}", file=sys.stderr)
            return 1
        library.templates[args.template].set_slot(args.field, args.node)
        library.save(args.file)
        print(f"template {args.template}: {args.field} = node {args.node} (manual)")
        return 0
    except (TemplateLibraryError, ValueError, OSError) as exc:
        print(f"mcrawl templates: {exc}", file=sys.stderr)
        return 1
