"""Static files, with the site's own CSS and JavaScript served minified (comments and indentation removed).

The sources in static/ stay readable; phones download about a third less. Minifying is deliberately simple:
CSS loses comments and spaces around punctuation; JavaScript loses whole-line comments and indentation only,
so no string or regular expression can be damaged.
"""

from __future__ import annotations

import hashlib
import io
import re
from functools import lru_cache
from pathlib import Path

from flask import Flask, request, send_file, send_from_directory


def minify_css(text: str) -> str:
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    text = re.sub(r"\s+", " ", text)
    text = re.sub(r"\s*([{};:,>])\s*", r"\1", text)
    text = re.sub(r"#([0-9a-f])\1([0-9a-f])\2([0-9a-f])\3\b", r"#\1\2\3", text)  # #ffffff -> #fff
    text = re.sub(r"(?<![\w.])0(\.\d)", r"\1", text)  # 0.5 -> .5
    return text.replace(";}", "}").strip()


def minify_js(text: str) -> str:
    lines = (line.strip() for line in text.splitlines())
    return "\n".join(line for line in lines if line and not line.startswith("//")) + "\n"


MINIFIERS = {".css": (minify_css, "text/css"), ".js": (minify_js, "text/javascript")}


@lru_cache(maxsize=256)
def _minified(path: Path, changed: int) -> tuple[bytes, str, str]:
    """A file's minified body, its type and its ETag; remembered per process while the file is unchanged
    (`changed`: its modification time), so that apps made one after another (the tests') minify it once."""
    minify, mimetype = MINIFIERS[path.suffix]
    body = minify(path.read_text(encoding="utf-8")).encode()
    return body, mimetype, hashlib.blake2b(body, digest_size=8).hexdigest()


def init_app(app: Flask, folder: Path) -> None:
    """Serve `folder` (shared files, and a subfolder per game) at /static, minifying .css and .js once at start-up."""
    minified = {path.relative_to(folder).as_posix(): _minified(path, path.stat().st_mtime_ns)
                for path in folder.rglob("*") if path.suffix in MINIFIERS}

    def static(filename: str):
        if filename in minified:
            body, mimetype, etag = minified[filename]
            response = send_file(io.BytesIO(body), mimetype=mimetype, etag=etag, max_age=app.get_send_file_max_age(filename), conditional=True)
            return response.make_conditional(request)
        return send_from_directory(folder, filename, max_age=app.get_send_file_max_age(filename))

    app.add_url_rule("/static/<path:filename>", endpoint="static", view_func=static)
