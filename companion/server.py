"""`python -m companion serve`: the site on a production WSGI server (waitress: pure Python, any OS)."""

from __future__ import annotations

import waitress

from .app import create_app
from .network import lan_address


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
    waitress.serve(app, host=host, port=port, threads=threads, ident="cryptid-companion")
