"""A tiny threaded HTTP server on 127.0.0.1 (free port) that stands in for the internet.

It serves the demo news site (`crawler/demo/site/`) for `mcrawl demo`, and any table of routes
for tests and the end-to-end benchmark: a route is either a fixed response or a function of the
request, so a test can serve a redirect loop, a slow page or a 30 MB body without a real site.
The standard library's ThreadingHTTPServer is enough here (deliberately no web framework): the
server only answers GETs on loopback.
"""
from __future__ import annotations

import mimetypes
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Callable, Mapping, Union
from urllib.parse import urlsplit

SITE_DIR = Path(__file__).resolve().parent / "site"
# Absolute links in feeds and sitemaps are written with this placeholder; the server fills in its
# own address, which is only known once the port is bound.
BASE_PLACEHOLDER = b"{{BASE}}"


@dataclass
class Response:
    status: int = 200
    body: bytes = b""
    headers: dict[str, str] = field(default_factory=dict)
    delay_s: float = 0.0  # sleep before answering (timeouts)


# A dynamic route gets (path with query, request headers) and returns a Response.
Handler = Callable[[str, Mapping[str, str]], Response]
Route = Union[Response, Handler]


class LocalSite:
    """Serve `routes` (path -> Response | handler) on 127.0.0.1:<free port> in a daemon thread.

    Paths are matched with their query string first, then without it. `hits` counts requests per
    path so tests can check politeness and retries.
    """

    def __init__(self, routes: Mapping[str, Route] | None = None, *, port: int = 0):
        self.routes: dict[str, Route] = dict(routes or {})
        self.hits: dict[str, int] = {}
        self.hit_times: list[tuple[float, str]] = []
        self._lock = threading.Lock()
        site = self

        class _Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_GET(self):  # noqa: N802 (stdlib name)
                site._serve(self)

            def log_message(self, *args):  # keep test and demo output clean
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", port), _Handler)
        self._server.daemon_threads = True
        self._thread: threading.Thread | None = None

    @property
    def port(self) -> int:
        return self._server.server_address[1]

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def url(self, path: str) -> str:
        return self.base_url + (path if path.startswith("/") else "/" + path)

    def start(self) -> "LocalSite":
        self._thread = threading.Thread(target=self._server.serve_forever, name=f"site-{self.port}", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    def __enter__(self) -> "LocalSite":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

    def _serve(self, req: BaseHTTPRequestHandler) -> None:
        full = req.path
        path = urlsplit(full).path
        with self._lock:
            self.hits[path] = self.hits.get(path, 0) + 1
            self.hit_times.append((time.monotonic(), path))
        route = self.routes.get(full, self.routes.get(path))
        if route is None:
            resp = Response(404, b"<html><body><h1>404 Not Found</h1></body></html>",
                            {"Content-Type": "text/html; charset=utf-8"})
        elif callable(route):
            resp = route(full, dict(req.headers))
        else:
            resp = route
        if resp.delay_s:
            time.sleep(resp.delay_s)
        body = resp.body.replace(BASE_PLACEHOLDER, self.base_url.encode()) if BASE_PLACEHOLDER in resp.body else resp.body
        try:
            req.send_response(resp.status)
            headers = {"Content-Type": "text/html; charset=utf-8", **resp.headers}
            for key, value in headers.items():
                req.send_header(key, value)
            req.send_header("Content-Length", str(len(body)))
            req.end_headers()
            req.wfile.write(body)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up (timeouts, size caps): expected in fault tests


def file_routes(directory: Path, prefix: str = "/") -> dict[str, Response]:
    """One route per file under `directory`, with a Content-Type from its extension.

    HTML is sent without a charset in the header so the page's own <meta charset> decides, as on
    many real sites.
    """
    routes: dict[str, Response] = {}
    for path in sorted(directory.rglob("*")):
        if not path.is_file():
            continue
        rel = path.relative_to(directory).as_posix()
        ctype = mimetypes.guess_type(path.name)[0] or "application/octet-stream"
        if path.suffix == ".xml":
            ctype = "application/xml"
        elif path.suffix == ".txt":
            ctype = "text/plain; charset=utf-8"
        routes[prefix + rel] = Response(200, path.read_bytes(), {"Content-Type": ctype})
        if path.name == "index.html":
            routes[prefix + rel[: -len("index.html")]] = routes[prefix + rel]
    return routes


def demo_site() -> LocalSite:
    """The demo news site (not started)."""
    return LocalSite(file_routes(SITE_DIR))
