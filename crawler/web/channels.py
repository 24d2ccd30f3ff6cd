"""The channels page: list, add, edit, pause/resume, and "test this channel now"."""
from __future__ import annotations

from flask import Blueprint, abort, current_app, flash, redirect, render_template, request, url_for

from crawler.web.app import backends
from crawler.web.auth import login_required
from crawler.web.channelform import (FIELD_NAMES, FIELDS, check_channel, form_values, parse_form,
                                      parse_keywords)
from crawler.web.views_common import as_dict

bp = Blueprint("channels", __name__, url_prefix="/channels")


def channel_rows() -> list[dict]:
    return [as_dict(c) for c in backends().store.list_channels()]


def _channel_or_404(channel_id: int):
    channel = backends().store.get_channel(channel_id)
    if channel is None:
        abort(404)
    return channel


def _name_taken(name: str, own_id: int | None) -> bool:
    other = backends().store.get_channel_by_name(name)
    return other is not None and other.id != own_id


@bp.route("/")
@login_required
def index():
    return render_template("channels.html", channels=channel_rows())


def _save(channel_id: int | None):
    """Handle a posted channel form: save and redirect, or show the form again with the problems."""
    values, field_problems = parse_form(request.form)
    keywords, keyword_problems = parse_keywords(request.form.get("keywords"))
    problems = check_channel(values, field_problems) + keyword_problems
    if not problems and _name_taken(values["name"], channel_id):
        problems = [f"a channel named {values['name']!r} already exists"]
    if problems:
        # validate_channel's sentences start with the column they are about: mark that input too
        bad = set(field_problems) | {name for name in FIELD_NAMES for p in problems if p.startswith(name + " ")}
        if keyword_problems:
            bad.add("keywords")
        return render_template("channel_form.html", fields=FIELDS, values=values, problems=problems,
                               bad_fields=bad, channel_id=channel_id, keywords=request.form.get("keywords", "")), 400
    store = backends().store
    try:
        if channel_id is None:
            channel_id, done = store.add_channel(values), "added"
        else:
            store.update_channel(channel_id, **values)
            done = "saved"
        sync_keywords(store, channel_id, keywords)
    except (ValueError, KeyError) as exc:  # the store re-validates; a race can still trip it
        return render_template("channel_form.html", fields=FIELDS, values=values, problems=[str(exc)],
                               bad_fields=set(), channel_id=channel_id,
                               keywords=request.form.get("keywords", "")), 400
    flash(f"Channel {values['name']!r} {done}.", "ok")
    if values["kind"] == "metasearch" and not keywords:
        flash("This metasearch channel has no keywords of its own: it searches only the global keywords.", "info")
    current_app.logger.info("channel %s saved", channel_id)
    return redirect(url_for("channels.index") + f"#channel-{channel_id}")


def sync_keywords(store, channel_id: int, wanted: list[str]) -> None:
    """Make the channel's own keywords exactly `wanted`, earlier lines with higher priority (the
    controller expands keywords in priority order); global keywords are left alone."""
    current = store.channel_keywords(channel_id)
    if current == wanted:
        return
    for keyword in current:
        store.remove_keyword(keyword, channel_id)
    for rank, keyword in enumerate(wanted):
        store.add_keyword(keyword, channel_id, priority=len(wanted) - rank)


@bp.route("/new", methods=["GET", "POST"])
@login_required
def new():
    if request.method == "POST":
        return _save(None)
    return render_template("channel_form.html", fields=FIELDS, values=form_values(None), problems=[],
                           bad_fields=set(), channel_id=None, keywords="")


@bp.route("/<int:channel_id>/edit", methods=["GET", "POST"])
@login_required
def edit(channel_id: int):
    channel = _channel_or_404(channel_id)
    if request.method == "POST":
        return _save(channel_id)
    return render_template("channel_form.html", fields=FIELDS, values=form_values(channel), problems=[],
                           bad_fields=set(), channel_id=channel_id,
                           keywords="\n".join(backends().store.channel_keywords(channel_id)))


@bp.route("/<int:channel_id>/enabled", methods=["POST"])
@login_required
def set_enabled(channel_id: int):
    channel = _channel_or_404(channel_id)
    enabled = request.form.get("enabled") == "1"
    backends().store.set_enabled(channel_id, enabled)
    flash(f"Channel {channel.name!r} {'resumed' if enabled else 'paused'}.", "ok")
    return redirect(url_for("channels.index") + f"#channel-{channel_id}")


@bp.route("/<int:channel_id>/test", methods=["POST"])
@login_required
def test(channel_id: int):
    from crawler.web.probe import probe_channel

    channel = _channel_or_404(channel_id)
    result = probe_channel(channel, current_app.config["MCRAWL_SETTINGS"],
                           keyword=(request.form.get("keyword") or "").strip() or None)
    return render_template("channel_test.html", channel=as_dict(channel), result=result)
