"""QR codes decode (with a real decoder) to the right seat, on an address phones can reach."""

import random
import re
import string
from urllib.parse import urlsplit

import pytest
import qrcode
import zxingcpp

from companion.cryptid import load_game
from companion.cryptid.text import clue_text
from companion.web.core.app import create_app
from companion.web.core.network import is_local_host, lan_address, phone_base_url
from companion.web.core.qr import BORDER, MASK_PATTERN, qr_svg
from companion.web.cryptid.tokens import host_token, read_seat_token
from tests.helpers import GOLDEN
from tests.helpers.qr import decode_page_qr_codes, rasterize_qr

GOLDEN_CODE = GOLDEN[2]["code"]


def host_path(app, code: str) -> str:
    with app.test_request_context():
        return "/h/" + host_token(code)


@pytest.mark.parametrize("code", [GOLDEN[0]["code"], GOLDEN[-1]["code"]])
def test_each_qr_code_opens_its_own_seat(client, code, monkeypatch):
    monkeypatch.setattr("companion.web.core.network.machine_names", lambda: frozenset({"192.168.1.20"}))
    game = load_game(code)
    page = client.get(host_path(client.application, code), base_url="http://192.168.1.20:5000").get_data(as_text=True)
    urls = decode_page_qr_codes(page)
    assert len(urls) == game.players
    for seat, url in enumerate(urls, 1):
        parts = urlsplit(url)
        assert f"{parts.scheme}://{parts.netloc}" == "http://192.168.1.20:5000"
        seat_page = client.get(parts.path).get_data(as_text=True)
        assert f"Player {seat}</h1>" in seat_page
        assert all(clue_text(c) in seat_page for c in game.seat_clues(seat))


def test_qr_codes_never_point_at_localhost(app, monkeypatch):
    monkeypatch.setattr("companion.web.core.network.lan_address", lambda: "192.168.7.9")
    page = app.test_client().get(host_path(app, GOLDEN[1]['code']), base_url="http://localhost:5000").get_data(as_text=True)
    urls = decode_page_qr_codes(page)
    assert urls and all(url.startswith("http://192.168.7.9:5000/s/") for url in urls)
    assert re.search(r"Phones will open <strong class=\"url\"[^>]*>http://192.168.7.9:5000</strong>", page)


def test_without_a_lan_the_host_is_warned(app, monkeypatch):
    monkeypatch.setattr("companion.web.core.network.lan_address", lambda: None)
    page = app.test_client().get(host_path(app, GOLDEN[1]['code']), base_url="http://127.0.0.1:5000").get_data(as_text=True)
    assert "which phones cannot reach" in page


def test_a_configured_public_url_wins(tmp_path):
    app = create_app({"TESTING": True, "SECRET_KEY": "k", "PUBLIC_URL": "https://cryptid.example.org/"})
    page = app.test_client().get(host_path(app, GOLDEN[1]['code'])).get_data(as_text=True)
    assert all(u.startswith("https://cryptid.example.org/s/") for u in decode_page_qr_codes(page))


@pytest.mark.parametrize(
    "host, local", [("localhost:5000", True), ("127.0.0.1", True), ("[::1]:8000", True), ("192.168.0.4:5000", False), ("cryptid.example.org", False)]
)
def test_is_local_host(host, local):
    assert is_local_host(host) is local


def test_phone_base_url():
    assert phone_base_url("http://localhost:5000/", None, "10.0.0.5") == "http://10.0.0.5:5000"
    assert phone_base_url("http://192.168.1.2:5000/", None, "10.0.0.5", frozenset({"192.168.1.2"})) == "http://192.168.1.2:5000"
    assert phone_base_url("http://box.local:5000/", None, "10.0.0.5", frozenset({"box.local"})) == "http://box.local:5000"
    assert phone_base_url("http://localhost/", "https://x.org/", "10.0.0.5") == "https://x.org"
    assert phone_base_url("http://localhost:5000/", None, None) == "http://localhost:5000"


@pytest.mark.parametrize("forged", ["evil.example", "evil.example:5000", "10.9.9.9:5000", "[2001:db8::1]:5000"])
def test_qr_codes_never_trust_a_foreign_host_header(forged):
    """The LAN address stands in for a foreign host, with the port the server was really reached on."""
    assert phone_base_url(f"http://{forged}/", None, "10.0.0.5", frozenset({"box"}), 5050) == "http://10.0.0.5:5050"
    assert phone_base_url(f"http://{forged}/", None, None, frozenset({"box"}), 5050) == "http://localhost:5050"
    assert phone_base_url(f"http://{forged}/", None, "10.0.0.5", frozenset({"box"}), 80) == "http://10.0.0.5"


