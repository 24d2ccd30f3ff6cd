"""Log-in for the management pages: a session cookie after a password check against
werkzeug.security hashes (scrypt/pbkdf2, salted), and the `login_required` guard."""
from __future__ import annotations

import functools
import threading
import time
from collections import OrderedDict, deque

from flask import (Blueprint, current_app, flash, jsonify, redirect, render_template, request,
                   session, url_for)
from werkzeug.security import check_password_hash, generate_password_hash

bp = Blueprint("auth", __name__)

# Checked when the user name is unknown, so a wrong name costs as long as a wrong password and
# the response time does not tell which names exist.
_DUMMY_HASH = generate_password_hash("not a real password")


def current_user() -> str | None:
    return session.get("user")


def _refuse():
    """401 JSON for the API and non-GET requests; a redirect to the log-in page for pages."""
    if request.path.startswith("/api/") or request.method != "GET":
        return jsonify(error="log-in required"), 401
    return redirect(url_for("auth.login", next=request.full_path.rstrip("?")))


def login_required(view):
    @functools.wraps(view)
    def wrapper(*args, **kwargs):
        if not current_user():
            return _refuse()
        return view(*args, **kwargs)
    return wrapper


def search_access(view):
    """Search is open to everyone unless the configuration closes it."""
    @functools.wraps(view)
    def wrapper(*args, **kwargs):
        if not current_app.config["MCRAWL_WEB"].open_search and not current_user():
            return _refuse()
        return view(*args, **kwargs)
    return wrapper


class LoginThrottle:
    """At most `limit` failed log-ins per client address in `window_s` seconds, then 429 until
    the oldest failure leaves the window: slows password guessing. In memory, per process, and
    bounded (the oldest addresses are forgotten first)."""

    def __init__(self, limit: int = 5, window_s: float = 900.0, max_clients: int = 10_000):
        self.limit, self.window_s, self.max_clients = limit, window_s, max_clients
        self._failures: OrderedDict[str, deque[float]] = OrderedDict()
        self._lock = threading.Lock()

    def _recent(self, client: str, now: float) -> deque[float]:
        times = self._failures.get(client, deque())
        while times and now - times[0] > self.window_s:
            times.popleft()
        return times

    def retry_after(self, client: str, now: float | None = None) -> float:
        """Seconds until `client` may try again; 0 when it may now."""
        now = time.monotonic() if now is None else now
        with self._lock:
            times = self._recent(client, now)
            return self.window_s - (now - times[0]) if len(times) >= self.limit else 0.0

    def failed(self, client: str, now: float | None = None) -> None:
        now = time.monotonic() if now is None else now
        with self._lock:
            times = self._recent(client, now)
            times.append(now)
            self._failures[client] = times
            self._failures.move_to_end(client)
            while len(self._failures) > self.max_clients:
                self._failures.popitem(last=False)


def _safe_next(target: str | None) -> str:
    """Only a local path: `next=//evil.example` or `next=https://...` would be an open redirect."""
    if target and target.startswith("/") and not target.startswith("//") and "\\" not in target:
        return target
    return url_for("channels.index")


@bp.route("/login", methods=["GET", "POST"])
def login():
    if request.method == "POST":
        throttle: LoginThrottle = current_app.extensions["mcrawl_login_throttle"]
        client = request.remote_addr or "?"
        wait = throttle.retry_after(client)
        if wait > 0:
            flash(f"Too many failed log-ins from this address; try again in {int(wait) + 1} s.", "error")
            return render_template("login.html", next=request.form.get("next", ""), user="",
                                   no_users=False), 429, {"Retry-After": str(int(wait) + 1)}
        name = request.form.get("user", "").strip()
        password = request.form.get("password", "")
        users = current_app.config["MCRAWL_WEB"].users
        stored = users.get(name)
        ok = check_password_hash(stored or _DUMMY_HASH, password) and stored is not None
        if ok:
            session.clear()
            session["user"] = name
            session.permanent = True
            return redirect(_safe_next(request.form.get("next")))
        throttle.failed(client)
        current_app.logger.warning("failed log-in for user %r from %s", name, client)
        flash("Wrong user name or password.", "error")
        return render_template("login.html", next=request.form.get("next", ""), user=name,
                               no_users=not users), 401
    return render_template("login.html", next=request.args.get("next", ""), user="",
                           no_users=not current_app.config["MCRAWL_WEB"].users)


@bp.route("/logout", methods=["POST"])
def logout():
    session.clear()
    return redirect(url_for("search.index"))

