"""Pages, CSS, JavaScript and JSON compressed with Brotli or gzip, whichever the browser accepts (Flask-Compress).

Responses under 1 KiB and 304s go out as they are, and so do server-sent events: text/event-stream is not in
the list, so each event reaches the phone as soon as it is written, never held back by a compressor.
"""

from __future__ import annotations

import re

from flask import Flask, request
from flask_compress import Compress

COMPRESSED_TYPES = [
    "text/html",
    "text/css",
    "text/javascript",
    "application/javascript",
    "application/json",
    "image/svg+xml",
]
ENCODINGS = ["br", "gzip"]  # Brotli is smaller; every browser accepts gzip

# Flask-Compress gives each encoding its own ETag ("v1" becomes "v1:br"), as HTTP requires.
_ENCODED_TAG = re.compile(r":(?:%s)\"" % "|".join(ENCODINGS))


def _accept_tags_of_any_encoding() -> None:
    """Let a view that answers If-None-Match itself (the polled table panel) see the tags it set ("v1"), so
    an unchanged panel is a 304 before anything is rendered."""
    header = request.environ.get("HTTP_IF_NONE_MATCH")
    if header:
        request.environ["HTTP_IF_NONE_MATCH"] = _ENCODED_TAG.sub('"', header)


def init_app(app: Flask) -> None:
    settings = {
        "COMPRESS_MIMETYPES": COMPRESSED_TYPES,
        "COMPRESS_ALGORITHM": ENCODINGS,
        "COMPRESS_ALGORITHM_STREAMING": ENCODINGS,  # static files are sent as streams
        "COMPRESS_MIN_SIZE": 1024,  # smaller responses fit in one packet anyway
    }
    for name, value in settings.items():
        app.config.setdefault(name, value)
    Compress(app)
    app.before_request(_accept_tags_of_any_encoding)