def test_the_api_gives_links_with_the_servers_port_whatever_the_host_header_says(client, monkeypatch):
    monkeypatch.setattr("companion.web.core.network.lan_address", lambda: "10.0.0.5")
    for forged in ("evil.example", "evil.example:6666"):
        made = client.post("/api/tables", json={"players": 3}, headers={"Host": forged},
                           environ_overrides={"SERVER_PORT": "5050"}).get_json()
        for url in [made["host_url"], made["public_url"]] + [seat["url"] for seat in made["seats"]]:
            assert url.startswith("http://10.0.0.5:5050/"), url


def test_the_host_screen_ignores_a_forged_host_header(client):
    code = GOLDEN_CODE
    with client.application.test_request_context():
        path = "/h/" + host_token(code)
    page = client.get(path, headers={"Host": "evil.example"}).get_data(as_text=True)
    assert "evil.example" not in page


def test_lan_address_is_not_loopback():
    address = lan_address()
    assert address is None or not address.startswith("127.")


def test_secret_key_is_made_once_and_kept(tmp_path, monkeypatch):
    monkeypatch.setenv("COMPANION_INSTANCE_PATH", str(tmp_path))
    monkeypatch.delenv("COMPANION_SECRET_KEY", raising=False)
    first = create_app({"TESTING": True})
    second = create_app({"TESTING": True})
    assert first.config["SECRET_KEY"] == second.config["SECRET_KEY"]
    assert len(first.config["SECRET_KEY"]) == 64
    assert (tmp_path / "secret_key").stat().st_mode & 0o077 == 0
    code = GOLDEN[1]["code"]
    link = decode_page_qr_codes(first.test_client().get(host_path(first, code)).get_data(as_text=True))[0]
    with second.test_request_context():
        assert read_seat_token(urlsplit(link).path.rsplit("/", 1)[1]) == (code, 1)


def test_tokens_from_another_server_are_rejected(app):
    other = create_app({"TESTING": True, "SECRET_KEY": "another"})
    link = decode_page_qr_codes(other.test_client().get(host_path(other, GOLDEN[1]['code'])).get_data(as_text=True))[0]
    assert app.test_client().get(urlsplit(link).path).status_code == 404
    assert app.test_client().get(host_path(other, GOLDEN[1]["code"])).status_code == 404


def drawn_modules(svg: str) -> list[list[bool]]:
    """The modules an SVG of the site's form paints dark, row by row, quiet zone included."""
    side = int(re.search(r'viewBox="0 0 (\d+) \d+"', svg).group(1))
    modules = [[False] * side for _ in range(side)]
    for x, y, width in re.findall(r"M(\d+) (\d+)h(\d+)v1h-\3z", svg):
        for column in range(int(x), int(x) + int(width)):
            assert not modules[int(y)][column], "runs overlap"
            modules[int(y)][column] = True
    return modules


@pytest.mark.slow
def test_qr_codes_decode_to_their_exact_text():
    """Every code reads back with a real decoder as exactly its text (bytes included, so non-ASCII text too),
    at error correction M, in the smallest version that holds it, with the site's fixed mask; its path paints
    exactly the modules qrcode lays out. Over versions 1 to 10 (7 and up carry version information), links of
    every shape and texts qrcode splits into numeric and alphanumeric segments."""
    rng = random.Random(2026)
    alphabet = string.ascii_letters + string.digits + "-_."
    texts = [
        f"http://{rng.choice(['192.168.1.20:5000', '10.0.0.7', 'cryptid.example.org', '[fd00::1]:8080'])}/"
        f"{rng.choice(['s', 'h', 'decrypto/p'])}/" + "".join(rng.choice(alphabet) for _ in range(rng.randrange(1, 160)))
        for _ in range(80)
    ]
    texts += [prefix + "".join(rng.choice(alphabet) for _ in range(length))
              for prefix in ("http://10.0.0.7/s/", "https://cryptid.example.org/s/") for length in range(0, 184, 8)]
    texts += ["HTTP://CRYPTID.EXAMPLE.ORG:8080/S/" + "0123456789" * 8, "31415926535897932384626433",
              "café 日本 ελληνικά", "http://192.168.1.20:5000/décrypto/παίκτης/" + "é" * 60]
    versions = set()
    for text in texts:
        qr_svg.cache_clear()
        svg = qr_svg(text)
        (read,) = zxingcpp.read_barcodes(rasterize_qr(svg))
        assert (read.text, read.bytes) == (text, text.encode()), text
        library = qrcode.QRCode(error_correction=qrcode.constants.ERROR_CORRECT_M, border=BORDER,
                                mask_pattern=MASK_PATTERN)
        library.add_data(text)
        library.make(fit=True)
        assert read.extra["ECLevel"] == "M" and read.extra["DataMask"] == MASK_PATTERN
        assert int(read.extra["Version"]) == library.version, text
        assert drawn_modules(svg) == library.get_matrix(), text
        versions.add(library.version)
    assert set(range(1, 11)) <= versions
