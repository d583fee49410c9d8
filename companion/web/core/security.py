"""Response headers (a strict Content-Security-Policy and friends, privacy for pages that carry a secret),
cookies marked Secure over HTTPS, and trusting a reverse proxy's forwarded headers only when told to."""

from __future__ import annotations

import copy
import time
from functools import lru_cache

from flask import Flask, Request, Response, g, request
from flask.sessions import SecureCookieSession, SecureCookieSessionInterface
from itsdangerous import BadSignature, URLSafeTimedSerializer
from werkzeug.middleware.proxy_fix import ProxyFix

from .tokens import is_token_path

CONTENT_SECURITY_POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; object-src 'none'; "
    "base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
)
# Over HTTPS, browsers remember for a year to come back over HTTPS only (not for other subdomains: the operator's).
STRICT_TRANSPORT_SECURITY = "max-age=31536000"


def mark_private() -> None:
    """Call from a view that shows secrets: the response is never cached and leaks no referrer."""
    g.private_response = True


def _headers(response: Response) -> Response:
    response.headers.setdefault("Content-Security-Policy", CONTENT_SECURITY_POLICY)
    response.headers.setdefault("X-Content-Type-Options", "nosniff")
    response.headers.setdefault("X-Frame-Options", "DENY")
    if request.is_secure:
        response.headers.setdefault("Strict-Transport-Security", STRICT_TRANSPORT_SECURITY)
    # Any answer under a token's path is private, errors included: a 404 or 405 page still has the token in its URL.
    if g.get("private_response") or is_token_path(request.path):
        response.headers["Cache-Control"] = "no-store"
        response.headers["Referrer-Policy"] = "no-referrer"
    else:
        response.headers.setdefault("Referrer-Policy", "same-origin")
    return response


class SessionInterface(SecureCookieSessionInterface):
    """Flask's signed-cookie sessions, with the cookie marked Secure whenever the page came over HTTPS.

    A phone sends the same cookie with every poll, so each cookie's signature is checked once and its
    contents remembered (bounded, least recently used first out); the age limit is still checked each time."""

    def __init__(self) -> None:
        self._serializers: dict[tuple, URLSafeTimedSerializer | None] = {}
        self._opened = lru_cache(maxsize=4096)(self._open)

    def get_cookie_secure(self, app: Flask) -> bool:
        return request.is_secure or super().get_cookie_secure(app)

    def get_signing_serializer(self, app: Flask) -> URLSafeTimedSerializer | None:
        keys = (app.secret_key, tuple(app.config["SECRET_KEY_FALLBACKS"] or ()))
        if keys not in self._serializers:
            self._serializers[keys] = super().get_signing_serializer(app)
        return self._serializers[keys]

    def open_session(self, app: Flask, request: Request) -> SecureCookieSession | None:
        serializer = self.get_signing_serializer(app)
        value = request.cookies.get(self.get_cookie_name(app))
        if serializer is None or not value:
            return super().open_session(app, request)
        opened = self._opened(serializer, value)
        if opened is None or time.time() - opened[1] > app.permanent_session_lifetime.total_seconds():
            return self.session_class()
        return self.session_class(copy.deepcopy(opened[0]))  # a request may change its own copy only

    @staticmethod
    def _open(serializer: URLSafeTimedSerializer, value: str) -> tuple[dict, float] | None:
        try:
            data, signed = serializer.loads(value, return_timestamp=True)
        except BadSignature:
            return None
        return data, signed.timestamp()


def init_app(app: Flask) -> None:
    """TRUST_PROXY = n: n reverse proxies in front set X-Forwarded-For/-Proto/-Host/-Port (0: trust none)."""
    proxies = int(app.config.get("TRUST_PROXY") or 0)
    if proxies:
        app.wsgi_app = ProxyFix(app.wsgi_app, x_for=proxies, x_proto=proxies, x_host=proxies, x_port=proxies)
    app.session_interface = SessionInterface()
    app.after_request(_headers)
