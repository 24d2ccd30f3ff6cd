"""`mcrawl serve`: the web console (search, channels, status) on one address.

`mcrawl serve --add-user NAME` stores a console user's hashed password (read from the terminal,
or from $MCRAWL_WEB_PASSWORD when there is none) and exits.
"""
from __future__ import annotations

import argparse
import os
import sys


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--config", help="settings file (TOML or YAML); default $MCRAWL_CONFIG")
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=8080, help="port (default 8080; 0 = any free port)")
    parser.add_argument("--add-user", metavar="NAME", help="set NAME's console password, then exit")


def _read_password() -> str:
    if os.environ.get("MCRAWL_WEB_PASSWORD"):
        return os.environ["MCRAWL_WEB_PASSWORD"]
    if not sys.stdin.isatty():
        return sys.stdin.readline().rstrip("\n")
    import getpass

    first = getpass.getpass("password: ")
    if getpass.getpass("again: ") != first:
        raise ValueError("the two passwords differ")
    return first


def run(args: argparse.Namespace) -> int:
    from crawler.config import ConfigError, load_settings
    from crawler.web.webconfig import load_web_config, set_password

    try:
        settings = load_settings(args.config)
        web = load_web_config(settings)
        if args.add_user:
            set_password(web.users_file, args.add_user, _read_password())
            print(f"user {args.add_user!r} saved in {web.users_file}")
            return 0
    except (ConfigError, ValueError) as exc:
        print(f"mcrawl serve: {exc}", file=sys.stderr)
        return 2
    if not 0 <= args.port <= 65535:
        print(f"mcrawl serve: --port {args.port} is out of range", file=sys.stderr)
        return 2

    from waitress.server import create_server

    from crawler.web.app import create_app

    app = create_app(settings, web)
    if not web.users:
        print("note: no console users yet; management pages stay locked until "
              "`mcrawl serve --add-user NAME` or MCRAWL_WEB_ADMIN_PASSWORD", file=sys.stderr)
    try:
        # waitress: a production WSGI server (thread pool, no debug features), pure Python
        server = create_server(app, host=args.host, port=args.port, threads=8, ident="mcrawl")
    except OSError as exc:
        print(f"mcrawl serve: cannot listen on {args.host}:{args.port}: {exc.strerror}", file=sys.stderr)
        return 1
    print(f"mcrawl console on http://{args.host}:{server.effective_port}/", flush=True)
    try:
        server.run()
    finally:
        server.close()
    return 0
