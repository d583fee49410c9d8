"""`python -m companion serve`: the site on a production WSGI server (waitress: pure Python, any OS)."""

from __future__ import annotations

import waitress

from .app import create_app
from .network import lan_address


# Every phone keeps a connection open while it polls; waitress's default of 100 would lock out a big
# game night (40 tables of 5 phones plus their host screens), so allow plenty and use poll() over select().
CONNECTION_LIMIT = 1000


def serve(host: str = "0.0.0.0", port: int = 5000, threads: int = 8) -> None:
    app = create_app()
    public = app.config.get("PUBLIC_URL")
    lan = lan_address()
    print(f"Cryptid companion on http://{'localhost' if host in ('0.0.0.0', '::') else host}:{port}", flush=True)
    if public:
        print(f"Phones will open {public}", flush=True)
    elif lan and host in ("0.0.0.0", "::"):
        print(f"Phones on the same Wi-Fi: http://{lan}:{port}", flush=True)
    else:
        print("No LAN address found: phones can only reach this site if you set COMPANION_PUBLIC_URL.", flush=True)
    waitress.serve(
        app,
        host=host,
        port=port,
        threads=threads,
        connection_limit=CONNECTION_LIMIT,
        asyncore_use_poll=True,
        ident="cryptid-companion",
    )
