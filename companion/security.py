"""Response headers (a strict Content-Security-Policy and friends, privacy for pages that carry a secret),
cookies marked Secure over HTTPS, and trusting a reverse proxy's forwarded headers only when told to."""

from __future__ import annotations

from flask import Flask, Response, g, request
from flask.sessions import SecureCookieSessionInterface
from werkzeug.middleware.proxy_fix import ProxyFix

CONTENT_SECURITY_POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; object-src 'none'; "
    "base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
)


def mark_private() -> None:
    """Call from a view that shows secrets: the response is never cached and leaks no referrer."""
    g.private_response = True


def _headers(response: Response) -> Response:
    response.headers.setdefault("Content-Security-Policy", CONTENT_SECURITY_POLICY)
    response.headers.setdefault("X-Content-Type-Options", "nosniff")
    response.headers.setdefault("X-Frame-Options", "DENY")
    if g.get("private_response"):
        response.headers["Cache-Control"] = "no-store"
        response.headers["Referrer-Policy"] = "no-referrer"
    else:
        response.headers.setdefault("Referrer-Policy", "same-origin")
    return response


class SessionInterface(SecureCookieSessionInterface):
    """Flask's signed-cookie sessions, with the cookie marked Secure whenever the page came over HTTPS."""

    def get_cookie_secure(self, app: Flask) -> bool:
        return request.is_secure or super().get_cookie_secure(app)


def init_app(app: Flask) -> None:
    """TRUST_PROXY = n: n reverse proxies in front set X-Forwarded-For/-Proto/-Host/-Port (0: trust none)."""
    proxies = int(app.config.get("TRUST_PROXY") or 0)
    if proxies:
        app.wsgi_app = ProxyFix(app.wsgi_app, x_for=proxies, x_proto=proxies, x_host=proxies, x_port=proxies)
    app.session_interface = SessionInterface()
    app.after_request(_headers)
