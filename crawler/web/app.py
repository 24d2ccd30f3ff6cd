"""The Flask app factory and a helper that serves the console from a background thread."""
from __future__ import annotations

import dataclasses
import threading
from datetime import timedelta
from zoneinfo import ZoneInfo

from flask import Flask, jsonify, render_template, request
from flask_wtf.csrf import CSRFProtect, CSRFError
from werkzeug.security import generate_password_hash
from werkzeug.serving import WSGIRequestHandler, make_server

from crawler.config import Settings
from crawler.web.backends import Backends
from crawler.web.highlight import safe_highlight
from crawler.web.views_common import fmt_duration, fmt_time, safe_href
from crawler.web.webconfig import WebConfig, load_web_config

# Everything the pages load comes from this server: no CDN, works offline, and an injected
# <script> would not run even if an escaping bug let one through.
_CSP = ("default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
        "object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'")


def create_app(settings: Settings, web: WebConfig | None = None) -> Flask:
    """The console for the backends named in `settings`; `web` overrides the [web] settings."""
    from crawler.web import api, auth, channels, search, status

    app = Flask(__name__)
    web = web or load_web_config(settings)
    app.config.update(
        SECRET_KEY=web.secret_key,
        MCRAWL_SETTINGS=settings,
        MCRAWL_WEB=web,
        SESSION_COOKIE_HTTPONLY=True,
        SESSION_COOKIE_SAMESITE="Lax",
        PERMANENT_SESSION_LIFETIME=timedelta(hours=12),
        WTF_CSRF_TIME_LIMIT=None,  # tied to the session instead, which expires on its own
    )
    app.json.sort_keys = False  # keep the documented field order in API answers
    app.json.ensure_ascii = False  # Chinese text as UTF-8, not \u escapes
    app.extensions["mcrawl_backends"] = Backends(settings)
    app.extensions["mcrawl_login_throttle"] = auth.LoginThrottle()
    CSRFProtect(app)


    app.register_blueprint(auth.bp)
    app.register_blueprint(search.bp)
    app.register_blueprint(channels.bp)
    app.register_blueprint(status.bp)
    app.register_blueprint(api.bp)

    app.jinja_env.globals["current_user"] = auth.current_user
    zone = ZoneInfo(settings.default_tz)
    app.jinja_env.filters["when"] = lambda value: fmt_time(value, zone)
    app.jinja_env.filters["highlight"] = safe_highlight
    app.jinja_env.filters["duration"] = fmt_duration
    app.jinja_env.filters["href"] = safe_href

    @app.after_request
    def security_headers(response):
        response.headers.setdefault("Content-Security-Policy", _CSP)
        response.headers.setdefault("X-Content-Type-Options", "nosniff")
        response.headers.setdefault("Referrer-Policy", "same-origin")
        return response

    @app.errorhandler(CSRFError)
    def csrf_error(exc):
        return render_template("error.html", title="Form expired",
                               message="The form's security token is missing or stale. Reload the page and try again."), 400

    from crawler.queues import QueueUnavailable
    from crawler.store import StoreError
    from workers.index import IndexUnavailable

    @app.errorhandler(StoreError)
    @app.errorhandler(QueueUnavailable)
    @app.errorhandler(IndexUnavailable)
    def backend_down(exc):
        app.logger.error("backend unavailable: %s", exc)
        message = f"A storage backend did not answer: {exc}"
        if request.path.startswith("/api/"):
            return jsonify(error=message), 503
        return render_template("error.html", title="Service unavailable", message=message), 503

    @app.errorhandler(404)
    def not_found(exc):
        return render_template("error.html", title="Not found", message="There is nothing at this address."), 404

    return app


def backends(app: Flask | None = None) -> Backends:
    from flask import current_app

    return (app or current_app).extensions["mcrawl_backends"]


class _QuietHandler(WSGIRequestHandler):
    """No line per request on stderr: the console runs inside `mcrawl demo` and benchmarks,
    whose own output it would drown; errors are still logged."""

    def log_request(self, code="-", size="-") -> None:
        pass


class _ServerThread(threading.Thread):
    def __init__(self, app: Flask, host: str, port: int):
        super().__init__(name="mcrawl-web", daemon=True)
        self.server = make_server(host, port, app, threaded=True, request_handler=_QuietHandler)

    def run(self) -> None:
        self.server.serve_forever()

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()
        backends(self.server.app).close()


def serve_in_thread(settings: Settings, host: str = "127.0.0.1", port: int = 8080,
                    web: WebConfig | None = None, admin_password: str | None = None) -> str:
    """Start the console in a daemon thread and return its URL (port 0 picks a free port).

    `admin_password` adds the user "admin" with that password (hashed in memory), e.g. for
    `mcrawl demo`. The server stops with the process; `stop_server(url)` stops it earlier.
    """
    web = web or load_web_config(settings)
    if admin_password:
        web = dataclasses.replace(web, users={**web.users, "admin": generate_password_hash(admin_password)})
    thread = _ServerThread(create_app(settings, web), host, port)
    thread.start()
    url = f"http://{host}:{thread.server.server_port}/"
    _threads[url] = thread
    return url


_threads: dict[str, _ServerThread] = {}


def stop_server(url: str) -> None:
    thread = _threads.pop(url, None)
    if thread is not None:
        thread.stop()
        thread.join(timeout=5)
