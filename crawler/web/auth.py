"""Log-in for the management pages: a session cookie after a password check against
werkzeug.security hashes (scrypt/pbkdf2, salted), and the `login_required` guard."""
from __future__ import annotations

import functools

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


def _safe_next(target: str | None) -> str:
    """Only a local path: `next=//evil.example` or `next=https://...` would be an open redirect."""
    if target and target.startswith("/") and not target.startswith("//") and "\\" not in target:
        return target
    return url_for("channels.index")


@bp.route("/login", methods=["GET", "POST"])
def login():
    if request.method == "POST":
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
        current_app.logger.warning("failed log-in for user %r from %s", name, request.remote_addr)
        flash("Wrong user name or password.", "error")
        return render_template("login.html", next=request.form.get("next", ""), user=name,
                               no_users=not users), 401
    return render_template("login.html", next=request.args.get("next", ""), user="",
                           no_users=not current_app.config["MCRAWL_WEB"].users)


@bp.route("/logout", methods=["POST"])
def logout():
    session.clear()
    return redirect(url_for("search.index"))

