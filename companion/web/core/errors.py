"""Errors as friendly pages for people and as JSON for the API, never a traceback."""

from __future__ import annotations

from html import escape

from flask import Flask, current_app, jsonify, render_template, request
from flask_wtf.csrf import CSRFError
from sqlalchemy import event
from sqlalchemy.exc import InterfaceError, OperationalError
from sqlalchemy.exc import TimeoutError as PoolTimeout
from werkzeug.exceptions import HTTPException, InternalServerError

from .db import db
from .i18n import lazy_gettext as _l
from .outage import Outage
from .tokens import redact

# The database is down, restarting, or every connection is busy: nothing is lost, and asking again shortly works.
DATABASE_UNAVAILABLE = (OperationalError, InterfaceError, PoolTimeout)
DATABASE_RETRY_SECONDS = 5
RETRY_SECONDS = 5  # a 429's Retry-After when its limit gives none: about when a held live update answers

MESSAGES = {
    400: _l("That request did not make sense to the companion."),
    404: _l("There is nothing at this address. If you scanned a QR code, scan it again or ask the host for the link."),
    405: _l("That page cannot be used that way."),
    413: _l("That request was too large for the companion. Go back and try again."),
    429: _l("Too many requests from this network in a short time. Wait a minute, then try again."),
    500: _l("Something went wrong on the companion's side. Your game is safe: its code still gives the same game."),
    503: _l("The companion cannot reach its database just now. Your game is safe: this page tries again by itself."),
}


def wants_json() -> bool:
    return request.path.startswith("/api/")


def can_build_links() -> bool:
    """Whether the request named a host this site can build links for (a malformed Host header names none):
    Flask's own URL adapter for the request, made again, fails the same way it failed when the request came."""
    try:
        current_app.create_url_adapter(request)
    except HTTPException:
        return False
    return True


def closing_headers(environ: dict) -> list[tuple[str, str]]:
    """The header asking the server to close the connection after an answer whose request body was left unread;
    none under waitress, which reads every body before the site sees it and answers a hop-by-hop header from the
    site (PEP 3333) with a 500 of its own."""
    if "waitress.client_disconnected" in environ:  # set by waitress alone (its SERVER_SOFTWARE is ours, `serve`'s)
        return []
    return [("Connection", "close")]


def error_response(status: int, message: str):
    if wants_json():
        return jsonify(error=str(message), status=status), status
    if not can_build_links():
        # The site's page, full of links, cannot be drawn: answer with the bare message.
        body = f"<!doctype html><title>{status}</title><p>{escape(str(message))}</p>"
        return current_app.response_class(body, status=status, mimetype="text/html")
    return render_template("error.html", status=status, message=message), status


def _http_error(error: HTTPException):
    status = error.code or 500
    response = current_app.make_response(
        error_response(status, MESSAGES.get(status, MESSAGES[400] if status < 500 else MESSAGES[500]))
    )
    if status == 413:
        # The body was not read (or not whole): the next request on this connection would start inside it.
        response.headers.extend(closing_headers(request.environ))
    if status == 429:
        response.headers.setdefault("Retry-After", str(RETRY_SECONDS))
    return response


def _database_unavailable(error: Exception):
    """A database outage (or every pooled connection busy) is a 503 to ask again shortly, never a 500."""
    try:
        db.session.rollback()
    except Exception:  # the connection is gone: the session starts afresh with the next request anyway
        pass
    current_app.extensions["companion.requests_outage"].failed(error)  # one line for the whole outage
    response = current_app.make_response(error_response(503, MESSAGES[503]))
    response.headers["Retry-After"] = str(current_app.config.get("DATABASE_RETRY_SECONDS", DATABASE_RETRY_SECONDS))
    return response


def _csrf_error(error: CSRFError):
    return error_response(400, _l("This form had expired. Go back, reload the page and try again."))


def _unexpected(error: Exception):
    if isinstance(error, HTTPException):
        return _http_error(error)
    current_app.logger.exception("unexpected error on %s", redact(request.path))
    return error_response(500, MESSAGES[500])


def init_app(app: Flask) -> None:
    outage = app.extensions["companion.requests_outage"] = Outage("requests", app.logger)
    with app.app_context():  # any connection handed out (tested first on a server database) ends an outage
        event.listen(db.engine, "checkout", lambda *_: outage.succeeded())
    app.register_error_handler(CSRFError, _csrf_error)
    for error in DATABASE_UNAVAILABLE:
        app.register_error_handler(error, _database_unavailable)
    app.register_error_handler(HTTPException, _http_error)
    app.register_error_handler(InternalServerError, _unexpected)
    app.register_error_handler(Exception, _unexpected)
