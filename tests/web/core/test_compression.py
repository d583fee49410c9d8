"""Pages and assets go out compressed when the browser accepts it, decode to exactly the same bytes, keep their
304s, and live-update streams are never compressed or held back."""

import gzip

import brotli
import pytest
from flask import Response, template_rendered

from companion.web.cryptid.tokens import host_token
from tests.helpers import GOLDEN

CODE = GOLDEN[3]["code"]
DECODE = {"br": brotli.decompress, "gzip": gzip.decompress}


@pytest.mark.parametrize("encoding", DECODE)
@pytest.mark.parametrize("path", ["/help/play", f"/games/{CODE}/print", "/static/style.css", "/static/play.js"])
def test_pages_and_assets_decode_to_the_same_bytes(client, path, encoding):
    plain = client.get(path)
    packed = client.get(path, headers={"Accept-Encoding": f"{encoding}, identity;q=0.5"})
    assert plain.status_code == packed.status_code == 200
    assert "Content-Encoding" not in plain.headers
    assert packed.headers["Content-Encoding"] == encoding
    assert "Accept-Encoding" in packed.headers["Vary"]
    body = packed.get_data()
    assert len(body) < len(plain.get_data()) / 2
    assert DECODE[encoding](body) == plain.get_data()


def test_brotli_is_preferred_and_html_pages_are_compressed(client):
    response = client.get(f"/games/{CODE}", headers={"Accept-Encoding": "gzip, deflate, br, zstd"})
    assert response.headers["Content-Encoding"] == "br"
    assert b'id="table"' in brotli.decompress(response.get_data())


def test_an_unchanged_asset_is_still_a_304(client):
    headers = {"Accept-Encoding": "br"}
    etag = client.get("/static/style.css", headers=headers).headers["ETag"]
    again = client.get("/static/style.css", headers={**headers, "If-None-Match": etag})
    assert again.status_code == 304 and again.get_data() == b""
    assert "Content-Encoding" not in again.headers


def test_the_polled_panel_answers_304_without_rendering(app, client):
    """The compressed panel's ETag carries the encoding; the view still recognises its own tag."""
    headers = {"Accept-Encoding": "br"}
    with app.test_request_context():
        panel = f"/h/{host_token(CODE)}/table"
    first = client.get(panel, headers=headers)
    assert first.status_code == 200 and first.headers["ETag"].endswith(':br"')
    rendered = []

    def record(sender, template, context, **extra):
        rendered.append(template.name)

    with template_rendered.connected_to(record, app):
        again = client.get(panel, headers={**headers, "If-None-Match": first.headers["ETag"]})
        changed = client.get(panel, headers={**headers, "If-None-Match": '"another:br"'})
    assert again.status_code == 304
    assert changed.status_code == 200 and len(rendered) == 1  # rendered for the changed one only


@pytest.mark.parametrize("path, status", [("/static/favicon.svg", 200), ("/api/games/not-a-code", 400)])
def test_small_responses_go_out_as_they_are(client, path, status):
    response = client.get(path, headers={"Accept-Encoding": "br, gzip"})
    assert response.status_code == status and len(response.get_data()) < 1024
    assert "Content-Encoding" not in response.headers


def test_event_streams_are_neither_compressed_nor_held_back(app):
    events = [b"event: table\ndata: one\n\n", b"event: table\ndata: two\n\n"]

    @app.get("/test-events")
    def stream():
        return Response(iter(events), mimetype="text/event-stream")

    response = app.test_client().get("/test-events", headers={"Accept-Encoding": "br, gzip"}, buffered=False)
    assert "Content-Encoding" not in response.headers
    assert list(response.response) == events  # each event its own chunk, as written
